"""Dendria's MCTS iterations in compiled code (see :mod:`hexgames._ctree`).

One compiled call runs many iterations of :class:`hexgames.ai.mcts.MCTSPlayer`'s search
with random games at the leaves (Dendria's levels 2 to 5 value leaves so): descend the
tree playing steps on a copy of the position's state, expand a node in the order of
:func:`priors` (the compiled form of :func:`.evaluation.action_priors`), prove a new node
won when its player can end the game at once with the lead (:func:`wins_at_once`, the
compiled form of :func:`.evaluation.winning_actions`), else value it by a short random
game (:data:`LEAF_STEPS` steps of :func:`.core.random_playouts`) and the expected
result of a whole random game from where it stopped, estimated by :mod:`.leaf_value`;
undo back to the root and back the value up.

Why: a leaf's random game is compiled already; in Python, the tree walk, the step lists
of the descent, the priors and the copy of the position's state for each game cost about
as much again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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
    CompiledTree,
    backup,
    drop_stale_search_cache,
    expand,
    has_room,
    select,
)
from hexgames._jit import njit, njit_inner
from hexgames.dendria import _layout, _repetition, _sight, core, leaf_value
from hexgames.dendria._layout import (
    A_CONVERT,
    A_END,
    A_GROW,
    A_PASS,
    A_SPROUT,
    A_SWAP,
    M_HASH,
    M_NFRAME,
    M_NLOG,
    M_OVER,
    M_PASSES,
    M_PHASE,
    M_PIE,
    M_QUIET,
    M_SWAPPED,
    M_TO,
    P_N,
    P_QT,
    Z_TO,
)
from hexgames.dendria._repetition import _seen_has
from hexgames.dendria.core import (
    _apply_step,
    _full_key,
    _undo_step,
    core_for,
    generate,
    random_playouts,
    winner_seat,
)
from hexgames.dendria.leaf_value import NUM_FEATURES, seat_value
from hexgames.dendria.rules import AFTER_PLANT, PIE_PENDING, START

#: Random steps a new leaf's game plays before its expected result is estimated
#: (:mod:`.leaf_value`): a few steps mix in the variety of the random games, the
#: estimate spares the rest of them (docs/ai.md, "A fitted value of the random game").
LEAF_STEPS = 20


@njit_inner(nrt=False)
def _group_size(nbr, cells, t, seen, stack):  # type: ignore[no-untyped-def]
    """Cells of the group (same piece code, connected) holding cell ``t``; ``seen`` and
    ``stack`` are scratch of ``n`` cells (``seen`` is left all zero)."""
    v = cells[t]
    seen[t] = 1
    stack[0] = t
    sp = 1
    size = 0
    while sp:
        sp -= 1
        c = stack[sp]
        stack[size] = c  # the group's cells, below the stack's top, to clear ``seen``
        size += 1
        for d in range(6):
            j = nbr[c, d]
            if j >= 0 and cells[j] == v and not seen[j]:
                seen[j] = 1
                stack[sp] = j
                sp += 1
    for x in range(size):
        seen[stack[x]] = 0
    return size


@njit(nrt=False)
def priors(tab, prm, cells, to_move, codes, m, seen, stack, out):  # type: ignore[no-untyped-def]
    """:func:`.evaluation.action_priors` of the ``m`` step ``codes``, into ``out``:
    converting and growing one's own seedbeds first (bigger groups first), then
    sprouting one's own seeds and ending the turn; helping the opponent and passing
    last. ``seen`` (all zero) and ``stack``: scratch of ``n`` cells."""
    nbr = tab[0]
    kinds = tab[6]
    targets = tab[7]
    for x in range(m):
        code = codes[x]
        kind = kinds[code]
        if kind == A_GROW or kind == A_CONVERT or kind == A_SPROUT:  # noqa: SIM109
            t = targets[code]
            own = (0 if cells[t] <= 3 else 1) == to_move  # codes 1-3 Dark's, 4-6 Light's
            if kind == A_SPROUT:
                out[x] = 1.0 if own else -1.5
                continue
            size = _group_size(nbr, cells, t, seen, stack)
            if kind == A_CONVERT:
                out[x] = 4.0 + 0.5 * size
            else:
                out[x] = 3.0 + 0.5 * size if own else -2.0
        elif kind == A_END:
            out[x] = 0.5
        elif kind == A_PASS:
            out[x] = -0.5
        else:  # plant, leg, continue, swap
            out[x] = 0.3


@njit_inner(nrt=False)
def _seat_value(seat):  # type: ignore[no-untyped-def]
    """The result for seat 0 of a game won by ``seat`` (-1: equal scores or cut off)."""
    if seat == 0:
        return 1.0
    if seat == 1:
        return -1.0
    return 0.0


@njit(nrt=False)
def wins_at_once(tab, prm, cells, meta, log, frames, seen, scratch):  # type: ignore[no-untyped-def]
    """Whether the player to act can end the game at once with the lead:
    :func:`.evaluation.winning_actions` is not empty. Only ``pass``, ``swap`` and
    ``end`` end a game, and only when the pass rule or the quiet limit is about to
    trigger; those few are played, checked and taken back."""
    n = prm[P_N]
    last_quiet = meta[M_QUIET] + 1 >= prm[P_QT]
    seat = meta[M_TO] ^ meta[M_SWAPPED]
    phase = meta[M_PHASE]
    stack = scratch[7 * n : 8 * n]
    for code in range(3):  # A_END, A_PASS, A_SWAP
        if phase == START:
            if code == A_PASS:
                ok = last_quiet or meta[M_PASSES] == 1
            elif code == A_SWAP:
                ok = last_quiet and meta[M_PIE] == PIE_PENDING
            else:
                ok = False
        else:
            # ``end`` after a plant never ends the game (a plant resets the quiet count),
            # and is refused when it would repeat an earlier position
            ok = (code == A_END and phase != AFTER_PLANT and last_quiet
                  and not _seen_has(seen, meta[M_HASH] ^ tab[10][Z_TO + 1 - meta[M_TO]]))
        if not ok:
            continue
        _apply_step(tab, prm, cells, meta, log, frames, seen, np.int32(code), stack)
        won = meta[M_OVER] != 0 and winner_seat(tab, prm, cells, meta, scratch) == seat
        _undo_step(cells, meta, log, frames, seen)
        if won:
            return True
    return False


@njit(nrt=False)
def _playout(tab, prm, cells, meta, seen, winners, lengths, wcells, wmeta, wlog, wframes,  # type: ignore[no-untyped-def]
             wseen, wmemo, wout, whd, wscratch, leaf_steps, weights, feats):
    """The value for seat 0 of a new leaf (in the ``w*`` buffers; the state is left as
    it was): ``leaf_steps`` random steps, then the fitted expected result of a random
    game from there (:func:`.leaf_value.seat_value`; exact if the game ended on the
    way)."""
    random_playouts(tab, prm, cells, meta, seen, np.int64(1), np.random.randint(0, 2**31 - 1),
                    leaf_steps, winners, lengths, wcells, wmeta, wlog, wframes, wseen, wmemo,
                    wout, whd, wscratch)
    if wmeta[M_OVER] == 0:
        return seat_value(tab, prm, wcells, wmeta, wscratch, weights, feats)
    return _seat_value(winners[0])


@njit(nrt=False)
def run(tab, prm, cells, meta, log, frames, seen, memo, out, hd, scratch,  # type: ignore[no-untyped-def]
        wcells, wmeta, wlog, wframes, wseen, wmemo, wout, whd, wscratch, pri,
        NI, NV, PA, PC, CT, path, root, iterations, seed, settings, winners, lengths,
        leaf_steps, weights, feats):
    """Up to ``iterations`` MCTS iterations from ``root`` on the state ``cells`` ...
    ``scratch`` (left as it was), the leaves' random games played in the ``w*``
    buffers, numba's random sequence seeded with ``seed`` (-1: not reseeded);
    ``winners`` and ``lengths``: one int64 each, a leaf game's result. Returns the
    iterations done; ``CT[C_STATUS]`` says why it stopped early (tree full, undo
    room)."""
    n = prm[P_N]
    stack = scratch[7 * n : 8 * n]
    group_seen = scratch[8 * n : 9 * n]
    group_stack = scratch[9 * n : 10 * n]
    c = settings[0]
    widen_base = settings[1]
    widen_factor = settings[2]
    tactics = settings[3] > 0
    if seed >= 0:  # else go on with the sequence of the last call (after growing)
        np.random.seed(seed)
    most = out.shape[0]
    for x in range(n):
        group_seen[x] = 0
    if NI[root, F_SEAT] < 0:
        NI[root, F_SEAT] = meta[M_TO] ^ meta[M_SWAPPED]
        NI[root, F_KEY] = _full_key(tab, meta)
        if meta[M_OVER]:
            NV[root, V_RESULT] = _seat_value(winner_seat(tab, prm, cells, meta, scratch))
    log_room = 4 * n + 64  # what one step (and a finishability search) may log
    frame_room = 2 * n + 64
    done = 0
    while done < iterations and np.isnan(NV[root, V_RESULT]):
        if not has_room(NI, PA, CT, most):
            CT[C_STATUS] = ST_TREE_FULL
            break
        node = root
        path[0] = root
        plen = 1
        played = 0
        value = 0.0
        while True:
            r = NV[node, V_RESULT]
            if not np.isnan(r):
                value = r
                break
            if NI[node, F_POOL] < 0:
                m = generate(tab, prm, cells, meta, log, frames, seen, memo, out, hd, scratch)
                np.random.shuffle(out[:m])  # random tie-breaks among equal priors
                priors(tab, prm, cells, meta[M_TO], out, m, group_seen, group_stack, pri)
                expand(NI, PA, CT, node, out, pri, m)
                if m == 0:  # no step though the game goes on (the rules leave none)
                    break
            if (meta[M_NLOG] + log_room > log.shape[0]
                    or meta[M_NFRAME] + frame_room > frames.shape[0]):
                # no undo room for a deeper line: value this (visited) node by a random
                # game and ask for room before the next iteration
                CT[C_STATUS] = ST_ROOM
                value = _playout(tab, prm, cells, meta, seen, winners, lengths, wcells,
                                 wmeta, wlog, wframes, wseen, wmemo, wout, whd, wscratch,
                                 leaf_steps, weights, feats)
                break
            child = select(NI, NV, PA, PC, CT, node, c, widen_base, widen_factor)
            if child < 0:  # every action proven lost, or all proven: the node is solved
                r = NV[node, V_RESULT]
                value = 0.0 if np.isnan(r) else r
                break
            _apply_step(tab, prm, cells, meta, log, frames, seen, np.int32(NI[child, F_ACT]),
                        stack)
            played += 1
            path[plen] = child
            plen += 1
            if NI[child, F_VISITS] == 0:  # a new node: exact value if decided, else a game
                seat = meta[M_TO] ^ meta[M_SWAPPED]
                NI[child, F_SEAT] = seat
                NI[child, F_KEY] = _full_key(tab, meta)
                if meta[M_OVER]:
                    value = _seat_value(winner_seat(tab, prm, cells, meta, scratch))
                    NV[child, V_RESULT] = value
                elif tactics and wins_at_once(tab, prm, cells, meta, log, frames, seen,
                                              scratch):
                    value = 1.0 if seat == 0 else -1.0
                    NV[child, V_RESULT] = value
                else:
                    value = _playout(tab, prm, cells, meta, seen, winners, lengths, wcells,
                                     wmeta, wlog, wframes, wseen, wmemo, wout, whd, wscratch,
                                     leaf_steps, weights, feats)
                break
            node = child
        for _ in range(played):
            _undo_step(cells, meta, log, frames, seen)
        backup(NI, NV, path, plen, value)
        done += 1
        if CT[C_STATUS] != 0:
            break
    return done


def priors_of(position: Any, steps: Any) -> list[float]:
    """:func:`priors` of ``steps`` (legal in ``position``), for the tests to compare with
    :func:`.evaluation.action_priors`."""
    state = position.core_state()
    core = state.core
    codes = np.array([core.code_of(s) for s in steps], np.int32)
    out = np.zeros(len(codes), np.float64)
    n = core.n
    priors(core.tab, core.params, state.cells, int(state.meta[M_TO]), codes, len(codes),
           np.zeros(n, np.int16), np.zeros(n, np.int16), out)
    return out.tolist()


def _search_state(position: Any) -> Any:
    """An independent core state of ``position`` (undo room empty) whose
    earlier-positions table is as large as a whole game needs: the search and its
    random games add turns to it without growing it."""
    state = position.core_state()
    state.widen_history()
    return state


def wins_at_once_of(position: Any) -> bool:
    """:func:`wins_at_once` of ``position``, for the tests to compare with
    :func:`.evaluation.winning_actions`."""
    s = _search_state(position)
    core = s.core
    return bool(wins_at_once(core.tab, core.params, s.cells, s.meta, s.log, s.frames,
                             s.seen, s.scratch))


class TreeSearch(CompiledTree):
    """The compiled tree of one :class:`~hexgames.ai.mcts.MCTSPlayer` (what
    ``Kernel.tree_search()`` returns). Works on a copy of a position's state: the
    position handed to :meth:`set_root` is never changed."""

    def __init__(self, nodes: int = 4096, pool: int = 65536,
                 leaf_steps: int = LEAF_STEPS) -> None:
        """``leaf_steps``: random steps from a new leaf before its value is estimated
        (:mod:`.leaf_value`)."""
        super().__init__(nodes, pool)
        if leaf_steps < 0:
            raise ValueError(f"leaf_steps must be at least 0, got {leaf_steps}")
        self.leaf_steps = leaf_steps
        self._leaf = (np.int64(leaf_steps), leaf_value.WEIGHTS.copy(),
                      np.zeros(NUM_FEATURES, np.float64))

    def _core_of(self, position: Any) -> Any:
        return core_for(position.rules)

    def _action_code(self, action: Any) -> int:
        return int(self._core.code_of(action))

    def _action_of(self, code: int) -> Any:
        return self._core.to_step(code)

    def _load(self, position: Any) -> None:
        """Copy the position's state (its undo room starts empty: the search takes back
        only its own steps) with an earlier-positions table as large as a whole game
        needs, and make the buffers of the leaves' random games."""
        state = _search_state(position)
        self._s = state
        work = state.copy()  # the random games' buffers (reset per game)
        work.seen = np.empty_like(state.seen)
        self._w = work
        self._pri = np.zeros(len(state.out), np.float64)
        self._leaf_game = (np.zeros(1, np.int64), np.zeros(1, np.int64))  # winner, length

    def _grow_room(self) -> None:
        s = self._s
        s.log = np.concatenate([s.log, np.zeros_like(s.log)])
        s.frames = np.concatenate([s.frames, np.zeros_like(s.frames)])

    def _run(self, iterations: int, seed: int, settings: np.ndarray) -> int:
        c = self._core
        s = self._s
        w = self._w
        return int(run(c.tab, c.params, s.cells, s.meta, s.log, s.frames, s.seen, s.memo,
                       s.out, s.hd, s.scratch, w.cells, w.meta, w.log, w.frames, w.seen,
                       w.memo, w.out, w.hd, w.scratch, self._pri,
                       self.NI, self.NV, self.PA, self.PC, self.CT,
                       self._path_for(iterations), self.root, iterations, seed, settings,
                       *self._leaf_game, *self._leaf))


# the compiled code here has the rules', the leaf values' and the tree's compiled
# functions and the layout's constants built in (see drop_stale_cache)
drop_stale_search_cache(__name__, core.__file__, _layout.__file__, _repetition.__file__,
                        _sight.__file__, leaf_value.__file__)

__all__ = ["LEAF_STEPS", "TreeSearch", "priors", "priors_of", "run", "wins_at_once",
           "wins_at_once_of"]
