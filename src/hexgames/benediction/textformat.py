"""The board-text format of rules section 8 (the earlier Windows client's save files).

::

    Benediction v1: R-E2 B E8
    R:D12E12k3F12
    B:D78E78k9F78
    X:E5G3

Header flags after ``R``/``B``: ``-`` acts with two actions left (first action of a
turn), ``=`` acts with one action left, space = not acting, ``x`` = king taken,
``W`` = won. Lists: a column letter (upper case) then its points: the row, then any of
``k`` king, ``b`` blessed, ``c`` cursed, ``l`` locked (this project's extension), one ``+``
per checker above the first. Sides 6 and 7 separate points by commas and may use rows
above 9 (``E1,2k,12+``); commas are accepted on every side. Any line may be wrapped in
``| ... |``. Errors are ``ValueError("line L, column C: ...")``.

Project rulings (see ``docs/benediction.md``): Red's single opening action under the
12* protocol is written ``=`` (one action left) so that reading the text back keeps it a
one-action turn; both flags blank means the game ended in a draw (the ``max_turns`` cap).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hexgames.benediction._refusal import color_word
from hexgames.benediction._tables import (
    BLESSED,
    BLUE,
    CURSED,
    KING,
    LOCKED,
    RED,
)
from hexgames.benediction.rules import Rules
from hexgames.game import reason_of
from hexgames.hexgrid import COLUMN_LETTERS, board
from hexgames.phrases import Phrase

MAGIC = "Benediction v1:"
_FLAG_LETTERS = {"k": KING, "b": BLESSED, "c": CURSED, "l": LOCKED}
_HEADER = re.compile(
    r"R(?P<rf>[-= xW])(?P<rs>[A-Za-z]\d+) +B(?P<bf>[-= xW])(?P<bs>[A-Za-z]\d+)\s*"
)


#: ``TextPosition.winner`` of a game drawn by the turn cap (both header flags blank).
DRAW = 3


@dataclass
class TextPosition:
    """The content of a board text as plain values (what :func:`parse_text` reads and
    :func:`format_text` writes); ``Position.from_text`` loads it into an engine.

    Colour codes are ``RED=1``/``BLUE=2``; man flags the bit mask ``KING=1, BLESSED=2,
    CURSED=4, LOCKED=8`` (see :mod:`hexgames.benediction.position`).
    """

    rules: Rules
    #: Red's and Blue's starting points (lower-case labels).
    starts: tuple[str, str]
    #: label -> (colour code, size, flags), in board index order.
    men: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    #: Labels of the blocks, in board index order.
    blocks: list[str] = field(default_factory=list)
    #: Colour code of the player to act while the game goes on.
    to_move: int = RED
    #: 2 or 1 while the game goes on (header ``-``/``=``); 0 once it is over.
    actions_left: int = 2
    #: 0 while the game goes on, else ``RED``, ``BLUE`` or :data:`DRAW`.
    winner: int = 0
    #: The loser's header flag is ``x``: the game ended by a king capture.
    king_taken: bool = False


@dataclass
class _Line:
    """A content line: its text without ``| |`` wrapping, and where that text starts."""

    number: int
    text: str
    offset: int  # 0-based column of text[0] in the original line

    def error(self, pos: int, message: str | Phrase) -> ValueError:
        return ValueError(Phrase("line {line}, column {column}: {message}", line=self.number,
                                 column=self.offset + pos + 1, message=message))


def _content_lines(text: str) -> list[_Line]:
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        body = raw.rstrip()
        start = len(body) - len(body.lstrip())
        body = body.strip()
        if not body:
            continue
        if body.startswith("|"):
            if len(body) < 2 or not body.endswith("|"):
                raise _Line(number, body, start).error(
                    len(body) - 1, Phrase("a line wrapped in '|' must also end with '|'")
                )
            inner = body[1:-1]
            lead = len(inner) - len(inner.lstrip())
            body = inner.strip()
            start += 1 + lead
            if not body:
                continue
        lines.append(_Line(number, body, start))
    return lines


def _infer_side(red_start: str, blue_start: str) -> int:
    """Board side whose standard starting points the header names (5 otherwise)."""
    for side in range(4, 8):
        column = COLUMN_LETTERS[side - 1]
        if (red_start.lower(), blue_start.lower()) == (f"{column}2", f"{column}{2 * side - 2}"):
            return side
    return 5


def parse_text(text: str, rules: Rules | None = None) -> TextPosition:
    """Parse board text into a :class:`TextPosition` (``ValueError`` naming line and
    column). Everything that can be wrong with the text is checked here.

    Without ``rules`` the board side is taken from the standard starting points the
    header names (d2/d6 -> 4, e2/e8 -> 5, f2/f10 -> 6, g2/g12 -> 7), else 5.
    """
    if not isinstance(text, str):
        raise ValueError(Phrase("board text must be a string, got {type}",
                                type=type(text).__name__))
    if rules is not None and not isinstance(rules, Rules):
        raise ValueError(Phrase("rules must be a Benediction Rules object, got {rules}",
                                rules=repr(rules)))
    lines = _content_lines(text)
    if not lines:
        raise ValueError(Phrase("line {line}, column {column}: {message}", line=1, column=1,
                                message=Phrase("empty board text; expected the header "
                                               "'{header}'", header=MAGIC + " R-E2 B E8")))
    head = lines[0]
    if not head.text.lower().startswith(MAGIC.lower()):
        raise head.error(0, Phrase("the first line must start with {magic}",
                                   magic=repr(MAGIC)))
    rest = head.text[len(MAGIC):]
    pos = len(MAGIC) + len(rest) - len(rest.lstrip())
    match = _HEADER.fullmatch(head.text, pos)
    if match is None:
        raise head.error(
            pos, Phrase("expected 'R<flag><start> B<flag><start>' with flags '-', '=', ' ', "
                        "'x' or 'W' (e.g. 'R-E2 B E8')")
        )
    if rules is None:
        rules = Rules(board_side=_infer_side(match["rs"], match["bs"]))
    geometry = board(rules.board_side)
    starts = []
    for group in ("rs", "bs"):
        try:
            starts.append(geometry.labels[geometry.index(match[group])])
        except ValueError as exc:
            raise head.error(match.start(group), reason_of(exc)) from None
    if starts[0] == starts[1]:
        raise head.error(match.start("rs"), Phrase("the two starting points must differ"))
    parsed = TextPosition(rules=rules, starts=(starts[0], starts[1]))

    seen: dict[str, _Line] = {}
    listed: set[str] = set()
    for line in lines[1:]:
        tag = line.text[:2].upper()
        if tag not in ("R:", "B:", "X:"):
            raise line.error(0, Phrase("expected a line starting with 'R:', 'B:' or 'X:'"))
        if tag in seen:
            raise line.error(0, Phrase("a second {tag} line (the first is line {first})",
                                       tag=repr(tag), first=seen[tag].number))
        seen[tag] = line
        is_block = tag == "X:"
        for pos, label, size, flags in _parse_list(line, 2, rules.board_side, is_block):
            try:
                label = geometry.labels[geometry.index(label)]
            except ValueError as exc:
                raise line.error(pos, reason_of(exc)) from None
            if label in listed:
                raise line.error(pos, Phrase("{point} is listed twice", point=label))
            listed.add(label)
            if size > rules.max_stack:
                raise line.error(pos, Phrase(
                    "{point}: a stack of {size} exceeds the largest stack {most}",
                    point=label, size=size, most=rules.max_stack,
                ))
            if is_block:
                if label in parsed.starts:
                    raise line.error(pos, Phrase(
                        "a block cannot stand on the starting point {point}", point=label))
                parsed.blocks.append(label)
            else:
                parsed.men[label] = (RED if tag == "R:" else BLUE, size, flags)
    _set_state(parsed, head, match)
    return parsed


def _parse_list(
    line: _Line, start: int, side: int, blocks: bool
) -> list[tuple[int, str, int, int]]:
    """``(column in text, label, size, flags)`` for each point of an ``R:``/``B:``/``X:``
    list. Rows are single digits unless the side is 6 or more (then commas separate)."""
    text = line.text
    multi_digit = side >= 6
    out: list[tuple[int, str, int, int]] = []
    column: str | None = None
    pos = start
    while pos < len(text):
        ch = text[pos]
        if ch == " ":
            pos += 1
            continue
        if ch == ",":
            if column is None:
                raise line.error(pos, Phrase("a comma before any column letter"))
            pos += 1
            continue
        if ch.isupper():
            if ch.lower() not in COLUMN_LETTERS[: 2 * side - 1]:
                raise line.error(pos, Phrase("{letter} is not a column of a side-{side} board",
                                             letter=repr(ch), side=side))
            column = ch.lower()
            pos += 1
            if pos >= len(text) or not text[pos].isdigit():
                raise line.error(pos, Phrase("column {letter} must be followed by a row number",
                                             letter=ch))
            continue
        if ch.isdigit():
            if column is None:
                raise line.error(pos, Phrase("a row number before any column letter"))
            entry_pos = pos
            end = pos + 1
            if multi_digit:
                while end < len(text) and text[end].isdigit():
                    end += 1
            row = text[pos:end]
            if row.startswith("0"):
                raise line.error(pos, Phrase("row {row} does not exist", row=repr(row)))
            pos = end
            size, flags = 1, 0
            while pos < len(text) and (text[pos] in _FLAG_LETTERS or text[pos] == "+"):
                letter = text[pos]
                if blocks:
                    raise line.error(pos, Phrase("a block takes no flags or checkers, got {letter}",
                                                 letter=repr(letter)))
                if letter == "+":
                    size += 1
                else:
                    bit = _FLAG_LETTERS[letter]
                    if flags & bit:
                        raise line.error(pos, Phrase("flag {letter} given twice",
                                                     letter=repr(letter)))
                    flags |= bit
                pos += 1
            if flags & CURSED and flags & (KING | BLESSED):
                raise line.error(
                    entry_pos, Phrase("a man cannot be cursed and also a king or blessed")
                )
            out.append((entry_pos, f"{column}{row}", size, flags))
            continue
        raise line.error(
            pos, Phrase("unexpected {char}: expected a column letter (upper case), a row digit, "
                        "a flag k/b/c/l or '+'", char=repr(ch))
        )
    return out


def _set_state(parsed: TextPosition, head: _Line, match: re.Match[str]) -> None:
    """Turn the two header flags into side to act, actions left and result."""
    flags = {RED: match["rf"], BLUE: match["bf"]}
    acting = [c for c in (RED, BLUE) if flags[c] in "-="]
    winners = [c for c in (RED, BLUE) if flags[c] == "W"]
    where = match.start("rf")
    if len(acting) == 2:
        raise head.error(where, Phrase("both players cannot be acting"))
    if len(winners) == 2:
        raise head.error(where, Phrase("both players cannot have won"))
    if acting and winners:
        raise head.error(where, Phrase("a player cannot act after the game was won"))
    for c in (RED, BLUE):
        if flags[c] == "x" and flags[3 - c] != "W":
            raise head.error(where, Phrase("a player whose king was taken must face a "
                                           "winner 'W'"))
    if acting:
        c = acting[0]
        parsed.to_move = c
        parsed.actions_left = 2 if flags[c] == "-" else 1
        for color, _size, man_flags in parsed.men.values():
            if man_flags & (KING | BLESSED) == KING | BLESSED:
                raise head.error(where, Phrase(
                    "{color} has a blessed king, so the game is over; mark the winner with 'W'",
                    color=color_word(("", "red", "blue")[color]),
                ))
    elif winners:
        w = winners[0]
        parsed.winner = w
        parsed.to_move = 3 - w
        parsed.actions_left = 0
        parsed.king_taken = flags[3 - w] == "x"
    else:
        parsed.winner = DRAW
        parsed.actions_left = 0


def _entry(row: int, size: int, flags: int) -> str:
    return (
        f"{row}"
        + "".join(letter for letter, bit in _FLAG_LETTERS.items() if flags & bit)
        + "+" * (size - 1)
    )


def _list(side: int, points: list[tuple[str, int, int]]) -> str:
    """``(label, size, flags)`` of one list in board index order, grouped by column."""
    geometry = board(side)
    comma = side >= 6
    parts: list[str] = []
    column = -1
    for label, size, flags in points:
        i = geometry.index(label)
        x = geometry.coords[i][0]
        entry = _entry(geometry.row_of(i), size, flags)
        if x != column:
            column = x
            parts.append(COLUMN_LETTERS[x].upper() + entry)
        else:
            parts.append(("," if comma else "") + entry)
    return "".join(parts)


def format_text(parsed: TextPosition) -> str:
    """The board text of a :class:`TextPosition` (lines joined by ``\\n``, no trailing
    newline). Men and blocks are written in board index order."""
    side = parsed.rules.board_side
    order = board(side).index
    flags = {RED: " ", BLUE: " "}
    winner = parsed.winner
    if winner in (RED, BLUE):
        flags[winner] = "W"
        if parsed.king_taken:
            flags[3 - winner] = "x"
    elif winner == 0:
        flags[parsed.to_move] = "-" if parsed.actions_left == 2 else "="
    red_start, blue_start = (label.upper() for label in parsed.starts)
    men = sorted(parsed.men.items(), key=lambda item: order(item[0]))
    lines = [
        f"{MAGIC} R{flags[RED]}{red_start} B{flags[BLUE]}{blue_start}",
        "R:" + _list(side, [(label, s, f) for label, (c, s, f) in men if c == RED]),
        "B:" + _list(side, [(label, s, f) for label, (c, s, f) in men if c == BLUE]),
    ]
    if parsed.blocks:
        lines.append("X:" + _list(side, [(label, 0, 0) for label in
                                         sorted(parsed.blocks, key=order)]))
    return "\n".join(lines)
