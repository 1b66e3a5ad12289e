"""Benediction's rule-usage knowledge for balance reports (``GAME.rule_usage``).

:mod:`hexgames.arena.replay` counts every action under its kind; the events below are
the effects that are not kinds: a stack passing through the enemy wall (portal pass), a
curse landing, men blessed away from the action's point (a bridge), a stack built at
``max_stack``, a supply running out, and the turn limit ending a game; :func:`pieces`
lists the men for board coverage and piece counts. Only the position's public read API
is used.
"""

from __future__ import annotations

from typing import Any

from hexgames.benediction.actions import Action
from hexgames.benediction.position import Position, Termination
from hexgames.game import RuleUsage

__all__ = ["RULE_USAGE", "after", "before", "move_cells", "peaks", "pieces"]

#: ``(passed a wall, blessed points, cursed men, empty supplies)`` before an action.
Token = tuple[bool, frozenset[str], int, int]


def _empty_supplies(position: Position) -> int:
    if position.rules.supply is None:
        return 0
    return sum(1 for color in ("red", "blue") if position.supply_left(color) == 0)


def before(position: Any, action: Any) -> Token:
    """What :func:`after` compares with (read before ``action`` is played)."""
    assert isinstance(position, Position) and isinstance(action, Action)
    passed = False
    if action.kind in ("move", "merge", "split"):
        assert action.origin is not None
        man = position.man_at(action.origin)
        assert man is not None
        steps = action.count if action.kind == "split" else man.size
        target = position.board.index(action.target)
        for index, through_wall in position.reach(action.origin, steps, man.color):
            if index == target:
                passed = through_wall
    blessed = frozenset(label for label, man in position.iter_men() if man.blessed)
    cursed = sum(1 for _, man in position.iter_men() if man.cursed)
    return passed, blessed, cursed, _empty_supplies(position)


def after(position: Any, action: Any, token: Any) -> list[str]:
    """The rule events ``action`` caused (it has just been played)."""
    assert isinstance(position, Position) and isinstance(action, Action)
    passed, blessed_before, cursed_before, empty_before = token
    events = []
    if passed:
        events.append("portal pass")
    if sum(1 for _, man in position.iter_men() if man.cursed) > cursed_before:
        events.append("curse")
    newly = {label for label, man in position.iter_men() if man.blessed} - blessed_before
    if newly - {action.target}:
        events.append("bridge")  # men blessed away from the action's point: a bridge
    built = position.man_at(action.target)
    if action.kind in ("merge", "split") and built is not None and (
        built.size >= position.rules.max_stack
    ):
        events.append("stack built at the limit")
    if _empty_supplies(position) > empty_before:
        events.append("supply exhausted")
    outcome = position.outcome()
    if outcome is not None and outcome.termination == Termination.TURN_LIMIT:
        events.append("turn-limit end")
    return events


def peaks(position: Any) -> dict[str, int]:
    """The largest stack on the board."""
    assert isinstance(position, Position)
    return {"largest stack": max((man.size for _, man in position.iter_men()), default=0)}


def pieces(position: Any) -> list[tuple[str, str]]:
    """Every man on the board (a stack counts once) as ``(point, colour)``."""
    assert isinstance(position, Position)
    return [(label, man.color) for label, man in position.iter_men()]


def move_cells(position: Any, action: Any) -> tuple[str, str] | None:
    """``(origin, target)`` of a move, merge or split (a man carried across the board);
    ``None`` for a drop or a block, which carry nothing."""
    assert isinstance(action, Action)
    if action.origin is None:
        return None
    return action.origin, action.target


RULE_USAGE = RuleUsage(
    before=before,
    after=after,
    peaks=peaks,
    pieces=pieces,
    move_cells=move_cells,
    # A game ended by max_turns is a limit's draw, not a king captured or blessed.
    limit_ends=frozenset({Termination.TURN_LIMIT.value}),
    option_events={
        "max_stack": "stack built at the limit",
        "supply": "supply exhausted",
        "max_turns": "turn-limit end",
    },
)
