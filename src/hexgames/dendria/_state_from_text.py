"""A Dendria position text (rules section 5, as :mod:`.textformat` reads it) as the
compiled core's state: the text's fields checked against the rules and each other, the
board hashed, and the position itself recorded as the first earlier position of the
no-repetition rule (a position read from text has no earlier history)."""

from __future__ import annotations

from hexgames.dendria._tables import COLOR_NAMES, KIND_NAMES, code, mix, tables
from hexgames.dendria.core import CoreState, core_for
from hexgames.dendria.rules import PIE_ARMED, PIE_OFF, PIE_PENDING, START, Rules, Termination
from hexgames.dendria.textformat import TextPosition
from hexgames.phrases import Phrase


def state_from_text(rules: Rules, text: TextPosition) -> tuple[CoreState, int]:
    """The core state of the position ``text`` describes under ``rules``, and its key as
    an earlier position (board hash with the colour to move; unsigned). ``ValueError``
    names a field that contradicts the rules or another field."""
    if text.size != rules.board_side:
        raise ValueError(Phrase(
            "board size {size} does not match the rules' board_side {side}",
            size=text.size, side=rules.board_side,
        ))
    t = tables(rules.board_side)
    geometry = t.board
    cells = [0] * geometry.size
    for label, (color, kind) in text.pieces.items():
        cells[geometry.index(label)] = code(COLOR_NAMES.index(color), KIND_NAMES.index(kind))
    if text.to_move not in COLOR_NAMES:
        raise ValueError(Phrase("colour must be 'dark' or 'light', got {value}",
                                value=repr(text.to_move)))
    to_move = COLOR_NAMES.index(text.to_move)
    if text.pie_pending:
        if not rules.pie:
            raise ValueError(Phrase("pie=pending but the pie rule is off"))
        if to_move != 1:
            raise ValueError(Phrase("pie=pending needs Light to move (only Light may swap)"))
        if text.seats_swapped:
            raise ValueError(Phrase("pie=pending and seats=swapped contradict each other"))
        pie = PIE_PENDING
    elif rules.pie and not any(cells) and to_move == 0 and not text.quiet:
        # Dark's first turn. An empty board with Dark to move after quiet turns is not
        # a start (Dark and Light both passed): the pie offer has lapsed.
        pie = PIE_ARMED
    else:
        pie = PIE_OFF
    if text.seats_swapped and not rules.pie:
        raise ValueError(Phrase("seats=swapped but the pie rule is off"))
    if text.seats_swapped and pie == PIE_ARMED:
        raise ValueError(Phrase("seats=swapped on an empty board: the swap comes after a seed"))
    if text.passes > text.quiet:
        raise ValueError(Phrase(
            "passes={passes} cannot exceed quiet={quiet}: a pass is a turn without a plant",
            passes=text.passes, quiet=text.quiet,
        ))
    if text.passes > 2 or text.quiet > rules.quiet_turns:
        raise ValueError(Phrase(
            "passes={passes}, quiet={quiet} lie beyond the end of the game "
            "(2 passes or {turns} quiet turns)",
            passes=text.passes, quiet=text.quiet, turns=rules.quiet_turns,
        ))
    if text.passes >= 2:
        over: Termination | None = Termination.BOTH_PASSED
    elif text.quiet >= rules.quiet_turns:
        over = Termination.QUIET_LIMIT
    else:
        over = None
    board_hash = 0
    for i, v in enumerate(cells):
        board_hash ^= t.zobrist[i][v]
    start_key = board_hash ^ mix(1, to_move)
    core = core_for(rules)
    state = CoreState.from_fields(
        core, cells, to_move, START, -1, -1, pie, text.seats_swapped, text.quiet,
        text.passes, over, 1, board_hash, {start_key: 1},
    )
    return state, start_key
