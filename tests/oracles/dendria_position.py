"""The test oracle: the pure-Python Dendria engine that the product used before its
rules moved into the compiled core (:mod:`hexgames.dendria.core`).

It is kept here, independent of the core, so that differential tests compare the
product's :class:`hexgames.dendria.Position` (a thin layer over the core) with a second
implementation of the same rules at every step of many random games
(``tests/test_dendria_core.py``). Its public API is the product's; it shares with the
product only the Python helpers that are not the core (tables, :mod:`.board_analysis`,
scoring from forest sizes, the text format, steps). The text below is its original
design note.

The Dendria rules engine: a position that plays and takes back steps (make/unmake).

Design, and why:

* The board is a flat ``list[int]`` of piece codes indexed like :mod:`hexgames.hexgrid`
  and every set of cells is an ``int`` bit mask, so the tests of rules section 2
  ("every fertile soil fertilized by ...") are a handful of machine-word operations.
* Every step pushes one compact undo record (the cells it changed and the few scalars
  of turn state), so the AI and the no-repetition search walk the game tree in place.
* The key is Zobrist: the board part is updated per changed cell; the turn-state terms
  are XORed in when read.
* **No repetition.** A turn may not *end* in a position (board + colour to move) seen at
  the start or at the end of an earlier turn. Pieces never leave the board and a plant
  adds one, so a turn that planted can always end; only dendrid moves and the follow-ups
  after them can run into a repetition. Every step that leaves the turn open (a leg, a
  continuation, a follow-up after a stop) is therefore offered, and accepted, only when
  some way of finishing the turn from it is legal. The turn's reachable states form a
  finite acyclic graph (follow-ups only ever turn seeds into other pieces or enemy trees
  into the mover's, and a dendrid only continues forward), so this is a bounded search,
  memoised per key until the set of earlier positions changes. In play it almost never
  goes deeper than one look-up: ending right after the step is usually new.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from hexgames.dendria._scoring import breakdown, scores
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
    mix,
    tables,
)
from hexgames.dendria.board_analysis import (
    Analysis,
    Group,
    cells_of_mask,
    dendrid_stops,
    sprout_refusal,
)
from hexgames.dendria.board_analysis import (
    nourishers as first_on_roots,
)
from hexgames.dendria.rules import Rules, Termination
from hexgames.dendria.steps import Step
from hexgames.dendria.textformat import TextPosition, format_text, parse_text
from hexgames.errors import IllegalAction
from hexgames.game import HistoryView, Outcome, ScoreLine
from hexgames.hexgrid import DIRECTION_NAMES, DIRECTIONS, HexBoard

# Turn phases: nothing played yet / a seed was planted / a dendrid stopped.
START, AFTER_PLANT, AFTER_STOP = 0, 1, 2
# Pie rule states: not (or no longer) offered / Dark's first turn on the empty board /
# Light may swap now.
PIE_OFF, PIE_ARMED, PIE_PENDING = 0, 1, 2

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

# Operations: an already-checked step, as the board change it makes.
class Plant(NamedTuple):
    """Put a seed of the player to move on ``cell``."""

    cell: int


class Move(NamedTuple):
    """Slide the dendrid on ``origin`` to ``target``, in ``direction`` (a leg or a
    continuation)."""

    origin: int
    target: int
    direction: int


class SetCells(NamedTuple):
    """Put piece code ``code`` on every cell of ``cells`` (sprout, grow, convert)."""

    cells: tuple[int, ...]
    code: int


class EndTurn(NamedTuple):
    """End the turn by ``how``: ``"end"``, ``"pass"`` or ``"swap"``."""

    how: str


Op = Plant | Move | SetCells | EndTurn
_new_tuple = tuple.__new__
_END_OPS = {how: EndTurn(how) for how in ("end", "pass", "swap")}


class _TurnState(NamedTuple):
    """The scalars of turn state, saved by every step so that undo can restore them."""

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
    """What one step changed: the turn state before it, the cells it changed (cell,
    old code) in order, and the snapshot it added to the earlier positions (turn ends)."""

    state: _TurnState
    changes: list[tuple[int, int]]
    remembered: bytes | None


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
_CODE_OF_PIECE = {(p.color, p.kind): c for c, p in enumerate(_PIECES) if p is not None}


@dataclass(frozen=True, eq=False)
class _StepTable:
    """Ready-made :class:`Step` objects per cell, so move generation does not re-parse."""

    plant: tuple[Step, ...]
    cont: tuple[Step, ...]
    sprout: tuple[Step, ...]
    grow: tuple[Step, ...]
    convert: tuple[Step, ...]


@cache
def _steps(side: int) -> _StepTable:
    labels = tables(side).board.labels
    return _StepTable(
        plant=tuple(Step("plant", target=x) for x in labels),
        cont=tuple(Step("continue", target=x) for x in labels),
        sprout=tuple(Step("sprout", target=x) for x in labels),
        grow=tuple(Step("grow", target=x) for x in labels),
        convert=tuple(Step("convert", target=x) for x in labels),
    )


@cache
def _leg(side: int, origin: int, target: int) -> Step:
    labels = tables(side).board.labels
    return Step("leg", origin=labels[origin], target=labels[target])


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
            raise ValueError(
                f"the text is a side-{parsed.size} board but the rules say "
                f"board_side={rules.board_side}"
            )
        position = cls.__new__(cls)
        position._setup(rules, parsed)
        return position

    def _setup(self, rules: Rules, text: TextPosition) -> None:
        if text.size != rules.board_side:
            raise ValueError(
                f"board size {text.size} does not match the rules' board_side {rules.board_side}"
            )
        self._rules = rules
        self._t: Tables = tables(rules.board_side)
        self._steps = _steps(rules.board_side)
        geometry = self._t.board
        self._cells = [0] * geometry.size
        for label, piece in text.pieces.items():
            self._cells[geometry.index(label)] = _CODE_OF_PIECE[piece]
        # One padded-layout mask per piece code; masks[0] holds the empty cells.
        self._masks = [0] * 7
        self._hash = 0
        for i, v in enumerate(self._cells):
            self._hash ^= self._t.zobrist[i][v]
            self._masks[v] |= self._t.bit[i]
        self._to_move = _color_index(text.to_move)
        if text.pie_pending:
            if not rules.pie:
                raise ValueError("pie=pending but the pie rule is off")
            if self._to_move != 1:
                raise ValueError("pie=pending needs Light to move (only Light may swap)")
            if text.seats_swapped:
                raise ValueError("pie=pending and seats=swapped contradict each other")
            self._pie = PIE_PENDING
        elif rules.pie and not any(self._cells) and self._to_move == 0 and not text.quiet:
            # Dark's first turn. An empty board with Dark to move after quiet turns is not
            # a start (Dark and Light both passed): the pie offer has lapsed.
            self._pie = PIE_ARMED
        else:
            self._pie = PIE_OFF
        if text.seats_swapped and not rules.pie:
            raise ValueError("seats=swapped but the pie rule is off")
        if text.seats_swapped and self._pie == PIE_ARMED:
            raise ValueError("seats=swapped on an empty board: the swap comes after a seed")
        if text.passes > text.quiet:
            raise ValueError(
                f"passes={text.passes} cannot exceed quiet={text.quiet}: a pass is a turn "
                "without a plant"
            )
        if text.passes > 2 or text.quiet > rules.quiet_turns:
            raise ValueError(
                f"passes={text.passes}, quiet={text.quiet} lie beyond the end of the game "
                f"(2 passes or {rules.quiet_turns} quiet turns)"
            )
        self._swapped = text.seats_swapped
        self._quiet = text.quiet
        self._passes = text.passes
        self._phase = START
        self._mover = -1
        self._dir = -1
        self._turn_number = 1
        self._over: Termination | None = None
        self._update_over()
        self._history: list[Step] = []
        self._history_view = HistoryView(self._history)
        self._undo_stack: list[_UndoRecord] = []
        # Positions (board + colour to move) that turns may not end in: exact snapshot ->
        # [count, turn after which it first arose]; and a multiset of their Zobrist keys
        # for the quick "certainly new" test.
        self._seen: dict[bytes, list[int]] = {}
        self._seen_keys: dict[int, int] = {}
        self._remember_position()
        self._finish_memo: dict[int, bool] = {}
        self._analyses: dict[int, Analysis] = {}
        self._start_text = self.to_text()

    def copy(self) -> Position:
        """An independent position with the same state and history (undo still works)."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._cells = list(self._cells)
        other._masks = list(self._masks)
        other._history = list(self._history)
        other._history_view = HistoryView(other._history)
        other._undo_stack = list(self._undo_stack)
        other._seen = {k: list(v) for k, v in self._seen.items()}
        other._seen_keys = dict(self._seen_keys)
        other._finish_memo = {}
        other._analyses = {}
        return other

    def __copy__(self) -> Position:
        return self.copy()

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
        copy). 0 is empty; see :mod:`hexgames.dendria.board_analysis` for the codes."""
        return HistoryView(self._cells)

    @property
    def to_move(self) -> str:
        """Colour to act now ("dark"/"light")."""
        return COLOR_NAMES[self._to_move]

    @property
    def current_seat(self) -> int:
        return self.seat_of(self.to_move)

    def seat_of(self, color: str) -> int:
        """Seat (0 = first player) holding ``color``; the pie rule's swap exchanges them."""
        return _color_index(color) ^ int(self._swapped)

    def color_of_seat(self, seat: int) -> str:
        """Colour played by ``seat`` (0 = first player) now."""
        return COLOR_NAMES[_seat_index(seat) ^ int(self._swapped)]

    @property
    def is_over(self) -> bool:
        return self._over is not None

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
        if self._over is None:
            return None
        dark, light = self._scores()
        winner = None if dark == light else "dark" if dark > light else "light"
        return Outcome(
            termination=self._over,
            winner=winner,
            winner_seat=None if winner is None else self.seat_of(winner),
            score={"dark": dark, "light": light},
        )

    @property
    def winner(self) -> str | None:
        """Winning colour, ``"draw"`` on equal scores, ``None`` while not over."""
        if self._over is None:
            return None
        dark, light = self._scores()
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
        dark, light = self._scores()
        return {"dark": dark, "light": light}

    def score_breakdown(self) -> list[ScoreLine]:
        """How :meth:`score` is made up (rules section 4), line by line: each forest size
        on the board (the size's points to each player with such a forest, +1 to the one
        with more of them), then the largest-forest half point. The lines' points add up
        to :meth:`score`."""
        a = self.analysis()
        return [
            ScoreLine(label, detail, points)
            for label, detail, points in breakdown(a.forest_sizes(0), a.forest_sizes(1))
        ]

    def seat_scores(self) -> tuple[float, float]:
        """The scores of seat 0 and seat 1."""
        by_color = self._scores()
        return by_color[int(self._swapped)], by_color[1 - int(self._swapped)]

    def _scores(self) -> tuple[float, float]:
        a = self.analysis()
        return scores(a.forest_sizes(0), a.forest_sizes(1))

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
        return self._turn_number

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
        return self._pie == PIE_PENDING

    @property
    def start_text(self) -> str:
        """The text of the position this game started from (what ``undo`` returns to)."""
        return self._start_text

    def is_turn_start(self) -> bool:
        return self._phase == START

    def turn_steps(self) -> list[Step]:
        """The steps played so far in the current turn."""
        steps: list[Step] = []
        for step in reversed(self._history):
            if step.kind in _TURN_ENDERS:
                break
            steps.append(step)
        if self._phase == START:
            return []
        steps.reverse()
        return steps

    @property
    def moving_dendrid(self) -> str | None:
        """Cell of the dendrid that moved this turn and may continue, else ``None``."""
        return self._t.board.labels[self._mover] if self._phase == AFTER_STOP else None

    @property
    def key(self) -> int:
        """Zobrist key of board, colour to move, turn progress, pie/seat state and the
        end counters: everything that decides the game's future except the set of
        earlier positions."""
        return self._key_with(self._hash)

    def _key_from_scratch(self) -> int:
        """:attr:`key` with the board part recomputed from the cells (not the incremental
        hash): the two are equal in every reachable position (tests check it)."""
        z = self._t.zobrist
        board_hash = 0
        for i, v in enumerate(self._cells):
            board_hash ^= z[i][v]
        return self._key_with(board_hash)

    def _key_with(self, board_hash: int) -> int:
        k = board_hash ^ _TO_MOVE_Z[self._to_move] ^ _PHASE_Z[self._phase] ^ _PIE_Z[self._pie]
        if self._phase == AFTER_STOP:
            k ^= mix(3, self._mover * 6 + self._dir)
        q = self._quiet
        if q:
            k ^= _QUIET_Z[q] if q < len(_QUIET_Z) else mix(6, q)
        return k ^ _PASSES_Z[self._passes] ^ _SWAPPED_Z[self._swapped]

    def piece_at(self, label: str) -> Piece | None:
        return _PIECES[self._cells[self._index(label)]]

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
        try:
            return self._t.board.index(label)  # type: ignore[arg-type]
        except (ValueError, AttributeError):
            raise IllegalAction(
                f"{label!r} is not a cell of the side-{self._rules.board_side} board"
            ) from None

    def _labels(self, cells: Iterable[int]) -> list[str]:
        labels = self._t.board.labels
        return [labels[i] for i in cells]

    def analysis(self) -> Analysis:
        """The whole-board :class:`~hexgames.dendria.board_analysis.Analysis` of the board as it
        stands (masks of plantable cells, fertilized cells, sproutable seeds, seedbeds,
        forests and what may grow or be converted). Read-only; valid for this board only.

        Cached: keyed by the board's Zobrist hash and confirmed against the piece masks, so
        a hash collision can never hand back another board's answers.
        """
        masks = tuple(self._masks)
        found = self._analyses.get(self._hash)
        if found is None or found.masks != masks:
            if len(self._analyses) >= _ANALYSIS_CACHE_LIMIT:
                self._analyses.clear()
            found = self._analyses[self._hash] = Analysis(masks, self._t)
        return found

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
        Empty when it may not move now."""
        i = self._index(label)
        if self._over is not None:
            return []
        if self._phase == START:
            if self._cells[i] != code(self._to_move, DENDRID):
                return []
            return self._labels(j for j, _ in self._legs_from(i))
        if self._phase == AFTER_STOP and i == self._mover:
            return self._labels(self._continuations())
        return []

    # ------------------------------------------------------------ generation
    def _legs_from(self, i: int) -> list[tuple[int, int]]:
        """``(stop, direction)`` of every legal leg of the dendrid on ``i`` (turn start).

        The hot path of move generation, so the usual case, "ending right after this stop
        would be a new position", is tested inline on the Zobrist key.
        """
        cells, z, seen = self._cells, self._t.zobrist, self._seen_keys
        v = cells[i]
        after = self._hash ^ z[i][v] ^ _TO_MOVE_Z[1 - self._to_move]
        out = []
        for d, ray in enumerate(self._t.board.rays[i]):
            for j in ray:
                w = cells[j]
                if not w:
                    if after ^ z[j][v] not in seen or self._op_finishable(Move(i, j, d)):
                        out.append((j, d))
                elif w != v and KIND_OF[w] != SEED:
                    break
        return out

    def _continuations(self) -> list[int]:
        i, d = self._mover, self._dir
        return [
            j
            for j in dendrid_stops(i, d, self._to_move, self._cells, self._t)
            if self._op_finishable(Move(i, j, d))
        ]

    def _follow_up_ops(self) -> list[tuple[Step, SetCells]]:
        """Every follow-up allowed by the board (before the no-repetition filter)."""
        a = self.analysis()
        cells, mover = self._cells, self._to_move
        out: list[tuple[Step, SetCells]] = [
            (self._steps.sprout[i], SetCells((i,), code(COLOR_OF[cells[i]], DENDRID)))
            for i in a.sproutable
        ]
        for g in a.growable():
            out.append((self._steps.grow[g.cells[0]], SetCells(g.cells, code(g.color, TREE))))
        for g in a.convertible(mover):
            out.append((self._steps.convert[g.cells[0]], SetCells(g.cells, code(mover, TREE))))
        return out

    def legal_actions(self) -> list[Step]:
        """Every legal step now, each once; empty when the game is over.

        Grow and convert steps name the first cell (board order) of their group."""
        if self._over is not None:
            return []
        if self._phase == START:
            plant = self._steps.plant
            out = [plant[i] for i in cells_of_mask(self.analysis().plantable, self._t)]
            side = self._rules.board_side
            for i in cells_of_mask(self._masks[code(self._to_move, DENDRID)], self._t):
                out.extend(_leg(side, i, j) for j, _ in self._legs_from(i))
            out.append(PASS)
            if self._pie == PIE_PENDING:
                out.append(SWAP)
            return out
        out = [step for step, op in self._follow_up_ops() if self._op_finishable(op)]
        if self._phase == AFTER_STOP:
            out.extend(self._steps.cont[j] for j in self._continuations())
        if self._repeated_at_end() is None:
            out.append(END)
        return out

    # --------------------------------------------------------- no repetition
    def _snapshot(self, to_move: int) -> bytes:
        return bytes(self._cells) + bytes((to_move,))

    def _remember_position(self) -> bytes:
        snapshot = self._snapshot(self._to_move)
        entry = self._seen.get(snapshot)
        if entry is None:
            self._seen[snapshot] = [1, self._turn_number - 1]
        else:
            entry[0] += 1
        k = self._hash ^ _TO_MOVE_Z[self._to_move]
        self._seen_keys[k] = self._seen_keys.get(k, 0) + 1
        return snapshot

    def _forget_position(self, snapshot: bytes) -> None:
        entry = self._seen[snapshot]
        entry[0] -= 1
        if not entry[0]:
            del self._seen[snapshot]
        k = self._hash ^ _TO_MOVE_Z[snapshot[-1]]
        self._seen_keys[k] -= 1
        if not self._seen_keys[k]:
            del self._seen_keys[k]

    def _repeated_at_end(self) -> int | None:
        """If ending the turn now repeats an earlier position: the turn after which it
        arose (0 = the start); else ``None``."""
        following = 1 - self._to_move
        if self._hash ^ _TO_MOVE_Z[following] not in self._seen_keys:
            return None
        entry = self._seen.get(self._snapshot(following))
        return None if entry is None else entry[1]

    def _op_finishable(self, op: Move | SetCells) -> bool:
        """Whether the turn can still end legally after the open-turn step ``op``."""
        if self._phase == AFTER_PLANT:
            return True
        z = self._t.zobrist
        h = self._hash
        if isinstance(op, Move):
            i, j, _ = op
            v = self._cells[i]
            h ^= z[i][v] ^ z[j][v]
        else:
            members, new = op
            for m in members:
                h ^= z[m][self._cells[m]] ^ z[m][new]
        if h ^ _TO_MOVE_Z[1 - self._to_move] not in self._seen_keys:
            return True
        self._make(op)
        try:
            return self._can_finish()
        finally:
            self._unmake()

    def _can_finish(self) -> bool:
        """Some sequence of follow-ups, continuations and ``end`` is legal from here."""
        if self._phase != AFTER_STOP or self._repeated_at_end() is None:
            return True
        k = self.key
        known = self._finish_memo.get(k)
        if known is not None:
            return known
        result = any(self._op_finishable(op) for _, op in self._follow_up_ops()) or any(
            self._op_finishable(Move(self._mover, j, self._dir))
            for j in dendrid_stops(
                self._mover, self._dir, self._to_move, self._cells, self._t
            )
        )
        self._finish_memo[k] = result
        return result

    # ----------------------------------------------------------- make/unmake
    def _state(self) -> _TurnState:
        # tuple.__new__ builds the named tuple without a Python-level __new__ call (the
        # way namedtuple's own _make does): this runs on every step of every search.
        return _new_tuple(_TurnState, (
            self._to_move, self._phase, self._mover, self._dir, self._pie, self._swapped,
            self._quiet, self._passes, self._over, self._turn_number,
        ))

    def _set(self, i: int, v: int, changes: list[tuple[int, int]]) -> None:
        old = self._cells[i]
        changes.append((i, old))
        self._cells[i] = v
        z = self._t.zobrist[i]
        self._hash ^= z[old] ^ z[v]
        b = self._t.bit[i]
        self._masks[old] ^= b
        self._masks[v] ^= b

    def _make(self, op: Op) -> None:
        """Apply an already-checked operation and push its undo record."""
        state = self._state()
        changes: list[tuple[int, int]] = []
        remembered = None
        kind = type(op)
        if kind is Plant:
            self._set(op.cell, code(self._to_move, SEED), changes)  # type: ignore[union-attr]
            self._phase = AFTER_PLANT
        elif kind is Move:
            i, j, d = op  # type: ignore[misc]
            self._set(j, self._cells[i], changes)
            self._set(i, 0, changes)
            self._phase, self._mover, self._dir = AFTER_STOP, j, d
        elif kind is SetCells:
            for i in op.cells:  # type: ignore[union-attr]
                self._set(i, op.code, changes)  # type: ignore[union-attr]
        else:
            remembered = self._end_turn(op.how)  # type: ignore[union-attr]
        self._undo_stack.append(_new_tuple(_UndoRecord, (state, changes, remembered)))

    def _end_turn(self, how: str) -> bytes:
        planted = self._phase == AFTER_PLANT
        if how == "pass":
            self._passes += 1
            self._quiet += 1
        else:
            self._passes = 0
            self._quiet = 0 if planted else self._quiet + 1
        if how == "swap":
            self._swapped = not self._swapped
        else:
            self._to_move = 1 - self._to_move
        if self._pie == PIE_ARMED:
            # Dark's first turn: only a planted seed gives Light something to swap for.
            self._pie = PIE_PENDING if planted else PIE_OFF
        elif self._pie == PIE_PENDING:
            self._pie = PIE_OFF
        self._phase, self._mover, self._dir = START, -1, -1
        self._turn_number += 1
        self._update_over()
        self._finish_memo.clear()
        return self._remember_position()

    def _update_over(self) -> None:
        if self._passes >= 2:
            self._over = Termination.BOTH_PASSED
        elif self._quiet >= self._rules.quiet_turns:
            self._over = Termination.QUIET_LIMIT
        else:
            self._over = None

    def _unmake(self) -> None:
        record = self._undo_stack.pop()
        if record.remembered is not None:
            self._forget_position(record.remembered)
            self._finish_memo.clear()
        cells, zobrist, bit, masks = self._cells, self._t.zobrist, self._t.bit, self._masks
        for i, old in reversed(record.changes):
            v = cells[i]
            cells[i] = old
            self._hash ^= zobrist[i][v] ^ zobrist[i][old]
            masks[v] ^= bit[i]
            masks[old] ^= bit[i]
        (
            self._to_move, self._phase, self._mover, self._dir, self._pie, self._swapped,
            self._quiet, self._passes, self._over, self._turn_number,
        ) = record.state

    # ------------------------------------------------------------ public play
    def parse_action(self, text: str) -> Step:
        """Read a step's notation and check its cells exist on this board (not legality)."""
        step = Step.parse(text)
        for label in (step.origin, step.target):
            if label is not None:
                self._index(label)
        return step

    def play(self, step: Step | str) -> None:
        """Play one step (a :class:`Step` or its notation).

        Raises :class:`~hexgames.IllegalAction` naming the reason, leaving the position
        unchanged, when the step is malformed or not legal now.
        """
        if isinstance(step, str):
            step = Step.parse(step)
        elif not isinstance(step, Step):
            raise IllegalAction(f"not a Dendria step: {step!r}")
        try:
            if self._over is not None:
                raise IllegalAction(f"{step}: the game is over ({self._over})")
            canonical, op, check_finish = self._resolve(step)
        except IllegalAction:
            for label in (step.origin, step.target):
                if label is not None:
                    self._index(label)  # a cell off this board is the first thing to say
            raise
        self._make(op)
        if check_finish and not self._can_finish():
            self._unmake()
            raise IllegalAction(
                f"{step}: afterwards the turn could not end without repeating an earlier "
                "position (no repetition)"
            )
        self._history.append(canonical)

    def play_turn(self, turn: str | Sequence[Step | str]) -> None:
        """Play the steps of one turn and end it (all or nothing).

        ``end`` is appended unless the steps already end the turn (``end``, ``pass``,
        ``swap``). If any step is refused, every step of this call is taken back and
        :class:`~hexgames.IllegalAction` names the step and the reason.
        """
        if isinstance(turn, str):
            words: Sequence[Step | str] = turn.split()
        elif isinstance(turn, Step):
            words = [turn]
        elif isinstance(turn, (list, tuple)):
            words = list(turn)
        else:
            raise IllegalAction(
                f"a turn must be written as text (e.g. 'e5 ^d4') or given as a list of "
                f"steps, got {type(turn).__name__}"
            )
        if not words:
            raise IllegalAction("a turn needs at least one step (e.g. e5, d2-d6, pass)")
        played = 0
        try:
            for number, word in enumerate(words, start=1):
                if played and self._phase == START:
                    raise IllegalAction(f"step {number} ({word}) comes after the turn ended")
                try:
                    self.play(word)
                except IllegalAction as error:
                    raise IllegalAction(f"step {number} ({word}) refused: {error}") from None
                played += 1
            if self._phase != START:
                try:
                    self.play(END)
                except IllegalAction as error:
                    raise IllegalAction(f"cannot end the turn: {error}") from None
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
        self._unmake()
        return step

    # ------------------------------------------------------------- legality
    def _resolve(self, step: Step) -> tuple[Step, Op, bool]:
        """Check ``step`` against the rules: the step to record, the operation to make and
        whether the turn stays open (so its finishability must be checked)."""
        kind = step.kind
        if kind in ("plant", "leg", "pass", "swap") and self._phase != START:
            raise IllegalAction(
                f"{step}: a {kind} starts a turn, but this turn already began with "
                f"{self.turn_steps()[0]}; finish it (end) first"
            )
        if kind == "plant":
            return step, Plant(self._check_plant(step)), False
        if kind == "leg":
            return step, self._check_move(step, self._index(step.origin), None), True
        if kind == "pass":
            return step, _END_OPS["pass"], False
        if kind == "swap":
            if self._pie != PIE_PENDING:
                raise IllegalAction(
                    "swap: the pie rule allows it only as Light's first turn, after Dark "
                    "planted the first seed" + ("" if self._rules.pie else " (and it is off)")
                )
            return step, _END_OPS["swap"], False
        if self._phase == START:
            raise IllegalAction(
                f"{step}: a turn starts with a plant, a dendrid move or pass, not a {kind}"
            )
        if kind == "end":
            earlier = self._repeated_at_end()
            if earlier is not None:
                when = "at the start" if earlier == 0 else f"after turn {earlier}"
                raise IllegalAction(
                    f"end: the turn would end in the position that existed {when} "
                    "(no repetition)"
                )
            return step, _END_OPS["end"], False
        if kind == "continue":
            if self._phase != AFTER_STOP:
                raise IllegalAction(f"{step}: only a dendrid that moved this turn may continue")
            return step, self._check_move(step, self._mover, self._dir), True
        open_turn = self._phase == AFTER_STOP
        if kind == "sprout":
            i = self._index(step.target)
            reason = sprout_refusal(i, self._cells, self._t)
            if reason:
                raise IllegalAction(f"{step}: {reason}")
            return step, SetCells((i,), code(COLOR_OF[self._cells[i]], DENDRID)), open_turn
        if kind == "grow":
            return self._check_grow(step, open_turn)
        return self._check_convert(step, open_turn)

    def _describe(self, i: int) -> str:
        piece = _PIECES[self._cells[i]]
        return f"{self._t.board.labels[i]} ({piece or 'empty'})"

    def _check_plant(self, step: Step) -> int:
        i = self._index(step.target)
        if self._cells[i]:
            raise IllegalAction(f"{step}: {self._describe(i)} is not empty")
        if all(first >= 0 for _, first in first_on_roots(i, self._cells, self._t)):
            raise IllegalAction(
                f"{step}: every root of {step.target} has a nutrient (a seed needs at least "
                "one nutrientless root)"
            )
        return i

    def _check_move(self, step: Step, origin: int, direction: int | None) -> Move:
        geometry = self._t.board
        target = self._index(step.target)
        if direction is None and self._cells[origin] != code(self._to_move, DENDRID):
            raise IllegalAction(f"{step}: {self._describe(origin)} is not a {self.to_move} dendrid")
        d = _direction(geometry, origin, target)
        if d is None:
            raise IllegalAction(
                f"{step}: {geometry.labels[origin]} and {step.target} are not on one line"
            )
        if direction is not None and d != direction:
            raise IllegalAction(
                f"{step}: the dendrid on {geometry.labels[origin]} moves "
                f"{DIRECTION_NAMES[direction]} this turn; a continuation goes straight on"
            )
        friend = code(self._to_move, DENDRID)
        for j in geometry.rays[origin][d]:
            v = self._cells[j]
            if j == target:
                if v:
                    raise IllegalAction(
                        f"{step}: a dendrid stops only on an empty cell, not on "
                        f"{self._describe(j)}"
                    )
                break
            if v and v != friend and KIND_OF[v] != SEED:
                raise IllegalAction(f"{step}: a dendrid may not pass {self._describe(j)}")
        return Move(origin, target, d)

    def _group_at(self, step: Step, kind: int) -> Group:
        i = self._index(step.target)
        v = self._cells[i]
        what = "seed" if kind == SEED else "tree"
        if not v or KIND_OF[v] != kind:
            raise IllegalAction(f"{step}: {self._describe(i)} is not a {what}")
        group = self.analysis().group_of(i)
        assert group is not None
        return group

    def _check_grow(self, step: Step, open_turn: bool) -> tuple[Step, SetCells, bool]:
        group = self._group_at(step, SEED)
        v, members, fertile = group
        color = COLOR_OF[v]
        if not fertile:
            raise IllegalAction(f"{step}: the seedbed has no fertile soil (no empty neighbour)")
        missing = fertile & ~self.analysis().fertilized(color)
        if missing:
            raise IllegalAction(
                f"{step}: fertile soil {self._labels(cells_of_mask(missing, self._t))[0]} of "
                f"the {COLOR_NAMES[color]} seedbed is fertilized by no {COLOR_NAMES[color]} "
                "dendrid"
            )
        return self._steps.grow[members[0]], SetCells(members, code(color, TREE)), open_turn

    def _check_convert(self, step: Step, open_turn: bool) -> tuple[Step, SetCells, bool]:
        group = self._group_at(step, TREE)
        v, members, fertile = group
        mover, owner = self._to_move, COLOR_OF[v]
        a = self.analysis()
        if owner == mover:
            raise IllegalAction(f"{step}: the forest on {step.target} is already {self.to_move}")
        if not fertile:
            raise IllegalAction(f"{step}: the forest has no fertile soil (no empty neighbour)")
        missing = fertile & ~a.fertilized(mover)
        if missing:
            raise IllegalAction(
                f"{step}: fertile soil {self._labels(cells_of_mask(missing, self._t))[0]} of "
                f"the forest is fertilized by no {self.to_move} dendrid"
            )
        if not fertile & ~a.fertilized(owner):
            raise IllegalAction(
                f"{step}: every fertile soil of the forest is also fertilized by a "
                f"{COLOR_NAMES[owner]} dendrid"
            )
        return self._steps.convert[members[0]], SetCells(members, code(mover, TREE)), open_turn


def _direction(geometry: HexBoard, origin: int, target: int) -> int | None:
    """Direction from ``origin`` to ``target`` when they lie on one grid line."""
    (ox, oy), (tx, ty) = geometry.coords[origin], geometry.coords[target]
    dx, dy = tx - ox, ty - oy
    distance = max(abs(dx), abs(dy))
    if distance == 0:
        return None
    for d, (ux, uy) in enumerate(DIRECTIONS):
        if (ux * distance, uy * distance) == (dx, dy):
            return d
    return None
