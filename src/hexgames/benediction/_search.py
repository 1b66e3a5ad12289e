"""Benediction's MCTS iterations in compiled code (see :mod:`hexgames._ctree`).

One compiled call runs many iterations of :class:`hexgames.ai.mcts.MCTSPlayer`'s search
with random games at the leaves (level 5): descend the tree playing actions on a copy of
the position's buffers, expand a node in the order of :func:`priors` (the compiled form
of :func:`.evaluation.action_priors`), prove a new node won when its player to act has
an immediately winning action (:func:`.core.pos_wins`), else value it by one random game
(:func:`.core.random_playouts`), undo back to the root and back the value up.
"""

from __future__ import annotations

from functools import cache
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
from hexgames._jit import njit, njit_inner, view_nd
from hexgames.benediction import _layout, _legal_actions, _position_kernels, _tables, core
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
    meta_at,
)
from hexgames.benediction._legal_actions import generate, passed_wall
from hexgames.benediction._position_kernels import (
    _core_parts,
    _fill,
    _pos_parts,
    _unpack,
    buffer_of,
    doubled_room,
    pos_wins,
)
from hexgames.benediction._tables import BLUE, KING, RED, wall_distance
from hexgames.benediction.core import (
    CoreState,
    _apply_rules,
    _settle,
    _stuck,
    random_playouts,
    state_key,
    undo,
)


