"""The Dendria rules engine: a position that plays and takes back steps (make/unmake), a
thin Python layer over the compiled rules core (:mod:`hexgames.dendria.core`).

Design, and why:

* **One implementation of the rules.** The state of the game is a
  :class:`~hexgames.dendria.core.CoreState` (numpy arrays: the piece code per cell, the
  turn state, the undo frames and change log, and the earlier positions of the
  no-repetition rule). Legal-step generation (with the turn-finishability search of the
  no-repetition rule), play, undo, the key, the end of the game and the scores all run in
  the core: one compiled call per :meth:`Position.play`, :meth:`Position.undo` and
  :meth:`Position.legal_actions` (whose codes are kept until the position changes, so
  that ``play`` of a listed step is a look-up and the compiled call).
* What Python keeps is the history of :class:`Step` objects and things *derived* from the
  core's arrays on demand: :attr:`Position.cells` is a live read-only view of the core's
  board, the turn state is read from its ``meta`` array, and :meth:`Position.analysis`
  (the whole-board facts of :mod:`.board_analysis`, for the AI, the web board and the rules
  pages) is computed from the board and cached per board.
* A step that is not legal raises :class:`~hexgames.IllegalAction` naming the reason; the
  reason is worked out in Python (:mod:`._refusal`, with :mod:`.board_analysis`) only for
  refused steps, after the core said no. The core alone decides what is legal.
* **No repetition.** A turn may not *end* in a position (board + colour to move) seen at
  the start or at the end of an earlier turn; every step that leaves the turn open is
  offered, and accepted, only when some way of finishing the turn from it is legal (see
  :mod:`hexgames.dendria.core`). Earlier positions are compared by their 64-bit Zobrist
  key.
* The pure-Python engine this replaced lives on in the tests as an independent oracle
  (``tests/oracles/dendria_position.py``); ``tests/test_dendria_core.py`` compares the
  two at every step of many random games. There is no pure-Python mode of the product
  (as for Benediction): ``HEXGAMES_PURE_PYTHON`` does not change Dendria any more.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, overload

import numpy as np

from hexgames._jit import signed64
from hexgames.dendria._layout import (
    A_CONT,
    A_LEG,
    F_KEY,
    F_NLOG,
    F_REM,
    M_DIR,
    M_HASH,
    M_MOVER,
    M_NFRAME,
    M_NLOG,
    M_OVER,
    M_PASSES,
    M_PHASE,
    M_PIE,
    M_QUIET,
    M_SWAPPED,
    M_TO,
    M_TURN,
    MASK64,
    REASONS,
    Z_TO,
)
from hexgames.dendria._refusal import cell_of, resolve
from hexgames.dendria._repetition import seen_has
from hexgames.dendria._scoring import breakdown
from hexgames.dendria._state_from_text import state_from_text
from hexgames.dendria._tables import (
    COLOR_NAMES,
    KIND_NAMES,
    Tables,
    mix,
    tables,
)
from hexgames.dendria.board_analysis import (
    Analysis,
    cells_of_mask,
)
from hexgames.dendria.board_analysis import (
    nourishers as first_on_roots,
)
from hexgames.dendria.core import CoreState, core_for
from hexgames.dendria.core import apply as _apply
from hexgames.dendria.core import undo as _undo
from hexgames.dendria.rules import (
    AFTER_PLANT,
    AFTER_STOP,
    PIE_ARMED,
    PIE_OFF,
    PIE_PENDING,
    START,
    Rules,
    Termination,
)
from hexgames.dendria.steps import Step
from hexgames.dendria.textformat import TextPosition, format_text, parse_text
from hexgames.errors import IllegalAction
from hexgames.game import HistoryView, Outcome, ScoreLine, word
from hexgames.hexgrid import HexBoard
from hexgames.phrases import Phrase

__all__ = [
    "AFTER_PLANT", "AFTER_STOP", "END", "PASS", "PIE_ARMED", "PIE_OFF", "PIE_PENDING",
    "START", "SWAP", "Piece", "Position", "Termination",
]

END = Step("end")
PASS = Step("pass")
SWAP = Step("swap")
_TURN_ENDERS = frozenset(("end", "pass", "swap"))

_TO_MOVE_Z = (mix(1, 0), mix(1, 1))
_PHASE_Z = (mix(2, 0), mix(2, 1), mix(2, 2))
_PIE_Z = (mix(4, 0), mix(4, 1), mix(4, 2))
_SWAPPED_Z = (0, mix(5, 1))
_QUIET_Z = tuple(mix(6, q) for q in range(128))
_PASSES_Z = (0, mix(7, 1), mix(7, 2))
_ANALYSIS_CACHE_LIMIT = 2048


class _TurnState(NamedTuple):
    """The scalars of turn state before a step (read from the core's undo frame)."""

    to_move: int
    phase: int
    mover: int
    direction: int
    pie: int
    swapped: bool
    quiet: int
    passes: int
    over: Termination | None
    turn_number: int


class _UndoRecord(NamedTuple):
    """What one step changed, as the core's undo frame and change log record it: the
    turn state before it, the cells it changed (cell, old code) in order, and the key of
    the earlier position it added (turn ends; ``None`` for other steps)."""

    state: _TurnState
    changes: list[tuple[int, int]]
    remembered: int | None


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece as callers see it: ``color`` is "dark"/"light", ``kind`` is
    "seed"/"tree"/"dendrid"."""

    color: str
    kind: str

    def __str__(self) -> str:
        return f"{self.color} {self.kind}"


_PIECES: tuple[Piece | None, ...] = (
    None,
    *(Piece(COLOR_NAMES[(c - 1) // 3], KIND_NAMES[(c - 1) % 3]) for c in range(1, 7)),
)


class _CellsView(HistoryView[int]):
    """A live, read-only view of the core's board (piece code per cell) as Python
    ``int``\\ s: it follows ``play``/``undo``; ``list(view)`` for a snapshot."""

    __slots__ = ()

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            return self._items[index].tolist()  # type: ignore[attr-defined,no-any-return]
        return int(self._items[index])

    def __iter__(self) -> Iterator[int]:
        return iter(self._items.tolist())  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (HistoryView, list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None

    def __repr__(self) -> str:
        return f"HistoryView({list(self)!r})"


def _seat_index(seat: object) -> int:
    try:
        index = operator.index(seat)  # type: ignore[arg-type]
    except TypeError:
        index = -1
    if isinstance(seat, bool) or index not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    return index


def _check_rules(rules: object) -> Rules:
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a dendria Rules object, got {type(rules).__name__}")
    return rules


def _color_index(color: str) -> int:
    if color not in COLOR_NAMES:
        raise ValueError(f"colour must be 'dark' or 'light', got {color!r}")
    return COLOR_NAMES.index(color)


class Position:
    """A Dendria position with its history: play steps, take them back, ask questions.

    ``Position()`` / :meth:`initial` is the empty board with Dark to move;
    :meth:`from_text` reads rules section 5. The class satisfies
    :class:`hexgames.game.GameState`. A refused step raises
    :class:`~hexgames.IllegalAction` naming the reason and leaves the position as it was.
    """

    # ----------------------------------------------------------------- creation
    def __init__(self, rules: Rules | None = None) -> None:
        rules = _check_rules(rules) if rules is not None else Rules()
        self._setup(rules, TextPosition(size=rules.board_side))

    @classmethod
    def initial(cls, rules: Rules | None = None) -> Position:
        """The start of a game: empty board, Dark to move."""
        return cls(rules)

    @classmethod
    def from_text(cls, text: str, rules: Rules | None = None) -> Position:
        """Read a position text (rules section 5); ``ValueError`` names the problem.

        ``rules`` default to the defaults with the text's board size; when given, their
        size must match the text's. The position read counts as the start of the game
        for the no-repetition rule (it has no earlier history).
        """
        parsed = parse_text(text)
        if rules is None:
            rules = Rules(board_side=parsed.size)
        elif _check_rules(rules).board_side != parsed.size:
            raise ValueError(Phrase(
                "the text is a side-{size} board but the rules say board_side={side}",
                size=parsed.size, side=rules.board_side,
            ))
        position = cls.__new__(cls)
        position._setup(rules, parsed)
        return position

    def _setup(self, rules: Rules, text: TextPosition) -> None:
        state, start_key = state_from_text(rules, text)
        self._rules = rules
        self._t: Tables = tables(rules.board_side)
        self._core = state.core
        # the earlier position the game starts with, as the core keys it (signed)
        self._start_key = signed64(start_key)
        self._attach(state)
        self._history: list[Step] = []
        self._history_view = HistoryView(self._history)
        self._start_text = self.to_text()

    def _attach(self, state: CoreState) -> None:
        """Make ``state`` this position's state (and forget what was derived before)."""
        self._s = state
        self._meta = state.meta
        self._cells_view = _CellsView(state.cells)  # type: ignore[arg-type]
        core = self._core
        self._step_list = core.step_list
        self._step_ids = core.step_ids
        self._stack = state.scratch[7 * core.n : 8 * core.n]  # apply's flood-fill stack
        # the legal step codes of the position as it stands (None: not listed yet), and
        # those of the positions before each step played (undo puts them back)
        self._codes: list[int] | None = None
        self._codes_before: list[list[int] | None] = []
        # board hash -> (board bytes, Analysis)
        self._analyses: dict[int, tuple[bytes, Analysis]] = {}

    def copy(self) -> Position:
        """An independent position with the same state and history (undo still works)."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._attach(self._s.copy())
        other._codes = self._codes  # never changed in place: shared safely
        other._codes_before = list(self._codes_before)
        other._analyses = dict(self._analyses)  # analyses are read-only
        other._history = list(self._history)
        other._history_view = HistoryView(other._history)
        return other

    def __copy__(self) -> Position:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        # what is derived (views, listed codes, analyses, tables) is made again on load;
        # the core state pickles by its rules and arrays
        return {
            "rules": self._rules, "state": self._s, "history": self._history,
            "start_key": self._start_key, "start_text": self._start_text,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        rules = state["rules"]
        self._rules = rules
        self._t = tables(rules.board_side)
        self._core = core_for(rules)
        self._start_key = state["start_key"]
        self._start_text = state["start_text"]
        self._attach(state["state"])
        self._history = list(state["history"])
        self._codes_before = [None] * len(self._history)
        self._history_view = HistoryView(self._history)

    # ------------------------------------------------- turn state (from the core)
    @property
    def _to_move(self) -> int:
        return int(self._meta[M_TO])

    @property
    def _phase(self) -> int:
        return int(self._meta[M_PHASE])

    @property
    def _mover(self) -> int:
        return int(self._meta[M_MOVER])

    @property
    def _dir(self) -> int:
        return int(self._meta[M_DIR])

    @property
    def _pie(self) -> int:
        return int(self._meta[M_PIE])

    @property
    def _swapped(self) -> bool:
        return bool(self._meta[M_SWAPPED])

    @property
    def _quiet(self) -> int:
        return int(self._meta[M_QUIET])

    @property
    def _passes(self) -> int:
        return int(self._meta[M_PASSES])

    @property
    def _over(self) -> Termination | None:
        return REASONS[int(self._meta[M_OVER])]

    @property
    def _hash(self) -> int:
        """The board's Zobrist hash (unsigned)."""
        return int(self._meta[M_HASH]) & MASK64

    @property
    def _cells(self) -> list[int]:
        """A snapshot of the board (piece code per cell)."""
        return self._s.cells.tolist()

    @property
    def _undo_stack(self) -> list[_UndoRecord]:
        """The undo records of the steps played, oldest first, read from the core's undo
        frames and change log (a snapshot, for inspection: undo is the core's)."""
        s = self._s
        nf = int(self._meta[M_NFRAME])
        frames = s.frames[:nf].tolist()
        log = s.log[: int(self._meta[M_NLOG])].tolist()
        out = []
        for f, row in enumerate(frames):
            stop = frames[f + 1][F_NLOG] if f + 1 < nf else len(log)
            to_move, phase, mover, direction, pie = row[:5]
            state = _TurnState(to_move, phase, mover, direction, pie, bool(row[5]), row[6],
                               row[7], REASONS[row[8]], row[9])
            changes = [(i, old) for i, old in log[row[F_NLOG] : stop]]
            remembered = row[F_KEY] & MASK64 if row[F_REM] else None
            out.append(_UndoRecord(state, changes, remembered))
        return out

    # --------------------------------------------------------------- properties
    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def board(self) -> HexBoard:
        """The board geometry (labels, neighbours, rays)."""
        return self._t.board

    @property
    def tables(self) -> Tables:
        """The lookup tables of this board side (bit of each cell, mask layout, rays,
        Zobrist terms); shared and immutable. See :mod:`hexgames.dendria.board_analysis`."""
        return self._t

    @property
    def cells(self) -> HistoryView[int]:
        """The piece code on each cell, in board order: a live, read-only view (not a
        copy) of the compiled core's board. 0 is empty; see
        :mod:`hexgames.dendria.board_analysis` for the codes."""
        return self._cells_view

    @property
    def core(self) -> CoreState:
        """The compiled core's state of this position, itself (not a copy): read-only
        for callers (:meth:`core_state` gives an independent copy to play on)."""
        return self._s

    @property
    def to_move(self) -> str:
        """Colour to act now ("dark"/"light")."""
        return COLOR_NAMES[self._meta[M_TO]]

    @property
    def current_seat(self) -> int:
        return int(self._meta[M_TO] ^ self._meta[M_SWAPPED])

    def seat_of(self, color: str) -> int:
        """Seat (0 = first player) holding ``color``; the pie rule's swap exchanges them."""
        return _color_index(color) ^ int(self._meta[M_SWAPPED])

    def color_of_seat(self, seat: int) -> str:
        """Colour played by ``seat`` (0 = first player) now."""
        return COLOR_NAMES[_seat_index(seat) ^ int(self._meta[M_SWAPPED])]

    @property
    def is_over(self) -> bool:
        return bool(self._meta[M_OVER])

    @property
    def end_reason(self) -> Termination | None:
        """``"both passed"``, ``"quiet limit"`` or ``None`` while the game goes on (a
        :class:`Termination`, which is a ``str``; see :meth:`outcome`)."""
        return self._over

    def outcome(self) -> Outcome | None:
        """How the game ended by the rules, ``None`` while it goes on.

        ``termination`` is :attr:`Termination.BOTH_PASSED` or
        :attr:`Termination.QUIET_LIMIT`; ``winner`` the colour with the higher final
        score (``None`` on equal scores) and ``winner_seat`` its seat; ``score`` the final
        score per colour (``{"dark": 12.5, "light": 9.0}``).
        """
        over = self._over
        if over is None:
            return None
        dark, light = self._s.scores()
        winner = None if dark == light else "dark" if dark > light else "light"
        return Outcome(
            termination=over,
            winner=winner,
            winner_seat=None if winner is None else self.seat_of(winner),
            score={"dark": dark, "light": light},
        )

    @property
    def winner(self) -> str | None:
        """Winning colour, ``"draw"`` on equal scores, ``None`` while not over."""
        if not self._meta[M_OVER]:
            return None
        dark, light = self._s.scores()
        if dark == light:
            return "draw"
        return "dark" if dark > light else "light"

    def returns(self) -> tuple[float, float]:
        """Per seat: +1 win, -1 loss, 0 draw; ``(0.0, 0.0)`` while not over."""
        winner = self.winner
        if winner is None or winner == "draw":
            return (0.0, 0.0)
        return (1.0, -1.0) if self.seat_of(winner) == 0 else (-1.0, 1.0)

    def score(self) -> dict[str, float]:
        """Each colour's score on the board as it stands (final once the game is over)."""
        dark, light = self._s.scores()
        return {"dark": dark, "light": light}

    def score_breakdown(self) -> list[ScoreLine]:
        """How :meth:`score` is made up (rules section 4), line by line: each forest size
        on the board (the size's points to each player with such a forest, +1 to the one
        with more of them), then the largest-forest half point. The lines' points add up
        to :meth:`score`."""
        a = self.analysis()
        return [
            ScoreLine(str(label), str(detail), points, label_phrase=label, detail_phrase=detail)
            for label, detail, points in breakdown(a.forest_sizes(0), a.forest_sizes(1))
        ]

    def seat_scores(self) -> tuple[float, float]:
        """The scores of seat 0 and seat 1."""
        by_color = self._s.scores()
        swapped = int(self._meta[M_SWAPPED])
        return by_color[swapped], by_color[1 - swapped]

    @property
    def history(self) -> HistoryView[Step]:
        """Steps played since the start position, oldest first: a live, read-only view
        (O(1) ``len`` and indexing, not a copy; ``list(p.history)`` for a snapshot)."""
        return self._history_view

    @property
    def last_action(self) -> Step | None:
        """The most recent step, ``None`` at the start position."""
        return self._history[-1] if self._history else None

    @property
    def ply(self) -> int:
        """Number of steps played since the start position."""
        return len(self._history)

    def turn_ends(self) -> list[bool]:
        """For each step of :attr:`history`: whether it ended its turn (``end``,
        ``pass``, ``swap``), as Benediction's ``turn_ends`` (for records)."""
        return [step.kind in _TURN_ENDERS for step in self._history]

    @property
    def turn_number(self) -> int:
        """Number of the turn being played (1 for the first turn from the start)."""
        return int(self._meta[M_TURN])

    @property
    def quiet_turns(self) -> int:
        """Consecutive finished turns without a plant (the end limit is 2K)."""
        return self._quiet

    @property
    def consecutive_passes(self) -> int:
        return self._passes

    @property
    def pie_pending(self) -> bool:
        """True while Light may still answer with ``swap``."""
        return bool(self._meta[M_PIE] == PIE_PENDING)

    @property
    def start_text(self) -> str:
        """The text of the position this game started from (what ``undo`` returns to)."""
        return self._start_text

    def is_turn_start(self) -> bool:
        return bool(self._meta[M_PHASE] == START)

    def turn_steps(self) -> list[Step]:
        """The steps played so far in the current turn."""
        if self._meta[M_PHASE] == START:
            return []
        steps: list[Step] = []
        for step in reversed(self._history):
            if step.kind in _TURN_ENDERS:
                break
            steps.append(step)
        steps.reverse()
        return steps

    @property
    def moving_dendrid(self) -> str | None:
        """Cell of the dendrid that moved this turn and may continue, else ``None``."""
        if self._meta[M_PHASE] != AFTER_STOP:
            return None
        return self._t.board.labels[self._mover]

    @property
    def key(self) -> int:
        """Zobrist key of board, colour to move, turn progress, pie/seat state and the
        end counters: everything that decides the game's future except the set of
        earlier positions (the compiled core keeps it)."""
        return self._s.key

    def _key_from_scratch(self) -> int:
        """:attr:`key` recomputed in Python from the cells and the turn state (not the
        core's incremental hash): the two are equal in every reachable position (tests
        check it)."""
        z = self._t.zobrist
        board_hash = 0
        for i, v in enumerate(self._cells):
            board_hash ^= z[i][v]
        return self._key_with(board_hash)

    def _key_with(self, board_hash: int) -> int:
        phase = self._phase
        k = board_hash ^ _TO_MOVE_Z[self._to_move] ^ _PHASE_Z[phase] ^ _PIE_Z[self._pie]
        if phase == AFTER_STOP:
            k ^= mix(3, self._mover * 6 + self._dir)
        q = self._quiet
        if q:
            k ^= _QUIET_Z[q] if q < len(_QUIET_Z) else mix(6, q)
        return k ^ _PASSES_Z[self._passes] ^ _SWAPPED_Z[self._swapped]

    def piece_at(self, label: str) -> Piece | None:
        return _PIECES[int(self._s.cells[self._index(label)])]

    def __repr__(self) -> str:
        return f"Position.from_text({self.to_text()!r})"

    # ------------------------------------------------------------------- text
    def to_text(self) -> str:
        """The position in the rules' text format (section 5).

        Mid-turn this is the board as it stands, with the player still to move; the turn's
        progress (which dendrid may continue) is not part of the format.
        """
        labels = self._t.board.labels
        pieces = {
            labels[i]: (_PIECES[v].color, _PIECES[v].kind)  # type: ignore[union-attr]
            for i, v in enumerate(self._cells)
            if v
        }
        return format_text(
            TextPosition(
                size=self._rules.board_side,
                to_move=self.to_move,
                pieces=pieces,
                pie_pending=self._pie == PIE_PENDING,
                quiet=self._quiet,
                passes=self._passes,
                seats_swapped=self._swapped,
            )
        )

    def __str__(self) -> str:
        return self.to_text()

    # ---------------------------------------------------------------- queries
    def _index(self, label: str | None) -> int:
        return cell_of(self._t.board, label)

    def _labels(self, cells: Iterable[int]) -> list[str]:
        labels = self._t.board.labels
        return [labels[i] for i in cells]

    def analysis(self) -> Analysis:
        """The whole-board :class:`~hexgames.dendria.board_analysis.Analysis` of the board as it
        stands (masks of plantable cells, fertilized cells, sproutable seeds, seedbeds,
        forests and what may grow or be converted). Read-only; valid for this board only.

        Cached: keyed by the board's Zobrist hash and confirmed against the board itself,
        so a hash collision can never hand back another board's answers.
        """
        h = int(self._meta[M_HASH])
        board = self._s.cells.tobytes()
        found = self._analyses.get(h)
        if found is None or found[0] != board:
            if len(self._analyses) >= _ANALYSIS_CACHE_LIMIT:
                self._analyses.clear()
            masks = [0] * 7
            bit = self._t.bit
            for i, v in enumerate(board):
                masks[v] |= bit[i]
            found = self._analyses[h] = (board, Analysis(tuple(masks), self._t))
        return found[1]

    def plantable_cells(self) -> list[str]:
        """Empty cells with at least one nutrientless root (where a seed may be planted
        when a turn starts), in board order."""
        return self._labels(cells_of_mask(self.analysis().plantable, self._t))

    def sproutable_seeds(self) -> list[str]:
        """Seeds of either colour that may sprout on this board."""
        return self._labels(self.analysis().sproutable)

    def growable_seedbeds(self) -> list[str]:
        """One label per seedbed (either colour) that may grow: its first cell in board
        order, which is also the cell the engine writes in ``+`` steps."""
        return self._labels(g.cells[0] for g in self.analysis().growable())

    def convertible_forests(self, color: str | None = None) -> list[str]:
        """One label (first cell) per enemy forest ``color`` (default: the player to
        move) may convert on this board."""
        mover = self._to_move if color is None else _color_index(color)
        return self._labels(g.cells[0] for g in self.analysis().convertible(mover))

    def group(self, label: str) -> list[str]:
        """All cells of the seedbed or forest containing ``label`` (empty for other cells)."""
        found = self.analysis().group_of(self._index(label))
        return self._labels(found.cells) if found else []

    def fertile_soils(self, label: str) -> list[str]:
        """The empty cells adjacent to the seedbed or forest containing ``label``."""
        found = self.analysis().group_of(self._index(label))
        return self._labels(cells_of_mask(found.fertile, self._t)) if found else []

    def fertilized_cells(self, color: str) -> list[str]:
        """Empty cells that at least one ``color`` dendrid fertilizes (sees along a ray)."""
        return self._labels(
            cells_of_mask(self.analysis().fertilized(_color_index(color)), self._t)
        )

    def nourishers(self, label: str) -> list[str]:
        """The nourisher (first piece, any colour or kind) on each root of ``label`` that
        has a nutrient, in direction order N, NE, SE, S, SW, NW."""
        i = self._index(label)
        return self._labels(j for _, j in first_on_roots(i, self._cells, self._t) if j >= 0)

    def dendrid_destinations(self, label: str) -> list[str]:
        """Cells where the dendrid on ``label`` may stop with a legal step now: every leg
        at the start of a turn, or the continuations of the dendrid that moved this turn.
        Empty when it may not move now. (Read from the legal steps.)"""
        i = self._index(label)
        phase = self._phase
        if phase == START:
            wanted = A_LEG
        elif phase == AFTER_STOP and i == self._mover:
            wanted, i = A_CONT, -1
        else:
            return []
        fields = self._core.step_fields
        out = []
        for c in self._legal_codes():
            kind, target, origin, _ = fields(c)
            if kind == wanted and origin == i:
                out.append(target)
        return self._labels(out)

    # ------------------------------------------------------------ generation
    def _legal_codes(self) -> list[int]:
        """The legal step codes of the position as it stands (listed by the core once
        per position)."""
        codes = self._codes
        if codes is None:
            codes = self._codes = self._s.legal_codes().tolist()
        return codes

    def legal_actions(self) -> list[Step]:
        """Every legal step now, each once (a fresh list); empty when the game is over.

        Grow and convert steps name the first cell (board order) of their group. Listed
        by the compiled rules core (:mod:`hexgames.dendria.core`).
        """
        table = self._step_list
        return [table[c] for c in self._legal_codes()]  # type: ignore[misc]

    def core_state(self) -> CoreState:
        """An independent :class:`~hexgames.dendria.core.CoreState` of this position
        (board, turn state, earlier positions; not its undo history) for the compiled
        kernels."""
        state = self._s.copy()
        state.meta[M_NFRAME] = state.meta[M_NLOG] = 0
        return state

    def random_playouts(
        self, games: int, seed: int = 0, max_actions: int = 100_000
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """``(winner_seats, lengths, steps)`` of ``games`` random games from this
        position, as ``core_state().random_playouts`` gives them, without the copy (the
        compiled call plays in buffers of its own and leaves this position as it was; an
        MCTS leaf calls this once per iteration)."""
        return self._s.random_playouts(games, seed, max_actions)

    # --------------------------------------------------------- no repetition
    def _repeated_at_end(self) -> int | None:
        """If ending the turn now repeats an earlier position: the turn after which it
        arose (0 = the start); else ``None``. (For the refusal's message: the core
        decides.)"""
        s = self._s
        following = 1 - self._to_move
        key = int(self._meta[M_HASH]) ^ int(self._core.tab[10][Z_TO + following])
        if not seen_has(s.seen, key):
            return None
        nf = int(self._meta[M_NFRAME])
        frames = s.frames[:nf]
        ends = frames[frames[:, F_REM] == 1, F_KEY].tolist()
        keys = [self._start_key, *ends]
        return keys.index(key) if key in keys else None

    # ------------------------------------------------------------ public play
    def parse_action(self, text: str) -> Step:
        """Read a step's notation and check its cells exist on this board (not legality)."""
        step = Step.parse(text)
        for label in (step.origin, step.target):
            if label is not None:
                self._index(label)
        return step

    def _code_of(self, step: Step) -> int | None:
        """The core's code of ``step``, ``None`` when it names no step of this board."""
        found = self._step_ids.get(id(step))
        if found is not None:
            return found
        try:
            return self._core.code_of(step)
        except (ValueError, KeyError, AttributeError):
            return None

    def play(self, step: Step | str) -> None:
        """Play one step (a :class:`Step` or its notation).

        Raises :class:`~hexgames.IllegalAction` naming the reason, leaving the position
        unchanged, when the step is malformed or not legal now.
        """
        if isinstance(step, str):
            step = Step.parse(step)
        elif not isinstance(step, Step):
            raise IllegalAction("not a Dendria step: {step}", step=repr(step))
        code_ = self._step_ids.get(id(step))
        if code_ is None:
            code_ = self._code_of(step)
        if code_ is not None and code_ in self._legal_codes():
            self._play_code(code_)
            return
        self._play_refused(step)

    def _play_code(self, code_: int) -> None:
        """Play a step code known to be legal: one compiled call."""
        s = self._s
        s.make_room()
        c = self._core
        _apply(c.tab, c.params, s.cells, s.meta, s.log, s.frames, s.seen, code_,
               self._stack)
        self._codes_before.append(self._codes)
        self._codes = None
        self._history.append(self._step_list[code_])  # type: ignore[arg-type]

    def _play_refused(self, step: Step) -> None:
        """``step`` is not among the legal codes as written: say why, or play it when it
        is a legal grow or convert written with another cell of its group."""
        try:
            if self._meta[M_OVER]:
                raise IllegalAction("{step}: the game is over ({reason})", step=str(step),
                                    reason=word(str(self._over)))
            canonical, check_finish = resolve(self, step, self._dir, self._repeated_at_end)
        except IllegalAction:
            for label in (step.origin, step.target):
                if label is not None:
                    self._index(label)  # a cell off this board is the first thing to say
            raise
        code_ = self._code_of(canonical)
        if code_ is not None and code_ in self._legal_codes():
            self._play_code(code_)
            return
        if check_finish:
            raise IllegalAction(
                "{step}: afterwards the turn could not end without repeating an earlier "
                "position (no repetition)", step=str(step),
            )
        raise IllegalAction("{step}: not a legal step now", step=str(step))  # pragma: no cover

    def play_turn(self, turn: str | Sequence[Step | str]) -> None:
        """Play the steps of one turn and end it (all or nothing).

        ``end`` is appended unless the steps already end the turn (``end``, ``pass``,
        ``swap``). If any step is refused, every step of this call is taken back and
        :class:`~hexgames.IllegalAction` names the step and the reason.
        """
        if isinstance(turn, str):
            steps: Sequence[Step | str] = turn.split()
        elif isinstance(turn, Step):
            steps = [turn]
        elif isinstance(turn, (list, tuple)):
            steps = list(turn)
        else:
            raise IllegalAction(
                "a turn must be written as text (e.g. 'e5 ^d4') or given as a list of "
                "steps, got {type}", type=type(turn).__name__,
            )
        if not steps:
            raise IllegalAction("a turn needs at least one step (e.g. e5, d2-d6, pass)")
        played = 0
        try:
            for number, step in enumerate(steps, start=1):
                if played and self._phase == START:
                    raise IllegalAction("step {number} ({step}) comes after the turn ended",
                                        number=number, step=str(step))
                try:
                    self.play(step)
                except IllegalAction as error:
                    raise IllegalAction("step {number} ({step}) refused: {reason}",
                                        number=number, step=str(step),
                                        reason=error.phrase) from None
                played += 1
            if self._phase != START:
                try:
                    self.play(END)
                except IllegalAction as error:
                    raise IllegalAction("cannot end the turn: {reason}",
                                        reason=error.phrase) from None
                played += 1
        except IllegalAction:
            for _ in range(played):
                self.undo()
            raise

    def undo(self) -> Step:
        """Take back the last step and return it (``IndexError`` at the start position)."""
        if not self._history:
            raise IndexError("nothing to undo: this is the start position")
        step = self._history.pop()
        s = self._s
        _undo(s.cells, s.meta, s.log, s.frames, s.seen)
        self._codes = self._codes_before.pop()
        return step
