"""The board editor's palette for Benediction (see :mod:`hexgames.editing`): men of
either colour with their size and flags, blocks, the side to act and its actions left.
Edited boards are written in the board-text format (:mod:`.textformat`), the earlier
Windows client's save files."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hexgames.benediction._tables import BLESSED, BLUE, CURSED, KING, LOCKED, RED
from hexgames.benediction.rules import Rules
from hexgames.benediction.textformat import TextPosition, format_text, parse_text
from hexgames.editing import Cells, EditorSpec, Field, PieceKind
from hexgames.game import reason_of
from hexgames.hexgrid import COLUMN_LETTERS, board
from hexgames.phrases import N_, Phrase

_FLAGS = (("king", KING, N_("King")), ("blessed", BLESSED, N_("Blessed")),
          ("cursed", CURSED, N_("Cursed")), ("locked", LOCKED, N_("Locked")))
#: The starting-point settings as an error names them.
_START_WORDS = {"red_start": N_("red start"), "blue_start": N_("blue start")}
_COLOR = {"red": RED, "blue": BLUE}


def editor(rules: Rules) -> EditorSpec:
    """The editor of a Benediction board with ``rules``."""
    attributes = (
        Field("size", N_("Size"), "int", 1, minimum=1, maximum=rules.max_stack,
              help=N_("checkers in the stack")),
        *(Field(name, label, "bool", False) for name, _bit, label in _FLAGS),
    )
    red_start, blue_start = _standard_starts(rules.board_side)
    return EditorSpec(
        pieces=(
            PieceKind("red", N_("Red man"), "red", attributes),
            PieceKind("blue", N_("Blue man"), "blue", attributes),
            PieceKind("block", N_("Block")),
        ),
        settings=(
            Field("to_move", N_("Side to act"), "choice", "red", choices=("red", "blue")),
            Field("actions_left", N_("Actions left this turn"), "int", 2, minimum=1, maximum=2),
            Field("red_start", N_("Red's starting point"), "text", red_start),
            Field("blue_start", N_("Blue's starting point"), "text", blue_start),
        ),
        read=read,
        write=write,
        note=N_("A man can be cursed, or king and/or blessed, not both; a blessed king ends "
                "the game."),
    )


def _standard_starts(side: int) -> tuple[str, str]:
    column = COLUMN_LETTERS[side - 1]
    return f"{column}2", f"{column}{2 * side - 2}"


def read(text: str, rules: Rules) -> tuple[Cells, dict[str, Any]]:
    parsed = parse_text(text, rules)
    cells: Cells = {}
    for label, (color, size, flags) in parsed.men.items():
        entry: dict[str, Any] = {"piece": "red" if color == RED else "blue", "size": size}
        for name, bit, _label in _FLAGS:
            entry[name] = bool(flags & bit)
        cells[label] = entry
    for label in parsed.blocks:
        cells[label] = {"piece": "block"}
    settings = {
        "to_move": "red" if parsed.to_move == RED else "blue",
        "actions_left": parsed.actions_left if parsed.actions_left in (1, 2) else 2,
        "red_start": parsed.starts[0],
        "blue_start": parsed.starts[1],
    }
    return cells, settings


def write(cells: Cells, settings: Mapping[str, Any], rules: Rules) -> str:
    geometry = board(rules.board_side)
    starts = []
    for name in ("red_start", "blue_start"):
        label = str(settings[name])
        try:
            starts.append(geometry.labels[geometry.index(label)])
        except ValueError as error:
            raise ValueError(Phrase("{setting}: {reason}", setting=Phrase(_START_WORDS[name]),
                                    reason=reason_of(error))) from None
    men: dict[str, tuple[int, int, int]] = {}
    blocks: list[str] = []
    for label, entry in cells.items():
        if entry["piece"] == "block":
            blocks.append(label)
            continue
        flags = 0
        for name, bit, _label in _FLAGS:
            if entry.get(name):
                flags |= bit
        men[label] = (_COLOR[entry["piece"]], int(entry.get("size", 1)), flags)
    text = format_text(TextPosition(
        rules=rules, starts=(starts[0], starts[1]), men=men, blocks=blocks,
        to_move=_COLOR[settings["to_move"]], actions_left=int(settings["actions_left"]),
    ))
    parse_text(text, rules)  # the format's own checks (flags, blocks on starting points)
    return text
