"""Puzzles from games between computer players, each verified by the tactics search.

A seeded game between the beginner and casual levels is played out; at the start of
every turn the position is a puzzle when (:func:`candidate`)

* the game is not over and the player to act can force a win within the turn (the
  whole line is recorded by asking the search again after each action);
* exactly one first action starts such a win (:func:`~.search.winning_starts`; later
  actions may have alternatives: the site accepts any win, as lichess accepts any mate);
* the line is at least ``min_length`` actions long, and it replays from the position's
  *text* (what the set ships) through the site's judge (:func:`hexgames.tutorial.attempt`).

Each puzzle carries a stable id, its themes (the game's ``puzzle_themes`` hook), the
search effort and the initial rating made of it. :func:`generate` plays games (in
worker processes when asked, at most ``workers`` at once) and keeps each puzzle once: by
position, and by the game's symmetries. Games are numbered from the seed and their
puzzles are taken in that order, so a command writes the same set with any number of
workers.
"""

from __future__ import annotations

import multiprocessing
import random
from collections import deque
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from hexgames.ai.levels import player
from hexgames.game import Game, GameState, get_game
from hexgames.phrases import Phrase
from hexgames.puzzles.search import (
    initial_rating,
    puzzle_id,
    search_effort,
    symmetric_key,
    winning_line,
    winning_starts,
)
from hexgames.tutorial import attempt, puzzle_from_dict

#: Actions a try may use in a game whose turns have no fixed number of actions.
OPEN_TURN_MOVES = 12


def candidate(game: Game, position: GameState, depth: int, min_length: int,
              options: dict[str, Any], unique: bool = True) -> dict[str, Any] | None:
    """A puzzle from ``position`` (a turn start; played on and restored), or ``None``."""
    if position.is_over or not position.is_turn_start():
        return None
    line = winning_line(game, position, depth)
    if line is None or len(line) < min_length:
        return None
    if unique and winning_starts(game, position, depth) != [line[0]]:
        return None
    seat = position.current_seat
    # A game with counted actions per turn: the turn's; else the turn's end judges a try.
    moves = game.actions_left(position) if game.actions_left is not None else OPEN_TURN_MOVES
    text = position.to_text()
    effort = search_effort(game, position, depth)
    data: dict[str, Any] = {
        "id": puzzle_id(game, options, text),
        "position": text,
        "options": options,
        "solution": line,
        "seat": seat,
        "moves": max(int(moves), len(line)),
        "themes": [],
        "rating": initial_rating(effort, len(line)),
        "effort": effort,
        # English in the file; the site reads it back as this phrase (tutorial._hint)
        "hint": str(Phrase("Start with {action}.", action=line[0])),
    }
    # The shipped text must carry the win: replay the line from it, as the site judges.
    puzzle = puzzle_from_dict(data, 0, "check")
    start = puzzle.start(game)
    if start.outcome() is not None or start.current_seat != seat:
        return None
    if attempt(game, puzzle, line).status != "solved":
        return None
    if game.puzzle_themes is not None:
        data["themes"] = list(game.puzzle_themes.tag(puzzle.start(game), line))
    return data


@dataclass(frozen=True)
class GameTask:
    """One seeded game to look for puzzles in (picklable: a worker process runs it)."""

    game: str
    options: dict[str, Any]
    seed: int
    depth: int
    min_length: int
    per_game: int = 1
    max_plies: int = 400


def puzzles_of_game(task: GameTask) -> list[dict[str, Any]]:
    """The puzzles (at most ``task.per_game``, in the order met) of one seeded game,
    each with its symmetric key under ``"key"``."""
    game = get_game(task.game)
    rng = random.Random(task.seed)
    levels = [1, rng.choice((1, 2))]
    rng.shuffle(levels)
    players = [player(game, level, seed=rng.randrange(2**31)) for level in levels]
    position = game.new(**task.options)
    found: list[dict[str, Any]] = []
    for _ in range(task.max_plies):
        if position.is_over or len(found) >= task.per_game:
            break
        if position.is_turn_start():
            puzzle = candidate(game, position, task.depth, task.min_length, task.options)
            if puzzle is not None:
                puzzle["key"] = symmetric_key(game, position)
                found.append(puzzle)
        position.play(players[position.current_seat].choose(position))
    return found


def _results(tasks: Iterator[GameTask], workers: int
             ) -> Generator[list[dict[str, Any]], None, None]:
    """Each task's puzzles, in task order: in this process, or in at most ``workers``
    worker processes with twice as many tasks in flight (the iterator's consumer may stop
    early; the rest is cancelled)."""
    if workers <= 1:
        yield from map(puzzles_of_game, tasks)
        return
    context = multiprocessing.get_context("spawn")  # no inherited threads or locks
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
    pending: deque[Future[list[dict[str, Any]]]] = deque()
    try:
        for task in tasks:
            pending.append(pool.submit(puzzles_of_game, task))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def generate(game: Game, options: dict[str, Any], *, seed: int, count: int, depth: int,
             min_length: int, max_games: int = 200, max_plies: int = 400,
             workers: int = 1, per_game: int = 1,
             progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Up to ``count`` puzzles from at most ``max_games`` seeded games, each kept once
    (by id, which follows the position, and by the symmetric key). ``progress(games
    played, puzzles kept)`` is called after every game."""
    if count < 1 or max_games < 1 or workers < 1 or per_game < 1:
        raise ValueError("count, max_games, workers and per_game must be at least 1")
    rng = random.Random(seed)
    seeds = [rng.randrange(2**31) for _ in range(max_games)]
    tasks = (GameTask(game.name, dict(options), game_seed, depth, min_length, per_game,
                      max_plies) for game_seed in seeds)
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    played = 0
    results = _results(tasks, workers)
    try:
        for puzzles in results:
            played += 1
            for puzzle in puzzles:
                key = puzzle.pop("key")
                if puzzle["id"] in seen or key in seen or len(found) >= count:
                    continue
                seen.update((puzzle["id"], key))
                found.append(puzzle)
            if progress is not None:
                progress(played, len(found))
            if len(found) >= count:
                break
    finally:
        results.close()  # stops the workers of the games not needed
    return found
