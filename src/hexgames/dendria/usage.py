"""Dendria's rule-usage knowledge for balance reports (``GAME.rule_usage``).

Every step already counts under its kind (``plant``, ``swap``, ...); the only event that
is not a kind is a game ended by the quiet limit. :func:`pieces` lists the board's pieces
for board coverage and piece counts over time.
"""

from __future__ import annotations

from typing import Any

from hexgames.dendria.position import Position, Termination
from hexgames.game import RuleUsage

__all__ = ["RULE_USAGE", "after", "pieces"]


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


RULE_USAGE = RuleUsage(
    after=after,
    pieces=pieces,
    option_events={"pie": "swap", "quiet_limit": "quiet-limit end"},
)
