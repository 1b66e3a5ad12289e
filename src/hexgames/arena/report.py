"""The designer's balance report: statistics of many self-play games of one variant.

A designer asks: does the first player win too often? Do games end in draws, or by
hitting a limit? How long are they, how many choices does a player have in the opening,
middle and end, and how do games end? :func:`analyse` answers from a list of
:class:`~hexgames.arena.match.GameResult` (played with branching tracked), and
:func:`write_report` writes ``report.md`` with PNG plots (matplotlib's Agg backend, so no
display is needed).
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hexgames.arena.match import CAPPED, GameResult
from hexgames.game import Game

PHASES = ("opening", "middle", "end")
Z95 = 1.959963984540054


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion: unlike ``p +- z*sqrt(p(1-p)/n)`` it stays
    inside [0, 1] and behaves for rates near 0 or 1 and for small samples."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def phase_of(turn: int, total_turns: int) -> int:
    """0, 1, 2 for the first, middle and last third of a game's turns."""
    if total_turns <= 0:
        return 0
    return min(2, (turn - 1) * 3 // total_turns)


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
    #: Skill trace: (player spec, games, seat-0 score rate, its 95% interval, draws).
    skill_trace: list[tuple[str, int, float, tuple[float, float], int]] = field(
        default_factory=list
    )
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


def wilson_score(score: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """:func:`wilson` for a score that may count draws as halves."""
    if trials <= 0:
        return (0.0, 1.0)
    p = score / trials
    denominator = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def analyse(
    results: Sequence[GameResult],
    game: Game | None = None,
    options: Mapping[str, Any] | None = None,
) -> Balance:
    """Tally balance statistics over finished games.

    With ``game``, every record is also replayed (:func:`hexgames.arena.replay.replay`)
    for rule usage, colours, lead changes and drama; ``options`` (the variant's rules
    options) lets the report flag options that never came into play."""
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
            "game": r.index + 1, "seat0": r.players[0], "seat1": r.players[1],
            "seat0_result": r.score_of_seat(0), "winning_seat": r.winning_seat,
            "turns": r.turns, "actions": r.actions, "end_reason": r.end_reason,
            "capped": r.end_reason == CAPPED, "margin": r.margin,
            "seconds": round(r.seconds, 3),
        })
    if game is not None:
        _add_replays(balance, results, game, options or {})
    return balance


def _add_replays(
    balance: Balance, results: Sequence[GameResult], game: Game, options: Mapping[str, Any]
) -> None:
    from hexgames.arena.replay import option_binding, replay, usage_spec

    games_with: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for r, row in zip(results, balance.rows, strict=True):
        if not r.record:
            continue
        seen = replay(game, r.record)
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
        row.update({
            "winning_color": seen.winner_color or "", "swapped": seen.swapped,
            "lead_changes": changes, "drama": "" if drama is None else round(drama, 3),
            **{f"used_{name.replace(' ', '_')}": count
               for name, count in sorted(seen.usage.items())},
            **dict(seen.peaks),
        })
    balance.usage = {name: (games_with[name], totals[name]) for name in sorted(totals)}
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
        if value == option.default:
            continue
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


def _describe(values: Sequence[float]) -> str:
    if not values:
        return "-"
    return (
        f"mean {statistics.fmean(values):.1f}, median {statistics.median(values):g}, "
        f"min {min(values):g}, max {max(values):g}"
    )


