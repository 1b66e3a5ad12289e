"""Benediction's batch of games for the vectorized research environment.

:class:`Batch` is what ``GAME.extras["vector_batch"](rules, num_envs)`` returns to
:class:`hexgames.integrations.vector.VectorEnv`: the games' compiled state (one row per
game) and one :meth:`Batch.step` that plays an action in every game inside one compiled
call (:func:`.core.vector_step`: play, score, auto-reset, mask and list of legal ids,
observation planes of :mod:`.encoding`). The core's action codes are not the research
ids, so the batch keeps the two maps between them.

Why in the game package: the batch knows the core's state layout, which only the engine
may know; the integration sees arrays.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from hexgames._jit import is_cached
from hexgames.benediction import core as _core
from hexgames.benediction.encoding import (
    RESEARCH_TURN_CAP,
    action_to_id,
    max_game_length,
    num_distinct_actions,
    observation_shape,
)
from hexgames.benediction.position import Position
from hexgames.benediction.rules import Rules

__all__ = ["Batch", "id_tables"]


@lru_cache(maxsize=16)
def id_tables(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``core_to_id`` (per core code) and ``id_to_core`` (per research id, -1 if none);
    the 16 most recent variants are kept (bounded: rules may come from anyone)."""
    c = _core.Core(rules)
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
    no ``max_turns`` is truncated after :func:`.encoding.max_game_length` actions."""

    def __init__(self, rules: Rules, num_envs: int) -> None:
        self.rules = rules
        self.core = _core.Core(rules)
        self.num_actions = num_distinct_actions(rules)
        self.observation_shape = observation_shape(rules)
        self.max_game_length = max_game_length(rules)
        self.list_size = self.core.num_actions
        self._cap_turns = float(rules.max_turns or RESEARCH_TURN_CAP)
        self.core_to_id, self._id_to_core = id_tables(rules)
        self._coords = np.array(self.core.tables.board.coords, np.int64)
        start = self.core.initial()
        self._start = (start.owner, start.size, start.flags, start.near, start.meta.copy())
        self._start[4][_core.M_LOGGING] = 0
        n, b = self.core.n, num_envs
        self._owners = np.zeros((b, n), np.int8)
        self._sizes = np.zeros((b, n), np.int8)
        self._flag_rows = np.zeros((b, n), np.int8)
        self._near_rows = np.zeros((b, n), np.int8)
        self._meta = np.zeros((b, _core.META_LEN), np.int64)
        self._scratch = np.full(5 * n, _core._BIG, np.int32)
        self._out = np.empty(self.core.num_actions, np.int32)
        self._outp = np.empty(self.core.num_actions, np.bool_)

    @staticmethod
    def is_cached() -> bool:
        """Whether the batch's compiled step is in numba's cache already (else the first
        step compiles it, with the rules it holds: some seconds)."""
        return is_cached(_core.__name__, ("vector_step",))

    def step(self, actions: np.ndarray, lengths: np.ndarray, rewards: np.ndarray,
             terminated: np.ndarray, truncated: np.ndarray, mask: np.ndarray,
             legal: np.ndarray, nlegal: np.ndarray, obs: np.ndarray) -> None:
        """One research id per game (-1: start a fresh game there), into the buffers."""
        _core.vector_step(
            self.core.geo, self.core.params, self._owners, self._sizes, self._flag_rows,
            self._near_rows, self._meta, self._start, actions, lengths, self.max_game_length,
            self._id_to_core, self.core_to_id, rewards, terminated, truncated, mask, legal,
            nlegal, obs, self._coords, self._cap_turns, self._scratch, self._out, self._outp,
        )

    def current_player(self) -> np.ndarray:
        """Seat to act in each game (0 red, 1 blue)."""
        return (self._meta[:, _core.M_TO] - 1).astype(np.int32)

    def position(self, index: int) -> Any:
        """A copy of game ``index`` as a :class:`~hexgames.benediction.core.CoreState`."""
        state = _core.CoreState(self.core)
        state.owner[:] = self._owners[index]
        state.size[:] = self._sizes[index]
        state.flags[:] = self._flag_rows[index]
        state.near[:] = self._near_rows[index]
        state.meta[:] = self._meta[index]
        state.meta[_core.M_LOGGING] = 1
        state.meta[_core.M_NLOG] = state.meta[_core.M_NFRAME] = 0
        return state
