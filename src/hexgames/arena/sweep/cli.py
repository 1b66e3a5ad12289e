"""``hexgames sweep GAME``: balance study of every variant of a grid of rules options.

Example::

    hexgames sweep benediction --grid board_side=4,5,6 max_stack=4,8 --players L2,L2 \\
        --games 200 --cluster auto --out sweep-benediction
    hexgames sweep --report-only sweep-benediction     # rebuild sweep.md from the games

plays ``--games`` games of each variant (the cartesian product of the ``--grid`` values,
on top of the fixed ``--set`` options), and as many self-play games of each skill-trace
player, then writes ``sweep.md`` with PNG plots, side by side per variant, into
``--out``: balance (the first player's score with a 95% Wilson interval), decisiveness,
duration, branching and decision factor, how games end, the balance report's game
quality metrics (lead changes, drama, board coverage, pieces, repetition), rule usage,
options that never came into play, the skill trace, and a recommendation
(:mod:`.stats` computes, :mod:`.markdown` writes; ``docs/design.md`` explains
every column).

Nothing is lost to a failure after the games: the settings, every record and every
line of ``results.csv`` are written as the run goes (:mod:`.files`), and
``--report-only DIR`` rebuilds the report from them. Games run on local processes, or
on Ray with ``--cluster`` (:mod:`hexgames.arena.cluster`); all variants and the trace
form one batch, so the workers stay busy from the first game to the last. Game ``i`` of
a variant has the seed ``seed * 1_000_003 + i``, as in ``hexgames report``: a variant of
a sweep with one player in both seats plays the same games as ``hexgames report`` of that
variant with the same seed.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from hexgames.arena import cluster as ray_cluster
from hexgames.arena.gamecsv import GameLog
from hexgames.arena.match import GameResult
from hexgames.arena.players import FACTORY_FORM, auto_trace, make_player
from hexgames.arena.progress import game_progress
from hexgames.arena.sweep.files import (
    RESULT_COLUMNS,
    RESULTS_FILE,
    SweepRun,
    load,
    result_row,
)
from hexgames.arena.sweep.markdown import write_sweep_report
from hexgames.arena.sweep.stats import (
    MIN_DECISIVE,
    VariantStats,
    add_trace,
    label,
    parse_grid,
    place,
    recommend,
    schedule,
    summarise,
    variants,
)
from hexgames.arena.tournament.schedule import default_jobs, run_many
from hexgames.arena.work import Work
from hexgames.game import Game, game_names, get_game, parse_settings

__all__ = ["add_arguments", "report_only", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", choices=game_names(),
                        help="which game to study (not with --report-only)")
    parser.add_argument(
        "--grid", action="extend", nargs="+", default=[], metavar="OPTION=V1,V2",
        help="a rules option and the values to try, repeatable (e.g. --grid board_side=4,5 "
        "max_stack=4,8): every combination is one variant",
    )
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE",
        help="a rules option fixed for every variant, repeatable (e.g. --set max_turns=150)",
    )
    parser.add_argument(
        "--players", default="L2,L2",
        help="player specs for seat 0 and seat 1 (random, greedy, L1..L5, mcts:N, or "
        f"{FACTORY_FORM}); two different players alternate seats; one spec plays both "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--trace", default="auto",
        help="skill trace: comma-separated player specs that also play each variant in both "
        "seats, as many games each; 'auto' adds L1 (L2 next to L1 or greedy), 'none' "
        "plays none (default: %(default)s)",
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
    parser.add_argument(
        "--report-only", type=Path, default=None, metavar="DIR",
        help="play nothing: rebuild DIR/sweep.md and its plots from DIR/results.csv and "
        "the records of an earlier sweep (also one that stopped early)",
    )


def run(args: argparse.Namespace) -> int:
    console = Console(soft_wrap=True)  # long paths stay whole in logs
    if args.report_only is not None:
        if args.game or args.grid or args.settings:
            console.print("[red]error:[/red] --report-only DIR rebuilds an earlier sweep; it "
                          "takes no GAME, --grid or --set")
            return 2
        return report_only(args.report_only, console, min_decisive=args.min_decisive)
    try:
        if args.game is None:
            raise ValueError("name the GAME to sweep (or rebuild a report: --report-only DIR)")
        game = get_game(args.game)
        fixed = parse_settings(game, args.settings)
        grid = parse_grid(game, args.grid)
        options = variants(game, fixed, grid)
        specs = [s.strip() for s in args.players.split(",") if s.strip()]
        if len(specs) not in (1, 2):
            raise ValueError(f"--players takes one or two specs, got {args.players!r}")
        players = (specs[0], specs[-1])
        trace = trace_specs(args.trace, players)
        for spec in dict.fromkeys([*players, *trace]):
            make_player(game, spec)  # refuse bad specs before starting any process
        if args.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
        _check_share(args.min_decisive)
        work = schedule(options, players, args.games, args.seed, args.max_actions, game.name,
                        trace=trace)
    except ValueError as error:
        console.print(f"[red]error:[/red] {escape(str(error))}")
        return 2
    sweep = SweepRun(game=game.name, grid=grid, fixed=fixed, players=players,
                     games=args.games, trace=trace, seed=args.seed,
                     max_actions=args.max_actions,
                     where=ray_cluster.where(args.cluster, args.jobs))
    with ExitStack() as stack:
        if not ray_cluster.enter_session(stack, args.cluster, args.jobs, console):
            return 2
        return _sweep(args, console, game, sweep, options, work)


def trace_specs(text: str, players: Sequence[str]) -> list[str]:
    """The skill trace's players from ``--trace`` (``auto``, ``none`` or specs), leaving
    out the sweep's own players: their games are already played."""
    words = [spec.strip() for spec in text.split(",") if spec.strip()]
    if not words or [word.lower() for word in words] == ["none"]:
        return []
    if [word.lower() for word in words] == ["auto"]:
        words = auto_trace(players[0])
    return [spec for spec in dict.fromkeys(words) if spec not in players]