@njit
def priors(geo, params, owner, size, flags, to_move, dist, codes, m, near, out):  # type: ignore[no-untyped-def]
    """:func:`.evaluation.action_priors` of the ``m`` extended ``codes``, into ``out``:
    captures (above all of a king), king actions towards the enemy wall, advances,
    merges; blocks last unless next to a king. ``near`` is scratch of ``n`` booleans."""
    n = params[P_N]
    kk = params[P_K]
    man_space = n * n * kk
    na = man_space + 2 * n
    nbr = geo[2]
    near[:] = False
    for k in range(n):
        if flags[k] & KING and (owner[k] == RED or owner[k] == BLUE):
            for q in nbr[k]:
                if q < 0:
                    break
                near[q] = True
    enemy = 3 - to_move
    for x in range(m):
        ext = codes[x]
        merge = ext >= na
        code = ext - na if merge else ext
        if code >= man_space + n:
            out[x] = 1.0 if near[code - man_space - n] else -1.0
            continue
        if code >= man_space:
            out[x] = 0.2
            continue
        k = code % kk
        j = (code // kk) % n
        i = code // kk // n
        score = 0.0
        if owner[j] == enemy:
            score += 3.0 + size[j] + (20.0 if flags[j] & KING else 0.0)
        advance = dist[to_move, i] - dist[to_move, j]
        score += 0.5 * advance
        if flags[i] & KING:
            score += 1.0 + advance
        if merge:
            score += 0.5
        elif k > 0:
            score -= 0.3
        out[x] = score


@njit_inner
def _value(w):  # type: ignore[no-untyped-def]
    """The result for seat 0 of a game that ended with result code ``w`` (+1 Red won,
    -1 Blue won, 0 drawn or cut off by the playout limit)."""
    if w == RED:
        return 1.0
    if w == BLUE:
        return -1.0
    return 0.0


@njit
def run(CW, PB, FL, lx, dist, NI, NV, PA, PC, CT, path, root, iterations, seed, settings):  # type: ignore[no-untyped-def]
    """Up to ``iterations`` MCTS iterations from ``root`` on the position in ``PB``/
    ``FL`` (left as it was; ``lx`` is scratch for action lists), numba's random sequence
    seeded with ``seed`` (-1: not reseeded). Returns the iterations done;
    ``CT[C_STATUS]`` says why it stopped early (tree full, undo room).

    Actions are applied without listing the next ones (``pos_play`` lists them
    each time): a node's list is generated once, when it is expanded, and a new node's
    when it is first visited (to see whether its player is stuck, and for the wins)."""
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
    if seed >= 0:  # else go on with the sequence of the last call (after growing)
        np.random.seed(seed)
    most = lx.shape[0]
    pri = np.empty(most, np.float64)
    wins = np.empty(most, np.int32)
    kings = np.empty(n, np.bool_)
    winners = np.zeros(1, np.int64)
    lengths = np.zeros(1, np.int64)
    if NI[root, F_SEAT] < 0:
        NI[root, F_SEAT] = meta[M_TO] - 1
        NI[root, F_KEY] = state_key(geo, meta)
        if meta[M_WIN] != WIN_NONE:
            NV[root, V_RESULT] = _value(meta[M_WIN])
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
                m = _fill(params, owner, meta, work,
                          generate(geo, params, owner, size, flags, near, meta, work, WB,
                                   scratch), lx)
                np.random.shuffle(lx[:m])  # random tie-breaks among equal priors
                priors(geo, params, owner, size, flags, meta[M_TO], dist, lx, m, kings, pri)
                expand(NI, PA, CT, node, lx, pri, m)
            if meta[M_NFRAME] + 2 >= fcap or meta[M_NLOG] + 2 * (3 * n + 16) > lcap:
                # no undo room for a deeper line: value this (visited) node by a random
                # game and ask for room before the next iteration
                CT[C_STATUS] = ST_ROOM
                value = _playout(geo, params, owner, size, flags, near, meta, winners,
                                 lengths)
                break
            child = select(NI, NV, PA, PC, CT, node, c, widen_base, widen_factor)
            if child < 0:  # every action proven lost, or all proven: the node is solved
                r = NV[node, V_RESULT]
                value = 0.0 if np.isnan(r) else r
                break
            ext = NI[child, F_ACT]
            code = ext - na if ext >= na else ext
            _apply_rules(geo, params, owner, size, flags, near, meta, log, frames, code,
                         passed_wall(geo, params, owner, size, meta, code, scratch), scratch)
            played += 1
            path[plen] = child
            plen += 1
            if NI[child, F_VISITS] == 0:  # a new node: exact value if decided, else a game
                m = 0
                if meta[M_WIN] == WIN_NONE:
                    m = generate(geo, params, owner, size, flags, near, meta, work, WB,
                                 scratch)
                    if m == 0:
                        _stuck(meta)
                _settle(meta)
                NI[child, F_SEAT] = meta[M_TO] - 1
                NI[child, F_KEY] = state_key(geo, meta)
                if meta[M_WIN] != WIN_NONE:
                    value = _value(meta[M_WIN])
                    NV[child, V_RESULT] = value
                elif tactics and pos_wins(CW, PB, FL, lx, _fill(params, owner, meta, work,
                                                                m, lx), wins) > 0:
                    value = 1.0 if meta[M_TO] == RED else -1.0
                    NV[child, V_RESULT] = value
                else:
                    value = _playout(geo, params, owner, size, flags, near, meta, winners,
                                     lengths)
                break
            node = child
        for _ in range(played):
            undo(geo, params, owner, size, flags, near, meta, log, frames)
        backup(NI, NV, path, plen, value)
        done += 1
        if CT[C_STATUS] != 0:
            break
    return done


@njit
def _playout(geo, params, owner, size, flags, near, meta, winners, lengths):  # type: ignore[no-untyped-def]
    """The result for seat 0 of one random game from here (see :func:`_value`)."""
    # np.int64: a literal argument would compile a second copy of the kernel
    random_playouts(geo, params, owner, size, flags, near, meta, np.int64(1),
                    np.random.randint(0, 2**31 - 1), np.int64(10_000), winners, lengths)
    return _value(winners[0])


@cache
def _distances(side: int) -> np.ndarray:
    """``dist[colour, point]``: hex steps to the wall that colour must pass (as in the
    Python priors), one row per colour code (row 0 unused)."""
    red, blue = wall_distance(side)[1:]
    return np.array([(0,) * len(red), red, blue], np.int64)


def priors_of(position: Any, actions: Any) -> list[float]:
    """:func:`priors` of ``actions`` (legal in ``position``), for the tests to compare
    with :func:`.evaluation.action_priors`."""
    state = position.core_state()
    core = state.core
    dist = _distances(core.rules.board_side)
    codes = np.array([core.ext_of(a) for a in actions], np.int32)
    out = np.zeros(len(codes), np.float64)
    priors(core.geo, core.params, state.owner, state.size, state.flags, state.meta[M_TO],
           dist, codes, len(codes), np.zeros(core.n, np.bool_), out)
    return out.tolist()


class TreeSearch(CompiledTree):
    """The compiled tree of one :class:`~hexgames.ai.mcts.MCTSPlayer` (what
    ``Kernel.tree_search()`` returns). Works on copies of a position's buffers
    (:meth:`~hexgames.benediction.position.Position.core_state`): the position handed to
    :meth:`set_root` is never changed."""

    #: Undo frames of a search: room for lines far deeper than a search goes (a deeper
    #: one stops, values its node by a random game and asks for more,
    #: :data:`~hexgames._ctree.ST_ROOM`).
    room_frames = 256
    #: The root's buffers, taken by :meth:`_core_of` for :meth:`_load`.
    _root_state: CoreState | None = None

    def _core_of(self, position: Any) -> Any:
        state = self._root_state = position.core_state()
        return state.core

    def _action_code(self, action: Any) -> int:
        return int(self._core.ext_of(action))

    def _action_of(self, code: int) -> Any:
        return self._core.actions[code]

    def _load(self, position: Any) -> None:
        """Copy the position's board and state (taken by :meth:`_core_of`); the search's
        undo room starts empty (it takes back only its own actions, never the game's)."""
        state = self._root_state
        assert state is not None  # set by _core_of, which set_root calls first
        self._root_state = None
        core = state.core
        self._dist = _distances(core.rules.board_side)
        self._CW = core.CW
        self._PB = buffer_of(state)
        self._meta = self._PB[meta_at(core.n) :].view(np.int64)
        self._meta[M_NFRAME] = self._meta[M_NLOG] = 0
        self._meta[M_FCAP] = self.room_frames
        self._meta[M_LCAP] = self.room_frames * (3 * core.n + 16)
        self._FL = np.zeros(self.room_frames * FRAME_LEN + self._meta[M_LCAP] * 4, np.int64)
        self._lx = np.zeros(core.num_actions + 8, np.int32)

    def _grow_room(self) -> None:
        self._FL = doubled_room(self._meta, self._FL)

    def _run(self, iterations: int, seed: int, settings: np.ndarray) -> int:
        return int(run(self._CW, self._PB, self._FL, self._lx, self._dist,
                       self.NI, self.NV, self.PA, self.PC, self.CT,
                       self._path_for(iterations), self.root, iterations, seed, settings))


# the compiled code here has the rules', the position kernels' and the tree's compiled
# functions and the layout's and the tables' constants built in (see drop_stale_cache)
drop_stale_search_cache(__name__, core.__file__, _legal_actions.__file__,
                        _position_kernels.__file__, _layout.__file__, _tables.__file__)

__all__ = ["TreeSearch", "priors", "priors_of", "run"]
