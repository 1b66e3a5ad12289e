"""Benediction's compiled tree searched with a learned evaluator at the leaves (see
:mod:`hexgames._cleaves`): :func:`gather` is one round of :func:`._search.run`'s
descents that stops at new leaves instead of playing random games there, and writes
each leaf's observation (:func:`.vector.observe`, the planes the vector environment
gives), legal-id mask and seat for the evaluator.

Kept apart from :mod:`._search` so that the level 5 search, which the web app compiles
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
    select,
)
from hexgames._jit import njit, view_nd
from hexgames.benediction import (
    _layout,
    _legal_actions,
    _position_kernels,
    _search,
    _tables,
    core,
    vector,
)
from hexgames.benediction._layout import (
    FRAME_LEN,
    M_FCAP,
    M_LCAP,
    M_NFRAME,
    M_NLOG,
    M_TO,
    M_WIN,
    P_K,
    P_N,
    WIN_NONE,
)
from hexgames.benediction._legal_actions import generate, passed_wall
from hexgames.benediction._position_kernels import _core_parts, _fill, _pos_parts, _unpack, pos_wins
from hexgames.benediction._search import _value, priors
from hexgames.benediction._tables import RED
from hexgames.benediction.core import _apply_rules, _settle, _stuck, state_key, undo
from hexgames.benediction.encoding import (
    RESEARCH_TURN_CAP,
    num_distinct_actions,
    observation_shape,
)
from hexgames.benediction.vector import id_tables, observe


@njit
def gather(CW, PB, FL, lx, dist, NI, NV, PA, PC, CT, path, root, most, iterations, seed,  # type: ignore[no-untyped-def]
           settings, paths, starts, codes, counts, gpri, obs, masks, seats, code_ids,
           coords, cap_turns):
    """One round from ``root`` on the position in ``PB``/``FL`` (left as it was): up to
    ``most`` pending leaves, ``exact + pending <= iterations``; returns ``(exact,
    pending)``, ``CT[C_STATUS]`` saying why it stopped early (tree full, undo room,
    paths full). A new node is proven as :func:`._search.run` proves it; an unproven
    node not expanded yet (a new one, or a fresh root) is a leaf: its legal codes
    (shuffled, as ``run`` shuffles them), their :func:`._search.priors`, observation
    for its player to act, legal-id mask and seat go to row ``pending`` of the
    buffers."""
    G, W, WB = _core_parts(CW)
    geo, params = _unpack(G)
    n = params[P_N]
    S8, meta = _pos_parts(PB, n)
    owner = S8[0:n]
    size = S8[n : 2 * n]
    flags = S8[2 * n : 3 * n]
    near = S8[3 * n : 4 * n]
    fcap = meta[M_FCAP]
    lcap = meta[M_LCAP]
    frames = view_nd(FL[0 : fcap * FRAME_LEN], (fcap, FRAME_LEN))
    log = view_nd(FL[fcap * FRAME_LEN : fcap * FRAME_LEN + lcap * 4], (lcap, 4))
    na = n * n * params[P_K] + 2 * n
    work = W[0:na]
    scratch = W[na : na + 5 * n]
    c = settings[0]
    widen_base = settings[1]
    widen_factor = settings[2]
    tactics = settings[3] > 0
    if seed >= 0:
        np.random.seed(seed)
    longest = lx.shape[0]
    wins = np.empty(longest, np.int32)
    kings = np.empty(n, np.bool_)
    if NI[root, F_SEAT] < 0:
        NI[root, F_SEAT] = meta[M_TO] - 1
        NI[root, F_KEY] = state_key(geo, meta)
        if meta[M_WIN] != WIN_NONE:
            NV[root, V_RESULT] = _value(meta[M_WIN])
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
        m = -1  # the node's legal list is in ``lx[:m]`` (-1: not listed)
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
                if m < 0:
                    m = _fill(params, owner, meta, work,
                              generate(geo, params, owner, size, flags, near, meta, work, WB,
                                       scratch), lx)
                row = codes[pending]
                for x in range(m):
                    row[x] = lx[x]
                np.random.shuffle(row[:m])  # random tie-breaks among equal priors
                priors(geo, params, owner, size, flags, meta[M_TO], dist, row, m, kings,
                       gpri[pending])
                counts[pending] = m
                write_mask(masks, pending, row, m, code_ids)
                seats[pending] = NI[node, F_SEAT]
                observe(params, coords, owner, size, flags, meta, meta[M_TO] - 1, cap_turns,
                        obs[pending])
                end = END_LEAF
                break
            if meta[M_NFRAME] + 2 >= fcap or meta[M_NLOG] + 2 * (3 * n + 16) > lcap:
                CT[C_STATUS] = ST_ROOM
                break
            child = select(NI, NV, PA, PC, CT, node, c, widen_base, widen_factor)
            if child < 0:  # every action proven lost, or all proven: the node is solved
                r = NV[node, V_RESULT]
                value = 0.0 if np.isnan(r) else r
                end = END_EXACT
                break
            ext = NI[child, F_ACT]
            code = ext - na if ext >= na else ext
            _apply_rules(geo, params, owner, size, flags, near, meta, log, frames, code,
                         passed_wall(geo, params, owner, size, meta, code, scratch), scratch)
            played += 1
            path[plen] = child
            plen += 1
            m = -1
            if NI[child, F_VISITS] == 0:  # a new node: proven if decided, else a leaf
                if meta[M_WIN] == WIN_NONE:
                    m = generate(geo, params, owner, size, flags, near, meta, work, WB,
                                 scratch)
                    if m == 0:
                        _stuck(meta)
                _settle(meta)
                NI[child, F_SEAT] = meta[M_TO] - 1
                NI[child, F_KEY] = state_key(geo, meta)
                if meta[M_WIN] != WIN_NONE:
                    NV[child, V_RESULT] = _value(meta[M_WIN])
                else:
                    m = _fill(params, owner, meta, work, m, lx)
                    if tactics and pos_wins(CW, PB, FL, lx, m, wins) > 0:
                        NV[child, V_RESULT] = 1.0 if meta[M_TO] == RED else -1.0
            node = child
        for _ in range(played):
            undo(geo, params, owner, size, flags, near, meta, log, frames)
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
def _layout_of(rules: Any) -> tuple[tuple[int, ...], int, np.ndarray, float, np.ndarray]:
    """``(observation_shape, num_actions, code_ids, cap_turns, coords)`` of a variant:
    ``code_ids`` maps the search's extended action codes (a merge is its move's code
    plus the number of codes) to research ids."""
    core_to_id, _ = id_tables(rules)
    code_ids = np.concatenate([core_to_id, core_to_id]).astype(np.int64)
    coords = np.array(core.core_for(rules).tables.board.coords, np.int64)
    return (observation_shape(rules), num_distinct_actions(rules), code_ids,
            float(rules.max_turns or RESEARCH_TURN_CAP), coords)


class TreeSearch(_search.TreeSearch, LeafBatches):
    """:class:`._search.TreeSearch` that also searches with a learned evaluator
    (:meth:`~hexgames._cleaves.LeafBatches.run_evaluated`): what ``Kernel.tree_search()``
    returns."""

    def _variant_layout(self) -> tuple[Any, ...]:
        return _layout_of(self._core.rules)

    def _list_size(self) -> int:
        return len(self._lx)

    def _gather(self, leaves: LeafBuffers, most: int, iterations: int, seed: int,
                settings: np.ndarray) -> tuple[int, int]:
        cap_turns, coords = self._variant_layout()[3:]
        exact, pending = gather(
            self._CW, self._PB, self._FL, self._lx, self._dist, self.NI, self.NV, self.PA,
            self.PC, self.CT, self._path_for(iterations), self.root, np.int64(most),
            np.int64(iterations), np.int64(seed), settings, leaves.paths, leaves.starts,
            leaves.codes, leaves.counts, leaves.priors, leaves.observations, leaves.masks,
            leaves.seats, leaves.code_ids, coords, cap_turns)
        return int(exact), int(pending)


# the compiled code here has the search's, the rules', the position kernels', the
# vector batch's and the trees' compiled functions built in (see drop_stale_cache)
drop_stale_leaves_cache(__name__, _search.__file__, core.__file__, _legal_actions.__file__,
                        _position_kernels.__file__, _layout.__file__, _tables.__file__,
                        vector.__file__)

__all__ = ["TreeSearch", "gather"]
