"""Generate puzzles from games between computer players: positions in which the player to
act can force a win within the turn, found and checked by the tactics search.

``python -m hexgames.puzzles GAME [--seed N] [--count K] [--out PATH]`` plays games
between the beginner and casual levels (seeded, so the same command writes the same
file), and at the start of every turn asks :func:`hexgames.ai.tactics.winning_action`
whether the player to act wins within the turn. A position becomes a puzzle when

* it is not over, and a win is found within the turn (the whole line is recorded by
  asking the search again after each action);
* the line replays from the position's *text* (what the puzzle ships) and wins;
* no single action wins at once where the game has multi-action turns and such
  positions are available (those make better puzzles): ``--min-length``.

The set shipped with hexgames is in each game package's ``puzzles.json``, written by::

    python -m hexgames.puzzles benediction --seed 1 --count 6
    python -m hexgames.puzzles dendria --seed 1 --count 6 --set board_side=5 --set quiet_limit=3
"""

from __future__ import annotations

import argparse
import json
import random
from importlib import resources
from pathlib import Path
from typing import Any

from hexgames.ai.knowledge import knowledge
from hexgames.ai.levels import player
from hexgames.ai.tactics import Budget, winning_action
from hexgames.game import REGISTRY, Game, GameState, get_game, parse_settings
from hexgames.tutorial import attempt, puzzle_from_dict


def winning_line(game: Game, position: GameState, depth: int) -> list[str] | None:
    """The actions of a forced win within the turn from ``position`` (played on and
    restored), or ``None``."""
    know = knowledge(game)
    line: list[Any] = []
    try:
        while not position.is_over:
            action = winning_action(know, position, depth=depth - len(line),
                                    budget=Budget(50_000))
            if action is None:
                return None
            position.play(action)
            line.append(action)
            if len(line) > depth:
                return None
        outcome = position.outcome()
        if outcome is None or outcome.winner_seat is None:
            return None
        return [str(action) for action in line]
    finally:
        for _ in line:
            position.undo()


def candidate(game: Game, position: GameState, depth: int, min_length: int,
              options: dict[str, Any]) -> dict[str, Any] | None:
    """A puzzle from ``position`` (a turn start), or ``None``."""
    if position.is_over or not position.is_turn_start():
        return None
    line = winning_line(game, position, depth)
    if line is None or len(line) < min_length:
        return None
    seat = position.current_seat
    # A game with counted actions per turn: the turn's; else the turn's end judges a try.
    moves = game.actions_left(position) if game.actions_left is not None else 12
    data = {
        "position": position.to_text(),
        "options": options,
        "solution": line,
        "seat": seat,
        "moves": max(int(moves), len(line)),
        "hint": f"Start with {line[0]}.",
    }
    # The shipped text must carry the win: replay the line from it.
    puzzle = puzzle_from_dict(data, 0, "check")
    start = puzzle.start(game)
    if start.outcome() is not None or start.current_seat != seat:
        return None
    if attempt(game, puzzle, line).status != "solved":
        return None
    return data


def generate(game: Game, options: dict[str, Any], *, seed: int, count: int,
             depth: int, min_length: int, max_games: int = 200,
             max_plies: int = 400) -> list[dict[str, Any]]:
    """Up to ``count`` puzzles from seeded games (at most one per game, so they differ)."""
    rng = random.Random(seed)
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    for _ in range(max_games):
        if len(found) >= count:
            break
        levels = [1, rng.choice((1, 2))]
        rng.shuffle(levels)
        players = [player(game, level, seed=rng.randrange(2**31)) for level in levels]
        position = game.new(**options)
        for _ in range(max_plies):
            if position.is_over:
                break
            if position.is_turn_start():
                puzzle = candidate(game, position, depth, min_length, options)
                if puzzle is not None and puzzle["position"] not in seen:
                    seen.add(puzzle["position"])
                    found.append(puzzle)
                    break
            position.play(players[position.current_seat].choose(position))
    return found


def default_path(game: Game) -> Path:
    module = REGISTRY[game.name].split(":")[0]
    return Path(str(resources.files(module))) / "puzzles.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hexgames.puzzles", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=6)
    parser.add_argument("--depth", type=int, default=None,
                        help="most actions in a winning line (default: 2, Dendria-like 4)")
    parser.add_argument("--min-length", type=int, default=1,
                        help="shortest winning line accepted (2: no win in one action)")
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE")
    parser.add_argument("--max-games", type=int, default=200)
    parser.add_argument("--out", type=Path, default=None,
                        help="where to write (default: the game package's puzzles.json)")
    args = parser.parse_args(argv)
    game = get_game(args.game)
    options = parse_settings(game, args.set)
    depth = args.depth if args.depth is not None else (
        2 if game.actions_left is not None else 4)
    found = generate(game, options, seed=args.seed, count=args.count, depth=depth,
                     min_length=args.min_length, max_games=args.max_games)
    out = args.out or default_path(game)
    out.write_text(json.dumps({
        "generated_by": f"python -m hexgames.puzzles {args.game} --seed {args.seed} "
                        f"--count {args.count} --depth {depth} --min-length {args.min_length}"
                        + "".join(f" --set {item}" for item in args.set),
        "puzzles": found,
    }, indent=1) + "\n", encoding="utf-8")
    print(f"{len(found)} puzzle(s) written to {out}")
    return 0 if found else 1


if __name__ == "__main__":
    raise SystemExit(main())
