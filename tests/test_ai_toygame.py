"""A tiny game that satisfies :class:`hexgames.game.GameState`, for testing the AI alone.

"Connect-k with two stones a turn" (a miniature Connect6): on a ``width x height`` grid,
X places one stone on the very first turn, then each turn is two stone placements; the
first to make ``line`` in a row (orthogonally or diagonally) wins, a full board is a draw.
It has what makes the real games hard for a search -- turns of two actions by the same
seat, wins inside a turn, threats to parry -- while being small enough to reason about by
hand. Other AI tests import :data:`TOY` and :class:`ToyPosition` from here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import pytest

from hexgames.errors import IllegalAction
from hexgames.game import Game, GameState, HistoryView, Outcome

COLORS = ("x", "o")


class ToyTermination(StrEnum):
    LINE = "four in a line"
    FULL = "board full"
    RESIGNATION = "resignation"
    TIMEOUT = "timeout"


@dataclass(frozen=True)
class ToyRules:
    width: int = 5
    height: int = 5
    line: int = 4
    first_turn: int = 1  # stones on the very first turn


class ToyPosition:
    """Board of ``None``/0/1 per cell; actions are labels like ``"b3"``."""

    def __init__(self, rules: ToyRules | None = None) -> None:
        self._rules = rules or ToyRules()
        self.cells: list[int | None] = [None] * (self._rules.width * self._rules.height)
        self.seat = 0
        self.left = self._rules.first_turn  # placements left in this turn
        self.turn_size = self._rules.first_turn
        self._winner: int | None = None
        self._history: list[str] = []
        self._undo: list[tuple[int, int, int, int, int | None]] = []

    # -- text
    @classmethod
    def from_text(cls, text: str, rules: ToyRules | None = None) -> ToyPosition:
        """Rows top to bottom of ``x``/``o``/``.``, then ``to-move left``, e.g. ``x 2``."""
        lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
        *rows, header = lines
        rules = rules or ToyRules(width=len(rows[0]), height=len(rows))
        position = cls(rules)
        for r, row in enumerate(reversed(rows)):
            for c, char in enumerate(row):
                if char != ".":
                    position.cells[r * rules.width + c] = COLORS.index(char)
        mover, left = header.split()
        position.seat, position.left, position.turn_size = COLORS.index(mover), int(left), 2
        return position

    def to_text(self) -> str:
        w, h = self._rules.width, self._rules.height
        rows = [
            "".join("." if (v := self.cells[r * w + c]) is None else COLORS[v] for c in range(w))
            for r in reversed(range(h))
        ]
        return "\n".join([*rows, f"{COLORS[self.seat]} {self.left}"])

    # -- protocol
    @property
    def rules(self) -> ToyRules:
        return self._rules

    @property
    def to_move(self) -> str:
        return COLORS[self.seat]

    @property
    def current_seat(self) -> int:
        return self.seat

    @property
    def is_over(self) -> bool:
        return self._winner is not None or all(v is not None for v in self.cells)

    @property
    def winner(self) -> str | None:
        if self._winner is not None:
            return COLORS[self._winner]
        return "draw" if self.is_over else None

    @property
    def key(self) -> int:
        return hash((tuple(self.cells), self.seat, self.left))

    @property
    def history(self) -> HistoryView[str]:
        return HistoryView(self._history)

    @property
    def last_action(self) -> str | None:
        return self._history[-1] if self._history else None

    @property
    def ply(self) -> int:
        return len(self._history)

    def outcome(self) -> Outcome | None:
        if not self.is_over:
            return None
        reason = ToyTermination.LINE if self._winner is not None else ToyTermination.FULL
        winner = self.winner if self._winner is not None else None
        return Outcome(termination=reason, winner=winner, winner_seat=self._winner)

    def seat_of(self, color: str) -> int:
        return COLORS.index(color)

    def color_of_seat(self, seat: int) -> str:
        return COLORS[seat]

    def returns(self) -> tuple[float, float]:
        if self._winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if self._winner == 0 else (-1.0, 1.0)

    def label(self, index: int) -> str:
        return f"{'abcdefghij'[index % self._rules.width]}{index // self._rules.width + 1}"

    def index(self, label: str) -> int:
        column = "abcdefghij".find(label[0])
        try:
            row = int(label[1:]) - 1
        except ValueError:
            raise IllegalAction(f"{label!r} is not a cell") from None
        if not (0 <= column < self._rules.width and 0 <= row < self._rules.height):
            raise IllegalAction(f"{label!r} is not a cell")
        return row * self._rules.width + column

    def legal_actions(self) -> list[str]:
        if self.is_over:
            return []
        return [self.label(i) for i, v in enumerate(self.cells) if v is None]

    def parse_action(self, text: str) -> str:
        return self.label(self.index(text.strip().lower()))

    def play(self, action: Any) -> None:
        if self.is_over:
            raise IllegalAction("the game is over")
        index = self.index(str(action).strip().lower())
        if self.cells[index] is not None:
            raise IllegalAction(f"{action} is occupied")
        self._undo.append((index, self.seat, self.left, self.turn_size, self._winner))
        self.cells[index] = self.seat
        self._history.append(self.label(index))
        if self._makes_line(index):
            self._winner = self.seat
        self.left -= 1
        if self.left == 0:
            self.seat, self.left, self.turn_size = 1 - self.seat, 2, 2

    def undo(self) -> str:
        if not self._undo:
            raise IndexError("nothing to undo")
        index, self.seat, self.left, self.turn_size, self._winner = self._undo.pop()
        self.cells[index] = None
        return self._history.pop()

    def copy(self) -> ToyPosition:
        other = ToyPosition(self._rules)
        other.cells = list(self.cells)
        other.seat, other.left, other.turn_size = self.seat, self.left, self.turn_size
        other._winner = self._winner
        other._history = list(self._history)
        other._undo = list(self._undo)
        return other

    def is_turn_start(self) -> bool:
        return self.left == self.turn_size

    def _makes_line(self, index: int) -> bool:
        w, h, need = self._rules.width, self._rules.height, self._rules.line
        x, y, me = index % w, index // w, self.cells[index]
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            count = 1
            for sign in (1, -1):
                cx, cy = x + sign * dx, y + sign * dy
                while 0 <= cx < w and 0 <= cy < h and self.cells[cy * w + cx] == me:
                    count += 1
                    cx, cy = cx + sign * dx, cy + sign * dy
            if count >= need:
                return True
        return False


def toy_heuristic(position: ToyPosition) -> float:
    """Longest open run difference, squashed to [-1, 1] (positive for seat 0)."""
    w, h = position.rules.width, position.rules.height
    best = [0, 0]
    for index, value in enumerate(position.cells):
        if value is None:
            continue
        x, y = index % w, index // w
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run, cx, cy = 0, x, y
            while 0 <= cx < w and 0 <= cy < h and position.cells[cy * w + cx] == value:
                run, cx, cy = run + 1, cx + dx, cy + dy
            best[value] = max(best[value], run)
    return (best[0] - best[1]) / position.rules.line


def _record(position: ToyPosition, tags: dict[str, str]) -> str:
    head = "".join(f"[{k} {v}]\n" for k, v in tags.items())
    return head + " ".join(position.history) + "\n"


def _read_record(text: str) -> tuple[ToyPosition, dict[str, str]]:
    tags, position = {}, ToyPosition()
    for line in text.splitlines():
        if line.startswith("["):
            key, _, value = line.strip("[]").partition(" ")
            tags[key] = value
        else:
            for action in line.split():
                position.play(action)
    return position, tags


def _unused(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("not needed by the AI tests")


TOY = Game(
    name="toy",
    title="Toy connect-4, two stones a turn",
    colors=COLORS,
    options=(),
    make_rules=ToyRules,
    new_position=lambda rules=None: ToyPosition(rules),
    position_from_text=lambda text, rules=None: ToyPosition.from_text(text, rules),
    write_record=_record,
    read_record=_read_record,
    render_svg=_unused,
    render_text=lambda position: position.to_text(),
    gesture=_unused,
    heuristic=toy_heuristic,
    num_distinct_actions=_unused,
    action_to_id=_unused,
    action_from_id=_unused,
    observation_shape=_unused,
    observation=_unused,
    max_game_length=lambda rules: rules.width * rules.height,
    rules_options=lambda rules: {},
    termination=ToyTermination,
)


# ------------------------------------------------------------- the toy game itself
def test_toy_position_satisfies_the_protocol():
    assert isinstance(ToyPosition(), GameState)


def test_turns_have_one_then_two_actions_by_the_same_seat():
    p = ToyPosition()
    assert p.is_turn_start() and p.current_seat == 0
    p.play("c3")
    assert p.current_seat == 1 and p.is_turn_start()
    p.play("a1")
    assert p.current_seat == 1 and not p.is_turn_start()
    p.play("a2")
    assert p.current_seat == 0 and p.is_turn_start()


def test_a_line_wins_and_undo_restores_everything():
    p = ToyPosition.from_text("x....\n.....\nxx...\n.....\n..ooo\nx 2")
    before = (p.to_text(), p.key)
    p.play("a4")
    assert not p.is_over
    p.play("a2")  # a2 a3 a4 a5: four in column a
    assert p.is_over and p.winner == "x" and p.returns() == (1.0, -1.0)
    p.undo()
    p.undo()
    assert (p.to_text(), p.key) == before


def test_refused_actions_leave_the_position_unchanged():
    p = ToyPosition.from_text("x....\n.....\n.....\n.....\n.....\no 2")
    with pytest.raises(IllegalAction, match="occupied"):
        p.play("a5")
    with pytest.raises(IllegalAction, match="not a cell"):
        p.play("z9")
    assert p.to_text().endswith("o 2") and p.history == []


def test_random_games_end_and_unwind():
    rng = random.Random(3)
    p = ToyPosition()
    while not p.is_over:
        p.play(rng.choice(p.legal_actions()))
    assert p.winner in {"x", "o", "draw"}
    while p.history:
        p.undo()
    assert p.to_text() == ToyPosition().to_text()
