"""Benediction's rules options, validated once so the engine never re-checks them.

A :class:`Rules` object is immutable and hashable: positions share it, records and the
web form rebuild it from :meth:`Rules.as_dict`, and the engine's precomputed tables are
keyed by ``board_side``. :data:`OPTIONS` describes the same five options for
game-agnostic tools (CLI ``--set``, web form, OpenSpiel parameters).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from hexgames.game import Option
from hexgames.phrases import N_, Phrase

#: Bounds of each option, shared by validation and :data:`OPTIONS` so they cannot drift.
MIN_SIDE, MAX_SIDE = 4, 7
MIN_STACK, MAX_STACK = 2, 15
#: The largest ``supply``: more checkers than the largest board can hold (127 points of
#: side 7, stacks of at most 15), so a larger supply would play exactly as unlimited. The
#: bound keeps the value far inside the core's int64 parameters (``10**23`` raised an
#: ``OverflowError`` there, a 500 on the web).
MAX_SUPPLY = 2000
#: The largest ``max_turns``: games last 40-150 turns and tournaments cap them at
#: 100-200; a cap of 10,000 turns restricts no real game, and keeps research frameworks'
#: game-length bound (:func:`.encoding.max_game_length`) a small int32.
MAX_TURNS_CAP = 10_000


#: Checkers each side has on the board at the start; with the ``supply`` option a side
#: owns this many plus ``supply`` (see docs/benediction.md, "Supply").
START_CHECKERS = 7


class Termination(StrEnum):
    """How a Benediction game ends (``Outcome.termination``); the value is the words
    shown to people and written in records. The last three are decided outside the
    engine (by the players, the clock or the server), with the values of
    :class:`hexgames.game.CommonTermination`."""

    KING_CAPTURED = N_("king captured")
    BLESSED_KING = N_("blessed king")
    NO_LEGAL_ACTION = N_("no legal action")
    TURN_LIMIT = N_("turn limit")
    RESIGNATION = N_("resignation")
    TIMEOUT = N_("timeout")
    OPPONENT_LEFT = N_("opponent left")


_UNSET: Any = object()


@dataclass(frozen=True, init=False)
class Rules:
    """The options a Benediction game is played with (defaults = the standard game).

    * ``board_side``: side of the hex-hex grid of points (4..7; standard 5).
    * ``first_turn_actions``: actions in Red's very first turn; 1 is the 12* protocol,
      2 gives the first turn two actions like every other turn.
    * ``max_stack``: largest stack a Merge or split-merge may build (2..15).
    * ``supply``: ``None`` for unlimited checkers, else the checkers each side has in
      reserve at the start, 1..2000 (see ``docs/benediction.md`` for the exact accounting).
    * ``max_turns``: ``None`` for no cap, else the game is a draw once that many turns
      (one player's one or two actions each, 1..10,000) have been played without a winner.

    Every value is checked with :meth:`hexgames.game.Option.validate` (the same check
    the CLI, the web form and the research adapters use); a bad value or an unknown
    option raises ``ValueError`` naming it.
    """

    board_side: int = 5
    first_turn_actions: int = 1
    max_stack: int = 8
    supply: int | None = None
    max_turns: int | None = None

    def __init__(
        self,
        board_side: int = _UNSET,
        first_turn_actions: int = _UNSET,
        max_stack: int = _UNSET,
        supply: int | None = _UNSET,
        max_turns: int | None = _UNSET,
        **unknown: Any,
    ) -> None:
        if unknown:
            name = next(iter(unknown))
            raise ValueError(Phrase(
                "Benediction has no option {name}; options: {options}", name=repr(name),
                options=", ".join(option.name for option in OPTIONS),
            ))
        given = {
            "board_side": board_side,
            "first_turn_actions": first_turn_actions,
            "max_stack": max_stack,
            "supply": supply,
            "max_turns": max_turns,
        }
        for option in OPTIONS:
            value = given[option.name]
            if value is _UNSET:
                value = option.default
            object.__setattr__(self, option.name, option.validate(value))

    def as_dict(self) -> dict[str, Any]:
        """The constructor keyword arguments: ``Rules(**r.as_dict()) == r``."""
        return asdict(self)

    def non_default(self) -> dict[str, Any]:
        """Only the options that differ from the standard game (for records and titles)."""
        return {k: v for k, v in self.as_dict().items() if v != _DEFAULTS[k]}


_DEFAULTS: dict[str, Any] = {
    "board_side": 5,
    "first_turn_actions": 1,
    "max_stack": 8,
    "supply": None,
    "max_turns": None,
}

OPTIONS: tuple[Option, ...] = (
    Option(
        "board_side", "int", 5, N_("side of the hexagonal board of points (standard 5)"),
        minimum=MIN_SIDE, maximum=MAX_SIDE, changes_board=True,
    ),
    Option(
        "first_turn_actions", "int", 1,
        N_("actions in Red's first turn: 1 = the 12* protocol, 2 = two actions from the start"),
        minimum=1, maximum=2,
    ),
    Option(
        "max_stack", "int", 8, N_("largest stack a merge may build"),
        minimum=MIN_STACK, maximum=MAX_STACK,
    ),
    Option(
        "supply", "int", None,
        N_("checkers each side has in reserve for drops (unlimited when off)"),
        minimum=1, maximum=MAX_SUPPLY, nullable=True,
    ),
    Option(
        "max_turns", "int", None,
        N_("turns after which an undecided game is scored a draw (no cap when off)"),
        minimum=1, maximum=MAX_TURNS_CAP, nullable=True,
    ),
)
#: The options' names in words as the site shows them (``name`` with spaces, looked up
#: whole in the catalog).
OPTION_LABELS = (N_("board side"), N_("first turn actions"), N_("max stack"), N_("supply"),
                 N_("max turns"))
