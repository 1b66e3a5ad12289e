"""Benediction's fixed action ids and observation tensor, for research frameworks.

OpenSpiel and PettingZoo need every action of a game to be an integer from one fixed
range, and every position to be a fixed-shape tensor. This module is the one place that
decides both for Benediction; :mod:`hexgames.integrations` uses it through the
:class:`hexgames.game.Game` description. Ids and planes are **stable**: they depend only
on the rules (board side and largest stack), never on the position, so a network trained
on them keeps meaning the same thing. Their layout is documented in ``docs/research.md``.

Action ids (``N`` = points of the board, ``W = 2*side - 1``, ``L = 3*W``)::

    [0, N)                  drop on point t                     t
    [N, 2N)                 block on point t                    N + t
    [2N, 2N + N*L)          move or merge from o to t           2N + o*L + slot(o, t)
    then, for k = 1 .. max_stack-1, a block of N*L:
                            split of k checkers from o to t     2N + k*N*L + o*L + slot(o, t)

Every destination of a move, merge or split lies on one of the three grid lines through
its origin (the wall portal wraps a line onto itself), so ``slot(o, t) = axis*W + c``
names the line (0: the N-S column, 1: the NW-SE line, 2: the SW-NE line) and ``c``, the
coordinate of ``t`` along it (``y`` on a column, ``x`` otherwise). A move and a merge
between the same two points share an id: the occupant of ``t`` decides which one it is,
so no position has both.
"""

from __future__ import annotations

import numpy as np

from hexgames.benediction.actions import Action
from hexgames.benediction.position import START_CHECKERS, Position
from hexgames.benediction.rules import Rules
from hexgames.errors import IllegalAction
from hexgames.game import reason_of
from hexgames.hexgrid import HexBoard, board

__all__ = [
    "PLANES",
    "RESEARCH_TURN_CAP",
    "action_from_id",
    "action_to_id",
    "max_game_length",
    "num_distinct_actions",
    "observation",
    "observation_shape",
]

#: Turns after which research frameworks stop a game whose rules set no ``max_turns``
#: (OpenSpiel needs a finite game; PettingZoo reports the stop as a truncation). Random
#: and MCTS self-play games of the standard game end long before it.
RESEARCH_TURN_CAP = 200


# ------------------------------------------------------------------------ line slots
def _slot(geometry: HexBoard, origin: int, target: int) -> int:
    """Slot of ``target`` among the points on the three grid lines through ``origin``.

    Raises ``IllegalAction`` when the two points share no grid line (or are the same
    point): no Benediction action joins such points.
    """
    slot = geometry.line_slot(origin, target)
    if slot >= 0:
        return slot
    if origin == target:
        raise IllegalAction("{point} cannot be both origin and target",
                            point=geometry.labels[origin])
    raise IllegalAction("{origin} and {target} are not on one grid line",
                        origin=geometry.labels[origin], target=geometry.labels[target])


def _target_of_slot(geometry: HexBoard, origin: int, slot: int) -> int:
    """Inverse of :func:`_slot`; ``IllegalAction`` when the slot names no other point."""
    target = geometry.from_line_slot(origin, slot)
    if target < 0:
        raise IllegalAction("slot {slot} of {point} is not another point of its grid lines",
                            slot=slot, point=geometry.labels[origin])
    return target


# -------------------------------------------------------------------------- actions
def num_distinct_actions(rules: Rules) -> int:
    """Size of the action-id space: ``2N + N*L*max_stack`` (13 298 for the standard game)."""
    geometry = board(rules.board_side)
    n = geometry.size
    return 2 * n + n * geometry.line_slots * rules.max_stack


def action_to_id(position: Position, action: Action | str) -> int:
    """The id of ``action`` (an :class:`Action` or its notation) on ``position``'s board.

    Raises ``IllegalAction`` for an action no id can stand for (a point off the board, two
    points not on one line, a split larger than the rules' largest stack allows).
    """
    if isinstance(action, str):
        action = Action.parse(action)
    elif not isinstance(action, Action):
        raise IllegalAction("not a Benediction action: {action}", action=repr(action))
    geometry = position.board
    n = geometry.size
    target = _point(geometry, action.target)
    if action.kind == "drop":
        return target
    if action.kind == "block":
        return n + target
    origin = _point(geometry, action.origin)
    line = geometry.line_slots
    offset = origin * line + _slot(geometry, origin, target)
    if action.kind in ("move", "merge"):
        return 2 * n + offset
    max_stack = position.rules.max_stack
    if not 1 <= action.count < max_stack:
        raise IllegalAction(
            "a split of {count} checkers has no id: splits take 1 to {most} checkers under "
            "these rules", count=action.count, most=max_stack - 1,
        )
    return 2 * n + action.count * n * line + offset


