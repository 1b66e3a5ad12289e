"""The numbers of a variant sweep (``hexgames sweep``): the grid of variants, the
schedule of games, each variant's designer metrics and the recommendation.

A sweep's metrics per variant are the balance report's (:func:`hexgames.arena.report.stats.analyse`:
balance, decisiveness, length, branching, lead changes, drama, rule usage, options that
never came into play, board coverage, pieces, repetition) plus the skill trace, so that
the side-by-side table and ``hexgames report`` on one variant say the same things.
"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hexgames.arena.match import CAPPED, GameResult
from hexgames.arena.replay import Replay
from hexgames.arena.report.stats import (
    Z95,
    Balance,
    TraceLine,
    analyse,
    trace_line,
    unused_option_warnings,
    wilson_score,
)
from hexgames.arena.work import Pairing, Setup, Work
from hexgames.game import Game, Option, parse_option_value

#: A variant needs at least this share of decisive games to be recommended.
MIN_DECISIVE = 0.5


# ---------------------------------------------------------------------------------------
# The grid


def parse_grid(game: Game, items: Sequence[str]) -> dict[str, list[Any]]:
    """``["board_side=4,5", "max_stack=2,8"]`` -> ``{"board_side": [4, 5], ...}``.

    Each value is converted and checked by its :class:`~hexgames.game.Option`
    (``parse_option_value`` and ``Option.validate``); ``ValueError`` names the problem.
    """
    by_name: dict[str, Option] = {}
    for option in game.options:
        for name in (option.name, *option.aliases):
            by_name[name] = option
    grid: dict[str, list[Any]] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or not name or not raw.strip():
            raise ValueError(f"--grid expects option=value1,value2,..., got {item!r}")
        if name not in by_name:
            names = ", ".join(o.name for o in game.options) or "none"
            raise ValueError(f"{game.title} has no option {name!r}; options: {names}")
        option = by_name[name]
        if option.name in grid:
            raise ValueError(f"option {option.name} appears twice in --grid")
        values = [option.validate(parse_option_value(option, text))
                  for text in raw.split(",")]
        if len(set(values)) != len(values):
            raise ValueError(f"option {option.name} lists a value twice in --grid: {raw!r}")
        grid[option.name] = values
    if not grid:
        raise ValueError("--grid needs at least one option=value1,value2,...")
    return grid


def variants(game: Game, fixed: Mapping[str, Any], grid: Mapping[str, Sequence[Any]]
             ) -> list[dict[str, Any]]:
    """Every combination of the grid's values on top of ``fixed``, checked by the rules."""
    clash = sorted(set(fixed) & set(grid))
    if clash:
        raise ValueError(f"option {clash[0]} is both fixed (--set) and swept (--grid)")
    names = list(grid)
    result = []
    for values in itertools.product(*(grid[name] for name in names)):
        options = {**fixed, **dict(zip(names, values, strict=True))}
        try:
            game.make_rules(**options)
        except ValueError as error:
            raise ValueError(f"variant {label(options, names)} is refused: {error}") from None
        result.append(options)
    return result


def label(options: Mapping[str, Any], names: Sequence[str]) -> str:
    """``board_side=4 max_stack=2``: the swept options of a variant."""
    return " ".join(f"{name}={value_text(options[name])}" for name in names)


