"""Dendria's rules options, validated once so the engine never has to re-check them.

The rules document (``/work/shared/rules/dendria.md``) marks three variants as options:
the board side, the pie rule and K, the per-player number of consecutive turns without a
plant after which the game ends. :class:`Rules` is immutable and hashable so that a
position can share it freely and a cache may key on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hexgames.game import Option

MIN_SIZE = 3
MAX_SIZE = 11


@dataclass(frozen=True)
class Rules:
    """The options one game of Dendria is played with.

    ``size`` is the side of the hexagonal board (7 by default, any 3..11), ``pie`` turns
    the pie rule (Light may ``swap`` on its first turn) on or off, and ``quiet_limit`` is
    K: the game ends after 2K consecutive turns without a plant.
    Raises ``ValueError`` naming the offending option when a value is out of range, so a
    bad web form or command line is refused before any position exists.
    """

    size: int = 7
    pie: bool = True
    quiet_limit: int = 10

    def __post_init__(self) -> None:
        if not isinstance(self.size, int) or isinstance(self.size, bool):
            raise ValueError(f"option size must be an integer, got {self.size!r}")
        if not MIN_SIZE <= self.size <= MAX_SIZE:
            raise ValueError(
                f"option size must be between {MIN_SIZE} and {MAX_SIZE}, got {self.size}"
            )
        if not isinstance(self.pie, bool):
            raise ValueError(f"option pie must be true or false, got {self.pie!r}")
        if not isinstance(self.quiet_limit, int) or isinstance(self.quiet_limit, bool):
            raise ValueError(f"option quiet_limit must be an integer, got {self.quiet_limit!r}")
        if self.quiet_limit < 1:
            raise ValueError(f"option quiet_limit must be at least 1, got {self.quiet_limit}")

    @property
    def quiet_turns(self) -> int:
        """2K: the number of consecutive turns without a plant that ends the game."""
        return 2 * self.quiet_limit

    def as_dict(self) -> dict[str, Any]:
        """The options as keyword arguments: ``Rules(**r.as_dict()) == r``."""
        return {"size": self.size, "pie": self.pie, "quiet_limit": self.quiet_limit}


#: The options as the game-agnostic tools (CLI, web form, OpenSpiel) see them.
OPTIONS: tuple[Option, ...] = (
    Option(
        name="size",
        kind="int",
        default=7,
        help="side of the hexagonal board (number of cells along each edge)",
        minimum=MIN_SIZE,
        maximum=MAX_SIZE,
    ),
    Option(
        name="pie",
        kind="bool",
        default=True,
        help="pie rule: Light may swap colours instead of playing its first turn",
    ),
    Option(
        name="quiet_limit",
        kind="int",
        default=10,
        help="K: the game ends after 2K consecutive turns in which no seed was planted",
        minimum=1,
    ),
)
