"""``hexgames sweep GAME``: balance study of every variant of a grid of rules options.

Example::

    hexgames sweep benediction --grid board_side=4,5,6 max_stack=4,8 --players L2,L2 \\
        --games 200 --cluster auto --out sweep-benediction

plays ``--games`` games of each variant (the cartesian product of the ``--grid`` values,
on top of the fixed ``--set`` options) and writes ``sweep.md`` with PNG plots, side by
side per variant, into ``--out``:

* **balance**: the first player's (seat 0's) score, draws counting half, with a 95%
  Wilson interval;
* **decisiveness**: the share of games with a winner (draws and games stopped by the
  action cap are not decisive);
* **duration**: the distribution of game length in turns (and the mean in actions);
* **branching factor** over every position, and the **decision factor** over real
  decisions only (positions with more than one legal action), with the share of forced
  positions;
* **how games end**: the share of each end (``GameResult.end_reason``);
* a **recommendation**: the variants whose first-player score is closest to 50% among
  those with enough decisive games, and why.

These follow Ludii's designer metrics (Browne et al.: *balance*, *decisiveness*,
*drawishness*, *duration*, *branching factor*, *decision factor*, *completion*). Games
run on local processes, or on Ray with ``--cluster`` (:mod:`.cluster`); all variants
form one batch, so the workers stay busy from the first game to the last. Game ``i``
of a variant has the seed ``seed * 1_000_003 + i``, as in ``hexgames report``: a
variant of a sweep with one player in both seats plays the same games as ``hexgames
report`` of that variant with the same seed.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import math
import statistics
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from hexgames.ai.levels import from_spec
from hexgames.arena import cluster as ray_cluster
from hexgames.arena.match import CAPPED, GameResult
from hexgames.arena.progress import game_progress
from hexgames.arena.report import Z95
from hexgames.arena.tournament import (
    Pairing,
    Setup,
    Work,
    default_jobs,
    run_many,
    save_record,
)
from hexgames.game import Game, Option, game_names, get_game, parse_option_value, parse_settings

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
    return " ".join(f"{name}={_value_text(options[name])}" for name in names)


def _value_text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def schedule(options: Sequence[Mapping[str, Any]], players: tuple[str, str], games: int,
             seed: int = 0, max_actions: int | None = None, game_name: str = "") -> list[Work]:
    """The batch of a sweep: ``games`` per variant, variant after variant.

    With two different players the seats alternate (the first of them sits first in
    even games), so the first-player score is a property of the variant, not of who
    sat first more often.
    """
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    work: list[Work] = []
    for variant in options:
        setup = Setup(game_name, dict(variant), max_actions=max_actions, track_branching=True)
        for i in range(games):
            specs = players if i % 2 == 0 else (players[1], players[0])
            work.append((setup, Pairing(i, specs, seed * 1_000_003 + i)))
    return work


# ---------------------------------------------------------------------------------------
# Metrics


def score_interval(points: float, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson interval for a mean score in [0, 1] (draws counting half).

    The Wilson formula with the score as the proportion: it stays in [0, 1] and is
    conservative when there are draws (a draw varies less than a win or a loss).
    """
    if games <= 0:
        return (0.0, 1.0)
    p = points / games
    denominator = 1.0 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


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


def summarise(name: str, options: Mapping[str, Any], results: Sequence[GameResult]
              ) -> VariantStats:
    """The metrics of one variant's games (played with branching tracked)."""
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
    )


