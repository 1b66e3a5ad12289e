"""``hexgames arena``: a tournament between AI players, with records, tables and Elo.

Example::

    hexgames arena benediction --players random,greedy,L1,L3 --games 20 --jobs 2 \\
        --set max_turns=150 --out arena-bene

With ``--cluster auto`` (a running Ray cluster) or ``--cluster local`` (Ray started in
this process) the games are Ray tasks instead of local worker processes
(:mod:`hexgames.arena.cluster`); the results are the same for the same seed.

Every game is saved as a game record (``GAME.write_record``) in the output directory,
next to ``results.csv`` (one line per game, written as games finish; scores as in
:mod:`hexgames.arena.gamecsv`) and ``summary.md`` (the tables: results with Elo, and head to head).
"""

from __future__ import annotations

import argparse
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from hexgames.arena import cluster as ray_cluster
from hexgames.arena.gamecsv import GameLog, result_columns
from hexgames.arena.match import GameResult
from hexgames.arena.players import FACTORY_FORM, make_player
from hexgames.arena.progress import game_progress
from hexgames.arena.tournament.schedule import (
    Pairing,
    Setup,
    default_jobs,
    gauntlet,
    round_robin,
    run_all,
    save_record,
)
from hexgames.arena.tournament.standings import (
    Standings,
    head_to_head_table,
    results_table,
    standings,
)
from hexgames.game import Game, game_names, get_game, parse_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=game_names(), help="which game to play")
    parser.add_argument(
        "--players",
        default="random,greedy",
        help="comma-separated player specs: random, greedy, L1..L5, mcts, mcts:ITERATIONS, "
        f"mcts:SECONDSs, or {FACTORY_FORM} (default: %(default)s)",
    )
    parser.add_argument(
        "--gauntlet",
        action="store_true",
        help="the first player meets every other player (default: round robin, everyone "
        "meets everyone)",
    )
    parser.add_argument(
        "--games", type=int, default=10,
        help="games per pairing, seats alternating (default: %(default)s)",
    )
    parser.add_argument(
        "--jobs", type=int, default=default_jobs(),
        help="worker processes, or CPUs of --cluster local (default: all cores, %(default)s)",
    )
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE",
        help="rules option, repeatable (e.g. --set max_turns=150)",
    )
    parser.add_argument(
        "--max-actions", type=int, default=None,
        help="stop a game after this many actions and score it a draw "
        "(default: the game's own bound)",
    )
    parser.add_argument("--seed", type=int, default=0, help="tournament seed (default: 0)")
    ray_cluster.add_cluster_argument(parser)
    parser.add_argument(
        "--out", type=Path, default=Path("arena-results"),
        help="directory for game records, results.csv and summary.md (default: %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    console = Console(soft_wrap=True)  # long paths stay whole in logs
    game = get_game(args.game)
    specs = [s.strip() for s in args.players.split(",") if s.strip()]
    try:
        options = parse_settings(game, args.settings)
        for spec in specs:
            make_player(game, spec)  # refuse bad specs before starting any process
        if args.gauntlet:
            tasks = gauntlet(specs[0], specs[1:], args.games, args.seed)
        else:
            tasks = round_robin(specs, args.games, args.seed)
        if args.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    except ValueError as error:
        console.print(f"[red]error:[/red] {escape(str(error))}")
        return 2
    with ExitStack() as stack:
        if not ray_cluster.enter_session(stack, args.cluster, args.jobs, console):
            return 2
        return _play(args, console, game, specs, options, tasks)


def _play(args: argparse.Namespace, console: Console, game: Game, specs: list[str],
          options: dict[str, Any], tasks: list[Pairing]) -> int:
    args.out.mkdir(parents=True, exist_ok=True)
    setup = Setup(args.game, options, max_actions=args.max_actions)
    where = ray_cluster.where(args.cluster, args.jobs)
    console.print(
        f"{game.title}: {len(tasks)} games between {', '.join(specs)} on {where}; "
        f"options: {options or 'default'}; records in {args.out}/"
    )
    started = time.perf_counter()
    with game_progress(console) as progress, \
            GameLog(args.out / "results.csv", RESULT_COLUMNS) as log:
        bar = progress.add_task("arena", total=len(tasks))

        def finished(result: GameResult) -> None:
            save_record(args.out, result)
            log.add(result_columns(result, legacy_return=True))
            progress.advance(bar)

        results = run_all(setup, tasks, jobs=args.jobs, on_result=finished,
                          cluster=args.cluster)
        log.finish([result_columns(r, legacy_return=True) for r in results])
    elapsed = time.perf_counter() - started
    table = standings(results, specs)
    console.print(results_table(table))
    console.print(head_to_head_table(table))
    rate = len(results) / elapsed if elapsed > 0 else float("inf")
    console.print(
        f"seat 0 scored {100 * table.seat0_score:.1f}% "
        f"(first-move advantage {table.ratings.first_move:+.0f} ± "
        f"{table.ratings.first_move_margin:.0f} Elo)"
    )
    console.print(f"{len(results)} games in {elapsed:.1f} s: {rate:.2f} games/s ({where})")
    (args.out / "summary.md").write_text(
        summary_markdown(game.title, options, table, len(results), elapsed, args.jobs,
                         where=where),
        encoding="utf-8",
    )
    return 0


#: ``results.csv``'s columns: ``seat0_score`` is 1/0.5/0 (:mod:`hexgames.arena.gamecsv`);
#: ``seat0_result`` keeps its old meaning, seat 0's return (+1/0/-1).
RESULT_COLUMNS = ("game", "seat0", "seat1", "seat0_score", "winning_seat", "seat0_result",
                  "turns", "actions", "end_reason", "seconds")


def summary_markdown(title: str, options: dict, table: Standings, games: int,
                     seconds: float, jobs: int, *, where: str | None = None) -> str:
    """The tables of a tournament as Markdown (for docs and issue comments)."""
    lines = [
        f"# {title} arena",
        "",
        f"Options: {options or 'default'}. {games} games in {seconds:.1f} s on "
        f"{where or f'{jobs} process(es)'}: {games / seconds if seconds else 0:.2f} games/s.",
        "",
        "| player | games | wins | draws | losses | score | Elo (95%) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for line in table.lines:
        rating = table.ratings.of(line.name)
        lines.append(
            f"| {line.name} | {line.games} | {line.wins} | {line.draws} | {line.losses} | "
            f"{100 * line.score:.1f}% | {rating.elo:+.0f} ± {rating.margin:.0f} |"
        )
    lines += [
        "",
        f"Seat 0 scored {100 * table.seat0_score:.1f}%; first-move advantage "
        f"{table.ratings.first_move:+.0f} ± {table.ratings.first_move_margin:.0f} Elo.",
        "",
        *head_to_head_markdown(table),
    ]
    return "\n".join(lines)


def head_to_head_markdown(table: Standings) -> list[str]:
    """The head-to-head table: the row player's points against the column player, of
    the games they played (a win 1, a draw 0.5), as in the console's table."""
    names = [line.name for line in table.lines]
    lines = [
        "## Head to head (row's points against column / games)",
        "",
        "| | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for a in names:
        cells = []
        for b in names:
            points, games = table.head_to_head[a].get(b, (0.0, 0))
            cells.append(f"{points:g}/{games}" if games else "-")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return [*lines, ""]
