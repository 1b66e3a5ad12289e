"""Why Dendria refuses a step: the words of :class:`~hexgames.IllegalAction`.

The compiled core alone decides what is legal (:mod:`.core`); once it has refused a
step, :func:`resolve` checks the step against the rules in Python, from the position's
public read API and the whole-board facts of :mod:`.board_analysis`, to name the reason.
It also finds the one refusal that is no refusal: a grow or convert written with another
cell of its group than the first, which the position then plays under its canonical name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from hexgames.dendria._tables import (
    COLOR_NAMES,
    COLOR_OF,
    DENDRID,
    KIND_NAMES,
    KIND_OF,
    SEED,
    TREE,
    Tables,
    code,
)
from hexgames.dendria.board_analysis import (
    Analysis,
    Group,
    cells_of_mask,
    sprout_refusal,
)
from hexgames.dendria.board_analysis import nourishers as first_on_roots
from hexgames.dendria.rules import Rules
from hexgames.dendria.steps import Step
from hexgames.errors import IllegalAction
from hexgames.hexgrid import DIRECTION_NAMES, DIRECTIONS, HexBoard


class RefusingPosition(Protocol):
    """What :func:`resolve` reads of a position (the public API of
    :class:`~hexgames.dendria.position.Position`)."""

    @property
    def rules(self) -> Rules: ...

    @property
    def tables(self) -> Tables: ...

    @property
    def cells(self) -> Sequence[int]: ...

    @property
    def to_move(self) -> str: ...

    @property
    def pie_pending(self) -> bool: ...

    @property
    def moving_dendrid(self) -> str | None: ...

    def is_turn_start(self) -> bool: ...

    def turn_steps(self) -> list[Step]: ...

    def analysis(self) -> Analysis: ...


def cell_of(board: HexBoard, label: str | None) -> int:
    """The index of cell ``label``; :class:`IllegalAction` when it names no cell of
    ``board``."""
    try:
        return board.index(label)  # type: ignore[arg-type]
    except (ValueError, AttributeError):
        raise IllegalAction(f"{label!r} is not a cell of the side-{board.side} board") from None


def resolve(position: RefusingPosition, step: Step, direction: int,
            repeated_at_end: Callable[[], int | None]) -> tuple[Step, bool]:
    """Check ``step`` against the rules: the step to record (a grow or convert names the
    first cell of its group) and whether the turn stays open after it (so that its
    finishability decides); :class:`IllegalAction` naming the reason when the step breaks
    a rule. ``direction``: the moving dendrid's direction this turn (after a stop);
    ``repeated_at_end()``: the turn after which the position ending the turn now arose
    (0 the start), ``None`` when it is new."""
    return _Check(position, direction, repeated_at_end).resolve(step)


class _Check:
    """One refused step's check, with what it reads of the position at hand."""

    def __init__(self, position: RefusingPosition, direction: int,
                 repeated_at_end: Callable[[], int | None]) -> None:
        self.position = position
        self.t = position.tables
        self.board = position.tables.board
        self.cells = list(position.cells)
        self.mover_color = COLOR_NAMES.index(position.to_move)
        moving = position.moving_dendrid
        self.mover = -1 if moving is None else self.board.index(moving)
        self.direction = direction
        self.repeated_at_end = repeated_at_end

    def index(self, label: str | None) -> int:
        return cell_of(self.board, label)

    def labels(self, cells: Sequence[int]) -> list[str]:
        labels = self.board.labels
        return [labels[i] for i in cells]

    def describe(self, i: int) -> str:
        v = self.cells[i]
        what = f"{COLOR_NAMES[COLOR_OF[v]]} {KIND_NAMES[KIND_OF[v]]}" if v else "empty"
        return f"{self.board.labels[i]} ({what})"

    def resolve(self, step: Step) -> tuple[Step, bool]:
        position = self.position
        kind = step.kind
        starting = position.is_turn_start()
        if kind in ("plant", "leg", "pass", "swap") and not starting:
            raise IllegalAction(
                f"{step}: a {kind} starts a turn, but this turn already began with "
                f"{position.turn_steps()[0]}; finish it (end) first"
            )
        if kind == "plant":
            self.check_plant(step)
            return step, False
        if kind == "leg":
            self.check_move(step, self.index(step.origin), None)
            return step, True
        if kind == "pass":
            return step, False
        if kind == "swap":
            if not position.pie_pending:
                raise IllegalAction(
                    "swap: the pie rule allows it only as Light's first turn, after Dark "
                    "planted the first seed" + ("" if position.rules.pie else " (and it is off)")
                )
            return step, False
        if starting:
            raise IllegalAction(
                f"{step}: a turn starts with a plant, a dendrid move or pass, not a {kind}"
            )
        if kind == "end":
            earlier = self.repeated_at_end()
            if earlier is not None:
                when = "at the start" if earlier == 0 else f"after turn {earlier}"
                raise IllegalAction(
                    f"end: the turn would end in the position that existed {when} "
                    "(no repetition)"
                )
            return step, False
        open_turn = self.mover >= 0  # after a stop, the dendrid may still continue
        if kind == "continue":
            if not open_turn:
                raise IllegalAction(f"{step}: only a dendrid that moved this turn may continue")
            self.check_move(step, self.mover, self.direction)
            return step, True
        if kind == "sprout":
            reason = sprout_refusal(self.index(step.target), self.cells, self.t)
            if reason:
                raise IllegalAction(f"{step}: {reason}")
            return step, open_turn
        if kind == "grow":
            return self.check_grow(step), open_turn
        return self.check_convert(step), open_turn

    def check_plant(self, step: Step) -> None:
        i = self.index(step.target)
        if self.cells[i]:
            raise IllegalAction(f"{step}: {self.describe(i)} is not empty")
        if all(first >= 0 for _, first in first_on_roots(i, self.cells, self.t)):
            raise IllegalAction(
                f"{step}: every root of {step.target} has a nutrient (a seed needs at least "
                "one nutrientless root)"
            )

    def check_move(self, step: Step, origin: int, direction: int | None) -> None:
        board = self.board
        target = self.index(step.target)
        friend = code(self.mover_color, DENDRID)
        if direction is None and self.cells[origin] != friend:
            raise IllegalAction(
                f"{step}: {self.describe(origin)} is not a {self.position.to_move} dendrid")
        d = _direction(board, origin, target)
        if d is None:
            raise IllegalAction(
                f"{step}: {board.labels[origin]} and {step.target} are not on one line"
            )
        if direction is not None and d != direction:
            raise IllegalAction(
                f"{step}: the dendrid on {board.labels[origin]} moves "
                f"{DIRECTION_NAMES[direction]} this turn; a continuation goes straight on"
            )
        for j in board.rays[origin][d]:
            v = self.cells[j]
            if j == target:
                if v:
                    raise IllegalAction(
                        f"{step}: a dendrid stops only on an empty cell, not on "
                        f"{self.describe(j)}"
                    )
                break
            if v and v != friend and KIND_OF[v] != SEED:
                raise IllegalAction(f"{step}: a dendrid may not pass {self.describe(j)}")

    def group_at(self, step: Step, kind: int) -> Group:
        i = self.index(step.target)
        v = self.cells[i]
        what = "seed" if kind == SEED else "tree"
        if not v or KIND_OF[v] != kind:
            raise IllegalAction(f"{step}: {self.describe(i)} is not a {what}")
        group = self.position.analysis().group_of(i)
        assert group is not None
        return group

    def check_grow(self, step: Step) -> Step:
        v, members, fertile = self.group_at(step, SEED)
        color = COLOR_OF[v]
        if not fertile:
            raise IllegalAction(f"{step}: the seedbed has no fertile soil (no empty neighbour)")
        missing = fertile & ~self.position.analysis().fertilized(color)
        if missing:
            raise IllegalAction(
                f"{step}: fertile soil {self.labels(cells_of_mask(missing, self.t))[0]} of "
                f"the {COLOR_NAMES[color]} seedbed is fertilized by no {COLOR_NAMES[color]} "
                "dendrid"
            )
        return Step("grow", target=self.board.labels[members[0]])

    def check_convert(self, step: Step) -> Step:
        v, members, fertile = self.group_at(step, TREE)
        mover, owner = self.mover_color, COLOR_OF[v]
        to_move = self.position.to_move
        a = self.position.analysis()
        if owner == mover:
            raise IllegalAction(f"{step}: the forest on {step.target} is already {to_move}")
        if not fertile:
            raise IllegalAction(f"{step}: the forest has no fertile soil (no empty neighbour)")
        missing = fertile & ~a.fertilized(mover)
        if missing:
            raise IllegalAction(
                f"{step}: fertile soil {self.labels(cells_of_mask(missing, self.t))[0]} of "
                f"the forest is fertilized by no {to_move} dendrid"
            )
        if not fertile & ~a.fertilized(owner):
            raise IllegalAction(
                f"{step}: every fertile soil of the forest is also fertilized by a "
                f"{COLOR_NAMES[owner]} dendrid"
            )
        return Step("convert", target=self.board.labels[members[0]])


def _direction(board: HexBoard, origin: int, target: int) -> int | None:
    """Direction from ``origin`` to ``target`` when they lie on one grid line."""
    (ox, oy), (tx, ty) = board.coords[origin], board.coords[target]
    dx, dy = tx - ox, ty - oy
    distance = max(abs(dx), abs(dy))
    if distance == 0:
        return None
    for d, (ux, uy) in enumerate(DIRECTIONS):
        if (ux * distance, uy * distance) == (dx, dy):
            return d
    return None
