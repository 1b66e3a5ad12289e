"""The designer's balance report in numbers: statistics of many self-play games of one
variant.

A designer asks: does the first player win too often? Do games end in draws, or by
hitting a limit? How long are they, how many choices does a player have in the opening,
middle and end, how do games end, how much of the board do they use, and does the
balance hold for stronger players? :func:`analyse` answers from a list of
:class:`~hexgames.arena.match.GameResult` (played with branching tracked) in a
:class:`Balance`; :mod:`.markdown` writes it as ``report.md`` with plots.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hexgames.arena.gamecsv import result_columns
from hexgames.arena.match import CAPPED, GameResult
from hexgames.arena.players import ladder_rank
from hexgames.arena.replay import Replay, option_binding, replay, usage_spec
from hexgames.arena.report import ludii
from hexgames.game import Game

PHASES = ("opening", "middle", "end")
Z95 = 1.959963984540054


def wilson_score(score: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a mean score in [0, 1] (a proportion, or a score that
    counts draws as halves): unlike ``p +- z*sqrt(p(1-p)/n)`` it stays inside [0, 1] and
    behaves for rates near 0 or 1 and for small samples.

    At a rate of exactly 0 or 1 the interval touches 0 or 1 exactly (floating point
    would otherwise leave the bound a hair inside, below the rate itself)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = score / trials
    denominator = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if p <= 0.0 else min(p, max(0.0, centre - half))
    high = 1.0 if p >= 1.0 else max(p, min(1.0, centre + half))
    return (low, high)


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """:func:`wilson_score` for a count of successes."""
    return wilson_score(successes, trials, z)


def phase_of(turn: int, total_turns: int) -> int:
    """0, 1, 2 for the first, middle and last third of a game's turns."""
    if total_turns <= 0:
        return 0
    return min(2, (turn - 1) * 3 // total_turns)


#: One line of a skill trace: (player spec, games, seat-0 score rate, its 95% interval,
#: draws).
TraceLine = tuple[str, int, float, tuple[float, float], int]


@dataclass
class Balance:
    """Everything the report says, as numbers (tests check these)."""

    games: int
    seat0_wins: int
    seat1_wins: int
    draws: int
    seat0_interval: tuple[float, float]
    turns: list[int]
    actions: list[int]
    #: Mean number of legal actions per decision in each phase.
    branching_by_phase: dict[str, float]
    #: Mean legal actions by turn number (turn -> mean).
    branching_by_turn: dict[int, float]
    #: (end reason, winning seat or None) -> games.
    endings: Counter[tuple[str, int | None]]
    margins: list[float] = field(default_factory=list)
    #: Games stopped by the action cap (scored as draws, counted in ``draws``).
    capped: int = 0
    #: Mean legal actions per *real* decision (two or more legal actions) in each phase.
    real_branching_by_phase: dict[str, float] = field(default_factory=dict)
    #: Decisions with a single legal action, and all decisions.
    forced_decisions: int = 0
    decisions: int = 0
    #: Filled when the games were replayed (``analyse(results, game)``), else empty:
    #: rule event -> (games in which it happened, times in all games).
    usage: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: The game's peaks (e.g. largest stack) -> largest value in any game.
    peaks: dict[str, int] = field(default_factory=dict)
    #: Options in force that never came into play: (option=value, event looked for).
    unused_options: list[tuple[str, str]] = field(default_factory=list)
    #: Options in force that did: (option=value, event, games in which it happened).
    used_options: list[tuple[str, str, int]] = field(default_factory=list)
    #: Options set away from their default: option=value -> (games in which the default
    #: would have offered other choices or ended differently, such decisions, decisions).
    binding: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    #: Wins by colour (the colour the winner held at the end).
    color_wins: Counter[str] = field(default_factory=Counter)
    #: Games in which the seats exchanged colours (pie rule).
    swaps: int = 0
    #: Per game: times the heuristic's sign changed between turns, and the drama (share of
    #: the eventual winner's turns in which it stood worse by the heuristic; decisive games).
    lead_changes: list[int] = field(default_factory=list)
    drama: list[float] = field(default_factory=list)
    #: Per game: share of the board's cells that ever held a piece (games whose game
    #: lists its pieces, ``RuleUsage.pieces``).
    coverage: list[float] = field(default_factory=list)
    #: Per game: share of turns that started from a position seen before in that game.
    repetition: list[float] = field(default_factory=list)
    #: Colour -> turn -> mean pieces of that colour on the board at the start of the turn,
    #: over the games that lasted that long.
    pieces_by_turn: dict[str, dict[int, float]] = field(default_factory=dict)
    #: Colour -> pieces on the board at the end of each game.
    final_pieces: dict[str, list[int]] = field(default_factory=dict)
    #: Per game, Ludii's evaluation metrics (:mod:`hexgames.arena.report.ludii`): uncertainty
    #: and stability of every game; the decisiveness threshold and the share of the game
    #: played before the winner passed it, of decisive games.
    uncertainty: list[float] = field(default_factory=list)
    stability: list[float] = field(default_factory=list)
    thresholds: list[float] = field(default_factory=list)
    decided_at: list[float] = field(default_factory=list)
    #: Per game with a move across the board: the mean board distance of its moves
    #: (games that declare ``RuleUsage.move_cells``).
    move_distance: list[float] = field(default_factory=list)
    #: End reasons the game declares as limits (``RuleUsage.limit_ends``).
    limit_ends: frozenset[str] = frozenset()
    #: Skill trace: balance of self-play at several strengths (:func:`trace_line`).
    skill_trace: list[TraceLine] = field(default_factory=list)
    #: One dict per game for ``games.csv``.
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def seat0_rate(self) -> float:
        """Share of games seat 0 won (draws count as not won: see :attr:`seat0_score`)."""
        return self.seat0_wins / self.games if self.games else 0.0

    @property
    def draw_rate(self) -> float:
        return self.draws / self.games if self.games else 0.0

    @property
    def seat0_score(self) -> float:
        """Seat 0's score rate, a draw counting half: 0.5 is a fair game."""
        return (self.seat0_wins + self.draws / 2) / self.games if self.games else 0.5

    @property
    def seat0_score_interval(self) -> tuple[float, float]:
        return wilson_score(self.seat0_wins + self.draws / 2, self.games)

    @property
    def decisive(self) -> int:
        return self.seat0_wins + self.seat1_wins

    @property
    def decisive_seat0_rate(self) -> float | None:
        """Seat 0's share of the decisive games (``None`` when every game was drawn)."""
        return self.seat0_wins / self.decisive if self.decisive else None

    @property
    def decisive_interval(self) -> tuple[float, float]:
        return wilson(self.seat0_wins, self.decisive)

    @property
    def decisiveness(self) -> float:
        """Share of games with a winner."""
        return self.decisive / self.games if self.games else 0.0

    @property
    def cap_rate(self) -> float:
        return self.capped / self.games if self.games else 0.0

    @property
    def completion_rate(self) -> float:
        """Share of games that ended by the rules (not stopped by the cap)."""
        return 1.0 - self.cap_rate

    @property
    def forced_share(self) -> float:
        return self.forced_decisions / self.decisions if self.decisions else 0.0


def analyse(
    results: Sequence[GameResult],
    game: Game | None = None,
    options: Mapping[str, Any] | None = None,
    *,
    replays: Sequence[Replay | None] | None = None,
) -> Balance:
    """Tally balance statistics over finished games.

    With ``game``, every record is also replayed (:func:`hexgames.arena.replay.replay`)
    for rule usage, colours, lead changes, drama, board coverage, piece counts and
    repetition; ``options`` (the variant's rules options) lets the report flag options
    that never came into play. ``replays`` (one per result, in order) are used instead of
    replaying again when the caller already has them."""
    if not results:
        raise ValueError("no games to analyse")
    seat0 = sum(1 for r in results if r.winning_seat == 0)
    seat1 = sum(1 for r in results if r.winning_seat == 1)
    phase_sums = [0.0, 0.0, 0.0]
    phase_counts = [0, 0, 0]
    real_sums = [0.0, 0.0, 0.0]
    real_counts = [0, 0, 0]
    forced = decisions = 0
    turn_sums: dict[int, list[float]] = {}
    for r in results:
        for turn, count in r.branching:
            phase = phase_of(turn, r.turns)
            phase_sums[phase] += count
            phase_counts[phase] += 1
            decisions += 1
            if count <= 1:
                forced += 1
            else:
                real_sums[phase] += count
                real_counts[phase] += 1
            acc = turn_sums.setdefault(turn, [0.0, 0.0])
            acc[0] += count
            acc[1] += 1
    by_phase = {
        name: phase_sums[i] / phase_counts[i] for i, name in enumerate(PHASES) if phase_counts[i]
    }
    real_by_phase = {
        name: real_sums[i] / real_counts[i] for i, name in enumerate(PHASES) if real_counts[i]
    }
    by_turn = {t: s / n for t, (s, n) in sorted(turn_sums.items())}
    endings = Counter((r.end_reason, r.winning_seat) for r in results)
    balance = Balance(
        games=len(results),
        seat0_wins=seat0,
        seat1_wins=seat1,
        draws=len(results) - seat0 - seat1,
        seat0_interval=wilson(seat0, len(results)),
        turns=[r.turns for r in results],
        actions=[r.actions for r in results],
        branching_by_phase=by_phase,
        branching_by_turn=by_turn,
        endings=endings,
        margins=[r.margin for r in results if r.margin is not None],
        capped=sum(1 for r in results if r.end_reason == CAPPED),
        real_branching_by_phase=real_by_phase,
        forced_decisions=forced,
        decisions=decisions,
    )
    for r in results:
        balance.rows.append({
            **result_columns(r, legacy_return=False),
            "capped": r.end_reason == CAPPED, "margin": r.margin,
        })
    if game is not None:
        if replays is None:
            replays = [replay(game, r.record) if r.record else None for r in results]
        _add_replays(balance, results, replays, game, options or {})
    return balance


def _add_replays(
    balance: Balance, results: Sequence[GameResult], replays: Sequence[Replay | None],
    game: Game, options: Mapping[str, Any],
) -> None:
    games_with: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    piece_sums: dict[str, dict[int, list[float]]] = {}
    for r, row, seen in zip(results, balance.rows, replays, strict=True):
        if seen is None:
            continue
        games_with.update(seen.usage.keys())
        totals.update(seen.usage)
        for name, peak in seen.peaks.items():
            balance.peaks[name] = max(balance.peaks.get(name, peak), peak)
        if seen.winner_color is not None:
            balance.color_wins[seen.winner_color] += 1
        balance.swaps += seen.swapped
        signs = [1 if v > 0 else -1 for v in seen.trace[:-1] if v != 0]
        changes = sum(1 for a, b in itertools.pairwise(signs) if a != b)
        balance.lead_changes.append(changes)
        drama = None
        if r.winning_seat is not None and len(seen.trace) > 1:
            sign = 1.0 if r.winning_seat == 0 else -1.0
            turns = seen.trace[:-1]
            drama = sum(1 for v in turns if sign * v < 0) / len(turns)
            balance.drama.append(drama)
        balance.repetition.append(seen.repetition)
        row.update(_evaluation_metrics(balance, seen, r.winning_seat))
        board = {}
        if seen.coverage is not None:
            balance.coverage.append(seen.coverage)
            board["coverage"] = round(seen.coverage, 3)
        _add_pieces(balance, piece_sums, seen, game.colors, board)
        row.update({
            "winning_color": seen.winner_color or "", "swapped": seen.swapped,
            "lead_changes": changes, "drama": "" if drama is None else round(drama, 3),
            "repeated_turns": seen.repeats, **board,
            **{f"used_{name.replace(' ', '_')}": count
               for name, count in sorted(seen.usage.items())},
            **dict(seen.peaks),
        })
    balance.pieces_by_turn = {
        color: {turn: total / count for turn, (total, count) in sorted(by_turn.items())}
        for color, by_turn in piece_sums.items()
    }
    balance.usage = {name: (games_with[name], totals[name]) for name in sorted(totals)}
    balance.limit_ends = usage_spec(game).limit_ends
    _add_options(balance, results, game, options, games_with)


def _evaluation_metrics(balance: Balance, seen: Replay, winning_seat: int | None
                        ) -> dict[str, Any]:
    """Ludii's uncertainty, stability, decisiveness threshold and move distance of one
    game, added to ``balance``; returns its ``games.csv`` columns."""
    starts = seen.trace[:-1]
    row: dict[str, Any] = {}
    values = {
        "uncertainty": (ludii.uncertainty(starts), balance.uncertainty),
        "stability": (ludii.stability(starts), balance.stability),
        "decisiveness_threshold": (ludii.decisiveness_threshold(starts, winning_seat),
                                   balance.thresholds),
        "decided_at": (ludii.decided_at(starts, winning_seat), balance.decided_at),
        "move_distance": (statistics.fmean(seen.distances) if seen.distances else None,
                          balance.move_distance),
    }
    for column, (value, found) in values.items():
        if value is not None:
            found.append(value)
        row[column] = "" if value is None else round(value, 3)
    return row


def _add_pieces(balance: Balance, piece_sums: dict[str, dict[int, list[float]]],
                seen: Replay, colors: Sequence[str], row: dict[str, Any]) -> None:
    """Piece counts by turn (the start of every turn) and at the end of one game."""
    if not seen.pieces:
        return
    start_of_turns, end = seen.pieces[:-1], seen.pieces[-1]
    for color in colors:
        by_turn = piece_sums.setdefault(color, {})
        for turn, counts in enumerate(start_of_turns, 1):
            acc = by_turn.setdefault(turn, [0.0, 0.0])
            acc[0] += counts.get(color, 0)
            acc[1] += 1
        balance.final_pieces.setdefault(color, []).append(end.get(color, 0))
        row[f"pieces_{color}"] = end.get(color, 0)


def _add_options(balance: Balance, results: Sequence[GameResult], game: Game,
                 options: Mapping[str, Any], games_with: Counter[str]) -> None:
    """Which options in force came into play, and which set away from the default bound."""
    rules = game.make_rules(**options)
    in_force = game.rules_options(rules)
    defaults = {option.name: option.default for option in game.options}
    for name, event in usage_spec(game).option_events.items():
        value = in_force.get(name)
        if value is None or value is False or value != defaults.get(name):
            continue  # off: cannot come into play; away from the default: binding below
        if games_with[event]:
            balance.used_options.append((_label(name, value), event, games_with[event]))
        else:
            balance.unused_options.append((_label(name, value), event))
    for option in game.options:
        value = in_force.get(option.name)
        if value == option.default or option.changes_board:
            continue  # a board of another size offers other actions at every decision
        games = differing = decisions = 0
        for r in results:
            if not r.record:
                continue
            changed, steps = option_binding(game, r.record, option.name, option.default)
            games += changed > 0
            differing += changed
            decisions += steps
        balance.binding[_label(option.name, value)] = (games, differing, decisions)


def _label(name: str, value: Any) -> str:
    if value is None:
        return f"{name}=off"
    return f"{name}={str(value).lower() if isinstance(value, bool) else value}"


def unused_option_warnings(balance: Balance) -> list[str]:
    """``option=value`` of every option that never came into play in these games: set
    away from its default without changing a decision, or left at a default whose rule
    event never happened."""
    idle = [label for label, (games, _d, _n) in balance.binding.items() if not games]
    return idle + [label for label, _event in balance.unused_options]


# ---------------------------------------------------------------- findings
#: A limit (``RuleUsage.limit_ends``) that ends more than this share of games is called out.
DOMINANT_SHARE = 0.5
#: An option whose rule event happened in fewer than this share of games is called out.
RARE_SHARE = 0.1


def findings(balance: Balance) -> list[str]:
    """What a designer should know before trusting the figures, in sentences: an end
    reason that is a limit (not the game's goal) ending most games, and an option in
    force whose rule the players never or almost never use."""
    found = []
    by_reason: Counter[str] = Counter()
    for (reason, _seat), count in balance.endings.items():
        by_reason[reason] += count
    for reason, count in by_reason.most_common():
        if reason in balance.limit_ends and count > DOMINANT_SHARE * balance.games:
            found.append(
                f"{count} of {balance.games} games ({100 * count / balance.games:.0f}%) "
                f"ended by the {reason}, a limit rather than the game's goal: these "
                "players mostly let the game run into the limit, so the balance figures "
                f"describe games stopped by the {reason} rather than played to the "
                "game's own end. Check whether stronger players end games otherwise, or "
                "sweep the option that sets the limit."
            )
    for label, event, games in balance.used_options:
        if games < RARE_SHARE * balance.games:
            found.append(
                f"Option `{label}` came into play ({event}) in only {games} of "
                f"{balance.games} games: the players almost never use it, so these games "
                "hardly test it (a stronger player, or a sweep with the option off, "
                "shows whether it matters)."
            )
    for label, event in balance.unused_options:
        found.append(
            f"Option `{label}` never came into play (no {event} in {balance.games} games): "
            "the players never use it, so these games do not test it."
        )
    return found


# ---------------------------------------------------------------- skill trace
def trace_line(spec: str, results: Sequence[GameResult]) -> TraceLine:
    """One line of a skill trace: the first player's score rate in ``spec``'s self-play."""
    level = analyse(results)
    return (spec, level.games, level.seat0_score, level.seat0_score_interval, level.draws)


def skill_verdict(trace: Sequence[TraceLine]) -> str | None:
    """What the skill trace says about the first-player score, in a sentence.

    The lines are ordered by strength where every spec is on the built-in ladder
    (``random`` < ``L1`` = ``greedy`` < ``L2`` .. ``L5``), else taken in the order given.
    From the weakest to the strongest player, a score that moves away from 50% beyond the
    two intervals points at the game, one that moves towards 50% at weak play, and
    overlapping intervals show no trend at these strengths."""
    found = _trend(trace)
    if found is None:
        return None
    kind, weak, strong, known = found
    order = "From the weakest to the strongest player" if known else "In the order given"
    moves = (f"{order}, the first-player score goes from {100 * weak[2]:.1f}% "
             f"(`{weak[0]}`) to {100 * strong[2]:.1f}% (`{strong[0]}`)")
    return f"{moves}: {_TRENDS[kind][1]}"


def skill_trend(trace: Sequence[TraceLine]) -> str | None:
    """:func:`skill_verdict` in a few words, for a table cell."""
    found = _trend(trace)
    return None if found is None else _TRENDS[found[0]][0]


_TRENDS = {
    "none": ("no trend (the intervals overlap)",
             "the intervals overlap, so no trend with strength is established (play more "
             "games, or add a stronger player)."),
    "grows": ("the bias grows with strength: the game's",
              "the bias grows with strength, so it is likely a property of the game, not "
              "of weak play."),
    "shrinks": ("the bias shrinks with strength: weak play",
                "the bias shrinks with strength, so at least part of it is an artefact of "
                "weak play."),
}


def _trend(trace: Sequence[TraceLine]) -> tuple[str, TraceLine, TraceLine, bool] | None:
    """(trend, weakest line, strongest line, whether the order is the ladder's)."""
    if len(trace) < 2:
        return None
    ranks = [ladder_rank(line[0]) for line in trace]
    ordered = list(trace)
    known = all(rank is not None for rank in ranks)
    if known:
        ordered = [line for _rank, line in sorted(zip(ranks, trace, strict=True),
                                                  key=lambda pair: pair[0] or 0)]
    weak, strong = ordered[0], ordered[-1]
    (w_low, w_high), (s_low, s_high) = weak[3], strong[3]
    if w_low <= s_high and s_low <= w_high:
        kind = "none"
    elif abs(strong[2] - 0.5) > abs(weak[2] - 0.5):
        kind = "grows"
    else:
        kind = "shrinks"
    return kind, weak, strong, known


def describe(values: Sequence[float]) -> str:
    """``mean, median, min, max`` of a list of numbers (``-`` for none)."""
    if not values:
        return "-"
    return (
        f"mean {statistics.fmean(values):.1f}, median {statistics.median(values):g}, "
        f"min {min(values):g}, max {max(values):g}"
    )
