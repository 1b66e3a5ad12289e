"""``python -m hexgames.puzzles``: write a game's puzzle set (see :mod:`hexgames.puzzles`)."""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

from hexgames.game import REGISTRY, Game, game_names, get_game, parse_settings
from hexgames.puzzles.generation import generate

DESCRIPTION = """\
Generate a game's puzzles from games between computer players: positions in which the
player to act can force a win within the turn, with exactly one first action that does,
found and checked by the tactics search, each kept once (mirror images included), tagged
with the game's themes and given an initial rating from the search effort.

The sets shipped with hexgames (each package's puzzles.json) were written by:

  python -m hexgames.puzzles benediction --seed 1 --count 400 --min-length 2 \\
      --max-games 4000 --workers 2
  python -m hexgames.puzzles dendria --seed 1 --count 400 --min-length 2 \\
      --max-games 12000 --per-game 3 --workers 2 --set board_side=5 --set quiet_limit=3
"""


#: Seconds between two progress lines when the output is not a terminal.
LINE_SECONDS = 15.0


def default_path(game: Game) -> Path:
    """The game package's ``puzzles.json`` (what the site serves)."""
    module = REGISTRY[game.name].split(":")[0]
    return Path(str(resources.files(module))) / "puzzles.json"


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _workers(text: str) -> int:
    value = _positive(text)
    most = os.cpu_count() or 1
    if value > most:
        raise argparse.ArgumentTypeError(f"at most {most} (the machine's cores), got {value}")
    return value


def write_set(path: Path, generated_by: str, puzzles: list[dict[str, Any]]) -> None:
    """The set as the site reads it: one puzzle per line (a diff shows what changed),
    the themes counted at the top."""
    themes = Counter(theme for puzzle in puzzles for theme in puzzle["themes"])
    head = json.dumps({"generated_by": generated_by, "count": len(puzzles),
                       "themes": dict(sorted(themes.items()))})
    lines = ",\n".join(json.dumps(puzzle, separators=(",", ":")) for puzzle in puzzles)
    path.write_text(head[:-1] + ', "puzzles": [\n' + lines + "\n]}\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hexgames.puzzles",
                                     description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=game_names())
    parser.add_argument("--seed", type=int, default=1, help="numbers the games (default 1)")
    parser.add_argument("--count", type=_positive, default=6,
                        help="puzzles to find (default 6)")
    parser.add_argument("--depth", type=_positive, default=None,
                        help="most actions in a winning line (default: 2 where turns have "
                             "counted actions, else 4)")
    parser.add_argument("--min-length", type=_positive, default=1,
                        help="shortest winning line accepted (2: no win in one action)")
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                        help="a rules option of the games (repeatable)")
    parser.add_argument("--max-games", type=_positive, default=200,
                        help="games to play at most (default 200)")
    parser.add_argument("--per-game", type=_positive, default=1,
                        help="puzzles taken from one game at most (default 1)")
    parser.add_argument("--workers", type=_workers, default=1,
                        help="worker processes playing games (default 1: this process)")
    parser.add_argument("--out", type=Path, default=None,
                        help="where to write (default: the game package's puzzles.json)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    game = get_game(args.game)
    try:
        options = parse_settings(game, args.set)
    except ValueError as error:
        parser.error(str(error))
    depth = args.depth if args.depth is not None else (
        2 if game.actions_left is not None else 4)
    found = _run(game, options, args, depth)
    out = args.out or default_path(game)
    command = (f"python -m hexgames.puzzles {args.game} --seed {args.seed} "
               f"--count {args.count} --depth {depth} --min-length {args.min_length} "
               f"--max-games {args.max_games} --per-game {args.per_game}"
               + "".join(f" --set {item}" for item in args.set))
    write_set(out, command, found)
    print(f"{len(found)} puzzle(s) written to {out}")
    return 0 if found else 1


def _run(game: Game, options: dict[str, Any], args: argparse.Namespace,
         depth: int) -> list[dict[str, Any]]:
    """The generation, under a progress bar on a terminal (puzzles kept of the count,
    games played, elapsed time), or a plain line every :data:`LINE_SECONDS` elsewhere
    (``nohup``, a pipe: rich's bar would show nothing until the end)."""
    kwargs: dict[str, Any] = {
        "seed": args.seed, "count": args.count, "depth": depth,
        "min_length": args.min_length, "max_games": args.max_games,
        "workers": args.workers, "per_game": args.per_game,
    }
    if args.quiet:
        return generate(game, options, **kwargs)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    console = Console()
    if not console.is_terminal:
        started = last = time.monotonic()

        def line(games: int, kept: int) -> None:
            nonlocal last
            if time.monotonic() - last >= LINE_SECONDS or kept >= args.count:
                last = time.monotonic()
                print(f"{game.title}: {kept}/{args.count} puzzles from {games} games, "
                      f"{last - started:.0f} s", flush=True)

        return generate(game, options, progress=line, **kwargs)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("puzzles · {task.fields[games]} games"), TimeElapsedColumn())
    with Progress(*columns, console=console) as bar:
        task = bar.add_task(f"{game.title} puzzles", total=args.count, games=0)

        def progress(games: int, kept: int) -> None:
            bar.update(task, completed=kept, games=games)

        return generate(game, options, progress=progress, **kwargs)