def write_report(
    directory: Path,
    balance: Balance,
    *,
    title: str,
    options: Mapping[str, Any],
    player: str,
    seat_names: tuple[str, str] = ("seat 0", "seat 1"),
    seconds: float | None = None,
) -> list[Path]:
    """Write ``report.md`` and its PNG plots into ``directory``; returns the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    plots = _plots(directory, balance)
    csv_path = write_csv(directory / "games.csv", balance.rows)
    lines = [
        f"# Balance report: {title}",
        "",
        f"- Variant: {', '.join(f'{k}={v}' for k, v in sorted(options.items())) or 'default'}",
        f"- Self-play: `{player}` in both seats, {balance.games} games",
    ]
    if seconds:
        lines.append(f"- Played in {seconds:.1f} s ({balance.games / seconds:.2f} games/s)")
    warning = cap_warning(balance)
    if warning:
        lines += ["", f"> **WARNING: {warning}**"]
    lines += ["", *results_lines(balance, seat_names)]
    lines += [
        "",
        "## Game length",
        "",
        f"- Turns: {_describe(balance.turns)}",
        f"- Actions: {_describe(balance.actions)}",
        f"- Completion: {100 * balance.completion_rate:.1f}% of games ended by the rules; "
        f"{balance.capped} stopped by the action cap ({100 * balance.cap_rate:.1f}%)",
        "",
        "![game length](lengths.png)",
        "",
        "## Branching factor",
        "",
        f"Counted over **real decisions** only (two or more legal actions): "
        f"{balance.forced_decisions} of {balance.decisions} decisions "
        f"({100 * balance.forced_share:.1f}%) had a single legal action (a forced step) "
        "and are left out, since they offer no choice. Phases are the first, middle and "
        "last third of each game's turns.",
        "",
        "| phase | legal actions per real decision | per decision, forced included |",
        "|---|---:|---:|",
        *(
            f"| {name} | {balance.real_branching_by_phase.get(name, float('nan')):.1f} "
            f"| {value:.1f} |"
            for name, value in balance.branching_by_phase.items()
        ),
        "",
        "![branching](branching.png)",
        "",
        "## How games end",
        "",
        "| end | winner | games |",
        "|---|---|---:|",
    ]
    for (reason, seat), count in balance.endings.most_common():
        winner = "draw" if seat is None else seat_names[seat]
        lines.append(f"| {reason} | {winner} | {count} |")
    lines += ["", "![endings](endings.png)", ""]
    if balance.lead_changes:
        lines += ludii_lines(balance)
    if balance.usage:
        lines += usage_lines(balance)
    if balance.skill_trace:
        lines += skill_trace_lines(balance)
    if balance.margins:
        lines += [
            "## Score margins (first player minus second player)",
            "",
            f"- {_describe(balance.margins)}",
            "",
            "![margins](margins.png)",
            "",
        ]
    lines += ["Every game, one line each: [games.csv](games.csv).", ""]
    report = directory / "report.md"
    report.write_text("\n".join(lines), encoding="utf-8")
    return [report, csv_path, *plots]


def cap_warning(balance: Balance) -> str | None:
    """The loud warning for games stopped by the action cap, ``None`` when none was."""
    if not balance.capped:
        return None
    return (
        f"{balance.capped} of {balance.games} games ({100 * balance.cap_rate:.0f}%) hit the "
        "action cap and were scored as draws: they say nothing about which seat is "
        "better. Raise --max-actions (or leave it off) for a verdict."
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def results_lines(balance: Balance, seat_names: tuple[str, str]) -> list[str]:
    """The Results section: score rate (draws as half), decisive-game win rate, counts."""
    low, high = balance.seat0_score_interval
    lines = [
        "## Results",
        "",
        f"- First player ({seat_names[0]}) **score rate {_pct(balance.seat0_score)}** "
        f"(wins + half the draws; 95% Wilson interval {_pct(low)}-{_pct(high)}). "
        "50% is a fair game.",
    ]
    if balance.decisive:
        d_low, d_high = balance.decisive_interval
        lines.append(
            f"- Among the {balance.decisive} decisive games the first player won "
            f"{balance.seat0_wins} = **{_pct(balance.decisive_seat0_rate)}** "
            f"(95% interval {_pct(d_low)}-{_pct(d_high)})"
        )
    else:
        lines.append("- No decisive game: every game was drawn, so no seat is shown better.")
    draw_low, draw_high = wilson(balance.draws, balance.games)
    lines += [
        f"- Wins: {balance.seat0_wins} by {seat_names[0]}, {balance.seat1_wins} by "
        f"{seat_names[1]}; draws {balance.draws}/{balance.games} = "
        f"{_pct(balance.draw_rate)} (95% interval {_pct(draw_low)}-{_pct(draw_high)}), "
        f"of which {balance.capped} stopped by the action cap",
        "",
        "An interval entirely above or below 50% means this player, at this strength, "
        "finds one seat better.",
    ]
    return lines


def ludii_lines(balance: Balance) -> list[str]:
    """Decisiveness, drama, lead changes, colours and swaps (Ludii's game metrics)."""
    lines = [
        "## Game quality (Ludii-style metrics)",
        "",
        f"- Decisiveness: {_pct(balance.decisiveness)} of games have a winner",
        f"- Completion: {_pct(balance.completion_rate)} ended by the rules; cap rate "
        f"{_pct(balance.cap_rate)}",
        f"- Lead changes (sign changes of the game's heuristic, sampled at the start of "
        f"every turn): {_describe(balance.lead_changes)} per game",
    ]
    if balance.drama:
        lines.append(
            "- Drama (share of turns in which the eventual winner stood worse by the "
            f"heuristic, decisive games): mean {statistics.fmean(balance.drama):.2f}, "
            f"max {max(balance.drama):.2f}"
        )
    if balance.color_wins:
        decisive = sum(balance.color_wins.values())
        wins = ", ".join(f"{color} {count} ({_pct(count / decisive)})"
                         for color, count in balance.color_wins.most_common())
        lines.append(f"- Wins by colour (the colour the winner held at the end; by seat "
                     f"see Results): {wins}")
    if balance.swaps:
        lines.append(
            f"- Swap rate (seats exchanged colours by the pie rule): {balance.swaps}/"
            f"{balance.games} = {_pct(balance.swaps / balance.games)}"
        )
    return [*lines, ""]


def usage_lines(balance: Balance) -> list[str]:
    """Rule usage per game and the options that never came into play."""
    lines = [
        "## Rule usage",
        "",
        "| rule | games where used | times (all games) | per game |",
        "|---|---:|---:|---:|",
    ]
    for name, (games, total) in sorted(balance.usage.items(), key=lambda kv: -kv[1][1]):
        lines.append(f"| {name} | {games}/{balance.games} | {total} | "
                     f"{total / balance.games:.1f} |")
    for name, value in balance.peaks.items():
        lines.append(f"| {name} (largest in any game) | | {value} | |")
    lines.append("")
    for label, (games, differing, decisions) in balance.binding.items():
        if games:
            lines.append(
                f"- Option `{label}` (not the default): the default would have offered "
                f"other legal actions or ended differently at {differing} of {decisions} "
                f"decisions, in {games} of {balance.games} games."
            )
        else:
            lines.append(
                f"- **WARNING: option `{label}` never came into play**: at every decision "
                f"of the {balance.games} games the default offered exactly the same legal "
                "actions and end, so these games are the default's games and say nothing "
                "about the option."
            )
    for label, event, games in balance.used_options:
        lines.append(f"- Option `{label}` came into play ({event}) in {games} games.")
    for label, event in balance.unused_options:
        lines.append(
            f"- **WARNING: option `{label}` never came into play** (no {event} in "
            f"{balance.games} games): the rule it governs never fired, so these games "
            "cannot show its effect."
        )
    return [*lines, ""]


def skill_trace_lines(balance: Balance) -> list[str]:
    """Balance at several strengths: the first player's score rate per player."""
    lines = [
        "## Skill trace (balance at several strengths)",
        "",
        "| player | games | first-player score rate | 95% interval | draws |",
        "|---|---:|---:|---|---:|",
    ]
    for spec, games, rate, (low, high), draws in balance.skill_trace:
        lines.append(f"| `{spec}` | {games} | {_pct(rate)} | {_pct(low)}-{_pct(high)} "
                     f"| {draws} |")
    lines += [
        "",
        "A bias that grows with strength is a property of the game; one that shrinks is "
        "a weakness of the weaker players.",
        "",
    ]
    return lines


def write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    """One line per game (the columns of every row, in order of first appearance)."""
    import csv

    columns: list[str] = []
    for row in rows:
        columns += [key for key in row if key not in columns]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, restval=0)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return path