def action_from_id(position: Position, action_id: int) -> Action:
    """The action ``action_id`` stands for in ``position``.

    Whether the id of a move/merge slot is a move or a merge is read from the point it
    goes to (a man of the player to act there makes it a merge). Raises
    ``IllegalAction`` for an id outside the action space or naming no pair of points;
    the returned action may still be illegal in ``position`` (``play`` decides).
    """
    rules = position.rules
    geometry = position.board
    total = num_distinct_actions(rules)
    if isinstance(action_id, bool) or not isinstance(action_id, (int, np.integer)):
        raise IllegalAction("an action id is an integer, got {id}", id=repr(action_id))
    action_id = int(action_id)
    if not 0 <= action_id < total:
        raise IllegalAction("action id {id} is outside 0..{last}", id=action_id, last=total - 1)
    n = geometry.size
    labels = geometry.labels
    if action_id < n:
        return Action("drop", None, labels[action_id])
    if action_id < 2 * n:
        return Action("block", None, labels[action_id - n])
    line = geometry.line_slots
    count, rest = divmod(action_id - 2 * n, n * line)
    origin, slot = divmod(rest, line)
    target = _target_of_slot(geometry, origin, slot)
    if count:
        return Action("split", labels[origin], labels[target], count)
    man = position.man_at(labels[target])
    kind = "merge" if man is not None and man.color == position.to_move else "move"
    return Action(kind, labels[origin], labels[target])


def _point(geometry: HexBoard, label: str | None) -> int:
    try:
        return geometry.index(label or "")
    except ValueError as error:
        raise IllegalAction(reason_of(error)) from None


# ----------------------------------------------------------------------- game length
def max_game_length(rules: Rules) -> int:
    """Most actions a game can last under ``rules`` (the first turn may have one action).

    Benediction has no length limit of its own, so without ``max_turns`` this is the
    bound of :data:`RESEARCH_TURN_CAP` turns, at which research frameworks stop a game
    and score it as a draw.
    """
    turns = rules.max_turns if rules.max_turns is not None else RESEARCH_TURN_CAP
    return 2 * turns - (2 - rules.first_turn_actions)


# ---------------------------------------------------------------------- observation
#: Names of the observation planes, in tensor order (see ``docs/research.md``).
PLANES: tuple[str, ...] = (
    "red man",
    "blue man",
    "stack size / max_stack",
    "king",
    "blessed",
    "cursed",
    "locked",
    "block",
    "red starting point",
    "blue starting point",
    "on board",
    "red to act",
    "turn in progress",
    "one action left",
    "observer plays red",
    "red supply left",
    "blue supply left",
    "turns played / turn cap",
)
_FLAG_PLANES = (("king", 3), ("blessed", 4), ("cursed", 5), ("locked", 6))


def observation_shape(rules: Rules) -> tuple[int, int, int]:
    """``(planes, W, W)`` with ``W = 2*side - 1``: planes over the axial grid."""
    width = 2 * rules.board_side - 1
    return (len(PLANES), width, width)


def observation(position: Position, seat: int) -> np.ndarray:
    """The position as float32 planes in [0, 1], seen by ``seat``; point ``(x, y)`` of
    the board (axial coordinates) is ``tensor[:, x, y]``.

    Colours are absolute (Red's men are always plane 0) and a plane says which colour
    the observer plays: Benediction is not symmetric under swapping colours (Red's wall
    is at the bottom), so mirroring the board per observer would change the geometry a
    network sees. Stack sizes are divided by the rules' largest stack (and capped at 1);
    supplies by the checkers a side owns (1 when unlimited); the turn number by
    ``max_turns`` (or :data:`RESEARCH_TURN_CAP`), because the turn limit decides draws.
    """
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    rules = position.rules
    geometry = position.board
    coords = geometry.coords
    planes = np.zeros(observation_shape(rules), dtype=np.float32)
    xs = np.fromiter((x for x, _ in coords), dtype=np.intp, count=len(coords))
    ys = np.fromiter((y for _, y in coords), dtype=np.intp, count=len(coords))
    planes[10, xs, ys] = 1.0
    for label, man in position.iter_men():
        x, y = coords[geometry.index(label)]
        planes[0 if man.color == "red" else 1, x, y] = 1.0
        planes[2, x, y] = min(1.0, man.size / rules.max_stack)
        for flag, plane in _FLAG_PLANES:
            if getattr(man, flag):
                planes[plane, x, y] = 1.0
    for label in position.blocks:
        x, y = coords[geometry.index(label)]
        planes[7, x, y] = 1.0
    for plane, label in zip((8, 9), position.starting_points, strict=True):
        x, y = coords[geometry.index(label)]
        planes[plane, x, y] = 1.0
    _fill(planes, 11, position.to_move == "red")
    _fill(planes, 12, not position.is_turn_start())
    _fill(planes, 13, position.actions_left == 1)
    _fill(planes, 14, position.color_of_seat(seat) == "red")
    for plane, color in ((15, "red"), (16, "blue")):
        left = position.supply_left(color)
        owned = START_CHECKERS + (rules.supply or 0)
        _fill(planes, plane, 1.0 if left is None else left / owned)
    cap = rules.max_turns if rules.max_turns is not None else RESEARCH_TURN_CAP
    _fill(planes, 17, min(1.0, (position.turn_number - 1) / cap))
    return planes


def _fill(planes: np.ndarray, plane: int, value: float) -> None:
    """Set a constant plane on the board's points only (off-board cells stay 0)."""
    if value:
        planes[plane] = planes[10] * float(value)
