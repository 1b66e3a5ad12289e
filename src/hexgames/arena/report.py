"""The designer's balance report: statistics of many self-play games of one variant.

A designer asks: does the first player win too often? Do games end in draws, or by
hitting a limit? How long are they, how many choices does a player have in the opening,
middle and end, and how do games end? :func:`analyse` answers from a list of
:class:`~hexgames.arena.match.GameResult` (played with branching tracked), and
:func:`write_report` writes ``report.md`` with PNG plots (matplotlib's Agg backend, so no
display is needed).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hexgames.arena.match import GameResult

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

    @property
    def seat0_rate(self) -> float:
        return self.seat0_wins / self.games if self.games else 0.0

    @property
    def draw_rate(self) -> float:
        return self.draws / self.games if self.games else 0.0


def analyse(results: Sequence[GameResult]) -> Balance:
    """Tally balance statistics over finished games."""
    if not results:
        raise ValueError("no games to analyse")
    seat0 = sum(1 for r in results if r.winning_seat == 0)
    seat1 = sum(1 for r in results if r.winning_seat == 1)
    phase_sums = [0.0, 0.0, 0.0]
    phase_counts = [0, 0, 0]
    turn_sums: dict[int, list[float]] = {}
    for r in results:
        for turn, count in r.branching:
            phase = phase_of(turn, r.turns)
            phase_sums[phase] += count
            phase_counts[phase] += 1
            acc = turn_sums.setdefault(turn, [0.0, 0.0])
            acc[0] += count
            acc[1] += 1
    by_phase = {
        name: phase_sums[i] / phase_counts[i] for i, name in enumerate(PHASES) if phase_counts[i]
    }
    by_turn = {t: s / n for t, (s, n) in sorted(turn_sums.items())}
    endings = Counter((r.end_reason, r.winning_seat) for r in results)
    return Balance(
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
    )


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
    low, high = balance.seat0_interval
    draw_low, draw_high = wilson(balance.draws, balance.games)
    lines = [
        f"# Balance report: {title}",
        "",
        f"- Variant: {', '.join(f'{k}={v}' for k, v in sorted(options.items())) or 'default'}",
        f"- Self-play: `{player}` in both seats, {balance.games} games",
    ]
    if seconds:
        lines.append(f"- Played in {seconds:.1f} s ({balance.games / seconds:.2f} games/s)")
    lines += [
        "",
        "## Results",
        "",
        f"- First player ({seat_names[0]}) wins: {balance.seat0_wins}/{balance.games} = "
        f"**{100 * balance.seat0_rate:.1f}%** (95% Wilson interval "
        f"{100 * low:.1f}%-{100 * high:.1f}%)",
        f"- Second player ({seat_names[1]}) wins: {balance.seat1_wins}/{balance.games}",
        f"- Draws: {balance.draws}/{balance.games} = {100 * balance.draw_rate:.1f}% "
        f"(95% interval {100 * draw_low:.1f}%-{100 * draw_high:.1f}%)",
        "",
        "A fair game has the first player's interval around 50%; an interval entirely above",
        "or below 50% means this player, at this strength, finds one seat better.",
        "",
        "## Game length",
        "",
        f"- Turns: {_describe(balance.turns)}",
        f"- Actions: {_describe(balance.actions)}",
        "",
        "![game length](lengths.png)",
        "",
        "## Branching factor (legal actions per decision)",
        "",
        "Phases are the first, middle and last third of each game's turns.",
        "",
        "| phase | mean legal actions |",
        "|---|---:|",
        *(f"| {name} | {value:.1f} |" for name, value in balance.branching_by_phase.items()),
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
    if balance.margins:
        lines += [
            "## Score margins (first player minus second player)",
            "",
            f"- {_describe(balance.margins)}",
            "",
            "![margins](margins.png)",
            "",
        ]
    report = directory / "report.md"
    report.write_text("\n".join(lines), encoding="utf-8")
    return [report, *plots]


def _plots(directory: Path, balance: Balance) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    paths = []

    def save(fig: Any, name: str) -> None:
        path = directory / name
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(balance.turns, bins=min(30, max(5, len(set(balance.turns)))), color="#4477aa")
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
    ax.set_xlabel("games")
    ax.set_title("How games end")
    save(fig, "endings.png")

    if balance.margins:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.hist(balance.margins, bins=20, color="#ddaa33")
        ax.axvline(0, color="black", linewidth=1)
        ax.set_xlabel("score margin (seat 0 - seat 1)")
        ax.set_ylabel("games")
        ax.set_title("Score margins")
        save(fig, "margins.png")
    return paths
