"""Vectorized research environments: a batch of games stepped together, numpy in and out.

``VectorEnv("dendria", num_envs=256)`` runs ``num_envs`` games of a game on its compiled
rules core; one :meth:`~VectorEnv.step` plays one action in every game inside one compiled
call. A game offers it through its description: ``GAME.vector_batch`` makes
the game's batch (:class:`hexgames.benediction.vector.Batch`,
:class:`hexgames.dendria.vector.Batch`), which holds the compiled state; everything else
here is the same for every game. ``BenedictionVectorEnv(256)`` and
``DendriaVectorEnv(256)`` name the two games' environments. This is the minimal loop
(the fastest, with :mod:`.functional` stepped in place); the same batches follow
Gymnasium's conventions in :mod:`.gym_vector` (``gymnasium.make_vec``) and pgx's in
:mod:`.functional` (states to copy, save and step on a subset). Here:

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
from hexgames.integrations.common import validate_options

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
    return [name for name in game_names() if get_game(name).vector_batch is not None]


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
        make_batch = self.game.vector_batch
        if make_batch is None:
            raise ValueError(f"{self.game.title} has no vectorized environment; the games "
                             f"with one: {', '.join(vector_games())}")
        self.rules = self.game.make_rules(**validate_options(self.game, options))
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


#: What :func:`measure` can time: this module's :class:`VectorEnv`, the functional
#: environment stepped in place (finished games started again by ``reset``), the
#: Gymnasium vector environment returning its buffers (``copy=False``) or copies (its
#: default).
INTERFACES = ("vector", "functional", "gym", "gym-copy")


def _stepper(interface: str, game: str, num_envs: int, seed: int,
             announce: Callable[[str], None] | None,
             options: dict[str, Any]) -> Callable[[], None]:
    """One batched step of random play through ``interface``, as a function."""
    if interface == "vector":
        env = VectorEnv(game, num_envs, seed, announce=announce, **options)

        def vector_step() -> None:
            env.step(env.random_actions())

        return vector_step
    if interface == "functional":
        from hexgames.integrations.functional import Env

        fenv = Env(game, announce=announce, **options)
        state = fenv.init(seed * num_envs + np.arange(num_envs))

        def functional_step() -> None:
            fenv.step(state, fenv.random_actions(state), inplace=True)
            ended = state.terminated | state.truncated
            if ended.any():
                fenv.reset(state, ended, inplace=True)

        return functional_step
    if interface in ("gym", "gym-copy"):
        from hexgames.integrations.gym_vector import GymVectorEnv

        genv = GymVectorEnv(game, num_envs, copy=interface == "gym-copy", **options)
        if announce is not None and not genv.functional.batch.is_cached():
            announce(COMPILING)
        genv.reset(seed=seed)

        def gym_step() -> None:
            genv.step(genv.random_actions())

        return gym_step
    raise ValueError(f"interface {interface!r}: one of {', '.join(INTERFACES)}")


def measure(num_envs: int = 256, seconds: float = 3.0, seed: int = 0,
            game: str = "benediction", announce: Callable[[str], None] | None = None,
            interface: str = "vector", warmup: int = 0, **options: Any) -> float:
    """Steps per second (games x batched steps) of uniformly random play, masks and
    observations included, through ``interface`` (:data:`INTERFACES`):
    ``python -m hexgames.integrations.vector``. ``warmup`` batched steps are played
    before the clock starts: every game of a batch starts together, and a step early in
    a game costs less than a later one (Dendria's first 100 steps about half), so
    without it a short run of a large batch times mostly openings."""
    return _timed(num_envs, seconds, seed, game, announce, interface, warmup, options)[0]


def _timed(num_envs: int, seconds: float, seed: int, game: str,
           announce: Callable[[str], None] | None, interface: str, warmup: int,
           options: dict[str, Any]) -> tuple[float, float]:
    """:func:`measure`'s steps per second of wall time and per second of this process's
    CPU time (less disturbed by other programs on a shared machine)."""
    import time

    step = _stepper(interface, game, num_envs, seed, announce, options)
    for _ in range(1 + warmup):  # compiled code loaded before timing
        step()
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds or steps == 0:
        step()
        steps += num_envs
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return steps / wall, steps / max(cpu, 1e-9)


def main(argv: list[str] | None = None) -> int:
    """``python -m hexgames.integrations.vector [BATCH ...] [--game G ...] [--interface I
    ...] [--set OPTION=VALUE] [--runs R] [--seconds S] [--warmup STEPS] [--json]``:
    steps/s (median of the
    runs) of each game, batch and interface, with the C anchor of :mod:`hexgames.bench`
    run beside each, alternating, when it is available. One combination prints one line
    (``--json``: one object); several print a table (``--json``: a list)."""
    import argparse
    import itertools
    import json
    import statistics
    import sys
    import tempfile

    from hexgames.bench import (
        ANCHOR_GAMES,
        compile_anchor,
        find_anchor,
        run_anchor,
        yardstick_game,
    )
    from hexgames.game import parse_settings

    parser = argparse.ArgumentParser(prog="python -m hexgames.integrations.vector")
    parser.add_argument("batch", nargs="*", type=int, default=[256],
                        help="games per batch (several: one row each; default 256)")
    parser.add_argument("--game", choices=vector_games(), action="append",
                        help="the game (repeatable; default: benediction)")
    parser.add_argument("--interface", choices=INTERFACES, action="append",
                        help="what to time (repeatable; default: vector, this module's "
                             "VectorEnv)")
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                        help="a rules option of the game (repeatable), e.g. board_side=5")
    parser.add_argument("--runs", type=int, default=3, help="runs (median shown)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per run")
    parser.add_argument("--warmup", type=int, default=0, metavar="STEPS",
                        help="batched steps played before each run's clock starts "
                             "(default 0; 300 reaches the middle of games)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--anchor", metavar="PATH", default=None,
                        help="the C anchor's source (default: found beside the checkout, "
                             "see hexgames.bench.ANCHOR_DIRECTORY)")
    parser.add_argument("--no-anchor", action="store_true", help="do not run the C anchor")
    args = parser.parse_args(argv)
    if any(b < 1 for b in args.batch):
        parser.error(f"BATCH must be positive numbers of games, got {args.batch}")
    games = args.game or ["benediction"]
    interfaces = args.interface or ["vector"]
    try:
        options = {game: dict(parse_settings(get_game(game), args.set)) for game in games}
    except ValueError as error:
        parser.error(str(error))

    def say(text: str) -> None:  # on stderr: --json keeps stdout for the figures
        print(text, file=sys.stderr, flush=True)

    source, note = ((None, "not requested") if args.no_anchor
                    else find_anchor(args.anchor, yardstick_game()))
    if source is None and not args.no_anchor:  # said, not skipped without a word
        say(f"no C anchor in this run: {note}")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="hexgames-anchor-") as tmp:
        binary = compile_anchor(source, tmp) if source is not None else None
        for game, batch, interface in itertools.product(games, args.batch, interfaces):
            rates: list[float] = []
            cpu_rates: list[float] = []
            anchor: list[float] = []
            anchor_cpu: list[float] = []
            for run in range(args.runs):
                if binary is not None:
                    c_rate, _, c_cpu = run_anchor(binary, ANCHOR_GAMES, 1 + run)
                    anchor.append(c_rate)
                    anchor_cpu.append(c_cpu)
                rate, cpu_rate = _timed(batch, args.seconds, run, game, say, interface,
                                        args.warmup, options[game])
                rates.append(rate)
                cpu_rates.append(cpu_rate)
            rows.append({
                "game": game, "options": options[game], "batch": batch,
                "interface": interface, "runs": args.runs, "seconds": args.seconds,
                "warmup": args.warmup,
                "steps_per_s": statistics.median(rates), "runs_steps_per_s": rates,
                "steps_per_cpu_s": statistics.median(cpu_rates),
                "anchor_actions_per_s": statistics.median(anchor) if anchor else None,
                "anchor_actions_per_cpu_s": statistics.median(anchor_cpu) if anchor else None,
                "anchor_note": None if anchor else note,
            })
    if args.json:
        print(json.dumps(rows[0] if len(rows) == 1 else rows, indent=2, default=str))
        return 0
    if len(rows) == 1:
        row = rows[0]
        line = (f"{get_game(row['game']).title} vector env ({row['interface']}), batch "
                f"{row['batch']}: {row['steps_per_s']:,.0f} steps/s (masks and "
                f"observations; median of {args.runs})")
        if row["anchor_actions_per_s"] is not None:  # the anchor is C Benediction
            line += (f"; C anchor (Benediction) in the same run: "
                     f"{row['anchor_actions_per_s']:,.0f} actions/s")
        print(line)
        return 0
    print("| game | batch | interface | steps/s | steps per CPU s | C anchor actions per "
          "CPU s | ratio (CPU) |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for row in rows:
        c_cpu = row["anchor_actions_per_cpu_s"]
        anchor_cells = ("- | -" if c_cpu is None else
                        f"{c_cpu:,.0f} | {row['steps_per_cpu_s'] / c_cpu:.2f}")
        print(f"| {row['game']} | {row['batch']} | {row['interface']} | "
              f"{row['steps_per_s']:,.0f} | {row['steps_per_cpu_s']:,.0f} | {anchor_cells} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
