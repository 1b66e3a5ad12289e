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
    KIND_OF,
    SEED,
    TREE,
    Tables,
    code,
)
from hexgames.dendria._words import color_word, piece_word, step_word
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
from hexgames.phrases import Phrase


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
        raise IllegalAction("{label} is not a cell of the side-{side} board",
                            label=repr(label), side=board.side) from None


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

    def describe(self, i: int) -> Phrase:
        """``"e5 (dark seed)"``, ``"e5 (empty)"``."""
        # i18n: a cell and what it holds, e.g. "e5 (dark seed)"
        return Phrase("{cell} ({piece})", cell=self.board.labels[i],
                      piece=piece_word(self.cells[i]))

    def resolve(self, step: Step) -> tuple[Step, bool]:
        position = self.position
        kind = step.kind
        starting = position.is_turn_start()
        if kind in ("plant", "leg", "pass", "swap") and not starting:
            raise IllegalAction(
                "{step}: a {kind} starts a turn, but this turn already began with "
                "{first}; finish it (end) first",
                step=str(step), kind=step_word(kind), first=str(position.turn_steps()[0]),
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
                if position.rules.pie:
                    raise IllegalAction(
                        "swap: the pie rule allows it only as Light's first turn, after Dark "
                        "planted the first seed"
                    )
                raise IllegalAction(
                    "swap: the pie rule allows it only as Light's first turn, after Dark "
                    "planted the first seed (and it is off)"
                )
            return step, False
        if starting:
            raise IllegalAction(
                "{step}: a turn starts with a plant, a dendrid move or pass, not a {kind}",
                step=str(step), kind=step_word(kind),
            )
        if kind == "end":
            earlier = self.repeated_at_end()
            if earlier == 0:
                raise IllegalAction(
                    "end: the turn would end in the position that existed at the start "
                    "(no repetition)"
                )
            if earlier is not None:
                raise IllegalAction(
                    "end: the turn would end in the position that existed after turn "
                    "{turn} (no repetition)", turn=earlier,
                )
            return step, False
        open_turn = self.mover >= 0  # after a stop, the dendrid may still continue
        if kind == "continue":
            if not open_turn:
                raise IllegalAction("{step}: only a dendrid that moved this turn may continue",
                                    step=str(step))
            self.check_move(step, self.mover, self.direction)
            return step, True
        if kind == "sprout":
            reason = sprout_refusal(self.index(step.target), self.cells, self.t)
            if reason:
                # i18n: a step and why it is refused
                raise IllegalAction("{step}: {reason}", step=str(step), reason=reason)
            return step, open_turn
        if kind == "grow":
            return self.check_grow(step), open_turn
        return self.check_convert(step), open_turn

    def check_plant(self, step: Step) -> None:
        i = self.index(step.target)
        if self.cells[i]:
            raise IllegalAction("{step}: {cell} is not empty", step=str(step),
                                cell=self.describe(i))
        if all(first >= 0 for _, first in first_on_roots(i, self.cells, self.t)):
            raise IllegalAction(
                "{step}: every root of {cell} has a nutrient (a seed needs at least "
                "one nutrientless root)", step=str(step), cell=step.target,
            )

    def check_move(self, step: Step, origin: int, direction: int | None) -> None:
        board = self.board
        target = self.index(step.target)
        friend = code(self.mover_color, DENDRID)
        if direction is None and self.cells[origin] != friend:
            raise IllegalAction(
                "{step}: {cell} is not a {color} dendrid", step=str(step),
                cell=self.describe(origin), color=color_word(self.position.to_move))
        d = _direction(board, origin, target)
        if d is None:
            raise IllegalAction(
                "{step}: {origin} and {target} are not on one line",
                step=str(step), origin=board.labels[origin], target=step.target,
            )
        if direction is not None and d != direction:
            # i18n: {direction} is a compass direction in notation (N, NE, SE, S, SW, NW)
            raise IllegalAction(
                "{step}: the dendrid on {cell} moves {direction} this turn; a continuation "
                "goes straight on", step=str(step), cell=board.labels[origin],
                direction=DIRECTION_NAMES[direction],
            )
        for j in board.rays[origin][d]:
            v = self.cells[j]
            if j == target:
                if v:
                    raise IllegalAction(
                        "{step}: a dendrid stops only on an empty cell, not on {cell}",
                        step=str(step), cell=self.describe(j),
                    )
                break
            if v and v != friend and KIND_OF[v] != SEED:
                raise IllegalAction("{step}: a dendrid may not pass {cell}", step=str(step),
                                    cell=self.describe(j))

    def group_at(self, step: Step, kind: int) -> Group:
        i = self.index(step.target)
        v = self.cells[i]
        if not v or KIND_OF[v] != kind:
            if kind == SEED:
                raise IllegalAction("{step}: {cell} is not a seed", step=str(step),
                                    cell=self.describe(i))
            raise IllegalAction("{step}: {cell} is not a tree", step=str(step),
                                cell=self.describe(i))
        group = self.position.analysis().group_of(i)
        assert group is not None
        return group

    def check_grow(self, step: Step) -> Step:
        v, members, fertile = self.group_at(step, SEED)
        color = COLOR_OF[v]
        if not fertile:
            raise IllegalAction("{step}: the seedbed has no fertile soil (no empty neighbour)",
                                step=str(step))
        missing = fertile & ~self.position.analysis().fertilized(color)
        if missing:
            raise IllegalAction(
                "{step}: fertile soil {soil} of the {color} seedbed is fertilized by no "
                "{color} dendrid", step=str(step),
                soil=self.labels(cells_of_mask(missing, self.t))[0],
                color=color_word(COLOR_NAMES[color]),
            )
        return Step("grow", target=self.board.labels[members[0]])

    def check_convert(self, step: Step) -> Step:
        v, members, fertile = self.group_at(step, TREE)
        mover, owner = self.mover_color, COLOR_OF[v]
        to_move = self.position.to_move
        a = self.position.analysis()
        if owner == mover:
            raise IllegalAction("{step}: the forest on {cell} is already {color}",
                                step=str(step), cell=step.target, color=color_word(to_move))
        if not fertile:
            raise IllegalAction("{step}: the forest has no fertile soil (no empty neighbour)",
                                step=str(step))
        missing = fertile & ~a.fertilized(mover)
        if missing:
            raise IllegalAction(
                "{step}: fertile soil {soil} of the forest is fertilized by no {color} "
                "dendrid", step=str(step),
                soil=self.labels(cells_of_mask(missing, self.t))[0],
                color=color_word(to_move),
            )
        if not fertile & ~a.fertilized(owner):
            raise IllegalAction(
                "{step}: every fertile soil of the forest is also fertilized by a "
                "{color} dendrid", step=str(step), color=color_word(COLOR_NAMES[owner]),
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
