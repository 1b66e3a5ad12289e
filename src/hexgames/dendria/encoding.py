"""Dendria's fixed action ids and observation tensor, for research frameworks.

OpenSpiel and PettingZoo need every step of a game to be an integer from one fixed range,
and every position to be a fixed-shape tensor. This module is the one place that decides
both for Dendria; :mod:`hexgames.integrations` uses it through the
:class:`hexgames.game.Game` description. Ids and planes are **stable**: they depend only
on the board size, never on the position. Their layout is documented in
``docs/research.md``.

Step ids (``N`` = cells of the board, ``W = 2*size - 1``, ``L = 3*W``)::

    0, 1, 2                 end, pass, swap
    3 + 0N + t              plant on t
    3 + 1N + t              continue to t        (the moving dendrid's next stop)
    3 + 2N + t              sprout the seed on t
    3 + 3N + t              grow the seedbed containing t
    3 + 4N + t              convert the forest containing t
    3 + 5N + o*L + slot     leg from o to t      (slot(o, t) = axis*W + c)

A leg slides along one of the three grid lines through its origin, so ``slot`` names the
line (0: the N-S column, 1: the NW-SE line, 2: the SW-NE line) and ``c`` the coordinate
of ``t`` along it (``y`` on a column, ``x`` otherwise). A grow or convert names a group
by one of its cells: the engine offers each such step once, with the cell it chose.
"""

from __future__ import annotations

import numpy as np

from hexgames.dendria.position import Position
from hexgames.dendria.rules import Rules
from hexgames.dendria.steps import Step
from hexgames.errors import IllegalAction
from hexgames.game import reason_of, word
from hexgames.hexgrid import HexBoard, board

__all__ = [
    "CELL_KINDS",
    "PLANES",
    "WORDS",
    "action_from_id",
    "action_to_id",
    "max_game_length",
    "num_distinct_actions",
    "observation",
    "observation_shape",
]

#: Steps without a cell, at ids 0, 1, 2.
WORDS: tuple[str, ...] = ("end", "pass", "swap")
#: Steps naming one cell, one block of N ids each, in this order after the words.
CELL_KINDS: tuple[str, ...] = ("plant", "continue", "sprout", "grow", "convert")


# ------------------------------------------------------------------------ line slots
def _slot(geometry: HexBoard, origin: int, target: int) -> int:
    """Slot of ``target`` among the cells on the three grid lines through ``origin``.

    Raises ``IllegalAction`` when the cells share no grid line: no leg joins them.
    """
    slot = geometry.line_slot(origin, target)
    if slot >= 0:
        return slot
    if origin == target:
        raise IllegalAction("a leg must leave {cell}", cell=geometry.labels[origin])
    raise IllegalAction(
        "{origin} and {target} are not on one line: a dendrid slides straight",
        origin=geometry.labels[origin], target=geometry.labels[target],
    )


def _target_of_slot(geometry: HexBoard, origin: int, slot: int) -> int:
    """Inverse of :func:`_slot`; ``IllegalAction`` when the slot names no other cell."""
    target = geometry.from_line_slot(origin, slot)
    if target < 0:
        raise IllegalAction(
            "slot {slot} of {cell} is not another cell of its lines",
            slot=slot, cell=geometry.labels[origin],
        )
    return target


# -------------------------------------------------------------------------- actions
def num_distinct_actions(rules: Rules) -> int:
    """Size of the step-id space: ``3 + 5N + N*L`` (5 591 on the standard side-7 board)."""
    geometry = board(rules.board_side)
    n = geometry.size
    return len(WORDS) + len(CELL_KINDS) * n + n * geometry.line_slots


def action_to_id(position: Position, step: Step | str) -> int:
    """The id of ``step`` (a :class:`Step` or its notation) on ``position``'s board.

    Raises ``IllegalAction`` for a step no id can stand for (a cell off the board, a leg
    between cells on no common line).
    """
    step = Step.parse(step)  # a Step stays as it is; anything else must be notation
    if step.kind in WORDS:
        return WORDS.index(step.kind)
    geometry = position.board
    n = geometry.size
    target = _cell(geometry, step.target)
    if step.kind in CELL_KINDS:
        return len(WORDS) + CELL_KINDS.index(step.kind) * n + target
    origin = _cell(geometry, step.origin)
    line = geometry.line_slots
    return len(WORDS) + len(CELL_KINDS) * n + origin * line + _slot(geometry, origin, target)


def action_from_id(position: Position, action_id: int) -> Step:
    """The step ``action_id`` stands for on ``position``'s board.

    Raises ``IllegalAction`` for an id outside the step space or naming no pair of
    cells; the returned step may still be illegal in ``position`` (``play`` decides).
    """
    geometry = position.board
    total = num_distinct_actions(position.rules)
    if isinstance(action_id, bool) or not isinstance(action_id, (int, np.integer)):
        raise IllegalAction("a step id is an integer, got {value}", value=repr(action_id))
    action_id = int(action_id)
    if not 0 <= action_id < total:
        raise IllegalAction("step id {value} is outside 0..{last}", value=action_id,
                            last=total - 1)
    if action_id < len(WORDS):
        return Step(WORDS[action_id])
    n = geometry.size
    labels = geometry.labels
    rest = action_id - len(WORDS)
    if rest < len(CELL_KINDS) * n:
        kind, cell = divmod(rest, n)
        return Step(CELL_KINDS[kind], target=labels[cell])
    line = geometry.line_slots
    origin, slot = divmod(rest - len(CELL_KINDS) * n, line)
    target = _target_of_slot(geometry, origin, slot)
    return Step("leg", origin=labels[origin], target=labels[target])


