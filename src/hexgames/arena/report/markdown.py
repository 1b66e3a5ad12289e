"""The designer's balance report as ``report.md`` with PNG plots and ``games.csv``.

:func:`write_report` writes what :func:`hexgames.arena.report.stats.analyse` measured
(the plots through :class:`hexgames.arena.figures.Figures`, which the sweep's report
shares). The section writers are public so that the variant sweep
(:mod:`hexgames.arena.sweep.markdown`) words the same metrics the same way.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hexgames.arena.figures import Figures
from hexgames.arena.report.stats import Balance, describe, findings, skill_verdict, wilson


def write_report(
    directory: Path,
    balance: Balance,
    *,
    title: str,
    options: Mapping[str, Any],
    player: str,
    seat_names: tuple[str, str] = ("seat 0", "seat 1"),
    seconds: float | None = None,
    notes: Sequence[str] = (),
) -> list[Path]:
    """Write ``report.md`` and its PNG plots into ``directory``; returns the paths.

    ``seconds`` is the time all games took, the skill trace's included: the games/s
    line counts every game played. ``notes`` are more lines for the head of the report
    (how the players were chosen, the time estimated before the run)."""
    directory.mkdir(parents=True, exist_ok=True)
    plots = _plots(directory, balance)
    csv_path = write_csv(directory / "games.csv", balance.rows)
    played = games_played(balance, player)
    lines = [
        f"# Balance report: {title}",
        "",
        f"- Variant: {', '.join(f'{k}={v}' for k, v in sorted(options.items())) or 'default'}",
        *players_lines(balance, player),
    ]
    lines += list(notes)
    if seconds:
        lines.append(f"- Played {played} games in {seconds:.1f} s "
                     f"({played / seconds:.2f} games/s)")
    warning = cap_warning(balance)
    if warning:
        lines += ["", f"> **WARNING: {warning}**"]
    lines += findings_lines(balance)
    lines += ["", *results_lines(balance, seat_names)]
    lines += [
        "",
        "## Game length",
        "",
        f"- Turns: {describe(balance.turns)}",
        f"- Actions: {describe(balance.actions)}",
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
    if balance.coverage or balance.pieces_by_turn or balance.repetition:
        lines += board_lines(balance, pieces_plot="pieces.png" if balance.pieces_by_turn
                             else None)
    if balance.usage:
        lines += usage_lines(balance)
    if balance.skill_trace:
        lines += skill_trace_lines(balance)
    if balance.margins:
        lines += [
            "## Score margins (first player minus second player)",
            "",
            f"- {describe(balance.margins)}",
            "",
            "![margins](margins.png)",
            "",
        ]
    lines += ["Every game, one line each: [games.csv](games.csv).", ""]
    report = directory / "report.md"
    report.write_text("\n".join(lines), encoding="utf-8")
    return [report, csv_path, *plots]


def games_played(balance: Balance, player: str) -> int:
    """Every game behind a report: the self-play games and the skill trace's others."""
    return balance.games + sum(line[1] for line in balance.skill_trace if line[0] != player)


def players_lines(balance: Balance, player: str) -> list[str]:
    """Which players made which figures (a balance figure is only as good as its play)."""
    lines = [f"- Balance figures: self-play of `{player}` in both seats, {balance.games} games"]
    others = [line for line in balance.skill_trace if line[0] != player]
    if others:
        lines.append(
            "- Skill trace: also "
            + ", ".join(f"`{spec}` ({games} games)" for spec, games, *_ in others)
            + " in both seats, same seeds (see \"Skill trace\")"
        )
    else:
        lines.append(
            "- No skill trace: every figure comes from one strength, and a first-player "
            "bias may be an artefact of how this player plays (add `--trace`)"
        )
    return lines


def cap_warning(balance: Balance) -> str | None:
    """The loud warning for games stopped by the action cap, ``None`` when none was."""
    if not balance.capped:
        return None
    return (
        f"{balance.capped} of {balance.games} games ({100 * balance.cap_rate:.0f}%) hit the "
        "action cap and were scored as draws: they say nothing about which seat is "
        "better. Raise --max-actions (or leave it off) for a verdict."
    )


