"""Strong play within a time budget: the balance report's default players, and the time
a run will take, estimated before it starts.

A report made by weak players says little about the rules (level 1 beat level 2 in a
small arena; level-2 Benediction games ended in a few turns; the pie rule went untested),
so ``hexgames report`` plays the strongest level of the ladder that fits the designer's
``--budget``. Levels differ in cost by orders of magnitude and the cost depends on the
variant (board size, branching), so it is measured, not tabled: :func:`calibrate` plays
two cheap games of the variant to find real decisions (positions with two or more legal
actions) and the number of them per game, then times a level's ``choose`` on a few of
them, in CPU seconds (steadier than wall time on a shared machine). :func:`estimate`
turns that into minutes for the whole run, giving each worker its share of a core on a
loaded machine (:class:`Machine`: the cores, and the load average the other work
makes), and :func:`pick_level` climbs the ladder from
level 1 and stops at the first level that does not fit, so calibrating costs a few
actions of the first level too slow to play.

The estimate is rough by nature: stronger players make games of other lengths than the
cheap games it counts decisions in, and the load average is a trailing mean of work that
comes and goes. The report prints it before the run and records it next to the measured
time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hexgames.arena.match import play_game
from hexgames.arena.players import auto_trace, make_player
from hexgames.game import Game, GameState

__all__ = ["LADDER", "Calibration", "Machine", "Sample", "calibrate", "estimate",
           "pick_level", "sample_decisions"]

#: The levels the budget chooses among, weakest first.
LADDER = ("L1", "L2", "L3", "L4", "L5")
#: Real decisions timed per player, and cheap games played to find them.
SAMPLES = 4
SAMPLE_GAMES = 2


@dataclass(frozen=True)
class Sample:
    """Real decisions of the variant to time players on, and how many a game has."""

    positions: tuple[GameState, ...]
    #: Mean real decisions (two or more legal actions) per game of the cheap games.
    decisions_per_game: float


@dataclass(frozen=True)
class Calibration:
    """What one player spec costs on a variant."""

    spec: str
    #: CPU seconds per real decision, the mean over the sampled positions.
    seconds_per_decision: float
    decisions_per_game: float

    @property
    def seconds_per_game(self) -> float:
        return self.seconds_per_decision * self.decisions_per_game


def sample_decisions(game: Game, options: Mapping[str, Any], seed: int = 0,
                     count: int = SAMPLES, games: int = SAMPLE_GAMES) -> Sample:
    """``count`` real decisions spread over ``games`` cheap (``L1``) games of the variant."""
    rules = game.make_rules(**dict(options))
    found: list[GameState] = []
    decisions = 0
    for number in range(games):
        players = [make_player(game, "L1", seed=seed * 2 + number * 2 + seat)
                   for seat in (0, 1)]
        result = play_game(game, rules, players, max_actions=game.max_game_length(rules),
                           track_branching=True)
        end, _tags = game.read_record(result.record)
        position = game.new_position(rules)
        for action in end.history:
            if len(position.legal_actions()) > 1 and not position.is_over:
                decisions += 1
                found.append(position.copy())
            position.play(action)
    if not found:
        return Sample((), 0.0)
    step = max(1, len(found) // count)
    return Sample(tuple(found[::step][:count]), decisions / games)


def calibrate(game: Game, spec: str, sample: Sample, seed: int = 0) -> Calibration:
    """Time ``spec``'s choice at every sampled decision (CPU seconds of this process),
    after one untimed choice: the first call of a search pays for compiling its kernel
    and filling caches, once per process, not once per decision."""
    if not sample.positions:
        return Calibration(spec, 0.0, 0.0)
    player = make_player(game, spec, seed=seed)
    player.choose(sample.positions[0].copy())  # not timed: compiling, caches, imports
    spent = 0.0
    for position in sample.positions:
        reset = getattr(player, "reset", None)
        if reset is not None:
            reset()
        started = time.process_time()
        player.choose(position.copy())
        spent += time.process_time() - started
    return Calibration(spec, spent / len(sample.positions), sample.decisions_per_game)


@dataclass(frozen=True)
class Machine:
    """The cores the workers share and the other work on them (the load average less
    the calibrating process itself): ``None`` cores counts each worker a whole core."""

    cores: int | None = None
    others: float = 0.0

    def share(self, workers: int) -> float:
        """Part of a core each of ``workers`` busy workers gets: all of one while the
        cores outnumber everything runnable, ``cores / (others + workers)`` beyond."""
        if self.cores is None:
            return 1.0
        return min(1.0, self.cores / max(1e-9, self.others + workers))


def estimate(costs: Mapping[str, Calibration], parts: Sequence[str], games: int,
             jobs: int, machine: Machine = Machine()) -> float:
    """Seconds for ``games`` self-play games of each spec of ``parts`` on ``jobs``
    workers, each getting :meth:`Machine.share` of a core."""
    total = games * sum(costs[spec].seconds_per_game for spec in parts)
    workers = max(1, min(jobs, games * len(parts)))
    return total / (workers * machine.share(workers))


def pick_level(cost_of: Callable[[str], Calibration], budget_seconds: float, games: int,
               jobs: int, trace: Callable[[str], list[str]] = auto_trace,
               machine: Machine = Machine()) -> tuple[str, dict[str, float]]:
    """The strongest level of :data:`LADDER` whose run (its self-play and its skill
    trace) is estimated to take less than ``budget_seconds``, and the estimate of every
    level tried. Levels are tried from the weakest, stopping at the first that does not
    fit; when not even level 1 fits, level 1 is returned (the caller says so)."""
    tried: dict[str, float] = {}
    costs: dict[str, Calibration] = {}
    chosen = LADDER[0]
    for level in LADDER:
        parts = [level, *(spec for spec in trace(level) if spec != level)]
        for spec in parts:
            if spec not in costs:
                costs[spec] = cost_of(spec)
        tried[level] = estimate(costs, parts, games, jobs, machine)
        if tried[level] >= budget_seconds:
            break
        chosen = level
    return chosen, tried