def _cell(geometry: HexBoard, label: str | None) -> int:
    try:
        return geometry.index(label or "")
    except ValueError as error:
        raise IllegalAction(word(reason_of(error))) from None


# ----------------------------------------------------------------------- game length
def max_game_length(rules: Rules) -> int:
    """A proven upper bound on the steps of a game from the empty board under ``rules``.

    Dendria ends by its own rules, so no cap is applied; the bound is derived so that
    OpenSpiel's finite-game requirement holds without ever cutting a game short
    (``N`` cells, ``K`` = ``quiet_limit``, ``n`` = side):

    * pieces never leave the board and only a plant adds one, so there are at most
      ``P = N`` plants in a game;
    * 2K consecutive turns without a plant end the game, so at most ``2K`` turns come
      before the first plant, between two plants and after the last: at most
      ``T = P + (P + 1) * 2K`` turns (a pass or swap is such a turn);
    * a turn is a plant or a first leg, at most ``2n - 3`` continuations (each stop is at
      least one cell further along one line of at most ``2n - 1`` cells), converts (each
      turns at least one of the opponent's trees, at most ``P``, into the mover's colour,
      and nothing turns them back within the turn) and ``end``: at most ``2n - 1 + P``
      steps;
    * sprouts and grows each use up at least one seed, and seeds only come from plants:
      at most ``2P`` in the whole game.

    So a game has at most ``T * (2n - 1 + P) + 2P`` steps (376 434 on the standard
    board): a loose bound, which is harmless since nothing is sized by it.
    """
    geometry = board(rules.board_side)
    plants = geometry.size
    turns = plants + (plants + 1) * 2 * rules.quiet_limit
    per_turn = 2 * geometry.side - 1 + plants
    return turns * per_turn + 2 * plants


# ---------------------------------------------------------------------- observation
#: Names of the observation planes, in tensor order (see ``docs/research.md``).
PLANES: tuple[str, ...] = (
    "dark seed",
    "dark tree",
    "dark dendrid",
    "light seed",
    "light tree",
    "light dendrid",
    "on board",
    "dark to move",
    "observer plays dark",
    "turn in progress",
    "moving dendrid",
    "moving dendrid's start",
    "swap available",
    "quiet turns / 2K",
    "previous turn passed",
)
_PIECE_PLANE = {
    (color, kind): 3 * c + k
    for c, color in enumerate(("dark", "light"))
    for k, kind in enumerate(("seed", "tree", "dendrid"))
}


def observation_shape(rules: Rules) -> tuple[int, int, int]:
    """``(planes, W, W)`` with ``W = 2*size - 1``: planes over the axial grid."""
    width = 2 * rules.board_side - 1
    return (len(PLANES), width, width)


def observation(position: Position, seat: int) -> np.ndarray:
    """The position as float32 planes in [0, 1], seen by ``seat``; cell ``(x, y)`` of
    the board (axial coordinates) is ``tensor[:, x, y]``.

    Colours are absolute (Dark's pieces are always planes 0-2) and a plane tells the
    observer which colour it plays, because the pie rule's swap can change a seat's
    colour mid-game. The set of earlier turn-end positions (the no-repetition rule) is
    not encoded; legality that depends on it shows in the action mask only.
    """
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    geometry = position.board
    planes = np.zeros(observation_shape(position.rules), dtype=np.float32)
    coords = geometry.coords
    xs = np.fromiter((x for x, _ in coords), dtype=np.intp, count=len(coords))
    ys = np.fromiter((y for _, y in coords), dtype=np.intp, count=len(coords))
    planes[6, xs, ys] = 1.0
    for label, (x, y) in zip(geometry.labels, coords, strict=True):
        piece = position.piece_at(label)
        if piece is not None:
            planes[_PIECE_PLANE[(piece.color, piece.kind)], x, y] = 1.0
    rules = position.rules
    _fill(planes, 7, position.to_move == "dark")
    _fill(planes, 8, position.color_of_seat(seat) == "dark")
    _fill(planes, 9, not position.is_turn_start())
    mover = position.moving_dendrid
    if mover is not None:
        x, y = coords[geometry.index(mover)]
        planes[10, x, y] = 1.0
        start = _leg_origin(position)
        if start is not None:
            x, y = coords[geometry.index(start)]
            planes[11, x, y] = 1.0
    _fill(planes, 12, position.pie_pending)
    _fill(planes, 13, min(1.0, position.quiet_turns / rules.quiet_turns))
    _fill(planes, 14, position.consecutive_passes > 0)
    return planes


def _fill(planes: np.ndarray, plane: int, value: float) -> None:
    """Set a constant plane on the board's cells only (off-board cells stay 0)."""
    if value:
        planes[plane] = planes[6] * float(value)


def _leg_origin(position: Position) -> str | None:
    """Where the dendrid moving this turn started (its leg's origin)."""
    for step in position.turn_steps():
        if step.kind == "leg":
            return step.origin
    return None
