"""``hexgames report GAME``: a designer's balance report for one variant.

Example::

    hexgames report dendria --set size=5 --games 200 --player L2 --out report-dendria5

Plays ``--games`` self-play games of ``--player`` (the same player spec in both seats),
then writes ``report.md`` with PNG plots and every game record into the output directory.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.console import Console

from hexgames.ai.levels import from_spec
from hexgames.arena.match import GameResult
from hexgames.arena.progress import game_progress
from hexgames.arena.report import analyse, write_report
from hexgames.arena.tournament import Pairing, Setup, default_jobs, run_all, save_record
from hexgames.game import game_names, get_game, parse_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=game_names(), help="which game to report on")
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE",
        help="rules option of the variant, repeatable (e.g. --set size=5)",
    )
    parser.add_argument("--games", type=int, default=100,
                        help="self-play games (default: %(default)s)")
    parser.add_argument(
        "--player", default="L2",
        help="player spec used in both seats: random, greedy, L1..L5, mcts:N "
        "(default: %(default)s)",
    )
    parser.add_argument("--jobs", type=int, default=default_jobs(),
                        help="worker processes (default: all cores, %(default)s)")
    parser.add_argument("--max-actions", type=int, default=None,
                        help="stop a game after this many actions and score it a draw")
    parser.add_argument("--seed", type=int, default=0, help="seed (default: 0)")
    parser.add_argument("--out", type=Path, default=Path("balance-report"),
                        help="output directory (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    console = Console()
    game = get_game(args.game)
    try:
        options = parse_settings(game, args.settings)
        from_spec(game, args.player)
        if args.games < 1:
            raise ValueError(f"--games must be at least 1, got {args.games}")
        if args.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    except ValueError as error:
        console.print(f"[red]error:[/red] {error}")
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    records = args.out / "games"
    records.mkdir(exist_ok=True)
    setup = Setup(args.game, options, max_actions=args.max_actions, track_branching=True)
    tasks = [Pairing(i, (args.player, args.player), args.seed * 1_000_003 + i)
             for i in range(args.games)]
    console.print(f"{game.title} balance report: {args.games} self-play games of "
                  f"{args.player}; options: {options or 'default'}")
    started = time.perf_counter()
    with game_progress(console) as progress:
        bar = progress.add_task("self-play", total=len(tasks))

        def finished(result: GameResult) -> None:
            save_record(records, result)
            progress.advance(bar)

        results = run_all(setup, tasks, jobs=args.jobs, on_result=finished)
    elapsed = time.perf_counter() - started
    balance = analyse(results)
    seat_names = (f"seat 0, starts as {game.colors[0]}", f"seat 1, starts as {game.colors[1]}")
    paths = write_report(args.out, balance, title=game.title, options=options,
                         player=args.player, seat_names=seat_names, seconds=elapsed)
    low, high = balance.seat0_interval
    console.print(
        f"first player wins {100 * balance.seat0_rate:.1f}% "
        f"(95% {100 * low:.1f}-{100 * high:.1f}%), draws {100 * balance.draw_rate:.1f}%"
    )
    console.print(f"{len(results)} games in {elapsed:.1f} s: {len(results) / elapsed:.2f} "
                  f"games/s; wrote {', '.join(str(p) for p in paths)}")
    return 0
