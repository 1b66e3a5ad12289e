"""Dendria's compiled tree searched with a learned evaluator at the leaves (see
:mod:`hexgames._cleaves`): :func:`gather` is one round of :func:`._search.run`'s
descents that stops at new leaves instead of playing random games there, and writes
each leaf's observation (:func:`.vector.observe`, the planes the vector environment
gives), legal-id mask (step codes are the research ids) and seat for the evaluator.

Kept apart from :mod:`._search` so that the levels' search, which the web app compiles
at its warm-up, compiles nothing of it: a search with an evaluator compiles this on its
first round.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexgames._cleaves import (
    END_COLLISION,
    END_EXACT,
    END_LEAF,
    END_STOP,
    PENDING,
    ST_PATH,
    LeafBatches,
    LeafBuffers,
    drop_stale_leaves_cache,
    has_room,
    pend,
    variant_cache,
    write_mask,
)
from hexgames._ctree import (
    C_STATUS,
    F_ACT,
    F_KEY,
    F_POOL,
    F_SEAT,
    F_VISITS,
    ST_ROOM,
    ST_TREE_FULL,
    V_RESULT,
    backup,
    expand,
    select,
)
from hexgames._jit import njit
from hexgames.dendria import _layout, _repetition, _search, _sight, core, vector
from hexgames.dendria._layout import (
    A_LEG,
    M_NFRAME,
    M_NLOG,
    M_OVER,
    M_PHASE,
    M_SWAPPED,
    M_TO,
    P_N,
)
from hexgames.dendria._search import _seat_value, priors, wins_at_once
from hexgames.dendria.core import _apply_step, _full_key, _undo_step, generate, winner_seat
from hexgames.dendria.encoding import num_distinct_actions, observation_shape
from hexgames.dendria.rules import START
from hexgames.dendria.vector import observe


@njit
def gather(tab, prm, cells, meta, log, frames, seen, memo, out, hd, scratch, pri,  # type: ignore[no-untyped-def]
           NI, NV, PA, PC, CT, path, root, most, iterations, seed, settings, origin0,
           paths, starts, codes, counts, gpri, obs, masks, seats, code_ids, xs, ys):
    """One round from ``root`` on the state ``cells`` ... ``scratch`` (left as it was):
    up to ``most`` pending leaves, ``exact + pending <= iterations``; returns ``(exact,
    pending)``, ``CT[C_STATUS]`` saying why it stopped early (tree full, undo room,
    paths full). A new node is proven as :func:`._search.run` proves it; an unproven
    node not expanded yet (a new one, or a fresh root) is a leaf: its legal codes
    (shuffled, as ``run`` shuffles them), their :func:`._search.priors`, observation
    for its player to act, legal-id mask and seat go to row ``pending`` of the
    buffers. ``origin0``: the cell the root's turn's leg started from (-1 if none), for
    the observation (the leg origin plane), followed down each descent as the vector
    environment follows it."""
    n = prm[P_N]
    stack = scratch[7 * n : 8 * n]
    group_seen = scratch[8 * n : 9 * n]
    group_stack = scratch[9 * n : 10 * n]
    kinds = tab[6]
    leg_origins = tab[8]
    c = settings[0]
    widen_base = settings[1]
    widen_factor = settings[2]
    tactics = settings[3] > 0
    if seed >= 0:
        np.random.seed(seed)
    longest = out.shape[0]
    for x in range(n):
        group_seen[x] = 0
    if NI[root, F_SEAT] < 0:
        NI[root, F_SEAT] = meta[M_TO] ^ meta[M_SWAPPED]
        NI[root, F_KEY] = _full_key(tab, meta)
        if meta[M_OVER]:
            NV[root, V_RESULT] = _seat_value(winner_seat(tab, prm, cells, meta, scratch))
    log_room = 4 * n + 64  # as run: what one step (and a finishability search) may log
    frame_room = 2 * n + 64
    exact = 0
    pending = 0
    starts[0] = 0
    while (exact + pending < iterations and pending < most
           and np.isnan(NV[root, V_RESULT])):
        if not has_room(NI, PA, CT, longest, pending):
            CT[C_STATUS] = ST_TREE_FULL
            break
        node = root
        path[0] = root
        plen = 1
        played = 0
        value = 0.0
        origin = origin0
        end = END_STOP
        while True:
            r = NV[node, V_RESULT]
            if not np.isnan(r):
                value = r
                end = END_EXACT
                break
            if NI[node, F_POOL] == PENDING:
                end = END_COLLISION
                break
            if NI[node, F_POOL] < 0:  # a leaf for the evaluator
                if starts[pending] + plen > paths.shape[0]:
                    CT[C_STATUS] = ST_PATH
                    break
                m = generate(tab, prm, cells, meta, log, frames, seen, memo, out, hd, scratch)
                if m == 0:  # no step though the game goes on: as run values it
                    expand(NI, PA, CT, node, out, pri, m)
                    end = END_EXACT
                    break
                row = codes[pending]
                for x in range(m):
                    row[x] = out[x]
                np.random.shuffle(row[:m])  # random tie-breaks among equal priors
                priors(tab, prm, cells, meta[M_TO], row, m, group_seen, group_stack,
                       gpri[pending])
                counts[pending] = m
                write_mask(masks, pending, row, m, code_ids)
                seats[pending] = NI[node, F_SEAT]
                observe(prm, cells, meta, origin, xs, ys, obs[pending])
                end = END_LEAF
                break
            if (meta[M_NLOG] + log_room > log.shape[0]
                    or meta[M_NFRAME] + frame_room > frames.shape[0]):
                CT[C_STATUS] = ST_ROOM
                break
            child = select(NI, NV, PA, PC, CT, node, c, widen_base, widen_factor)
            if child < 0:  # every action proven lost, or all proven: the node is solved
                r = NV[node, V_RESULT]
                value = 0.0 if np.isnan(r) else r
                end = END_EXACT
                break
            code = np.int32(NI[child, F_ACT])
            _apply_step(tab, prm, cells, meta, log, frames, seen, code, stack)
            if kinds[code] == A_LEG:
                origin = leg_origins[code]
            if meta[M_PHASE] == START:
                origin = -1
            played += 1
            path[plen] = child
            plen += 1
            if NI[child, F_VISITS] == 0:  # a new node: proven if decided, else a leaf
                seat = meta[M_TO] ^ meta[M_SWAPPED]
                NI[child, F_SEAT] = seat
                NI[child, F_KEY] = _full_key(tab, meta)
                if meta[M_OVER]:
                    NV[child, V_RESULT] = _seat_value(winner_seat(tab, prm, cells, meta,
                                                                  scratch))
                elif tactics and wins_at_once(tab, prm, cells, meta, log, frames, seen,
                                              scratch):
                    NV[child, V_RESULT] = 1.0 if seat == 0 else -1.0
            node = child
        for _ in range(played):
            _undo_step(cells, meta, log, frames, seen)
        if end == END_EXACT:
            backup(NI, NV, path, plen, value)
            exact += 1
        elif end == END_LEAF:
            pend(NI, NV, path, plen, paths, starts, pending)
            pending += 1
        if end >= END_COLLISION:  # a collision, or a status to handle first
            break
    return exact, pending


@variant_cache
def _layout_of(rules: Any) -> tuple[tuple[int, ...], int, np.ndarray, np.ndarray, np.ndarray]:
    """``(observation_shape, num_actions, code_ids, xs, ys)`` of a variant (step codes
    are the research ids: ``code_ids`` is the identity)."""
    coords = np.array(core.core_for(rules).board.coords, np.int64)
    num_actions = num_distinct_actions(rules)
    return (observation_shape(rules), num_actions, np.arange(num_actions, dtype=np.int64),
            coords[:, 0].copy(), coords[:, 1].copy())


def leg_origin(position: Any) -> int:
    """The cell the moving dendrid's leg started from this turn, -1 if none (what the
    observation's leg origin plane shows)."""
    for step in position.turn_steps():
        if step.kind == "leg":
            return int(position.board.index(step.origin))
    return -1