def value_text(value: Any) -> str:
    """An option's value as ``--grid`` and labels write it (``none``, ``true``, ``4``)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def schedule(options: Sequence[Mapping[str, Any]], players: tuple[str, str], games: int,
             seed: int = 0, max_actions: int | None = None, game_name: str = "",
             trace: Sequence[str] = ()) -> list[Work]:
    """The batch of a sweep: ``games`` per variant, variant after variant; then, for each
    skill-trace player, as many self-play games per variant on the same seeds.

    With two different players the seats alternate (the first of them sits first in
    even games), so the first-player score is a property of the variant, not of who
    sat first more often. Game ``i`` of variant ``k`` of part ``p`` (0: the players,
    then the trace's) is at ``(p * variants + k) * games + i`` (:func:`place`).
    """
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    work: list[Work] = []
    for part in [None, *trace]:
        for variant in options:
            setup = Setup(game_name, dict(variant), max_actions=max_actions,
                          track_branching=True)
            for i in range(games):
                if part is not None:
                    specs = (part, part)
                else:
                    specs = players if i % 2 == 0 else (players[1], players[0])
                work.append((setup, Pairing(i, specs, seed * 1_000_003 + i)))
    return work


def place(position: int, variants: int, games: int) -> tuple[int, int, int]:
    """``(part, variant, game)`` of a position in :func:`schedule`'s batch."""
    part, rest = divmod(position, variants * games)
    variant, game = divmod(rest, games)
    return part, variant, game


# ---------------------------------------------------------------------------------------
# Metrics


def score_interval(points: float, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson interval for a mean score in [0, 1] (draws counting half).

    The Wilson formula with the score as the proportion
    (:func:`hexgames.arena.report.stats.wilson_score`): it stays in [0, 1], contains the score
    itself (at 30 of 30 the upper bound is exactly 1), and is conservative when there are
    draws (a draw varies less than a win or a loss).
    """
    return wilson_score(points, games, z)


@dataclass
class VariantStats:
    """The designer metrics of one variant (tests check these numbers)."""

    label: str
    options: dict[str, Any]
    games: int
    seat0_wins: int
    seat1_wins: int
    draws: int
    #: Games stopped by the arena's action cap (scored as draws).
    capped: int
    turns: list[int]
    actions: list[int]
    #: Mean legal actions over every position where a player acted.
    branching: float
    #: Mean legal actions over real decisions (more than one legal action).
    decision_branching: float
    #: Share of positions with a single legal action.
    forced_share: float
    #: end reason -> games.
    endings: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    #: The balance report's analysis of these games (lead changes, drama, rule usage,
    #: options that never came into play, board coverage, pieces, repetition), when the
    #: games were summarised with their game (``None`` otherwise).
    balance: Balance | None = None
    #: Skill trace: the variant's self-play at other strengths (:func:`add_trace`).
    trace: list[TraceLine] = field(default_factory=list)

    @property
    def first_player_score(self) -> float:
        return (self.seat0_wins + 0.5 * self.draws) / self.games

    @property
    def score_interval(self) -> tuple[float, float]:
        return score_interval(self.seat0_wins + 0.5 * self.draws, self.games)

    @property
    def decisive(self) -> int:
        return self.seat0_wins + self.seat1_wins

    @property
    def decisive_share(self) -> float:
        return self.decisive / self.games

    @property
    def decisive_interval(self) -> tuple[float, float]:
        return score_interval(self.decisive, self.games)

    @property
    def imbalance(self) -> float:
        """Distance of the first-player score from 50%."""
        return abs(self.first_player_score - 0.5)

    @property
    def lead_changes(self) -> float | None:
        """Mean lead changes per game (``None`` without replays)."""
        return _mean(self.balance.lead_changes) if self.balance else None

    @property
    def drama(self) -> float | None:
        """Mean drama of the decisive games (``None`` without replays or decisive games)."""
        return _mean(self.balance.drama) if self.balance else None

    @property
    def coverage(self) -> float | None:
        """Mean share of the board's cells that held a piece in a game."""
        return _mean(self.balance.coverage) if self.balance else None

    @property
    def repetition(self) -> float | None:
        """Mean share of turns that start from a position seen before in the game."""
        return _mean(self.balance.repetition) if self.balance else None

    @property
    def unused_options(self) -> list[str]:
        """``option=value`` of the options that never came into play in this variant."""
        return unused_option_warnings(self.balance) if self.balance else []


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def summarise(name: str, options: Mapping[str, Any], results: Sequence[GameResult],
              game: Game | None = None, *, replays: Sequence[Replay | None] | None = None
              ) -> VariantStats:
    """The metrics of one variant's games (played with branching tracked); with ``game``
    also the balance report's (every record replayed, or ``replays`` used)."""
    if not results:
        raise ValueError(f"variant {name} has no games")
    counts = [count for r in results for _turn, count in r.branching]
    decisions = [count for count in counts if count > 1]
    return VariantStats(
        label=name,
        options=dict(options),
        games=len(results),
        seat0_wins=sum(r.winning_seat == 0 for r in results),
        seat1_wins=sum(r.winning_seat == 1 for r in results),
        draws=sum(r.winning_seat is None for r in results),
        capped=sum(r.end_reason == CAPPED for r in results),
        turns=[r.turns for r in results],
        actions=[r.actions for r in results],
        branching=statistics.fmean(counts) if counts else 0.0,
        decision_branching=statistics.fmean(decisions) if decisions else 0.0,
        forced_share=(len(counts) - len(decisions)) / len(counts) if counts else 0.0,
        endings=Counter(r.end_reason for r in results),
        seconds=sum(r.seconds for r in results),
        balance=analyse(results, game, options, replays=replays) if game else None,
    )


def add_trace(stats: VariantStats, main: Sequence[GameResult],
              traced: Mapping[str, Sequence[GameResult]]) -> None:
    """The variant's skill trace: its own players' line, then each traced player's."""
    if not traced:
        return
    players = sorted({spec for r in main for spec in r.players})
    stats.trace = [trace_line(",".join(players), main),
                   *(trace_line(spec, games) for spec, games in traced.items() if games)]


def recommend(stats: Sequence[VariantStats], *, min_decisive: float = MIN_DECISIVE
              ) -> tuple[list[VariantStats], list[str]]:
    """Every variant statistically tied with the best, best first, and the reasons in
    sentences (no fixed number: a cut is made only where the intervals say so, and
    named).

    A variant qualifies with at least ``min_decisive`` decisive games (a variant whose
    games are mostly drawn or capped looks balanced for the wrong reason); qualifying
    variants are ranked by the first-player score's distance from 50%, ties going to
    more decisive games and then to the narrower interval. When some qualifying variant
    has 50% inside its interval, every such variant is recommended (none of them is
    shown unbalanced; their order is not established); otherwise the least unbalanced
    one is named as such, with every variant whose interval overlaps its own. The
    qualifying variants below the cut are listed by name in a sentence of their own.
    """
    eligible = [s for s in stats if s.decisive_share >= min_decisive]
    ranked = sorted(eligible, key=lambda s: (round(s.imbalance, 9), -s.decisive_share,
                                             s.score_interval[1] - s.score_interval[0]))
    balanced = [s for s in ranked if _contains_half(s.score_interval)]
    if balanced:
        chosen = balanced
    else:
        chosen = [s for s in ranked if _overlap(ranked[0].score_interval, s.score_interval)
                  ] if ranked else []
    reasons: list[str] = []
    left_out = [s for s in stats if s not in eligible]
    if not chosen:
        reasons.append(
            f"No variant has at least {100 * min_decisive:.0f}% decisive games, so none is "
            "recommended: the games end drawn or at the action cap too often to judge "
            "balance (a longer cap, a stronger player or other options may help)."
        )
        return chosen, reasons
    if not balanced:
        reasons.append(
            "No qualifying variant has 50% inside its interval: every one favours a seat. "
            "The least unbalanced, and those whose interval overlaps its own:"
        )
    for rank, s in enumerate(chosen, 1):
        reasons.append(f"{rank}. " + _reason(s))
    if len(chosen) > 1:
        reasons.append(
            f"With {chosen[0].games} games per variant these {len(chosen)} variants are "
            "tied: " + ("each has 50% inside its interval" if balanced else
                        "their intervals overlap the best's")
            + ", so their order is not established; play more games (`--games`) on them "
            "to separate them."
        )
    cut = [s for s in ranked if s not in chosen]
    if cut:
        reasons.append(
            f"Cut: {len(cut)} qualifying variant{'s' if len(cut) > 1 else ''} ranked below "
            "the tie ("
            + ("50% outside the interval" if balanced else "interval apart from the best's")
            + "): " + "; ".join(f"{s.label} ({100 * s.first_player_score:.0f}% for the first "
                                "player)" for s in cut) + "."
        )
    unbalanced = [s for s in stats if not _contains_half(s.score_interval)]
    if unbalanced:
        reasons.append(
            "Measurably unbalanced (95% interval excludes 50%): "
            + "; ".join(f"{s.label} ({100 * s.first_player_score:.0f}% for the first player)"
                        for s in unbalanced) + "."
        )
    if left_out:
        reasons.append(
            f"Not considered (fewer than {100 * min_decisive:.0f}% decisive games): "
            + "; ".join(f"{s.label} ({100 * s.decisive_share:.0f}%)" for s in left_out) + "."
        )
    return chosen, reasons


def _reason(s: VariantStats) -> str:
    """One recommended variant in a sentence."""
    low, high = s.score_interval
    inside = _contains_half(s.score_interval)
    return (
        f"**{s.label}**: the first player scores {100 * s.first_player_score:.1f}% "
        f"(95% {100 * low:.1f}-{100 * high:.1f}%, "
        + ("50% inside the interval" if inside else "50% outside the interval: "
           f"favours the {'first' if s.first_player_score > 0.5 else 'second'} player")
        + f"); {100 * s.decisive_share:.0f}% of games decisive; median "
        f"{statistics.median(s.turns):g} turns; {s.decision_branching:.1f} choices per "
        "real decision."
    )


def _contains_half(interval: tuple[float, float]) -> bool:
    return interval[0] <= 0.5 <= interval[1]


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


