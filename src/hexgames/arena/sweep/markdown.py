"""A variant sweep's report: ``sweep.md`` with the variants side by side and PNG plots
(:class:`hexgames.arena.figures.Figures`, as the balance report's), from
:class:`~hexgames.arena.sweep.stats.VariantStats`.

The report is written for any number of games: intervals that touch 0% or 100% (every
game decisive, or won by one seat) are drawn as they are, and a variant without replays
or pieces leaves those columns empty rather than failing.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hexgames.arena.figures import Figures
from hexgames.arena.report.stats import skill_trend
from hexgames.arena.sweep.stats import MIN_DECISIVE, VariantStats, recommend, value_text


def write_sweep_report(
    directory: Path,
    stats: Sequence[VariantStats],
    *,
    title: str,
    fixed: Mapping[str, Any],
    grid: Mapping[str, Sequence[Any]],
    players: tuple[str, str],
    seed: int | None = 0,
    seconds: float | None = None,
    where: str = "",
    min_decisive: float = MIN_DECISIVE,
    trace: Sequence[str] = (),
    played: int | None = None,
) -> list[Path]:
    """Write ``sweep.md`` and its PNG plots into ``directory``; returns the paths.

    ``played`` is every game the sweep played (the skill trace's included; default: the
    variants' own games), for the games/s line; ``seed`` ``None`` means unknown (a report
    rebuilt from a run that did not record it)."""
    directory.mkdir(parents=True, exist_ok=True)
    plots = _plots(directory, stats)
    games = sorted({s.games for s in stats})
    chosen, reasons = recommend(stats, min_decisive=min_decisive)
    seats = (f"`{players[0]}` in both seats" if players[0] == players[1]
             else f"`{players[0]}` and `{players[1]}`, seats alternating")
    fixed_text = ", ".join(f"{k}={value_text(v)}" for k, v in fixed.items()) or "default"
    lines = [
        f"# Variant sweep: {title}",
        "",
        "- Grid: " + "; ".join(f"{name} = {', '.join(value_text(v) for v in values)}"
                               for name, values in grid.items())
        + f" ({len(stats)} variants)",
        f"- Fixed options: {fixed_text}",
        f"- Balance figures: {seats}; {', '.join(map(str, games))} games per variant; "
        + (f"seed {seed}" if seed is not None else "seed not recorded"),
        "- Skill trace: " + (", ".join(f"`{spec}`" for spec in trace) + " in both seats, "
                             "as many games per variant on the same seeds"
                             if trace else "none: every figure comes from one strength, and "
                             "a first-player bias may come from how these players play"),
    ]
    if seconds:
        total = played if played is not None else sum(s.games for s in stats)
        lines.append(f"- Played {total} games in {seconds:.1f} s ({total / seconds:.2f} games/s)"
                     + (f" on {where}" if where else ""))
    lines += ["", "## Recommendation", ""]
    if chosen:
        lines += [f"Every variant tied with the best, most balanced first (first-player score "
                  f"closest to 50% among the variants with at least "
                  f"{100 * min_decisive:.0f}% decisive games; the table below lists all "
                  f"{len(stats)}):", ""]
    for number, reason in enumerate(reasons):
        ranked_item = number < len(chosen)
        follows_list = number == len(chosen) and chosen
        lines += ([""] if follows_list else []) + [reason]
        if not ranked_item:
            lines.append("")
    if lines[-1]:
        lines.append("")
    lines += warning_lines(stats)
    lines += [
        "## Side by side",
        "",
        "| variant | games | first player W-D-L | first-player score (95%) | decisive (95%) "
        "| turns: median (10-90%) | mean actions | branching | decision factor "
        "| forced | capped |",
        "|---|---:|---:|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for s in stats:
        low, high = s.score_interval
        dlow, dhigh = s.decisive_interval
        lines.append(
            f"| {s.label} | {s.games} | {s.seat0_wins}-{s.draws}-{s.seat1_wins} | "
            f"**{100 * s.first_player_score:.1f}%** ({100 * low:.1f}-{100 * high:.1f}) | "
            f"{100 * s.decisive_share:.0f}% ({100 * dlow:.0f}-{100 * dhigh:.0f}) | "
            f"{statistics.median(s.turns):g} ({_quantile(s.turns, 0.1):g}-"
            f"{_quantile(s.turns, 0.9):g}) | {statistics.fmean(s.actions):.1f} | "
            f"{s.branching:.1f} | {s.decision_branching:.1f} | "
            f"{100 * s.forced_share:.0f}% | {s.capped} |"
        )
    lines += [
        "",
        "![first-player score and decisive games](balance.png)",
        "",
        *quality_lines(stats),
        *trace_lines(stats),
        "## Game length",
        "",
        "![game length in turns](lengths.png)",
        "",
        "## Branching",
        "",
        "![branching factor and decision factor](branching.png)",
        "",
        "## How games end",
        "",
        "| end | " + " | ".join(s.label for s in stats) + " |",
        "|---|" + "---:|" * len(stats),
    ]
    for reason in _reasons(stats):
        cells = [f"{s.endings.get(reason, 0)} ({100 * s.endings.get(reason, 0) / s.games:.0f}%)"
                 for s in stats]
        lines.append(f"| {reason} | " + " | ".join(cells) + " |")
    lines += ["", "![how games end](endings.png)", "", *usage_lines(stats)]
    if any(s.balance and s.balance.pieces_by_turn for s in stats):
        lines += ["## Pieces on the board", "",
                  "![pieces on the board by turn](pieces.png)", ""]
    lines += [
        "## What the columns mean",
        "",
        "After Ludii's designer metrics (balance, decisiveness, drawishness, duration, "
        "branching factor, decision factor, completion):",
        "",
        "- **first-player score**: points of seat 0 per game, a draw counting half; 95% "
        "Wilson interval. A balanced variant has 50% inside its interval.",
        "- **W-D-L**: wins, draws and losses of the first player; **decisive**: share of "
        "games with a winner (drawishness is the rest).",
        "- **turns**: game length in turns (median and the 10th-90th percentile); **mean "
        "actions**: actions per game (a turn may have several).",
        "- **branching**: mean legal actions over every position where a player acted; "
        "**decision factor**: the same over real decisions only (more than one legal "
        "action); **forced**: share of positions with a single legal action.",
        "- **capped**: games stopped by the arena's action cap and scored as draws "
        "(completion is the rest).",
        "- **lead changes**: sign changes of the game's heuristic between turn starts, per "
        "game; **drama**: share of the eventual winner's turns in which it stood worse by "
        "the heuristic (decisive games).",
        "- **coverage**: share of the board's cells that held a piece at some point of a "
        "game; **pieces at the end**: pieces of each colour on the board when the game "
        "ended; **repetition**: share of turns that start from a position already seen in "
        "the same game.",
        "- **rule usage**: times each action kind or rule event happened per game; an "
        "option that **never came into play** changed no decision (set away from its "
        "default) or never fired its rule event (at its default): that variant's games "
        "say nothing about it.",
        "- **skill trace**: the first-player score of self-play at other strengths on the "
        "same seeds; a bias that grows with strength is the game's, one that shrinks "
        "comes from weak play.",
        "",
    ]
    report = directory / "sweep.md"
    report.write_text("\n".join(lines), encoding="utf-8")
    return [report, *plots]


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _reasons(stats: Sequence[VariantStats]) -> list[str]:
    total: Counter[str] = Counter()
    for s in stats:
        total.update(s.endings)
    return [reason for reason, _ in total.most_common()]


def _plots(directory: Path, stats: Sequence[VariantStats]) -> list[Path]:
    figures = Figures(directory)
    plt, save = figures.plt, figures.save
    import matplotlib

    labels = [s.label for s in stats]
    rows = list(range(len(stats)))
    height = 1.2 + 0.45 * len(stats)

    def interval_plot(ax: Any, values: list[float], intervals: list[tuple[float, float]],
                      color: str) -> None:
        # Clamped at 0: an interval is never drawn inside its own point, whatever the
        # floating point of its bounds (30 decisive games of 30 once gave -1e-14).
        errors = [[max(0.0, 100 * (v - lo)) for v, (lo, _) in zip(values, intervals,
                                                                  strict=True)],
                  [max(0.0, 100 * (hi - v)) for v, (_, hi) in zip(values, intervals,
                                                                  strict=True)]]
        ax.errorbar([100 * v for v in values], rows, xerr=errors, fmt="o", color=color,
                    capsize=4)
        ax.set_xlim(0, 100)
        ax.set_yticks(rows, labels)

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, height), sharey=True)
    interval_plot(left, [s.first_player_score for s in stats],
                  [s.score_interval for s in stats], "#4477aa")
    left.axvline(50, color="black", linewidth=1, linestyle="--")
    left.set_xlabel("first-player score, % (95% interval)")
    left.set_title("Balance")
    interval_plot(right, [s.decisive_share for s in stats],
                  [s.decisive_interval for s in stats], "#228833")
    right.set_xlabel("decisive games, % (95% interval)")
    right.set_title("Decisiveness")
    left.invert_yaxis()  # shared with the right panel: first variant on top in both
    save(fig, "balance.png")

    fig, ax = plt.subplots(figsize=(8, height))
    major, minor = (int(part) for part in matplotlib.__version__.split(".")[:2])
    horizontal = ({"orientation": "horizontal"} if (major, minor) >= (3, 10)
                  else {"vert": False})  # `vert` is deprecated from 3.11
    ax.boxplot([s.turns for s in stats], positions=rows, widths=0.6, **horizontal)
    ax.set_yticks(rows, labels)
    ax.invert_yaxis()
    ax.set_xlabel("turns per game")
    ax.set_title("Game length")
    save(fig, "lengths.png")

    fig, ax = plt.subplots(figsize=(8, height))
    bar = 0.38
    ax.barh([r - bar / 2 for r in rows], [s.branching for s in stats], height=bar,
            color="#88ccee", label="branching (every position)")
    ax.barh([r + bar / 2 for r in rows], [s.decision_branching for s in stats], height=bar,
            color="#332288", label="decision factor (real decisions)")
    ax.set_yticks(rows, labels)
    ax.invert_yaxis()
    ax.set_xlabel("mean legal actions")
    ax.set_title("Branching")
    ax.legend(loc="best", fontsize="small")
    save(fig, "branching.png")

    fig, ax = plt.subplots(figsize=(9, height + 0.6))
    colors = ["#cc6677", "#ddcc77", "#117733", "#88ccee", "#aa4499", "#44aa99", "#999933",
              "#882255", "#dddddd"]
    lefts = [0.0] * len(stats)
    for number, reason in enumerate(_reasons(stats)):
        shares = [100 * s.endings.get(reason, 0) / s.games for s in stats]
        ax.barh(rows, shares, left=lefts, color=colors[number % len(colors)], label=reason)
        lefts = [a + b for a, b in zip(lefts, shares, strict=True)]
    ax.set_yticks(rows, labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("games, %")
    ax.set_title("How games end")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=2, fontsize="small")
    save(fig, "endings.png")

    with_pieces = [s for s in stats if s.balance and s.balance.pieces_by_turn]
    if with_pieces:
        fig, ax = plt.subplots(figsize=(8, 4))
        for s in with_pieces:
            assert s.balance is not None
            by_color = s.balance.pieces_by_turn
            turns = sorted({t for counts in by_color.values() for t in counts})
            totals = [sum(counts.get(t, 0.0) for counts in by_color.values()) for t in turns]
            ax.plot(turns, totals, label=s.label)
        ax.set_xlabel("turn")
        ax.set_ylabel("mean pieces on the board (both colours)")
        ax.set_title("Pieces by turn (games still running)")
        ax.legend(loc="best", fontsize="small")
        save(fig, "pieces.png")
    return figures.paths


def _cell(value: float | None, percent: bool = False) -> str:
    if value is None:
        return "-"
    return f"{100 * value:.0f}%" if percent else f"{value:.1f}"


def warning_lines(stats: Sequence[VariantStats]) -> list[str]:
    """Loud warnings: options that never came into play, games stopped by the cap."""
    lines = []
    for s in stats:
        for option in s.unused_options:
            lines.append(f"- **WARNING: {s.label}: option `{option}` never came into "
                         f"play** in its {s.games} games: they say nothing about it.")
        if s.capped:
            lines.append(f"- **WARNING: {s.label}: {s.capped} of {s.games} games hit the "
                         "action cap** and were scored as draws.")
    return ["## Warnings", "", *lines, ""] if lines else []


def quality_lines(stats: Sequence[VariantStats]) -> list[str]:
    """The report's game-quality and board metrics, variant by variant."""
    if not any(s.balance for s in stats):
        return []
    colors = list(dict.fromkeys(color for s in stats if s.balance
                                for color in s.balance.final_pieces))  # the game's order
    lines = [
        "## Game quality side by side",
        "",
        "| variant | lead changes | drama | coverage | repetition | "
        + "".join(f"{color} pieces at the end | " for color in colors)
        + "options never in play |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(colors) + "---|",
    ]
    for s in stats:
        finals = s.balance.final_pieces if s.balance else {}
        pieces = "".join(
            f"{statistics.fmean(finals[color]):.1f} | " if finals.get(color) else "- | "
            for color in colors)
        unused = ", ".join(f"`{option}`" for option in s.unused_options) or "-"
        lines.append(f"| {s.label} | {_cell(s.lead_changes)} | {_cell(s.drama, True)} | "
                     f"{_cell(s.coverage, True)} | {_cell(s.repetition, True)} | {pieces}"
                     f"{unused} |")
    return [*lines, ""]


