"""The board editor's palette for Dendria (see :mod:`hexgames.editing`): seeds, trees
and dendrids of either colour, the side to act, the pie rule's state and the turn
counters, written in the position text format (:mod:`.textformat`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hexgames.dendria.rules import Rules
from hexgames.dendria.textformat import COLORS, KINDS, TextPosition, format_text, parse_text
from hexgames.editing import Cells, EditorSpec, Field, PieceKind
from hexgames.phrases import N_, Phrase

#: The palette's names of the pieces (shown in the reader's language: marked for the
#: catalog).
PIECE_LABELS: dict[tuple[str, str], str] = {
    ("dark", "seed"): N_("Dark seed"), ("dark", "tree"): N_("Dark tree"),
    ("dark", "dendrid"): N_("Dark dendrid"), ("light", "seed"): N_("Light seed"),
    ("light", "tree"): N_("Light tree"), ("light", "dendrid"): N_("Light dendrid"),
}


def editor(rules: Rules) -> EditorSpec:
    """The editor of a Dendria board with ``rules``."""
    return EditorSpec(
        pieces=tuple(PieceKind(f"{color}-{kind}", PIECE_LABELS[color, kind], color)
                     for color in COLORS for kind in KINDS),
        settings=(
            Field("to_move", N_("Side to act"), "choice", "dark", choices=COLORS),
            Field("pie_pending", N_("Light may still swap (pie)"), "bool", False,
                  help=N_("only right after Dark's first seed, with the pie rule on")),
            Field("seats_swapped", N_("Colours were swapped (pie)"), "bool", False),
            Field("quiet", N_("Turns since the last plant"), "int", 0, minimum=0, maximum=999),
            Field("passes", N_("Consecutive passes"), "int", 0, minimum=0, maximum=999),
        ),
        read=read,
        write=write,
        note=N_("The pie swap can be pending only with Light to act after Dark's first seed."),
    )


def read(text: str, rules: Rules) -> tuple[Cells, dict[str, Any]]:
    parsed = parse_text(text)
    if parsed.size != rules.board_side:
        raise ValueError(Phrase("the text is a side-{size} board, not {side}",
                                size=parsed.size, side=rules.board_side))
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
