"""Dendria's rule-usage knowledge for balance reports (``GAME.rule_usage``).

Every step already counts under its kind (``plant``, ``swap``, ...); the only event that
is not a kind is a game ended by the quiet limit.
"""

from __future__ import annotations

from typing import Any

from hexgames.dendria.position import Position, Termination
from hexgames.game import RuleUsage

__all__ = ["RULE_USAGE", "after"]


def after(position: Any, action: Any, token: Any) -> list[str]:
    """``["quiet-limit end"]`` when the step ended the game by the quiet limit."""
    assert isinstance(position, Position)
    outcome = position.outcome()
    if outcome is not None and outcome.termination == Termination.QUIET_LIMIT:
        return ["quiet-limit end"]
    return []


RULE_USAGE = RuleUsage(
    after=after,
    option_events={"pie": "swap", "quiet_limit": "quiet-limit end"},
)