def integer_bins(values: Sequence[float], most: int = 30) -> list[float]:
    """Histogram bin edges for integer data: every bin covers whole numbers only,
    centred on them (``k - 0.5 .. k + width - 0.5``), at most ``most`` bins."""
    low, high = math.floor(min(values)), math.ceil(max(values))
    width = max(1, math.ceil((high - low + 1) / most))
    count = (high - low) // width + 1
    return [low - 0.5 + i * width for i in range(count + 1)]


def _plots(directory: Path, balance: Balance) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.ticker import MaxNLocator

    paths = []

    def save(fig: Any, name: str) -> None:
        path = directory / name
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(balance.turns, bins=integer_bins(balance.turns), color="#4477aa")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("turns per game")
    ax.set_ylabel("games")
    ax.set_title("Game length")
    save(fig, "lengths.png")

    fig, ax = plt.subplots(figsize=(6, 3.5))
    turns = list(balance.branching_by_turn)
    ax.plot(turns, [balance.branching_by_turn[t] for t in turns], color="#228833")
    ax.set_xlabel("turn")
    ax.set_ylabel("mean legal actions")
    ax.set_title("Branching factor by turn")
    save(fig, "branching.png")

    fig, ax = plt.subplots(figsize=(6, 3.5))
    labels, counts = [], []
    for (reason, seat), count in balance.endings.most_common():
        labels.append(f"{reason}\n({'draw' if seat is None else f'seat {seat}'})")
        counts.append(count)
    ax.barh(labels, counts, color="#cc6677")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("games")
    ax.set_title("How games end")
    save(fig, "endings.png")

    if balance.margins:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        # Margins are whole or half points: one bin per half point, centred on it.
        doubled = [2 * m for m in balance.margins]
        ax.hist(balance.margins, bins=[edge / 2 for edge in integer_bins(doubled, 40)],
                color="#ddaa33")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.axvline(0, color="black", linewidth=1)
        ax.set_xlabel("score margin (seat 0 - seat 1)")
        ax.set_ylabel("games")
        ax.set_title("Score margins")
        save(fig, "margins.png")
    return paths