def trace_lines(stats: Sequence[VariantStats]) -> list[str]:
    """The skill trace: each variant's first-player score at each strength."""
    if not any(s.trace for s in stats):
        return []
    specs = list(dict.fromkeys(line[0] for s in stats for line in s.trace))
    lines = [
        "## Skill trace (first-player score at several strengths)",
        "",
        "| variant | " + " | ".join(f"`{spec}`" for spec in specs) + " | trend |",
        "|---|" + "---|" * len(specs) + "---|",
    ]
    for s in stats:
        by_spec = {line[0]: line for line in s.trace}
        cells = []
        for spec in specs:
            line = by_spec.get(spec)
            cells.append("-" if line is None else
                         f"{100 * line[2]:.0f}% ({100 * line[3][0]:.0f}-{100 * line[3][1]:.0f})")
        lines.append(f"| {s.label} | " + " | ".join(cells) + f" | {skill_trend(s.trace) or '-'} |")
    return [*lines, ""]


def usage_lines(stats: Sequence[VariantStats]) -> list[str]:
    """Rule usage per game, variant by variant (action kinds and rule events)."""
    balances = [s.balance for s in stats]
    if not any(b and b.usage for b in balances):
        return []
    totals: Counter[str] = Counter()
    for b in balances:
        if b:
            totals.update({name: total for name, (_games, total) in b.usage.items()})
    lines = [
        "## Rule usage (times per game; games where used)",
        "",
        "| rule | " + " | ".join(s.label for s in stats) + " |",
        "|---|" + "---:|" * len(stats),
    ]
    for name, _total in totals.most_common():
        cells = []
        for s, b in zip(stats, balances, strict=True):
            games, total = b.usage.get(name, (0, 0)) if b else (0, 0)
            cells.append(f"{total / s.games:.1f} ({games}/{s.games})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return [*lines, ""]
