"""A vectorized research environment: a batch of games stepped together, numpy in and out.

``BenedictionVectorEnv(num_envs=256)`` runs ``num_envs`` Benediction games on the
compiled rules core (:mod:`hexgames.benediction.core`); one :meth:`~BenedictionVectorEnv.step`
plays one action in every game inside one compiled call. It follows the pgx /
Gymnasium vector conventions:

* :meth:`init` (alias :meth:`reset`) starts every game and returns the observations;
* :meth:`step` takes one action id per game (``int`` array of shape ``(num_envs,)``) and
  returns ``(observation, rewards, terminated, truncated, info)``;
* :meth:`observe` and :meth:`legal_action_mask` read the current batch;
* ``current_player`` (seat to act per game), ``rewards`` per seat (``(num_envs, 2)``:
  ``+1`` the winner, ``-1`` the loser, ``0`` a draw or a game going on).

Actions are the research ids of :mod:`hexgames.benediction.encoding` (the ids the
OpenSpiel and PettingZoo adapters use) and observations its planes
(``(num_envs, 18, W, W)`` float32, seen by the player to act), so a network trained on
one interface plays on the others.

**Auto-reset** (as pgx's ``AutoReset``): when a game ends in a step, that step's
``rewards`` and ``terminated``/``truncated`` describe its end, and the observation, mask
and ``current_player`` returned are those of a fresh game in the same slot. A game with
no ``max_turns`` is truncated after :func:`~hexgames.benediction.encoding.max_game_length`
actions, as in the other adapters. Random actions come from :meth:`random_actions`
(seeded), so whole experiments replay exactly.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

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

__all__ = ["BenedictionVectorEnv", "measure"]


@cache
def _id_tables(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``core_to_id`` (per core code) and ``id_to_core`` (per research id, -1 if none)."""
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


class BenedictionVectorEnv:
    """``num_envs`` Benediction games stepped together (see the module docstring).

    ``seed`` seeds :meth:`random_actions`; rules options are keyword arguments
    (``BenedictionVectorEnv(64, board_side=4, max_turns=50)``).
    """

    def __init__(self, num_envs: int = 256, seed: int = 0, **options: Any) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.rules = Rules(**options)
        self.num_envs = num_envs
        self.core = _core.Core(self.rules)
        self.num_actions = num_distinct_actions(self.rules)
        self.observation_shape = observation_shape(self.rules)
        self.max_game_length = max_game_length(self.rules)
        self._cap_turns = float(self.rules.max_turns or RESEARCH_TURN_CAP)
        self._core_to_id, self._id_to_core = _id_tables(self.rules)
        board = self.core.tables.board
        self._coords = np.array(board.coords, np.int64)
        start = self.core.initial()
        self._start = (start.owner, start.size, start.flags, start.near, start.meta.copy())
        self._start[4][_core.M_LOGGING] = 0
        n, b = self.core.n, num_envs
        self._owner = np.zeros((b, n), np.int8)
        self._size = np.zeros((b, n), np.int8)
        self._flags = np.zeros((b, n), np.int8)
        self._near = np.zeros((b, n), np.int8)
        self._meta = np.zeros((b, _core.META_LEN), np.int64)
        self._lengths = np.zeros(b, np.int64)
        self._rewards = np.zeros((b, 2), np.float32)
        self._terminated = np.zeros(b, np.bool_)
        self._truncated = np.zeros(b, np.bool_)
        self._mask = np.zeros((b, self.num_actions), np.bool_)
        self._legal = np.zeros((b, self.core.num_actions), np.int32)
        self._nlegal = np.zeros(b, np.int64)
        self._obs = np.zeros((b, *self.observation_shape), np.float32)
        self._scratch = np.full(5 * n, _core._BIG, np.int32)
        self._out = np.empty(self.core.num_actions, np.int32)
        self._outp = np.empty(self.core.num_actions, np.bool_)
        self._seed = seed
        self._calls = 0
        self.init(seed)

    # ------------------------------------------------------------------ stepping
    def _run(self, actions: np.ndarray) -> None:
        _core.vector_step(
            self.core.geo, self.core.params, self._owner, self._size, self._flags,
            self._near, self._meta, self._start, actions, self._lengths,
            self.max_game_length, self._id_to_core, self._core_to_id, self._rewards,
            self._terminated, self._truncated, self._mask, self._legal, self._nlegal,
            self._obs, self._coords, self._cap_turns, self._scratch, self._out, self._outp,
        )

    def init(self, seed: int | None = None) -> np.ndarray:
        """Start a fresh game in every slot; the observations (player to act's view)."""
        if seed is not None:
            self._seed = seed
            self._calls = 0
        self._run(np.full(self.num_envs, -1, np.int64))
        return self._obs

    reset = init

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one action id per game; ``(observation, rewards, terminated, truncated,
        info)`` with ``info["current_player"]`` and ``info["legal_action_mask"]``.

        The arrays returned are the environment's own buffers, overwritten by the next
        step: copy what you keep. ``ValueError`` for a wrong shape or an illegal id
        (naming the first game it happened in); nothing is played then.
        """
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(
                f"actions must be {self.num_envs} integer ids (shape ({self.num_envs},)), "
                f"got shape {acts.shape} of {acts.dtype}"
            )
        acts = acts.astype(np.int64, copy=False)
        inside = (acts >= 0) & (acts < self.num_actions)
        legal = np.zeros(self.num_envs, np.bool_)
        legal[inside] = self._mask[np.flatnonzero(inside), acts[inside]]
        if not legal.all():
            bad = int(np.flatnonzero(~legal)[0])
            raise ValueError(f"action id {int(acts[bad])} is not legal in game {bad}")
        self._run(acts)
        info = {"current_player": self.current_player, "legal_action_mask": self._mask}
        return self._obs, self._rewards, self._terminated, self._truncated, info

    # ------------------------------------------------------------------ reading
    @property
    def current_player(self) -> np.ndarray:
        """Seat to act in each game (0 red, 1 blue)."""
        return (self._meta[:, _core.M_TO] - 1).astype(np.int32)

    def observe(self) -> np.ndarray:
        """``(num_envs, planes, W, W)`` float32 planes, each seen by its player to act."""
        return self._obs

    def legal_action_mask(self) -> np.ndarray:
        """``(num_envs, num_actions)`` bool: the legal ids of each game."""
        return self._mask

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal id per game (seeded by the environment's seed)."""
        chosen = np.empty(self.num_envs, np.int64)
        _core.random_legal(self._legal, self._nlegal, self._seed * 1_000_003 + self._calls,
                           chosen)
        self._calls += 1
        return chosen

    def position(self, index: int) -> _core.CoreState:
        """A copy of game ``index`` as a :class:`~hexgames.benediction.core.CoreState`."""
        state = _core.CoreState(self.core)
        state.owner[:] = self._owner[index]
        state.size[:] = self._size[index]
        state.flags[:] = self._flags[index]
        state.near[:] = self._near[index]
        state.meta[:] = self._meta[index]
        state.meta[_core.M_LOGGING] = 1
        state.meta[_core.M_NLOG] = state.meta[_core.M_NFRAME] = 0
        return state


