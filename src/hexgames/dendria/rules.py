"""Dendria's rules options, validated once so the engine never has to re-check them.

The rules document (``/work/shared/rules/dendria.md``) marks three variants as options:
the board side, the pie rule and K, the per-player number of consecutive turns without a
plant after which the game ends. :class:`Rules` is immutable and hashable so that a
position can share it freely and a cache may key on it.

Each option is declared once, in :data:`OPTIONS` (name, type, range, default, aliases);
:class:`Rules` checks every value with :meth:`hexgames.game.Option.validate`, so the CLI,
the web form, OpenSpiel's parameters and this class agree on what is valid.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from hexgames.game import Option
from hexgames.phrases import N_, Phrase

MIN_SIDE = 3
MAX_SIDE = 11
#: The largest K (``quiet_limit``). The rules allow any K >= 1, but the engine sizes
#: tables by it: a key term per quiet turn (2K of them, built in Python) and the
#: earlier-positions table (``Core.seen_slots``, capped at 2**20 slots). K = 1000 is 100
#: times the standard 10 (2000 turns in a row without a plant, which no game plays) and
#: keeps those tables small and OpenSpiel's game-length bound an int32; an unbounded K
#: let one web request (``quiet_limit=10**23``) freeze the server and eat gigabytes.
MAX_QUIET_LIMIT = 1000

# Turn phases: nothing played yet / a seed was planted / a dendrid stopped.
START, AFTER_PLANT, AFTER_STOP = 0, 1, 2
# Pie rule states: not (or no longer) offered / Dark's first turn on the empty board /
# Light may swap now.
PIE_OFF, PIE_ARMED, PIE_PENDING = 0, 1, 2


class Termination(StrEnum):
    """How a Dendria game ended (the value is the words shown to people).

    The rules end a game in two ways (``BOTH_PASSED``, ``QUIET_LIMIT``); ``RESIGNATION``,
    ``TIMEOUT`` and ``OPPONENT_LEFT`` are decided outside the engine (by the players, the
    clock or the server) and repeat :class:`hexgames.game.CommonTermination`.
    """

    # i18n: how a game ended (shown as "Dark wins (both passed)")
    BOTH_PASSED = N_("both passed")
    # i18n: how a game ended: the limit of turns without a plant was reached
    QUIET_LIMIT = N_("quiet limit")
    RESIGNATION = N_("resignation")
    TIMEOUT = N_("timeout")
    OPPONENT_LEFT = N_("opponent left")


#: The options as the game-agnostic tools (CLI, web form, OpenSpiel) see them.
OPTIONS: tuple[Option, ...] = (
    Option(
        name="board_side",
        kind="int",
        default=7,
        help=N_("side of the hexagonal board (number of cells along each edge)"),
        minimum=MIN_SIDE,
        maximum=MAX_SIDE,
        aliases=("size",),
        changes_board=True,
    ),
    Option(
        name="pie",
        kind="bool",
        default=True,
        help=N_("pie rule: Light may swap colours instead of playing its first turn"),
    ),
    Option(
        name="quiet_limit",
        kind="int",
        default=10,
        help=N_("K: the game ends after 2K consecutive turns in which no seed was planted"),
        minimum=1,
        maximum=MAX_QUIET_LIMIT,
    ),
)
#: The options' names in words as the site shows them (``name`` with spaces, looked up
#: whole in the catalog).
OPTION_LABELS = (N_("board side"), N_("pie"), N_("quiet limit"))
_BY_NAME = {option.name: option for option in OPTIONS}
_ALIAS = {alias: option.name for option in OPTIONS for alias in option.aliases}
_UNSET: Any = object()


@dataclass(frozen=True, init=False)
class Rules:
    """The options one game of Dendria is played with.

    ``board_side`` is the side of the hexagonal board (7 by default, any 3..11; the old
    name ``size`` is accepted as a keyword and readable as :attr:`size`), ``pie`` turns
    the pie rule (Light may ``swap`` on its first turn) on or off, and ``quiet_limit`` is
    K (1..1000, default 10): the game ends after 2K consecutive turns without a plant.
    Raises ``ValueError`` naming the offending option when a value is out of range or an
    option is unknown, so a bad web form or command line is refused before any position
    exists.

    >>> Rules(size=5) == Rules(board_side=5)
    True
    """

    board_side: int = 7
    pie: bool = True
    quiet_limit: int = 10

    def __init__(
        self,
        board_side: int = _UNSET,
        pie: bool = _UNSET,
        quiet_limit: int = _UNSET,
        **aliases: Any,
    ) -> None:
        given: dict[str, Any] = {}
        for name, value in (("board_side", board_side), ("pie", pie),
                            ("quiet_limit", quiet_limit)):
            if value is not _UNSET:
                given[name] = value
        for alias, value in aliases.items():
            target = _ALIAS.get(alias)
            if target is None:
                raise ValueError(Phrase("Dendria has no option {name}; options: {options}",
                                        name=repr(alias), options=", ".join(_BY_NAME)))
            if target in given:
                raise ValueError(Phrase("option {name} is given twice (also as {alias})",
                                        name=target, alias=alias))
            given[target] = value
        for option in OPTIONS:
            value = given.get(option.name, option.default)
            object.__setattr__(self, option.name, value)
        self.__post_init__()

    def __post_init__(self) -> None:
        for option in OPTIONS:
            option.validate(getattr(self, option.name))

    @property
    def size(self) -> int:
        """The old name of :attr:`board_side` (read-only)."""
        return self.board_side

    @property
    def quiet_turns(self) -> int:
        """2K: the number of consecutive turns without a plant that ends the game."""
        return 2 * self.quiet_limit

    def as_dict(self) -> dict[str, Any]:
        """The options as keyword arguments: ``Rules(**r.as_dict()) == r``."""
        return {option.name: getattr(self, option.name) for option in OPTIONS}


def make_rules(**options: Any) -> Rules:
    """``Rules(**options)``: the ``make_rules`` of :data:`hexgames.dendria.GAME`."""
    return Rules(**options)