def findings_lines(balance: Balance) -> list[str]:
    """The findings for the designer (:func:`hexgames.arena.report.stats.findings`), if any."""
    found = findings(balance)
    if not found:
        return []
    return ["", "## Findings for the designer", "",
            *(f"- **{sentence}**" for sentence in found)]


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
        f"every turn): {describe(balance.lead_changes)} per game",
    ]
    if balance.drama:
        lines.append(
            "- Drama (share of turns in which the eventual winner stood worse by the "
            f"heuristic, decisive games): mean {statistics.fmean(balance.drama):.2f}, "
            f"max {max(balance.drama):.2f}"
        )
    lines += evaluation_lines(balance)
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


def evaluation_lines(balance: Balance) -> list[str]:
    """Uncertainty, stability, decisiveness threshold and move distance (Ludii's metrics
    over the evaluation, :mod:`hexgames.arena.report.ludii`)."""
    lines = []
    if balance.uncertainty:
        lines.append(
            "- Uncertainty (mean of 1 - |heuristic| over the turn starts: 1 while the game "
            f"looks 50/50, 0 once it looks won): {_stats(balance.uncertainty)}")
    if balance.stability:
        lines.append(
            "- Stability (variance of each seat's chance (1 + heuristic) / 2 over the "
            "turn starts, summed over the seats; 0 = the evaluation never moves): "
            f"{_stats(balance.stability, 3)}")
    if balance.thresholds:
        lines.append(
            "- Decisiveness threshold (the eventual loser's best chance in the game, "
            f"decisive games): {_stats(balance.thresholds)}; the winner first stood "
            "above it after "
            f"{_pct(statistics.fmean(balance.decided_at))} of the game's turns on average")
    if balance.move_distance:
        lines.append(
            "- Move distance (board distance in steps of the actions that carry a piece "
            f"across the board, mean per game): {_stats(balance.move_distance)}")
    return lines


def _stats(values: Sequence[float], digits: int = 2) -> str:
    return (f"mean {statistics.fmean(values):.{digits}f}, median "
            f"{statistics.median(values):.{digits}f}, min {min(values):.{digits}f}, "
            f"max {max(values):.{digits}f}")


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


def board_lines(balance: Balance, pieces_plot: str | None = None) -> list[str]:
    """Board coverage, piece counts over time and repetition (Ludii's board metrics)."""
    lines = ["## Board and pieces (Ludii-style metrics)", ""]
    if balance.coverage:
        shares = balance.coverage
        lines.append(
            "- Board coverage (share of the board's cells that held a piece at some point "
            f"of a game): mean {_pct(statistics.fmean(shares))}, median "
            f"{_pct(statistics.median(shares))}, min {_pct(min(shares))}, "
            f"max {_pct(max(shares))}"
        )
    for color, counts in balance.final_pieces.items():
        peak = max((mean for mean in balance.pieces_by_turn.get(color, {}).values()),
                   default=0.0)
        lines.append(f"- {color.title()} pieces on the board at the end: {describe(counts)}; "
                     f"largest mean at a turn start {peak:.1f}")
    if balance.repetition:
        repeated = sum(1 for share in balance.repetition if share > 0)
        lines.append(
            "- Repetition (turns that start from a position already seen in the same "
            f"game): {100 * statistics.fmean(balance.repetition):.1f}% of turns on "
            f"average; {repeated} of {len(balance.repetition)} games repeat a position"
        )
    if pieces_plot:
        lines += ["", f"![pieces on the board by turn]({pieces_plot})"]
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
    verdict = skill_verdict(balance.skill_trace)
    lines += [
        "",
        "A bias that grows with strength is a property of the game; one that shrinks is "
        "a weakness of the weaker players." + (f" {verdict}" if verdict else ""),
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
    figures = Figures(directory)
    plt, save = figures.plt, figures.save
    from matplotlib.ticker import MaxNLocator

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

    if balance.pieces_by_turn:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        for color, by_turn in balance.pieces_by_turn.items():
            turns = list(by_turn)
            ax.plot(turns, [by_turn[t] for t in turns], label=color)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("turn")
        ax.set_ylabel("mean pieces on the board")
        ax.set_title("Pieces by turn (games still running)")
        ax.legend(loc="best", fontsize="small")
        save(fig, "pieces.png")

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
    return figures.paths
