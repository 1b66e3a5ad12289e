"""The tactical layer: exact answers to the two questions a search must never get wrong.

1. *Can I win now?* -- a winning action, or a sequence of my own actions within this turn
   (Benediction's two actions, Dendria's steps) that ends the game in my favour.
2. *Does this action hand my opponent a win?* -- after my turn ends, can the opponent win
   within their next turn (e.g. capture my king, in Benediction possibly with a
   preparatory first action)? An action is **safe** when some way of finishing my turn
   after it avoids that.

Both are answered by make/unmake on a position the caller owns, using the game's
``winning_actions`` hook (fast, from reach tables) when the game provides one. A
``Budget`` bounds the number of positions visited, so a hopeless position (every
continuation loses) costs a bounded amount of time; an exhausted budget answers
"unknown", which callers treat as "safe" (the search decides then).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hexgames.ai.knowledge import Knowledge
from hexgames.game import GameState


class Budget:
    """A countdown of positions the tactical layer may still visit."""

    __slots__ = ("left",)

    def __init__(self, positions: int) -> None:
        self.left = positions

    def spend(self) -> bool:
        """Use one unit; False when none was left."""
        if self.left <= 0:
            return False
        self.left -= 1
        return True


def _same_turn(position: GameState, seat: int) -> bool:
    """True while ``seat`` is still in the middle of its own turn."""
    return (
        not position.is_over
        and position.current_seat == seat
        and not position.is_turn_start()
    )


def winning_action(
    know: Knowledge, position: GameState, *, depth: int = 2, budget: Budget | None = None
) -> Any | None:
    """An action that wins at once, or that starts a win within the mover's own turn
    using at most ``depth`` actions in all; ``None`` when none was found.

    ``position`` is played on and restored.
    """
    if not know.may_win_this_turn(position):
        return None
    wins = know.winning_actions(position)
    if wins:
        return wins[0]
    if depth <= 1 or not know.turn_continues(position):
        return None
    budget = budget if budget is not None else Budget(20_000)
    seat = position.current_seat
    for action in position.legal_actions():
        if not budget.spend():
            return None
        position.play(action)
        try:
            if _same_turn(position, seat) and (
                winning_action(know, position, depth=depth - 1, budget=budget) is not None
            ):
                return action
        finally:
            position.undo()
    return None


def is_safe(
    know: Knowledge,
    position: GameState,
    seat: int,
    *,
    depth: int = 3,
    threat_depth: int = 3,
    budget: Budget,
    preferred: Iterable[Any] = (),
) -> bool:
    """After some action of ``seat``: can ``seat`` finish its turn (within ``depth`` more
    actions) so that the opponent cannot win within their next turn (looking
    ``threat_depth`` actions into it)?

    A game already over is safe unless ``seat`` lost. ``preferred`` actions are tried
    first when the turn goes on (e.g. the search's favourite continuations). An
    exhausted budget or depth answers True ("not shown unsafe").
    """
    if position.is_over:
        return position.returns()[seat] >= 0
    if position.current_seat != seat or position.is_turn_start():
        if budget.left <= 0:
            return True
        threat = winning_action(know, position, depth=threat_depth, budget=budget)
        return threat is None or budget.left <= 0
    if depth <= 0:
        return True
    actions = position.legal_actions()
    first = [a for a in preferred if a in actions]
    seen = set(first)
    for action in first + [a for a in actions if a not in seen]:
        if not budget.spend():
            return True
        position.play(action)
        try:
            if is_safe(
                know, position, seat, depth=depth - 1, threat_depth=threat_depth, budget=budget
            ):
                return True
        finally:
            position.undo()
    return False


def first_safe(
    know: Knowledge,
    position: GameState,
    candidates: Iterable[Any],
    *,
    budget: Budget,
    depth: int = 3,
    threat_depth: int | None = None,
    preferred: Any = None,
) -> Any | None:
    """The first of ``candidates`` (in the caller's order of preference) that is safe
    for the player to move; ``None`` when none is (or the budget ran out first).

    ``preferred(action)`` may return continuations to try first after that action;
    ``threat_depth`` (default ``depth``) is how far into the opponent's next turn a
    threat is looked for.
    """
    threat_depth = depth if threat_depth is None else threat_depth
    seat = position.current_seat
    for action in candidates:
        if budget.left <= 0:
            return None
        position.play(action)
        try:
            follow = preferred(action) if preferred is not None else ()
            if is_safe(
                know, position, seat, depth=depth, threat_depth=threat_depth, budget=budget,
                preferred=follow,
            ):
                return action
        finally:
            position.undo()
    return None
