"""Dendria's rule-usage knowledge for balance reports (``GAME.rule_usage``).

Every step already counts under its kind (``plant``, ``swap``, ...); the only event that
is not a kind is a game ended by the quiet limit. :func:`pieces` lists the board's pieces
for board coverage and piece counts over time.
"""

from __future__ import annotations

from typing import Any

from hexgames.dendria.position import Position, Termination
from hexgames.game import RuleUsage

__all__ = ["RULE_USAGE", "after", "move_cells", "pieces"]


def after(position: Any, action: Any, token: Any) -> list[str]:
    """``["quiet-limit end"]`` when the step ended the game by the quiet limit."""
    assert isinstance(position, Position)
    outcome = position.outcome()
    if outcome is not None and outcome.termination == Termination.QUIET_LIMIT:
        return ["quiet-limit end"]
    return []


def pieces(position: Any) -> list[tuple[str, str]]:
    """Every seed, tree and dendrid on the board as ``(cell, colour)``."""
    assert isinstance(position, Position)
    found = []
    for label in position.board.labels:
        piece = position.piece_at(label)
        if piece is not None:
            found.append((label, piece.color))
    return found


def move_cells(position: Any, action: Any) -> tuple[str, str] | None:
    """``(from, to)`` of a dendrid's leg or continuation (a continuation starts where the
    step before it, the leg or an earlier continuation, ended); ``None`` for any other
    step, which moves no piece."""
    assert isinstance(position, Position)
    if action.kind == "leg":
        return action.origin, action.target
    if action.kind == "continue" and position.history:
        previous = position.history[-1]
        if previous.target is not None:
            return previous.target, action.target
    return None


RULE_USAGE = RuleUsage(
    after=after,
    pieces=pieces,
    move_cells=move_cells,
    # The quiet limit ends a game nobody is playing for any more; both passing is the
    # game's own end.
    limit_ends=frozenset({Termination.QUIET_LIMIT.value}),
    option_events={"pie": "swap", "quiet_limit": "quiet-limit end"},
)
