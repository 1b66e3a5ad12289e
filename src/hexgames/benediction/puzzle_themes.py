"""Benediction's puzzle themes (``GAME.puzzle_themes``): what a winning line is about.

:mod:`hexgames.puzzles` tags every puzzle it generates with :func:`tag`, and the web app's
puzzle page lets players pick a theme from :data:`THEMES`. A theme is read off the
winning line itself, played from the puzzle's start: how the game ends (a king captured,
a king blessed), the rule the line uses (the portal through the enemy wall, a bridge, a
merge or a split, a drop, a crowning) and whether its first action already takes a man
(most wins take the king with the second action, after a quiet first one). Only the
position's public read API and the rule events of :mod:`hexgames.benediction.usage` are
used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hexgames.benediction.position import Man, Position, Termination
from hexgames.benediction.usage import after, before
from hexgames.game import PuzzleTheme, PuzzleThemes
from hexgames.phrases import N_

__all__ = ["PUZZLE_THEMES", "THEMES", "tag"]

THEMES: tuple[PuzzleTheme, ...] = (
    PuzzleTheme("king-capture", N_("King capture"), N_("Win by capturing the enemy king.")),
    PuzzleTheme("blessing", N_("Blessed king"), N_("Win by blessing your own king.")),
    PuzzleTheme("portal", N_("Portal"), N_("A stack passes through the enemy wall and comes "
                                           "back in on the other side of the board.")),
    PuzzleTheme("bridge", N_("Bridge"), N_("A chain of your men joins the two walls and "
                                           "blesses its members.")),
    PuzzleTheme("merge", N_("Merge"), N_("The line merges two of your men.")),
    PuzzleTheme("split", N_("Split"), N_("The line splits a stack.")),
    PuzzleTheme("drop", N_("Drop"), N_("The line drops a new man in your zone.")),
    PuzzleTheme("crowning", N_("Crowning"), N_("A man becomes a king on a starting point.")),
    PuzzleTheme("capture-first", N_("Capture first"), N_("The first action already takes an "
                                                         "enemy man; the next one wins.")),
)


def _crowned(position: Position, target: str, before: list[Man | None]) -> bool:
    """The action just played made a king on a starting point out of men that were none
    (``before``: the men on its origin and target; a king's split or merge carries its
    crown, which is no crowning)."""
    man = position.man_at(target)
    return (man is not None and man.king
            and target.lower() in {point.lower() for point in position.starting_points}
            and not any(m is not None and m.king and m.color == man.color for m in before))


def _enemy_men(position: Position, color: str) -> int:
    return sum(1 for _, man in position.iter_men() if man.color != color)


def tag(position: Any, solution: Sequence[str]) -> list[str]:
    """The themes of the puzzle whose start is ``position`` (played on) and whose winning
    line is ``solution``, in the order of :data:`THEMES`."""
    assert isinstance(position, Position)
    mover = position.to_move
    found: set[str] = set()
    for number, text in enumerate(solution):
        action = position.parse_action(text)
        token = before(position, action)
        enemies = _enemy_men(position, mover)
        movers = [position.man_at(point) for point in (action.origin, action.target)
                  if point is not None]
        position.play(action)
        events = after(position, action, token)
        if "portal pass" in events:
            found.add("portal")
        if "bridge" in events:
            found.add("bridge")
        if action.kind in ("merge", "split", "drop"):
            found.add(action.kind)
        if _crowned(position, action.target, movers):
            found.add("crowning")
        if number == 0 and _enemy_men(position, mover) < enemies:
            found.add("capture-first")
    outcome = position.outcome()
    if outcome is not None and outcome.winner == mover:
        if outcome.termination == Termination.KING_CAPTURED:
            found.add("king-capture")
        elif outcome.termination == Termination.BLESSED_KING:
            found.add("blessing")
            if _bridged_king(position, mover):
                found.add("bridge")
    return [theme.name for theme in THEMES if theme.name in found]


def _bridged_king(position: Position, color: str) -> bool:
    """The winning blessed king stands in a bridge (its group touches both walls)."""
    own, enemy = set(position.wall(color)), set(position.wall(_other(color)))
    men = {label for label, man in position.iter_men() if man.color == color}
    for label, man in position.iter_men():
        if man.color != color or not (man.king and man.blessed):
            continue
        group, todo = {label}, [label]
        while todo:
            point = todo.pop()
            neighbours = position.board.neighbours[position.board.index(point)]
            for near in (position.board.labels[i] for i in neighbours):
                if near in men and near not in group:
                    group.add(near)
                    todo.append(near)
        if group & own and group & enemy:
            return True
    return False


def _other(color: str) -> str:
    return "blue" if color == "red" else "red"


PUZZLE_THEMES = PuzzleThemes(themes=THEMES, tag=tag)