class TreeSearch(_search.TreeSearch, LeafBatches):
    """:class:`._search.TreeSearch` that also searches with a learned evaluator
    (:meth:`~hexgames._cleaves.LeafBatches.run_evaluated`): what ``Kernel.tree_search()``
    returns."""

    _origin = -1

    def set_root(self, position: Any) -> int:
        self._origin = leg_origin(position)
        return super().set_root(position)

    def _variant_layout(self) -> tuple[Any, ...]:
        return _layout_of(self._core.rules)

    def _list_size(self) -> int:
        return len(self._s.out)

    def _gather(self, leaves: LeafBuffers, most: int, iterations: int, seed: int,
                settings: np.ndarray) -> tuple[int, int]:
        c = self._core
        s = self._s
        xs, ys = self._variant_layout()[3:]
        exact, pending = gather(
            c.tab, c.params, s.cells, s.meta, s.log, s.frames, s.seen, s.memo, s.out, s.hd,
            s.scratch, self._pri, self.NI, self.NV, self.PA, self.PC, self.CT,
            self._path_for(iterations), self.root, np.int64(most), np.int64(iterations),
            np.int64(seed), settings, np.int64(self._origin), leaves.paths, leaves.starts,
            leaves.codes, leaves.counts, leaves.priors, leaves.observations, leaves.masks,
            leaves.seats, leaves.code_ids, xs, ys)
        return int(exact), int(pending)


# the compiled code here has the search's, the rules', the vector batch's and the trees'
# compiled functions and the layout's constants built in (see drop_stale_cache)
drop_stale_leaves_cache(__name__, _search.__file__, core.__file__, _layout.__file__,
                        _repetition.__file__, _sight.__file__, vector.__file__)

__all__ = ["TreeSearch", "gather", "leg_origin"]
