"""The board editor's palette for Dendria (see :mod:`hexgames.editing`): seeds, trees
and dendrids of either colour, the side to act, the pie rule's state and the turn
counters, written in the position text format (:mod:`.textformat`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hexgames.dendria.rules import Rules
from hexgames.dendria.textformat import COLORS, KINDS, TextPosition, format_text, parse_text
from hexgames.editing import Cells, EditorSpec, Field, PieceKind


def editor(rules: Rules) -> EditorSpec:
    """The editor of a Dendria board with ``rules``."""
    return EditorSpec(
        pieces=tuple(PieceKind(f"{color}-{kind}", f"{color.capitalize()} {kind}", color)
                     for color in COLORS for kind in KINDS),
        settings=(
            Field("to_move", "Side to act", "choice", "dark", choices=COLORS),
            Field("pie_pending", "Light may still swap (pie)", "bool", False,
                  help="only right after Dark's first seed, with the pie rule on"),
            Field("seats_swapped", "Colours were swapped (pie)", "bool", False),
            Field("quiet", "Turns since the last plant", "int", 0, minimum=0, maximum=999),
            Field("passes", "Consecutive passes", "int", 0, minimum=0, maximum=999),
        ),
        read=read,
        write=write,
        note="The pie swap can be pending only with Light to act after Dark's first seed.",
    )


def read(text: str, rules: Rules) -> tuple[Cells, dict[str, Any]]:
    parsed = parse_text(text)
    if parsed.size != rules.board_side:
        raise ValueError(f"the text is a side-{parsed.size} board, not {rules.board_side}")
    cells: Cells = {label: {"piece": f"{color}-{kind}"}
                    for label, (color, kind) in parsed.pieces.items()}
    settings = {"to_move": parsed.to_move, "pie_pending": parsed.pie_pending,
                "seats_swapped": parsed.seats_swapped, "quiet": parsed.quiet,
                "passes": parsed.passes}
    return cells, settings


def write(cells: Cells, settings: Mapping[str, Any], rules: Rules) -> str:
    pieces: dict[str, tuple[str, str]] = {}
    for label, entry in cells.items():
        color, _, kind = str(entry["piece"]).partition("-")
        pieces[label] = (color, kind)
    return format_text(TextPosition(
        size=rules.board_side, to_move=str(settings["to_move"]), pieces=pieces,
        pie_pending=bool(settings["pie_pending"]), quiet=int(settings["quiet"]),
        passes=int(settings["passes"]), seats_swapped=bool(settings["seats_swapped"]),
    ))
