"""``hexgames report GAME``: a designer's balance report for one variant.

Example::

    hexgames report dendria --set board_side=5 --games 200 --player L2 --out report-dendria5

Plays ``--games`` self-play games of ``--player`` (the same player spec in both seats),
then writes ``report.md`` with PNG plots, ``games.csv`` (one line per game) and every game
record into the output directory. ``--trace L1,L3`` also plays the same number of games
with each of those players, for a skill trace (balance at several strengths).
With ``--cluster auto`` (a running Ray cluster) or ``--cluster local`` (Ray started in
this process) the games are played as Ray tasks (:mod:`hexgames.arena.cluster`); the
report is the same for the same seed.
"""

from __future__ import annotations

import argparse
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import TaskID

from hexgames.ai.levels import from_spec
from hexgames.arena import cluster as ray_cluster
from hexgames.arena.match import GameResult
from hexgames.arena.progress import game_progress
from hexgames.arena.report import analyse, cap_warning, wilson_score, write_report
from hexgames.arena.tournament import Pairing, Setup, default_jobs, run_all, save_record
from hexgames.game import Game, game_names, get_game, parse_settings


def options_help() -> str:
    """Every game's rules options with what each takes (for ``report --help``)."""
    lines = ["rules options (--set OPTION=VALUE):"]
    for name in game_names():
        game = get_game(name)
        lines.append(f"  {name}:")
        for option in game.options:
            default = "off" if option.default is None else str(option.default).lower()
            lines.append(f"    {option.name}: {option.describe_valid()} (default {default})")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = options_help()
    parser.add_argument("game", choices=game_names(), help="which game to report on")
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE",
        help="rules option of the variant, repeatable (e.g. --set board_side=5)",
    )
    parser.add_argument("--games", type=int, default=100,
                        help="self-play games (default: %(default)s)")
    parser.add_argument(
        "--player", default="L2",
        help="player spec used in both seats: random, greedy, L1..L5, mcts:N "
        "(default: %(default)s)",
    )
    parser.add_argument("--jobs", type=int, default=default_jobs(),
                        help="worker processes, or CPUs of --cluster local "
                        "(default: all cores, %(default)s)")
    parser.add_argument("--max-actions", type=int, default=None,
                        help="stop a game after this many actions and score it a draw")
    parser.add_argument(
        "--trace", default="",
        help="comma-separated player specs also played in both seats, as many games each, "
        "for a skill trace (e.g. L1,L3)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed (default: 0)")
    parser.add_argument("--out", type=Path, default=Path("balance-report"),
                        help="output directory (default: %(default)s)")
    ray_cluster.add_cluster_argument(parser)


def run(args: argparse.Namespace) -> int:
    console = Console()
    game = get_game(args.game)
    try:
        options = parse_settings(game, args.settings)
        from_spec(game, args.player)
        trace = [spec.strip() for spec in args.trace.split(",") if spec.strip()]
        for spec in trace:
            from_spec(game, spec)
        if args.games < 1:
            raise ValueError(f"--games must be at least 1, got {args.games}")
        if args.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    except ValueError as error:
        console.print(f"[red]error:[/red] {escape(str(error))}")
        return 2
    with ExitStack() as stack:
        if not ray_cluster.enter_session(stack, args.cluster, args.jobs, console):
            return 2
        return _play(args, console, game, options, trace)


def _play(args: argparse.Namespace, console: Console, game: Game, options: dict[str, Any],
          trace: list[str]) -> int:
    args.out.mkdir(parents=True, exist_ok=True)
    records = args.out / "games"
    records.mkdir(exist_ok=True)
    setup = Setup(args.game, options, max_actions=args.max_actions, track_branching=True)
    tasks = [Pairing(i, (args.player, args.player), args.seed * 1_000_003 + i)
             for i in range(args.games)]
    where = ray_cluster.where(args.cluster, args.jobs)
    console.print(f"{game.title} balance report: {args.games} self-play games of "
                  f"{args.player} on {where}; options: {options or 'default'}")
    started = time.perf_counter()
    with game_progress(console) as progress:
        bar = progress.add_task("self-play", total=len(tasks))

        def finished(result: GameResult) -> None:
            save_record(records, result)
            progress.advance(bar)

        results = run_all(setup, tasks, jobs=args.jobs, on_result=finished,
                          cluster=args.cluster)
        trace_results: dict[str, list[GameResult]] = {}
        for spec in trace:
            trace_bar = progress.add_task(f"trace {spec}", total=len(tasks))
            pairings = [Pairing(t.index, (spec, spec), t.seed) for t in tasks]

            def traced(_result: GameResult, bar: TaskID = trace_bar) -> None:
                progress.advance(bar)

            trace_results[spec] = run_all(setup, pairings, jobs=args.jobs, on_result=traced,
                                          cluster=args.cluster)
    elapsed = time.perf_counter() - started
    balance = analyse(results, game, options)
    for spec, played in ((args.player, results), *trace_results.items()):
        level = analyse(played)
        balance.skill_trace.append((
            spec, level.games, level.seat0_score,
            wilson_score(level.seat0_wins + level.draws / 2, level.games), level.draws,
        ))
    if not trace_results:
        balance.skill_trace.clear()
    seat_names = (f"seat 0, starts as {game.colors[0]}", f"seat 1, starts as {game.colors[1]}")
    paths = write_report(args.out, balance, title=game.title, options=options,
                         player=args.player, seat_names=seat_names, seconds=elapsed)
    low, high = balance.seat0_score_interval
    decisive = balance.decisive_seat0_rate
    console.print(
        f"first player score rate {100 * balance.seat0_score:.1f}% "
        f"(95% {100 * low:.1f}-{100 * high:.1f}%, draws as half); wins "
        + (f"{100 * decisive:.1f}% of {balance.decisive} decisive games"
           if decisive is not None else "no decisive game")
        + f"; draws {100 * balance.draw_rate:.1f}%"
    )
    warning = cap_warning(balance)
    if warning:
        console.print(f"[bold red]WARNING:[/bold red] {warning}")
    for label, event in balance.unused_options:
        console.print(f"[bold yellow]WARNING:[/bold yellow] option {label} never came into "
                      f"play (no {event} in {balance.games} games)")
    for label, (games, _differing, _decisions) in balance.binding.items():
        if not games:
            console.print(f"[bold yellow]WARNING:[/bold yellow] option {label} never came "
                          "into play: the default offered the same choices at every decision")
    rate = len(results) / elapsed if elapsed > 0 else float("inf")
    console.print(f"{len(results)} games in {elapsed:.1f} s: {rate:.2f} "
                  f"games/s ({where}); wrote {', '.join(str(p) for p in paths)}")
    return 0