def measure(num_envs: int = 256, seconds: float = 3.0, seed: int = 0, **options: Any) -> float:
    """Steps per second (games x batched steps) of uniformly random play, masks and
    observations included: ``python -m hexgames.integrations.vector``."""
    import time

    env = BenedictionVectorEnv(num_envs, seed=seed, **options)
    env.step(env.random_actions())  # compiled code loaded before timing
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or steps == 0:
        env.step(env.random_actions())
        steps += num_envs
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    """``python -m hexgames.integrations.vector [BATCH] [--runs R] [--seconds S]
    [--json]``: steps/s (median of the runs) with the C anchor of
    :mod:`hexgames.bench` run in the same run, alternating, when it is available."""
    import argparse
    import json
    import statistics
    import tempfile

    from hexgames.bench import ANCHOR_GAMES, compile_anchor, find_anchor, run_anchor

    parser = argparse.ArgumentParser(prog="python -m hexgames.integrations.vector")
    parser.add_argument("batch", nargs="?", type=int, default=256, help="games per batch")
    parser.add_argument("--runs", type=int, default=3, help="runs (median shown)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-anchor", action="store_true", help="do not run the C anchor")
    args = parser.parse_args(argv)
    source, note = (None, "not requested") if args.no_anchor else find_anchor(None)
    rates: list[float] = []
    anchor: list[float] = []
    with tempfile.TemporaryDirectory(prefix="hexgames-anchor-") as tmp:
        binary = compile_anchor(source, tmp) if source is not None else None
        for run in range(args.runs):
            if binary is not None:
                anchor.append(run_anchor(binary, ANCHOR_GAMES, 1 + run)[0])
            rates.append(measure(args.batch, args.seconds, seed=run))
    rate = statistics.median(rates)
    c_rate = statistics.median(anchor) if anchor else None
    if args.json:
        print(json.dumps({
            "batch": args.batch, "runs": args.runs, "seconds": args.seconds,
            "steps_per_s": rate, "runs_steps_per_s": rates,
            "anchor_actions_per_s": c_rate, "anchor_note": None if anchor else note,
        }, indent=2))
        return 0
    line = (f"Benediction vector env, batch {args.batch}: {rate:,.0f} steps/s (masks and "
            f"observations; median of {args.runs})")
    if c_rate is not None:
        line += f"; C anchor in the same run: {c_rate:,.0f} actions/s"
    print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
