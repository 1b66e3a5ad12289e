"""Benediction's batch of games for the vectorized research environment.

:class:`Batch` is what ``GAME.vector_batch(rules, num_envs)`` returns to
:class:`hexgames.integrations.vector.VectorEnv`: the games' compiled state (one row per
game) and one :meth:`Batch.step` that plays an action in every game inside one compiled
call (:func:`vector_step`: play, score, auto-reset, mask and list of legal ids,
observation planes of :mod:`.encoding`). The core's action codes are not the research
ids, so the batch keeps the two maps between them.

Why in the game package: the batch knows the core's state layout, which only the engine
may know; the integration sees arrays.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, is_cached, njit
from hexgames.benediction import _layout, _legal_actions, _tables, core
from hexgames.benediction import rules as _rules
from hexgames.benediction._layout import (
    BIG,
    FRAME_LEN,
    M_ACTED,
    M_AL,
    M_CNT,
    M_LOGGING,
    M_NFRAME,
    M_NLOG,
    M_TO,
    M_TURN,
    M_WIN,
    META_LEN,
    P_K,
    P_N,
    P_START,
    P_SUPPLY,
    WIN_NONE,
)
from hexgames.benediction._legal_actions import generate, passed_wall
from hexgames.benediction._tables import BLESSED, BLOCK, BLUE, CURSED, EMPTY, KING, LOCKED, RED
from hexgames.benediction.core import Core, CoreState, _apply_rules, _reset_state, _settle, _stuck
from hexgames.benediction.encoding import (
    RESEARCH_TURN_CAP,
    action_to_id,
    max_game_length,
    num_distinct_actions,
    observation_shape,
)
from hexgames.benediction.position import Position
from hexgames.benediction.rules import START_CHECKERS, Rules

__all__ = ["Batch", "id_tables", "observe", "vector_step"]


@njit
def observe(params, coords, owner, size, flags, meta, seat, cap_turns, out):  # type: ignore[no-untyped-def]
    """Fill ``out`` (``(18, W, W)`` float32) with the planes of
    :func:`hexgames.benediction.encoding.observation` for ``seat``."""
    out[:] = 0.0
    n = params[P_N]
    ms = params[P_K]
    for i in range(n):
        x = coords[i, 0]
        y = coords[i, 1]
        out[10, x, y] = 1.0
        o = owner[i]
        if EMPTY < o < BLOCK:
            out[o - 1, x, y] = 1.0
            v = size[i] / ms
            out[2, x, y] = v if v < 1.0 else 1.0
            f = flags[i]
            if f & KING:
                out[3, x, y] = 1.0
            if f & BLESSED:
                out[4, x, y] = 1.0
            if f & CURSED:
                out[5, x, y] = 1.0
            if f & LOCKED:
                out[6, x, y] = 1.0
        elif o == BLOCK:
            out[7, x, y] = 1.0
    for h in range(2):
        p = params[P_START + h]
        out[8 + h, coords[p, 0], coords[p, 1]] = 1.0
    supply = params[P_SUPPLY]
    owned = START_CHECKERS + (supply if supply > 0 else 0)
    values = np.zeros(7, np.float64)
    values[0] = 1.0 if meta[M_TO] == RED else 0.0
    values[1] = 1.0 if meta[M_ACTED] != 0 else 0.0
    values[2] = 1.0 if meta[M_AL] == 1 else 0.0
    values[3] = 1.0 if seat == 0 else 0.0
    for c in range(1, 3):
        if supply < 0:
            values[3 + c] = 1.0
        else:
            left = supply + START_CHECKERS - meta[M_CNT + c]
            values[3 + c] = (left if left > 0 else 0) / owned
    v = (meta[M_TURN] - 1) / cap_turns
    values[6] = v if v < 1.0 else 1.0
    for q in range(7):
        if values[q] != 0.0:
            for i in range(n):
                out[11 + q, coords[i, 0], coords[i, 1]] = values[q]


@njit
def vector_step(geo, params, owners, sizes, flagss, nears, metas, start, actions, lengths, max_len, id_to_core, core_to_id, rewards, terminated, truncated, mask, legal, nlegal, obs, coords, cap_turns, scratch, out, outp, autoreset):  # type: ignore[no-untyped-def]  # noqa: E501
    """One step of a batch of games (research ids in ``actions``; ``-1`` = no step, used
    to reset; ``-2`` = leave the game and its buffers' rows as they are): play, score,
    start finished games again (with ``autoreset``; else a finished game stays in its
    final position, its mask empty), then fill the legal-action mask and list and the
    observation of the player to act."""
    owner0, size0, flags0, near0, meta0 = start
    log = np.empty((1, 4), np.int64)
    frames = np.empty((1, FRAME_LEN), np.int64)
    for b in range(owners.shape[0]):
        if actions[b] == -2:
            continue
        owner = owners[b]
        size = sizes[b]
        flags = flagss[b]
        near = nears[b]
        meta = metas[b]
        rewards[b, 0] = 0.0
        rewards[b, 1] = 0.0
        terminated[b] = False
        truncated[b] = False
        done = actions[b] < 0
        m = 0
        if not done:
            code = np.int64(id_to_core[actions[b]])
            passed = passed_wall(geo, params, owner, size, meta, code, scratch)
            _apply_rules(geo, params, owner, size, flags, near, meta, log, frames, code,
                         passed, scratch)
            if meta[M_WIN] == WIN_NONE:
                # the list for the mask is also rule 6.6's test
                m = generate(geo, params, owner, size, flags, near, meta, out, outp, scratch)
                if m == 0:
                    _stuck(meta)
            _settle(meta)
            lengths[b] += 1
            w = meta[M_WIN]
            if w != WIN_NONE:
                terminated[b] = True
                done = True
                if w == RED:
                    rewards[b, 0] = 1.0
                    rewards[b, 1] = -1.0
                elif w == BLUE:
                    rewards[b, 0] = -1.0
                    rewards[b, 1] = 1.0
            elif lengths[b] >= max_len:
                truncated[b] = True
                done = True
        if done and (autoreset or actions[b] < 0):
            _reset_state(owner0, size0, flags0, near0, meta0, owner, size, flags, near, meta)
            lengths[b] = 0
            m = generate(geo, params, owner, size, flags, near, meta, out, outp, scratch)
        for x in range(nlegal[b]):
            mask[b, legal[b, x]] = False
        for x in range(m):
            a = core_to_id[out[x]]
            legal[b, x] = a
            mask[b, a] = True
        nlegal[b] = m
        observe(params, coords, owner, size, flags, meta, meta[M_TO] - 1, cap_turns, obs[b])



@lru_cache(maxsize=16)
def id_tables(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``core_to_id`` (per core code) and ``id_to_core`` (per research id, -1 if none);
    the 16 most recent variants are kept (bounded: rules may come from anyone)."""
    c = Core(rules)
    position = Position.initial(rules)
    core_to_id = np.full(c.num_actions, -1, np.int32)
    id_to_core = np.full(num_distinct_actions(rules), -1, np.int32)
    n, k = c.n, c.k
    line_slot = c.tables.board.line_slot
    for origin in range(n):
        for target in range(n):
            slot = line_slot(origin, target)
            if slot < 0:
                continue
            for count in range(k):
                code = (origin * n + target) * k + count
                rid = 2 * n + count * n * c.tables.board.line_slots + origin * (
                    c.tables.board.line_slots
                ) + slot
                core_to_id[code] = rid
                id_to_core[rid] = code
    for target in range(n):
        for code, rid in ((c.man_space + target, target), (c.man_space + n + target, n + target)):
            core_to_id[code] = rid
            id_to_core[rid] = code
    # spot check against the encoding module (the one place that decides ids)
    drop = c.tables.drops[0]
    assert core_to_id[c.code_of(drop)] == action_to_id(position, drop)
    for array in (core_to_id, id_to_core):
        array.setflags(write=False)
    return core_to_id, id_to_core


class Batch:
    """``num_envs`` Benediction games of ``rules`` as stacked core states. A game with
    no ``max_turns`` is truncated after :func:`.encoding.max_game_length` actions.

    The games' state is :attr:`rows` (one row per game, any number of games):
    :meth:`new_rows` makes rows and :meth:`use_rows` steps others, so that
    :mod:`hexgames.integrations.functional` can keep, copy and restore states."""

    def __init__(self, rules: Rules, num_envs: int) -> None:
        self.rules = rules
        self.core = Core(rules)
        self.num_actions = num_distinct_actions(rules)
        self.observation_shape = observation_shape(rules)
        self.max_game_length = max_game_length(rules)
        # each legal action has its own id (a move and a merge sharing one are never
        # both legal), so no list is longer than the id space
        self.list_size = min(self.core.num_actions, self.num_actions)
        self._cap_turns = float(rules.max_turns or RESEARCH_TURN_CAP)
        self.core_to_id, self._id_to_core = id_tables(rules)
        self._coords = np.array(self.core.tables.board.coords, np.int64)
        start = self.core.initial()
        self._start = (start.owner, start.size, start.flags, start.near, start.meta.copy())
        self._start[4][M_LOGGING] = 0
        self.rows: dict[str, np.ndarray] = {}
        self.use_rows(self.new_rows(num_envs))
        n = self.core.n
        self._scratch = np.full(5 * n, BIG, np.int32)
        self._out = np.empty(self.core.num_actions, np.int32)
        self._outp = np.empty(self.core.num_actions, np.bool_)

    def new_rows(self, num_envs: int) -> dict[str, np.ndarray]:
        """State rows for ``num_envs`` games, not started yet (step them with ``-1``)."""
        n, b = self.core.n, num_envs
        return {"owner": np.zeros((b, n), np.int8), "size": np.zeros((b, n), np.int8),
                "flags": np.zeros((b, n), np.int8), "near": np.zeros((b, n), np.int8),
                "meta": np.zeros((b, META_LEN), np.int64)}

    def use_rows(self, rows: dict[str, np.ndarray]) -> None:
        """Step and read ``rows`` (as :meth:`new_rows` makes them) from now on."""
        self.rows = rows
        self._owners, self._sizes = rows["owner"], rows["size"]
        self._flag_rows, self._near_rows, self._meta = rows["flags"], rows["near"], rows["meta"]

    @staticmethod
    def is_cached() -> bool:
        """Whether the batch's compiled step is in numba's cache already (else the first
        step compiles it, with the rules it holds: some seconds)."""
        return is_cached(__name__, ("vector_step",))

    def step(self, actions: np.ndarray, lengths: np.ndarray, rewards: np.ndarray,
             terminated: np.ndarray, truncated: np.ndarray, mask: np.ndarray,
             legal: np.ndarray, nlegal: np.ndarray, obs: np.ndarray, *,
             autoreset: bool = True, max_len: int | None = None) -> None:
        """One research id per game (-1: start a fresh game there; -2: leave the game
        and its buffers' rows as they are), into the buffers. A game is truncated after
        ``max_len`` actions (default :attr:`max_game_length`); without ``autoreset`` a
        finished game stays in its final position."""
        vector_step(
            self.core.geo, self.core.params, self._owners, self._sizes, self._flag_rows,
            self._near_rows, self._meta, self._start, actions, lengths,
            self.max_game_length if max_len is None else max_len,
            self._id_to_core, self.core_to_id, rewards, terminated, truncated, mask, legal,
            nlegal, obs, self._coords, self._cap_turns, self._scratch, self._out, self._outp,
            autoreset,
        )

    def current_player(self) -> np.ndarray:
        """Seat to act in each game (0 red, 1 blue)."""
        return (self._meta[:, M_TO] - 1).astype(np.int32)

    def seat_scores(self, index: int) -> None:
        """Benediction keeps no score (a game is won by a blessed or captured king)."""
        return None

    def position(self, index: int) -> Any:
        """A copy of game ``index`` as a :class:`~hexgames.benediction.core.CoreState`."""
        state = CoreState(self.core)
        state.owner[:] = self._owners[index]
        state.size[:] = self._sizes[index]
        state.flags[:] = self._flag_rows[index]
        state.near[:] = self._near_rows[index]
        state.meta[:] = self._meta[index]
        state.meta[M_LOGGING] = 1
        state.meta[M_NLOG] = state.meta[M_NFRAME] = 0
        return state


# the compiled code here has the rules' compiled functions and the layout's and the
# tables' constants built in (see drop_stale_cache)
drop_stale_cache(__name__, _jit.__file__, _layout.__file__, _legal_actions.__file__,
                 _tables.__file__, core.__file__, _rules.__file__)