def _check_share(share: float) -> None:
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"--min-decisive must be between 0 and 1, got {share}")


def _sweep(args: argparse.Namespace, console: Console, game: Game, sweep: SweepRun,
           options: list[dict[str, Any]], work: list[Work]) -> int:
    out: Path = args.out or Path(f"sweep-{game.name}")
    out.mkdir(parents=True, exist_ok=True)
    sweep.save(out)
    names = list(sweep.grid)
    labels = [label(variant, names) for variant in options]
    parts = ["", *sweep.trace]
    console.print(
        f"{game.title} sweep: {len(options)} variants x {args.games} games of "
        f"{' vs '.join(sweep.players)}"
        + (f", and as many of {', '.join(sweep.trace)} for the skill trace" if sweep.trace
           else "")
        + f", on {sweep.where}; records in {out}/games/"
    )
    started = time.perf_counter()
    with game_progress(console) as progress, \
            GameLog(out / RESULTS_FILE, RESULT_COLUMNS) as log:
        bar = progress.add_task("sweep", total=len(work))

        def row(position: int, result: GameResult) -> dict[str, Any]:
            part, variant, _game = place(position, len(options), args.games)
            return result_row(out, labels[variant], parts[part], result)

        def finished(position: int, result: GameResult) -> None:
            line = row(position, result)
            path = out / line["record"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(result.record, encoding="utf-8")
            log.add(line)
            progress.advance(bar)

        results = run_many(work, jobs=args.jobs, on_result=finished, cluster=args.cluster)
        log.finish([row(position, r) for position, r in enumerate(results)])
    sweep.seconds = time.perf_counter() - started
    sweep.played = len(results)
    sweep.save(out)
    def games_of(part: int, variant: int) -> list[GameResult]:
        first = (part * len(options) + variant) * args.games
        return results[first:first + args.games]

    stats = []
    for k, variant in enumerate(options):
        stats.append(summarise(labels[k], variant, games_of(0, k), game))
        add_trace(stats[-1], games_of(0, k),
                  {spec: games_of(p, k) for p, spec in enumerate(sweep.trace, 1)})
    return _write(out, console, game, sweep, stats, args.min_decisive)


def report_only(directory: Path, console: Console, *, min_decisive: float = MIN_DECISIVE
                ) -> int:
    """Rebuild ``sweep.md`` and the plots of the sweep in ``directory`` from its files."""
    try:
        _check_share(min_decisive)
        loaded = load(directory)
    except (OSError, ValueError) as error:
        console.print(f"[red]error:[/red] {escape(str(error))}")
        return 2
    game = get_game(loaded.run.game)
    stats = []
    for name in loaded.labels:
        own = loaded.results[name]
        stats.append(summarise(name, loaded.options[name], own, game,
                               replays=loaded.replays[name]))
        add_trace(stats[-1], own, loaded.traced.get(name, {}))
    short = [f"{s.label} ({s.games})" for s in stats if s.games < loaded.run.games]
    if short:
        console.print(f"[bold yellow]note:[/bold yellow] fewer games than the "
                      f"{loaded.run.games} asked for (a run that stopped early): "
                      + ", ".join(short))
    if loaded.missing_records:
        console.print(f"[bold yellow]note:[/bold yellow] {loaded.missing_records} records "
                      "are missing: their games count without branching or replays")
    return _write(directory, console, game, loaded.run, stats, min_decisive)


def _write(out: Path, console: Console, game: Game, sweep: SweepRun,
           stats: list[VariantStats], min_decisive: float) -> int:
    """The report, or a message saying that the games are safe and how to retry."""
    try:
        paths = write_sweep_report(
            out, stats, title=game.title, fixed=sweep.fixed, grid=sweep.grid,
            players=sweep.players, seed=sweep.seed, seconds=sweep.seconds, where=sweep.where,
            min_decisive=min_decisive, trace=sweep.trace, played=sweep.played)
    except Exception as error:
        console.print(f"[red]error:[/red] writing the report failed: {escape(repr(error))}. "
                      f"Every game is saved in {out}/{RESULTS_FILE} and {out}/games/; "
                      f"rebuild the report with: hexgames sweep --report-only {out}")
        raise
    chosen, _ = recommend(stats, min_decisive=min_decisive)
    for s in stats:
        low, high = s.score_interval
        console.print(f"{s.label}: first player {100 * s.first_player_score:.1f}% "
                      f"({100 * low:.1f}-{100 * high:.1f}), decisive "
                      f"{100 * s.decisive_share:.0f}%, median {statistics.median(s.turns):g} "
                      "turns")
        for option in s.unused_options:
            console.print(f"[bold yellow]WARNING:[/bold yellow] {s.label}: option {option} "
                          "never came into play")
    if chosen:
        console.print(f"most balanced: {chosen[0].label}" + (
            f" (tied with {', '.join(s.label for s in chosen[1:])})" if chosen[1:] else ""))
    played = sweep.played if sweep.played is not None else sum(s.games for s in stats)
    timing = f"{played} games in {sweep.seconds:.1f} s; " if sweep.seconds else ""
    console.print(f"{timing}wrote {paths[0]} and {len(paths) - 1} plots")
    return 0

