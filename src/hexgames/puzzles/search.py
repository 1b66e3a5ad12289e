"""What makes a position a puzzle, asked of the tactics search: a forced win within the
turn, found by :func:`hexgames.ai.tactics.winning_action` and kept only when exactly one
first action starts it; how hard it is (the positions an ordered search visits before it
finds the win, turned into an initial rating); and a key shared by a position and its
mirror images, so that a set holds each puzzle once.

Game-agnostic: the game's AI hooks (:mod:`hexgames.ai.knowledge`) order and prune the
search, its observation and declared symmetries (``Game.observation``,
``Game.symmetries``, ``Game.board``) make the key.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

from hexgames.ai.knowledge import Knowledge, knowledge
from hexgames.ai.tactics import Budget, winning_action
from hexgames.game import Game, GameState

#: Positions the tactics search may visit per question (a win, a first action).
SEARCH_BUDGET = 50_000
#: Most positions :func:`search_effort` counts (a harder puzzle is rated as this one).
EFFORT_CAP = 20_000
#: Initial puzzle ratings lie in this range (Glicko-2 scale: 1500 is a player's start).
RATING_RANGE = (600.0, 2400.0)


def winning_line(game: Game, position: GameState, depth: int) -> list[str] | None:
    """The actions of a forced win within the turn from ``position`` (played on and
    restored), or ``None``."""
    know = knowledge(game)
    line: list[Any] = []
    try:
        while not position.is_over:
            action = winning_action(know, position, depth=depth - len(line),
                                    budget=Budget(SEARCH_BUDGET))
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


def winning_starts(game: Game, position: GameState, depth: int, stop_at: int = 2) -> list[str]:
    """The first actions that win at once or start a forced win within the turn (at most
    ``depth`` actions in all), as the tactics search finds them; it stops counting at
    ``stop_at`` (a puzzle needs exactly one). ``position`` is played on and restored."""
    know = knowledge(game)
    seat = position.current_seat
    found: list[str] = []
    for action in list(position.legal_actions()):
        position.play(action)
        try:
            if position.is_over:
                outcome = position.outcome()
                wins = outcome is not None and outcome.winner_seat == seat
            else:
                wins = (depth > 1 and _same_turn(position, seat)
                        and winning_action(know, position, depth=depth - 1,
                                           budget=Budget(SEARCH_BUDGET)) is not None)
        finally:
            position.undo()
        if wins:
            found.append(str(action))
            if len(found) >= stop_at:
                break
    return found


def _same_turn(position: GameState, seat: int) -> bool:
    return position.current_seat == seat and not position.is_turn_start()


def _ordered(know: Knowledge, position: GameState) -> list[Any]:
    """The legal actions, the game's favourites first (legal order without priors)."""
    actions = list(position.legal_actions())
    if know.action_priors is None or len(actions) < 2:
        return actions
    priors = know.action_priors(position, actions)
    order = sorted(range(len(actions)), key=lambda i: -priors[i])
    return [actions[i] for i in order]


class _Capped(Exception):
    pass


def search_effort(game: Game, position: GameState, depth: int,
                  cap: int = EFFORT_CAP) -> int:
    """The positions a plain depth-first search visits before it finds a forced win
    within the turn, trying the mover's actions in the game's order of preference (its
    priors) and pruning where the game says no win is possible: few when the winning
    line is what a player looks at first, many when it hides among quiet actions.
    ``cap`` when it finds none within ``cap`` positions. Played on and restored."""
    know = knowledge(game)
    seat = position.current_seat
    visited = 0

    def search(left: int) -> bool:
        nonlocal visited
        if not know.may_win_this_turn(position):
            return False
        for action in _ordered(know, position):
            visited += 1
            if visited >= cap:
                raise _Capped
            position.play(action)
            try:
                if position.is_over:
                    outcome = position.outcome()
                    if outcome is not None and outcome.winner_seat == seat:
                        return True
                elif left > 1 and _same_turn(position, seat) and search(left - 1):
                    return True
            finally:
                position.undo()
        return False

    try:
        search(depth)
    except _Capped:
        return cap
    return max(visited, 1)


def initial_rating(effort: int, length: int) -> float:
    """A puzzle's first rating, before anyone has played it: 740 for a win the search
    finds at its first try, 100 more for each doubling of its effort and 60 more for each
    action of the line past the first, within :data:`RATING_RANGE` (players' tries then
    move it, as on lichess). The shipped sets come out between about 900 and 1900."""
    rating = 740.0 + 100.0 * math.log2(max(effort, 1)) + 60.0 * max(length - 1, 0)
    return round(min(max(rating, RATING_RANGE[0]), RATING_RANGE[1]))


def symmetric_key(game: Game, position: GameState) -> str:
    """A key shared by ``position`` and its images under the game's symmetries (the
    smallest digest of the images of its observation): two puzzles with one key are the
    same puzzle, mirrored or turned. Without declared symmetries, the observation's own
    digest."""
    planes = np.ascontiguousarray(np.asarray(game.observation(position, 0)))
    if not game.symmetries or game.board is None:
        return hashlib.sha256(planes.tobytes()).hexdigest()
    geometry = game.board(position.rules)
    centre = geometry.side - 1
    xs = np.array([x for x, _ in geometry.coords])
    ys = np.array([y for _, y in geometry.coords])
    digests = []
    for symmetry in game.symmetries:
        image_x, image_y = [], []
        for x, y in geometry.coords:
            q, r = symmetry(x - centre, y - centre)
            image_x.append(q + centre)
            image_y.append(r + centre)
        image = np.zeros_like(planes)
        image[:, image_x, image_y] = planes[:, xs, ys]
        digests.append(hashlib.sha256(np.ascontiguousarray(image).tobytes()).hexdigest())
    return min(digests)


def puzzle_id(game: Game, options: dict[str, Any], text: str) -> str:
    """A short, stable id of a puzzle (its game, options and position text): what the
    site's addresses and stored ratings use, unchanged when the set is regenerated."""
    source = f"{game.name}\n{sorted(options.items())!r}\n{text}".encode()
    digest = hashlib.sha256(source).digest()
    alphabet = "abcdefghijkmnpqrstuvwxyz23456789"  # no l, o, 0, 1: easy to read aloud
    number = int.from_bytes(digest[:8], "big")
    return "".join(alphabet[(number >> (5 * i)) & 31] for i in range(7))