def recommend(stats: Sequence[VariantStats], *, min_decisive: float = MIN_DECISIVE,
              top: int = 3) -> tuple[list[VariantStats], list[str]]:
    """The most balanced variants, best first, and the reasons in sentences.

    A variant qualifies with at least ``min_decisive`` decisive games (a variant whose
    games are mostly drawn or capped looks balanced for the wrong reason); among those
    with 50% inside their interval, the first-player score closest to 50% wins, ties
    going to more decisive games and then to the narrower interval. When no qualifying
    variant has 50% inside its interval, the least unbalanced one is named as such.
    """
    eligible = [s for s in stats if s.decisive_share >= min_decisive]
    ranked = sorted(eligible, key=lambda s: (round(s.imbalance, 9), -s.decisive_share,
                                             s.score_interval[1] - s.score_interval[0]))
    balanced = [s for s in ranked if _contains_half(s.score_interval)]
    chosen = balanced[:top] if balanced else ranked[:1]
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
            "The least unbalanced:"
        )
    for rank, s in enumerate(chosen, 1):
        low, high = s.score_interval
        inside = _contains_half(s.score_interval)
        reasons.append(
            f"{rank}. **{s.label}**: the first player scores {100 * s.first_player_score:.1f}% "
            f"(95% {100 * low:.1f}-{100 * high:.1f}%, "
            + ("50% inside the interval" if inside else "50% outside the interval: "
               f"favours the {'first' if s.first_player_score > 0.5 else 'second'} player")
            + f"); {100 * s.decisive_share:.0f}% of games decisive; median "
            f"{statistics.median(s.turns):g} turns; {s.decision_branching:.1f} choices per "
            "real decision."
        )
    best = chosen[0]
    rivals = [s for s in chosen[1:] if _overlap(best.score_interval, s.score_interval)]
    if rivals:
        reasons.append(
            f"With {best.games} games per variant the intervals of "
            f"{', '.join(s.label for s in [best, *rivals])} overlap: their order is not "
            "established; play more games (`--games`) on these variants to separate them."
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


def _contains_half(interval: tuple[float, float]) -> bool:
    return interval[0] <= 0.5 <= interval[1]


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


# ---------------------------------------------------------------------------------------
# The report


def write_sweep_report(
    directory: Path,
    stats: Sequence[VariantStats],
    *,
    title: str,
    fixed: Mapping[str, Any],
    grid: Mapping[str, Sequence[Any]],
    players: tuple[str, str],
    seed: int = 0,
    seconds: float | None = None,
    where: str = "",
    min_decisive: float = MIN_DECISIVE,
) -> list[Path]:
    """Write ``sweep.md`` and its PNG plots into ``directory``; returns the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    plots = _plots(directory, stats)
    games = sorted({s.games for s in stats})
    chosen, reasons = recommend(stats, min_decisive=min_decisive)
    seats = (f"`{players[0]}` in both seats" if players[0] == players[1]
             else f"`{players[0]}` and `{players[1]}`, seats alternating")
    fixed_text = ", ".join(f"{k}={_value_text(v)}" for k, v in fixed.items()) or "default"
    lines = [
        f"# Variant sweep: {title}",
        "",
        "- Grid: " + "; ".join(f"{name} = {', '.join(_value_text(v) for v in values)}"
                               for name, values in grid.items())
        + f" ({len(stats)} variants)",
        f"- Fixed options: {fixed_text}",
        f"- Players: {seats}; {', '.join(map(str, games))} games per variant; seed {seed}",
    ]
    if seconds:
        total = sum(s.games for s in stats)
        lines.append(f"- Played {total} games in {seconds:.1f} s ({total / seconds:.2f} games/s)"
                     + (f" on {where}" if where else ""))
    lines += ["", "## Recommendation", ""]
    if chosen:
        lines += [f"Most balanced first (first-player score closest to 50% among variants with "
                  f"at least {100 * min_decisive:.0f}% decisive games):", ""]
    for number, reason in enumerate(reasons):
        ranked_item = number < len(chosen)
        follows_list = number == len(chosen) and chosen
        lines += ([""] if follows_list else []) + [reason]
        if not ranked_item:
            lines.append("")
    if lines[-1]:
        lines.append("")
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
    lines += [
        "",
        "![how games end](endings.png)",
        "",
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
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    paths: list[Path] = []
    labels = [s.label for s in stats]
    rows = list(range(len(stats)))
    height = 1.2 + 0.45 * len(stats)

    def save(fig: Any, name: str) -> None:
        path = directory / name
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)

    def interval_plot(ax: Any, values: list[float], intervals: list[tuple[float, float]],
                      color: str) -> None:
        errors = [[100 * (v - lo) for v, (lo, _) in zip(values, intervals, strict=True)],
                  [100 * (hi - v) for v, (_, hi) in zip(values, intervals, strict=True)]]
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
    return paths


# ---------------------------------------------------------------------------------------
# The command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=game_names(), help="which game to study")
    parser.add_argument(
        "--grid", action="extend", nargs="+", default=[], metavar="OPTION=V1,V2",
        required=True,
        help="a rules option and the values to try, repeatable (e.g. --grid board_side=4,5 "
        "max_stack=4,8): every combination is one variant",
    )
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE",
        help="a rules option fixed for every variant, repeatable (e.g. --set max_turns=150)",
    )
    parser.add_argument(
        "--players", default="L2,L2",
        help="player specs for seat 0 and seat 1 (random, greedy, L1..L5, mcts:N); two "
        "different players alternate seats; one spec plays both (default: %(default)s)",
    )
    parser.add_argument("--games", type=int, default=50,
                        help="games per variant (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=default_jobs(),
                        help="worker processes, or CPUs of --cluster local "
                        "(default: all cores, %(default)s)")
    parser.add_argument("--max-actions", type=int, default=None,
                        help="stop a game after this many actions and score it a draw "
                        "(default: the game's own bound)")
    parser.add_argument("--min-decisive", type=float, default=MIN_DECISIVE,
                        help="share of decisive games a variant needs to be recommended "
                        "(default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default: 0)")
    ray_cluster.add_cluster_argument(parser)
    parser.add_argument("--out", type=Path, default=None,
                        help="output directory (default: sweep-GAME)")


def run(args: argparse.Namespace) -> int:
    console = Console()
    game = get_game(args.game)
    try:
        fixed = parse_settings(game, args.settings)
        grid = parse_grid(game, args.grid)
        options = variants(game, fixed, grid)
        specs = [s.strip() for s in args.players.split(",") if s.strip()]
        if len(specs) not in (1, 2):
            raise ValueError(f"--players takes one or two specs, got {args.players!r}")
        players = (specs[0], specs[-1])
        for spec in set(players):
            from_spec(game, spec)  # refuse bad specs before starting any process
        if args.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
        if not 0.0 <= args.min_decisive <= 1.0:
            raise ValueError(f"--min-decisive must be between 0 and 1, got {args.min_decisive}")
        work = schedule(options, players, args.games, args.seed, args.max_actions, game.name)
    except ValueError as error:
        console.print(f"[red]error:[/red] {escape(str(error))}")
        return 2
    with ExitStack() as stack:
        if not ray_cluster.enter_session(stack, args.cluster, args.jobs, console):
            return 2
        return _sweep(args, console, game, fixed, grid, options, players, work)


def _sweep(args: argparse.Namespace, console: Console, game: Game, fixed: dict[str, Any],
           grid: dict[str, list[Any]], options: list[dict[str, Any]],
           players: tuple[str, str], work: list[Work]) -> int:
    out: Path = args.out or Path(f"sweep-{game.name}")
    out.mkdir(parents=True, exist_ok=True)
    names = list(grid)
    labels = [label(variant, names) for variant in options]
    folders = [out / "games" / name.replace(" ", "_").replace("=", "-") for name in labels]
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    where = ray_cluster.where(args.cluster, args.jobs)
    console.print(f"{game.title} sweep: {len(options)} variants x {args.games} games of "
                  f"{' vs '.join(players)} on {where}; records in {out}/games/")
    started = time.perf_counter()
    with game_progress(console) as progress:
        bar = progress.add_task("sweep", total=len(work))

        def finished(position: int, result: GameResult) -> None:
            save_record(folders[position // args.games], result)
            progress.advance(bar)

        results = run_many(work, jobs=args.jobs, on_result=finished, cluster=args.cluster)
    elapsed = time.perf_counter() - started
    stats = [summarise(labels[k], options[k], results[k * args.games:(k + 1) * args.games])
             for k in range(len(options))]
    write_results(out / "results.csv", stats, results, args.games)
    paths = write_sweep_report(out, stats, title=game.title, fixed=fixed, grid=grid,
                               players=players, seed=args.seed, seconds=elapsed, where=where,
                               min_decisive=args.min_decisive)
    chosen, _ = recommend(stats, min_decisive=args.min_decisive)
    for s in stats:
        low, high = s.score_interval
        console.print(f"{s.label}: first player {100 * s.first_player_score:.1f}% "
                      f"({100 * low:.1f}-{100 * high:.1f}), decisive "
                      f"{100 * s.decisive_share:.0f}%, median {statistics.median(s.turns):g} "
                      "turns")
    if chosen:
        console.print(f"most balanced: {chosen[0].label}")
    console.print(f"{len(results)} games in {elapsed:.1f} s; wrote {paths[0]} and "
                  f"{len(paths) - 1} plots")
    return 0


def write_results(path: Path, stats: Sequence[VariantStats], results: Sequence[GameResult],
                  games: int) -> None:
    """One line per game with its variant, for spreadsheets."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["variant", "game", "seat0", "seat1", "seat0_result", "turns",
                         "actions", "end_reason", "seconds"])
        for position, r in enumerate(results):
            writer.writerow([stats[position // games].label, r.index + 1, r.players[0],
                             r.players[1], r.returns[0], r.turns, r.actions, r.end_reason,
                             f"{r.seconds:.2f}"])
