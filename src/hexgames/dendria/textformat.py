"""The Dendria position text format (rules section 5), independent of the engine.

::

    Dendria v1: size=7 to-move=light pie=pending quiet=3 passes=1
    dark seeds: c4 d5
    dark trees: e5 e6
    dark dendrids: f6
    light seeds: a1

Lines with no cells are omitted. Header fields after ``to-move`` are optional:
``pie=pending`` (Light may still swap), ``quiet=N`` (turns since the last plant),
``passes=N`` (consecutive passes) and this engine's extension ``seats=swapped`` (the pie
rule's swap was played, so Dark is the second player). Parsing checks everything that
can be checked without the rules engine and raises ``ValueError`` naming the line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hexgames.dendria.rules import MAX_SIDE, MIN_SIDE
from hexgames.hexgrid import board
from hexgames.phrases import Phrase

MAGIC = "Dendria v1:"
COLORS = ("dark", "light")
KINDS = ("seed", "tree", "dendrid")


@dataclass
class TextPosition:
    """The content of a position text: board side, pieces and turn counters."""

    size: int
    to_move: str = "dark"
    #: label -> (colour, kind)
    pieces: dict[str, tuple[str, str]] = field(default_factory=dict)
    pie_pending: bool = False
    quiet: int = 0
    passes: int = 0
    seats_swapped: bool = False


def format_text(position: TextPosition) -> str:
    """Write a position in the section-5 format (cells in board order)."""
    geometry = board(position.size)
    header = [MAGIC, f"size={position.size}", f"to-move={position.to_move}"]
    if position.pie_pending:
        header.append("pie=pending")
    if position.quiet:
        header.append(f"quiet={position.quiet}")
    if position.passes:
        header.append(f"passes={position.passes}")
    if position.seats_swapped:
        header.append("seats=swapped")
    lines = [" ".join(header)]
    order = {label: i for i, label in enumerate(geometry.labels)}
    for color in COLORS:
        for kind in KINDS:
            cells = sorted(
                (label for label, piece in position.pieces.items() if piece == (color, kind)),
                key=order.__getitem__,
            )
            if cells:
                lines.append(f"{color} {kind}s: {' '.join(cells)}")
    return "\n".join(lines) + "\n"


def _count(name: str, value: str) -> int:
    if not value.isdigit():
        shown = value if len(value) <= 40 else f"{value[:40]}... ({len(value)} characters)"
        raise ValueError(Phrase("header field {name} must be a non-negative integer, got {value}",
                                name=name, value=repr(shown)))
    if len(value) > 30:  # no field comes near: refused unread (int() of 4300+ digits raises)
        raise ValueError(Phrase("header field {name} is out of range: a number of {n} digits",
                                name=name, n=len(value)))
    return int(value)


def parse_text(text: str) -> TextPosition:
    """Read a position text; ``ValueError`` names the first problem found."""
    if not isinstance(text, str):
        raise ValueError(Phrase("a position text must be a string, got {type}",
                                type=type(text).__name__))
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines or not lines[0].lower().startswith(MAGIC.lower()):
        raise ValueError(Phrase("a Dendria position text starts with {magic}",
                                magic=repr(MAGIC)))
    fields: dict[str, str] = {}
    for word in lines[0][len(MAGIC):].split():
        name, sep, value = word.partition("=")
        name = name.lower()
        if not sep or not value:
            raise ValueError(Phrase("header field {field} is not of the form name=value",
                                    field=repr(word)))
        if name in fields:
            raise ValueError(Phrase("header field {name} is given twice", name=name))
        fields[name] = value.lower()
    known = {"size", "to-move", "pie", "quiet", "passes", "seats"}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise ValueError(Phrase("unknown header field(s) {unknown}; known: {known}",
                                unknown=", ".join(unknown), known=str(sorted(known))))
    if "size" not in fields:
        raise ValueError(Phrase("the header must give the board size (size=N)"))
    size = _count("size", fields["size"])
    if not MIN_SIDE <= size <= MAX_SIDE:
        raise ValueError(Phrase("size must be between {least} and {most}, got {size}",
                                least=MIN_SIDE, most=MAX_SIDE, size=size))
    to_move = fields.get("to-move", "")
    if to_move not in COLORS:
        raise ValueError(Phrase("to-move must be dark or light, got {value}",
                                value=repr(to_move or "nothing")))
    if fields.get("pie", "pending") != "pending":
        raise ValueError(Phrase("the only pie field is pie=pending, got pie={value}",
                                value=fields["pie"]))
    if fields.get("seats", "swapped") != "swapped":
        raise ValueError(Phrase("the only seats field is seats=swapped, got seats={value}",
                                value=fields["seats"]))
    result = TextPosition(
        size=size,
        to_move=to_move,
        pie_pending="pie" in fields,
        quiet=_count("quiet", fields.get("quiet", "0")),
        passes=_count("passes", fields.get("passes", "0")),
        seats_swapped="seats" in fields,
    )
    geometry = board(size)
    for line in lines[1:]:
        head, sep, rest = line.partition(":")
        words = head.lower().split()
        if sep and len(words) == 2 and words[0] in COLORS and words[1] in KINDS:
            raise ValueError(Phrase("cannot read line {line}: write the kind in the plural",
                                    line=repr(line)))
        if not sep or len(words) != 2 or words[0] not in COLORS or words[1][:-1] not in KINDS \
                or not words[1].endswith("s"):
            raise ValueError(Phrase(
                "cannot read line {line}: expected '<dark|light> <seeds|trees|dendrids>: "
                "cells'", line=repr(line),
            ))
        piece = (words[0], words[1][:-1])
        for label in rest.split():
            if not geometry.is_label(label):
                raise ValueError(Phrase(
                    "{label} in line {line} is not a cell of a side-{size} board",
                    label=repr(label), line=repr(line), size=size))
            key = label.lower()
            if key in result.pieces:
                raise ValueError(Phrase("cell {cell} is given twice", cell=key))
            result.pieces[key] = piece
    return result
