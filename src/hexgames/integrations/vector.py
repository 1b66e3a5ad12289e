"""Vectorized research environments: a batch of games stepped together, numpy in and out.

``VectorEnv("dendria", num_envs=256)`` runs ``num_envs`` games of a game on its compiled
rules core; one :meth:`~VectorEnv.step` plays one action in every game inside one compiled
call. A game offers it through its description: ``GAME.extras["vector_batch"]`` makes
the game's batch (:class:`hexgames.benediction.vector.Batch`,
:class:`hexgames.dendria.vector.Batch`), which holds the compiled state; everything else
here is the same for every game. ``BenedictionVectorEnv(256)`` and
``DendriaVectorEnv(256)`` name the two games' environments. They follow the pgx /
Gymnasium vector conventions:

* :meth:`~VectorEnv.init` (alias :meth:`~VectorEnv.reset`) starts every game and returns
  the observations;
* :meth:`~VectorEnv.step` takes one action id per game (``int`` array of shape
  ``(num_envs,)``) and returns ``(observation, rewards, terminated, truncated, info)``;
* :meth:`~VectorEnv.observe` and :meth:`~VectorEnv.legal_action_mask` read the current
  batch;
* ``current_player`` (seat to act per game), ``rewards`` per seat (``(num_envs, 2)``:
  ``+1`` the winner, ``-1`` the loser, ``0`` a draw or a game going on).

Actions are the research ids of the game's ``encoding`` module (the ids the OpenSpiel and
PettingZoo adapters use) and observations its planes (``(num_envs, planes, W, W)``
float32, seen by the player to act), so a network trained on one interface plays on the
others.

**Auto-reset** (as pgx's ``AutoReset``): when a game ends in a step, that step's
``rewards`` and ``terminated``/``truncated`` describe its end, and the observation, mask
and ``current_player`` returned are those of a fresh game in the same slot. A game is
truncated after the encoding's ``max_game_length`` actions, as in the other adapters
(Benediction without ``max_turns``: its research turn cap; Dendria ends by its own rules
well before its bound). Random actions come from :meth:`~VectorEnv.random_actions`
(seeded), so whole experiments replay exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, njit
from hexgames.game import Game, game_names, get_game

#: What a cold start says (as ``hexgames serve`` and the benchmark do).
COMPILING = "compiling the rules engine, once..."

__all__ = [
    "BenedictionVectorEnv",
    "DendriaVectorEnv",
    "VectorEnv",
    "measure",
    "vector_env",
    "vector_games",
]


@njit(nrt=False)
def _random_legal(legal: np.ndarray, nlegal: np.ndarray, seed: int, chosen: np.ndarray) -> None:
    """A uniformly random id per game from the legal lists the game's batch wrote
    (``legal[b, :nlegal[b]]``), seeded: the same for every game."""
    np.random.seed(seed)
    for b in range(legal.shape[0]):
        chosen[b] = legal[b, np.random.randint(0, nlegal[b])]


# numba keys its cache to this file only; the compile options come from _jit
drop_stale_cache(__name__, _jit.__file__)


def vector_games() -> list[str]:
    """The registered games that offer a vectorized environment."""
    return [name for name in game_names() if "vector_batch" in get_game(name).extras]


class VectorEnv:
    """``num_envs`` games of ``game`` (a registered name or a :class:`Game`) stepped
    together (see the module docstring). ``seed`` seeds :meth:`random_actions`; rules
    options are keyword arguments (``VectorEnv("benediction", 64, board_side=4)``).
    ``announce(text)`` is called before the first step when the game's batch is not
    compiled yet (some seconds, once per machine: "compiling the rules engine,
    once...")."""

    def __init__(self, game: str | Game, num_envs: int = 256, seed: int = 0, *,
                 announce: Callable[[str], None] | None = None, **options: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.game = get_game(game) if isinstance(game, str) else game
        make_batch = self.game.extras.get("vector_batch")
        if make_batch is None:
            raise ValueError(f"{self.game.title} has no vectorized environment; the games "
                             f"with one: {', '.join(vector_games())}")
        self.rules = self.game.make_rules(**options)
        self.num_envs = num_envs
        self.batch = make_batch(self.rules, num_envs)
        self.num_actions: int = self.batch.num_actions
        self.observation_shape: tuple[int, int, int] = self.batch.observation_shape
        self.max_game_length: int = self.batch.max_game_length
        b = num_envs
        self._lengths = np.zeros(b, np.int64)
        self._rewards = np.zeros((b, 2), np.float32)
        self._terminated = np.zeros(b, np.bool_)
        self._truncated = np.zeros(b, np.bool_)
        self._mask = np.zeros((b, self.num_actions), np.bool_)
        self._legal = np.zeros((b, self.batch.list_size), np.int32)
        self._nlegal = np.zeros(b, np.int64)
        self._obs = np.zeros((b, *self.observation_shape), np.float32)
        self._seed = seed
        self._calls = 0
        if announce is not None and not self.batch.is_cached():
            announce(COMPILING)
        self.init(seed)

    def _run(self, actions: np.ndarray) -> None:
        self.batch.step(actions, self._lengths, self._rewards, self._terminated,
                        self._truncated, self._mask, self._legal, self._nlegal, self._obs)

    # ------------------------------------------------------------------ stepping
    def init(self, seed: int | None = None) -> np.ndarray:
        """Start a fresh game in every slot; the observations (player to act's view)."""
        if seed is not None:
            self._seed = seed
            self._calls = 0
        self._run(np.full(self.num_envs, -1, np.int64))
        return self._obs

    def reset(self, seed: int | None = None) -> np.ndarray:
        """:meth:`init` (the Gymnasium name)."""
        return self.init(seed)

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
        """Seat to act in each game (0 the first player)."""
        return self.batch.current_player()

    def observe(self) -> np.ndarray:
        """``(num_envs, planes, W, W)`` float32 planes, each seen by its player to act."""
        return self._obs

    def legal_action_mask(self) -> np.ndarray:
        """``(num_envs, num_actions)`` bool: the legal ids of each game."""
        return self._mask

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal id per game (seeded by the environment's seed)."""
        chosen = np.empty(self.num_envs, np.int64)
        _random_legal(self._legal, self._nlegal, self._seed * 1_000_003 + self._calls,
                      chosen)
        self._calls += 1
        return chosen

    def position(self, index: int) -> Any:
        """A copy of game ``index`` as the game's compiled ``CoreState`` (legal codes,
        play and undo, key)."""
        if not 0 <= index < self.num_envs:
            raise IndexError(f"game {index} is not in 0..{self.num_envs - 1}")
        return self.batch.position(index)


class BenedictionVectorEnv(VectorEnv):
    """``num_envs`` Benediction games stepped together (``BenedictionVectorEnv(64,
    board_side=4, max_turns=50)``); seats 0 red, 1 blue."""

    def __init__(self, num_envs: int = 256, seed: int = 0, *,
                 announce: Callable[[str], None] | None = None, **options: Any) -> None:
        super().__init__("benediction", num_envs, seed, announce=announce, **options)


class DendriaVectorEnv(VectorEnv):
    """``num_envs`` Dendria games stepped together (``DendriaVectorEnv(64, board_side=5,
    pie=False)``). The observation, as :func:`hexgames.dendria.encoding.observation`,
    does not show the no-repetition history; the mask does."""

    def __init__(self, num_envs: int = 256, seed: int = 0, *,
                 announce: Callable[[str], None] | None = None, **options: Any) -> None:
        super().__init__("dendria", num_envs, seed, announce=announce, **options)


def vector_env(game: str, num_envs: int = 256, seed: int = 0, *,
               announce: Callable[[str], None] | None = None, **options: Any) -> VectorEnv:
    """:class:`VectorEnv` of ``game`` (its registered name)."""
    return VectorEnv(game, num_envs, seed, announce=announce, **options)


def measure(num_envs: int = 256, seconds: float = 3.0, seed: int = 0,
            game: str = "benediction", announce: Callable[[str], None] | None = None,
            **options: Any) -> float:
    """Steps per second (games x batched steps) of uniformly random play, masks and
    observations included: ``python -m hexgames.integrations.vector``."""
    import time

    env = VectorEnv(game, num_envs, seed, announce=announce, **options)
    env.step(env.random_actions())  # compiled code loaded before timing
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or steps == 0:
        env.step(env.random_actions())
        steps += num_envs
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    """``python -m hexgames.integrations.vector [BATCH] [--game G] [--set OPTION=VALUE]
    [--runs R] [--seconds S] [--json]``: steps/s (median of the runs) with the C anchor
    of :mod:`hexgames.bench` run in the same run, alternating, when it is available."""
    import argparse
    import json
    import statistics
    import tempfile

    from hexgames.bench import ANCHOR_GAMES, compile_anchor, find_anchor, run_anchor

    parser = argparse.ArgumentParser(prog="python -m hexgames.integrations.vector")
    parser.add_argument("batch", nargs="?", type=int, default=256, help="games per batch")
    parser.add_argument("--game", choices=vector_games(), default="benediction",
                        help="the game (default: benediction)")
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                        help="a rules option of the game (repeatable), e.g. board_side=5")
    parser.add_argument("--runs", type=int, default=3, help="runs (median shown)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-anchor", action="store_true", help="do not run the C anchor")
    args = parser.parse_args(argv)
    if args.batch < 1:
        parser.error(f"BATCH must be a positive number of games, got {args.batch}")
    from hexgames.game import parse_settings

    try:
        options = dict(parse_settings(get_game(args.game), args.set))
    except ValueError as error:
        parser.error(str(error))
    import sys

    def say(text: str) -> None:  # on stderr: --json keeps stdout for the figures
        print(text, file=sys.stderr, flush=True)

    source, note = (None, "not requested") if args.no_anchor else find_anchor(None)
    rates: list[float] = []
    anchor: list[float] = []
    with tempfile.TemporaryDirectory(prefix="hexgames-anchor-") as tmp:
        binary = compile_anchor(source, tmp) if source is not None else None
        for run in range(args.runs):
            if binary is not None:
                anchor.append(run_anchor(binary, ANCHOR_GAMES, 1 + run)[0])
            rates.append(measure(args.batch, args.seconds, seed=run, game=args.game,
                                 announce=say, **options))
    rate = statistics.median(rates)
    c_rate = statistics.median(anchor) if anchor else None
    if args.json:
        print(json.dumps({
            "game": args.game, "options": options, "batch": args.batch, "runs": args.runs,
            "seconds": args.seconds,
            "steps_per_s": rate, "runs_steps_per_s": rates,
            "anchor_actions_per_s": c_rate, "anchor_note": None if anchor else note,
        }, indent=2, default=str))
        return 0
    line = (f"{get_game(args.game).title} vector env, batch {args.batch}: {rate:,.0f} "
            f"steps/s (masks and observations; median of {args.runs})")
    if c_rate is not None:  # the anchor is C Benediction: the machine's speed that minute
        line += f"; C anchor (Benediction) in the same run: {c_rate:,.0f} actions/s"
    print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
