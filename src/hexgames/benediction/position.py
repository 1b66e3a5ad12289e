"""The Benediction engine: a mutable position with make/unmake (``play``/``undo``), a thin
Python layer over the compiled rules core (:mod:`hexgames.benediction.core`).

Design (speed is a feature: the AI is only as strong as this is fast):

* **One implementation of the rules**: legal-action generation, play with the
  after-action rules (rules section 6), undo and the position key all run in the
  compiled core, on this position's numpy arrays (``S8``: owner, size, flags and block
  adjacency per point; ``meta``: side to act, actions left, turn, result, counters, key;
  ``FL``: the undo frames and change log). One compiled call per :meth:`play` (which
  also lists the next legal actions) and per :meth:`undo`.
* The legal actions are kept as integer codes (``lx``); :meth:`legal_actions` returns an
  :class:`ActionList` that turns a code into an :class:`Action` only when asked for it.
  Actions are shared immutable instances per board, and the core maps their identity
  back to codes, so :meth:`play` of a listed action costs a dictionary look-up and the
  compiled call, which checks that the code is in the list before changing anything.
  An action that is not legal raises :class:`IllegalAction` naming the reason (the
  explanation is worked out in Python, only for refused actions).
* The pure-Python engine this replaced lives on in the tests as an independent oracle
  (``tests/oracles/benediction_position.py``); differential tests compare the two at
  every step of many random games.

Public read API (for the AI and for engines built on this one; python-chess exposes its
bitboards the same way). Every point has an index (see :mod:`hexgrid` for the order;
``position.board.labels[i]`` is its label, ``position.board.index(label)`` its index):

* :attr:`Position.owners` ``[i]``: ``EMPTY=0``, ``RED=1``, ``BLUE=2`` or ``BLOCK=3``;
  :attr:`Position.sizes` ``[i]``: checkers in the man (0 when none);
  :attr:`Position.flags` ``[i]``: bit mask ``KING=1, BLESSED=2, CURSED=4, LOCKED=8``.
  These are *live read-only views* (read-only numpy int8 arrays, no copy): they follow
  ``play``/``undo``; take ``tuple(...)`` or ``.tolist()`` for a snapshot.
* :attr:`Position.to_move_code` (``RED``/``BLUE``), :attr:`Position.checker_counts`
  ``[code]`` (checkers of a colour on the board), :attr:`Position.tables` (the
  precomputed geometry of the board side: walls, portal rays, block adjacency; see
  :class:`hexgames.benediction._tables.Tables`), :attr:`Position.start_text`.
* :meth:`Position.reach_indices` ``(i, steps, color) -> {target: passed_wall}`` and the
  label-based :meth:`Position.reach`.

The codes are importable from this module (``from hexgames.benediction.position import
RED, KING``). Only this module touches a position's ``_`` attributes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, overload

import numpy as np

from hexgames._jit import direct
from hexgames.benediction import _position_kernels as _kernels
from hexgames.benediction._layout import (
    FRAME_LEN,
    M_ACTED,
    M_AL,
    M_BK,
    M_BKEY,
    M_CNT,
    M_FCAP,
    M_LCAP,
    M_LOGGING,
    M_NFRAME,
    M_NLOG,
    M_REASON,
    M_TO,
    M_TURN,
    M_WIN,
    MASK64,
    REASONS,
    WIN_DRAW,
    WIN_NONE,
    meta_at,
    pb_len,
)
from hexgames.benediction._refusal import explain, merge_problem, point_of
from hexgames.benediction._tables import (
    BLESSED,
    BLOCK,
    BLUE,
    COLOR_NAMES,
    CURSED,
    EMPTY,
    KING,
    LOCKED,
    MAX_TRAVEL,
    RED,
    Tables,
    tables,
)
from hexgames.benediction.actions import Action
from hexgames.benediction.core import CoreState, core_for, random_playouts
from hexgames.benediction.rules import START_CHECKERS, Rules, Termination
from hexgames.benediction.textformat import TextPosition, format_text, parse_text
from hexgames.errors import IllegalAction
from hexgames.game import HistoryView, Outcome, reason_of
from hexgames.hexgrid import HexBoard
from hexgames.phrases import Phrase

_COLOR_CODE = {"red": RED, "blue": BLUE}


def _first_play(*args: Any) -> int:
    """The first play of the process: numba's dispatcher compiles or loads the code,
    then later plays call that code directly (:func:`hexgames._jit.direct`: the
    arguments of a position always have the same types), skipping the type dispatch."""
    global _pos_play
    m: int = _kernels.pos_play(*args)
    _pos_play = direct(_kernels.pos_play, args)
    return m


def _first_undo(*args: Any) -> int:
    """As :func:`_first_play`, for undo."""
    global _pos_undo
    m: int = _kernels.pos_undo(*args)
    _pos_undo = direct(_kernels.pos_undo, args)
    return m


_pos_play: Any = _first_play
_pos_undo: Any = _first_undo
_pos_generate = _kernels.pos_generate
#: Room for undo frames and log entries a new position starts with (grows as needed).
_FRAMES0 = 64
_refcount = sys.getrefcount


class _Holder:
    __slots__ = ("_spare",)
    _spare: np.ndarray


def _free_refcount() -> int:
    """What :func:`sys.getrefcount` says of a buffer held only by a position's slot and
    one local variable, in the shape :meth:`Position.play` asks it (measured, not
    assumed: interpreters differ in the references a call borrows)."""
    holder = _Holder()
    holder._spare = np.zeros(1, np.int32)
    out = holder._spare
    return _refcount(out)


#: A spare list buffer whose count is above this is still held (by an ActionList).
_FREE = _free_refcount()


class UndoRecord(NamedTuple):
    """What undoing one action restored in the pure-Python engine (kept for
    compatibility; the compiled core keeps its own undo frames)."""

    action: Action
    to_move: int
    actions_left: int
    acted: int
    turn: int
    winner: int
    reason: Termination | None
    locked: tuple[int, ...]
    #: ``(point, old_owner, old_size, old_flags)`` per change, in the order made.
    changes: tuple[tuple[int, int, int, int], ...]
    #: Point of the block the action placed, ``-1`` when none.
    block_at: int


@dataclass(frozen=True, slots=True)
class Man:
    """A man as the outside world sees it (the engine keeps flat arrays instead)."""

    color: str
    size: int
    king: bool = False
    blessed: bool = False
    cursed: bool = False
    locked: bool = False


class ActionList(Sequence[Action]):
    """The legal actions of a position, in the engine's order: a read-only sequence of
    :class:`Action` over the engine's integer codes, each turned into its (shared) action
    only when read. It is a snapshot: playing on the position does not change it (the
    position then lists into a new buffer). Compares equal to a list or tuple of the same
    actions; ``list(...)`` for a real list."""

    __slots__ = ("_acts", "_lx", "_m")

    def __init__(self, lx: np.ndarray, m: int, acts: dict[int, Action]) -> None:
        self._lx = lx
        self._m = m
        self._acts = acts

    @property
    def _codes(self) -> list[int]:
        return self._lx[: self._m].tolist()  # type: ignore[no-any-return]

    def __len__(self) -> int:
        return self._m

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if type(index) is int and 0 <= index < self._m:  # the common case first
            return self._acts[self._lx.item(index)]
        if isinstance(index, slice):
            acts = self._acts
            return [acts[c] for c in self._codes[index]]
        m = self._m
        if not -m <= index < m:
            raise IndexError("action index out of range")
        return self._acts[self._lx.item(index if index >= 0 else m + index)]

    def __iter__(self) -> Iterator[Action]:
        return map(self._acts.__getitem__, self._codes)

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Action):
            return False
        return any(a == action for a in self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ActionList):
            return list(self) == list(other)
        if isinstance(other, (list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Iterable[Action]) -> list[Action]:
        return [*self, *other]

    def __radd__(self, other: Iterable[Action]) -> list[Action]:
        return [*other, *self]

    def copy(self) -> list[Action]:
        return list(self)

    def __repr__(self) -> str:
        return repr(list(self))


_new_list = ActionList.__new__


def _readonly(view: np.ndarray) -> np.ndarray:
    view.flags.writeable = False
    return view


class Position:
    """A Benediction position with its history; mutate with :meth:`play`/:meth:`undo`.

    Create one with :meth:`initial` or :meth:`from_text`.
    """

    __slots__ = (
        "_CW",
        "_FL",
        "_PB",
        "_acts",
        "_core",
        "_fv",
        "_history",
        "_ids",
        "_is_start",
        "_lcodes",
        "_lx",
        "_meta",
        "_nleg",
        "_ov",
        "_rules",
        "_spare",
        "_start_text",
        "_starts",
        "_sv",
        "_tables",
        "_zone",
    )

    # ------------------------------------------------------------ construction
    def __init__(
        self,
        rules: Rules | None = None,
        starts: tuple[str, str] | None = None,
    ) -> None:
        """An empty board (no men, no blocks), Red to act with two actions.

        Prefer :meth:`initial` and :meth:`from_text`; this is their common ground.
        ``starts`` names Red's and Blue's starting points (default: the standard ones).
        """
        if rules is not None and not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Benediction Rules object, got {rules!r}")
        self._rules = rules if rules is not None else Rules()
        t = self._tables = tables(self._rules.board_side)
        n = len(t.board.labels)
        side = self._rules.board_side
        if starts is None:
            red_start = t.board.index_at(side - 1, 1)
            blue_start = t.board.index_at(side - 1, 2 * side - 3)
        else:
            if not isinstance(starts, (tuple, list)) or len(starts) != 2:
                raise ValueError(f"starts must be two point labels, got {starts!r}")
            red_start, blue_start = (self._point(label) for label in starts)
            if red_start == blue_start:
                raise ValueError(Phrase("the two starting points must differ"))
        self._starts = (red_start, blue_start)
        self._is_start = [i in self._starts for i in range(n)]
        self._zone = (
            (),
            (red_start, *t.board.neighbours[red_start]),
            (blue_start, *t.board.neighbours[blue_start]),
        )
        core = self._core = core_for(self._rules, self._starts)
        self._CW = core.CW
        self._acts, self._ids = core.actions, core.ids
        self._PB = np.zeros(pb_len(n), np.int8)
        self._views()
        meta = self._meta
        meta[M_TO] = RED
        meta[M_AL] = 2
        meta[M_TURN] = 1
        meta[M_LOGGING] = 1
        lcap = 4 * n + 64
        meta[M_FCAP] = _FRAMES0
        meta[M_LCAP] = lcap
        self._FL = np.zeros(_FRAMES0 * FRAME_LEN + lcap * 4, np.int64)
        self._lx = np.zeros(256, np.int32)
        self._spare = np.zeros(256, np.int32)
        self._nleg = 0
        self._lcodes: ActionList | None = None
        self._history: list[Action] = []
        self._start_text: str | None = None
        self._regenerate()

    def _views(self) -> None:
        """Views of ``_PB``: the board arrays (read-only) and ``_meta``."""
        n = len(self._is_start)
        pb = self._PB
        self._ov = _readonly(pb[:n])
        self._sv = _readonly(pb[n : 2 * n])
        self._fv = _readonly(pb[2 * n : 3 * n])
        self._meta = pb[meta_at(n) :].view(np.int64)

    def _regenerate(self) -> None:
        """List the legal actions again (after the board was written whole)."""
        if self._lcodes is not None:  # an ActionList handed out keeps its buffer
            self._lx = np.empty(len(self._lx), np.int32)
        while True:
            m = _pos_generate(self._CW, self._PB, self._lx)
            if m >= 0:
                break
            self._lx = np.zeros(max(-3 - m, 2 * len(self._lx)), np.int32)
        self._nleg = m
        self._lcodes = None

    @classmethod
    def initial(cls, rules: Rules | None = None) -> Position:
        """The start position: each side's king on its starting point and a single man
        on each other point of its zone; Red acts, with ``rules.first_turn_actions``."""
        p = cls(rules)
        n = len(p._is_start)
        s8 = p._PB
        p._core.set_up(s8[:n], s8[n : 2 * n], s8[2 * n : 3 * n])
        p._meta[M_AL] = p._rules.first_turn_actions
        _kernels.pos_recount(p._CW, s8)
        p._regenerate()
        return p

    @classmethod
    def from_text(cls, text: str, rules: Rules | None = None) -> Position:
        """Read the board-text format (rules section 8); ``ValueError`` names line and
        column when malformed. Every turn from a position read from text has 2 actions.

        Without ``rules`` the board side is taken from the standard starting points the
        header names (d2/d6 -> 4, e2/e8 -> 5, f2/f10 -> 6, g2/g12 -> 7), else 5.
        """
        if rules is not None and not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Benediction Rules object, got {rules!r}")
        return cls._load(parse_text(text, rules))

    @classmethod
    def _load(cls, parsed: TextPosition) -> Position:
        """The position a parsed board text describes (the parser has checked it)."""
        p = cls(parsed.rules, starts=parsed.starts)
        index = p._tables.index
        n = len(p._is_start)
        s8 = p._PB
        for label, (color, size, flags) in parsed.men.items():
            i = index[label]
            s8[i], s8[n + i], s8[2 * n + i] = color, size, flags
        for label in parsed.blocks:
            s8[index[label]] = BLOCK
        meta = p._meta
        _kernels.pos_recount(p._CW, s8)
        winner = parsed.winner
        if winner == WIN_NONE:
            meta[M_TO] = parsed.to_move
            meta[M_AL] = parsed.actions_left
            meta[M_ACTED] = 2 - parsed.actions_left
            p._regenerate()
            if p._nleg == 0:  # rule 6.6: the player due to act has no legal action
                meta[M_WIN] = 3 - parsed.to_move
                meta[M_REASON] = REASONS.index(Termination.NO_LEGAL_ACTION)
        elif winner == WIN_DRAW:
            meta[M_WIN] = WIN_DRAW
            meta[M_REASON] = REASONS.index(Termination.TURN_LIMIT)
        else:
            meta[M_TO] = 3 - winner
            meta[M_WIN] = winner
            if parsed.king_taken:
                reason = Termination.KING_CAPTURED
            elif meta[M_BK + winner]:
                reason = Termination.BLESSED_KING
            else:
                reason = Termination.NO_LEGAL_ACTION
            meta[M_REASON] = REASONS.index(reason)
        if meta[M_WIN]:
            meta[M_AL] = 0
        p._regenerate()
        p._start_text = p.to_text()
        return p

    def to_text(self) -> str:
        """The board-text format (rules section 8, plus the ``l`` locked suffix)."""
        labels = self._tables.board.labels
        owner, size, flags = self._ov.tolist(), self._sv.tolist(), self._fv.tolist()
        meta = self._meta
        return format_text(
            TextPosition(
                rules=self._rules,
                starts=self.starting_points,
                men={
                    labels[i]: (o, size[i], flags[i])
                    for i, o in enumerate(owner)
                    if o in (RED, BLUE)
                },
                blocks=[labels[i] for i, o in enumerate(owner) if o == BLOCK],
                to_move=int(meta[M_TO]),
                actions_left=int(meta[M_AL]),
                winner=int(meta[M_WIN]),
                king_taken=self._reason_code() == Termination.KING_CAPTURED,
            )
        )

    def __str__(self) -> str:
        return self.to_text()

    def copy(self) -> Position:
        """An independent position with the same state and history (undo still works)."""
        other = object.__new__(Position)
        for name in Position.__slots__:
            setattr(other, name, getattr(self, name))
        other._PB = self._PB.copy()
        other._FL = self._FL.copy()
        other._lx = self._lx.copy()
        other._spare = other._lx  # shared with _lx: the first play lists into a new one
        other._lcodes = None
        other._history = list(self._history)
        other._views()
        return other

    def __copy__(self) -> Position:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        return self.copy()

    def __reduce__(self) -> tuple[Any, ...]:
        labels = self._tables.board.labels
        state = (
            self._rules, (labels[self._starts[0]], labels[self._starts[1]]), self._PB,
            self._FL, list(self._history), self._start_text,
        )
        return _restore, state

    def __repr__(self) -> str:
        return f"Position.from_text({self.to_text()!r})"

    # ----------------------------------------------------------------- queries
    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def board(self) -> HexBoard:
        """The shared geometry (labels, coordinates, neighbours) of this board side."""
        return self._tables.board

    @property
    def to_move(self) -> str:
        """Colour to act now. Once the game is over: the loser (after a draw: the side
        that was due to act)."""
        return COLOR_NAMES[self._meta.item(M_TO)]

    @property
    def current_seat(self) -> int:
        return int(self._meta.item(M_TO)) - 1

    @property
    def actions_left(self) -> int:
        """Actions the player to act still has in this turn (1 or 2; 0 once over)."""
        return int(self._meta.item(M_AL))

    @property
    def turn_number(self) -> int:
        """1-based count of turns (one player's one or two actions) from the start."""
        return int(self._meta.item(M_TURN))

    @property
    def is_over(self) -> bool:
        # a position with legal actions goes on (the core lists none once it is over)
        return not self._nleg and self._meta.item(M_WIN) != WIN_NONE

    @property
    def winner(self) -> str | None:
        """``"red"``, ``"blue"``, ``"draw"`` (only by the ``max_turns`` cap) or ``None``."""
        return (None, "red", "blue", "draw")[self._meta.item(M_WIN)]

    def _reason_code(self) -> Termination | None:
        return REASONS[self._meta.item(M_REASON)]

    @property
    def win_reason(self) -> str | None:
        """Why the game ended, in words (``outcome().termination.value``): ``"king
        captured"``, ``"blessed king"``, ``"no legal action"``, ``"turn limit"``; ``None``
        while the game goes on. Kept for compatibility; prefer :meth:`outcome`."""
        reason = self._reason_code()
        return None if reason is None else reason.value

    def outcome(self) -> Outcome | None:
        """How the game ended by the rules, ``None`` while it goes on: the
        :class:`Termination`, the winning colour and seat (``None`` for a draw by the
        ``max_turns`` cap). Resignations and timeouts are decided outside the engine."""
        winner = self._meta.item(M_WIN)
        if winner == WIN_NONE:
            return None
        reason = self._reason_code()
        assert reason is not None
        if winner == WIN_DRAW:
            return Outcome(reason, None, None)
        return Outcome(reason, COLOR_NAMES[winner], winner - 1)

    @property
    def key(self) -> int:
        """Zobrist hash of men, flags, locks, blocks, side to act, actions left and result
        (the supply is a function of the men). Not the turn number."""
        meta = self._meta
        t = self._tables
        w = meta.item(M_WIN)
        if w:
            skey = t.zwin[w]
        else:
            skey = (t.zblue if meta.item(M_TO) == BLUE else 0) ^ (
                t.ztwo if meta.item(M_AL) == 2 else 0
            )
        return (meta.item(M_BKEY) & MASK64) ^ skey

    @property
    def history(self) -> HistoryView[Action]:
        """Actions played since the start position, oldest first: a live read-only view
        (O(1) ``len`` and indexing; ``list(...)`` for a snapshot)."""
        return HistoryView(self._history)

    @property
    def last_action(self) -> Action | None:
        """The most recent action, ``None`` at the start position (O(1))."""
        history = self._history
        return history[-1] if history else None

    @property
    def ply(self) -> int:
        """Number of actions played since the start position (O(1))."""
        return len(self._history)

    # ---------------------------------------------------------- board arrays
    @property
    def owners(self) -> Sequence[int]:
        """Per point index: ``EMPTY``, ``RED``, ``BLUE`` or ``BLOCK`` (0..3). A live
        read-only view of the engine's array (a read-only numpy int8 array, no copy)."""
        return self._ov  # type: ignore[return-value]

    @property
    def sizes(self) -> Sequence[int]:
        """Per point index: checkers in the man there (0 when none). Live, read-only."""
        return self._sv  # type: ignore[return-value]

    @property
    def flags(self) -> Sequence[int]:
        """Per point index: bit mask ``KING | BLESSED | CURSED | LOCKED`` of the man
        there (0 when none). Live, read-only."""
        return self._fv  # type: ignore[return-value]

    @property
    def to_move_code(self) -> int:
        """:attr:`to_move` as a colour code (``RED`` or ``BLUE``)."""
        return int(self._meta.item(M_TO))

    @property
    def checker_counts(self) -> Sequence[int]:
        """``[0, red, blue]``: checkers of each colour code on the board (a snapshot)."""
        meta = self._meta
        return [0, meta.item(M_CNT + RED), meta.item(M_CNT + BLUE)]

    @property
    def tables(self) -> Tables:
        """The precomputed geometry of this board side, shared by every position of
        that side (walls ``wall``/``wall_points``, portal ``rays``, ``block_adjacent``,
        label ``index``; see :class:`hexgames.benediction._tables.Tables`). Read only."""
        return self._tables

    @property
    def start_text(self) -> str | None:
        """Board text of the position the history starts from when it was read from
        text (:meth:`from_text`); ``None`` for a game from :meth:`initial`."""
        return self._start_text

    @property
    def blocks(self) -> set[str]:
        labels = self._tables.board.labels
        return {labels[i] for i in np.flatnonzero(self._ov == BLOCK).tolist()}

    @property
    def starting_points(self) -> tuple[str, str]:
        """Red's and Blue's starting points (labels)."""
        labels = self._tables.board.labels
        return labels[self._starts[0]], labels[self._starts[1]]

    def zone(self, color: str) -> tuple[str, ...]:
        """Labels of a player's zone: their starting point and its neighbours."""
        labels = self._tables.board.labels
        return tuple(labels[i] for i in self._zone[_color_code(color)])

    def wall(self, color: str) -> tuple[str, ...]:
        """Labels of a player's own wall (Red: the bottom sides, Blue: the top sides)."""
        labels = self._tables.board.labels
        return tuple(labels[i] for i in self._tables.wall_points[_color_code(color)])

    def man_at(self, label: str) -> Man | None:
        """The man on a point, or ``None`` when it is empty or holds a block."""
        return self._man(self._point(label))

    def men(self) -> dict[str, Man]:
        """Every man on the board by label."""
        return dict(self.iter_men())

    def supply_left(self, color: str) -> int | None:
        """Checkers a player may still drop (``None`` when the supply is unlimited)."""
        supply = self._rules.supply
        if supply is None:
            return None
        return max(0, supply + START_CHECKERS - self.checker_counts[_color_code(color)])

    def seat_of(self, color: str) -> int:
        return _color_code(color) - 1

    def color_of_seat(self, seat: int) -> str:
        if not _is_int(seat) or seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        return COLOR_NAMES[seat + 1]

    def returns(self) -> tuple[float, float]:
        winner = self._meta.item(M_WIN)
        if winner == RED:
            return (1.0, -1.0)
        if winner == BLUE:
            return (-1.0, 1.0)
        return (0.0, 0.0)

    def is_turn_start(self) -> bool:
        return self._meta.item(M_ACTED) == 0

    def parse_action(self, text: str) -> Action:
        """Read notation into an :class:`Action` whose points exist on this board
        (legality is checked by :meth:`play`)."""
        action = Action.parse(text)
        for label in (action.origin, action.target):
            if label is not None and label not in self._tables.index:
                raise IllegalAction("{point} is not a point of a side-{side} board",
                                    point=label, side=self.board.side)
        return action

    def reach(
        self, origin: str, steps_max: int | None = None, color: str | None = None
    ) -> list[tuple[int, bool]]:
        """Points a stack can travel to from ``origin``: ``(target_index, passed_wall)``.

        ``steps_max`` defaults to the size of the man there (1 on an empty point) and
        ``color`` to its colour (else the player to act); it decides the portal.
        """
        i = self._point(origin)
        if steps_max is not None and not _is_int(steps_max):
            raise ValueError(f"steps_max must be an integer or None, got {steps_max!r}")
        owner = self._ov.item(i)
        steps = steps_max if steps_max is not None else max(1, self._sv.item(i))
        code = _color_code(color) if color is not None else (
            owner if owner in (RED, BLUE) else self.to_move_code
        )
        return list(self.reach_indices(i, steps, code).items())

    def reach_indices(self, origin: int, steps: int, color: int) -> dict[int, bool]:
        """``{target: passed_wall}`` for a stack of colour code ``color`` (``RED`` or
        ``BLUE``) and at most ``steps`` steps from point index ``origin`` (destination !=
        origin; blocks stop). ``ValueError`` for an index, steps or colour out of range."""
        n = len(self._is_start)
        ints = type(origin) is int and type(steps) is int and type(color) is int
        if not ints and _is_int(color) and _is_int(origin) and _is_int(steps):
            origin, steps, color = int(origin), int(steps), int(color)
            ints = True
        if not ints or color not in (RED, BLUE) or not 0 <= origin < n:
            raise ValueError(
                f"reach_indices needs a point index 0..{n - 1}, integer "
                f"steps and a colour code RED=1 or BLUE=2, got ({origin!r}, {steps!r}, "
                f"{color!r})"
            )
        steps = min(steps, MAX_TRAVEL)
        if steps < 1:
            return {}
        out = np.empty((n, 2), np.int64)
        m = _kernels.pos_reach(self._CW, self._PB, origin, steps, color, out)
        return {j: p == 1 for j, p in out[:m].tolist()}

    # ------------------------------------------------------------- generation
    def legal_actions(self) -> ActionList:
        """Every legal action exactly once (empty when the game is over), as a lazy
        read-only sequence (see :class:`ActionList`)."""
        listed = self._lcodes
        if listed is None:  # ActionList(...) without the Python-level __init__ call
            listed = self._lcodes = _new_list(ActionList)
            listed._lx = self._lx
            listed._m = self._nleg
            listed._acts = self._acts
        return listed

    def immediate_wins(self) -> list[Action]:
        """The legal actions after which the player to act has won at once: an enemy
        king captured, a blessed king, or the opponent left without a legal action
        (each tried and taken back inside one compiled call)."""
        if not self._nleg:
            return []
        out = np.empty(self._nleg, np.int32)
        while True:
            k = _kernels.pos_wins(self._CW, self._PB, self._FL, self._lx, self._nleg, out)
            if k != -2:
                break
            self._grow()
        acts = self._acts
        return [acts[c] for c in out[:k].tolist()]

    def legal_action_count(self) -> int:
        """``len(legal_actions())`` without listing them."""
        return self._nleg

    def _start_arrays(self) -> tuple[np.ndarray, ...]:
        """``(owner, size, flags, near, meta)``: views of this position's board arrays and
        a copy of its meta without the undo log, what a :class:`~.core.CoreState` or a
        batch of random games starts from."""
        n = len(self._is_start)
        pb = self._PB
        meta = self._meta.copy()
        meta[M_NLOG] = meta[M_NFRAME] = 0
        return pb[:n], pb[n : 2 * n], pb[2 * n : 3 * n], pb[3 * n : 4 * n], meta

    def core_state(self) -> CoreState:
        """This position (without its history) as a :class:`~.core.CoreState`, the form
        the batched kernels (random playouts) start from: a copy of the arrays."""
        s = CoreState(self._core)
        s.owner[:], s.size[:], s.flags[:], s.near[:], s.meta[:] = self._start_arrays()
        s.meta[M_LOGGING] = 1
        return s

    def random_playouts(
        self, games: int, seed: int = 0, max_actions: int = 100_000
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """``(winners, lengths, actions)`` of ``games`` random games from this position,
        as :meth:`~.core.CoreState.random_playouts` of :meth:`core_state` gives them, but
        without building a ``CoreState``: the compiled call copies this position's arrays
        itself (an MCTS leaf calls this once per iteration; the ``CoreState`` cost about
        a third as much as the whole random game)."""
        c = self._core
        winners = np.zeros(games, np.int64)
        lengths = np.zeros(games, np.int64)
        total = random_playouts(c.geo, c.params, *self._start_arrays(), games, seed,
                                      max_actions, winners, lengths)
        return winners, lengths, int(total)

    # ------------------------------------------------------------------- play
    def play(self, action: Action | str) -> None:
        """Play one action (an :class:`Action` or its notation).

        Raises :class:`IllegalAction` naming the reason, leaving the position unchanged.
        """
        # a listed (shared) Action is known by identity, before any type check
        act: Action = action  # type: ignore[assignment]
        ext = self._ids.get(id(act))
        if ext is None:
            if isinstance(action, str):
                act = self.parse_action(action)
            elif not isinstance(action, Action):
                raise IllegalAction("not a Benediction action: {action}", action=repr(action))
            ext = self._ids.get(id(act))
            if ext is None:
                ext = self._ext_of(act)
        lx = self._lx
        if self._lcodes is None:
            out = lx
        else:  # an ActionList handed out keeps the current buffer: list into another
            out = self._spare
            if _refcount(out) > _FREE:  # an earlier ActionList still holds the spare
                out = np.empty(len(lx), np.int32)
        m = _pos_play(self._CW, self._PB, self._FL, lx, out, self._nleg, ext)
        if m < 0:
            self._play_slow(act, ext, m, lx, out)
        else:
            if out is not lx:
                self._spare = lx
                self._lx = out
            self._nleg = m
            self._lcodes = None
        self._history.append(act)

    def _ext_of(self, action: Action) -> int:
        try:
            return self._core.ext_of(action)
        except KeyError:
            for label in (action.origin, action.target):
                point_of(self, label)
            raise

    def _play_slow(
        self, action: Action, ext: int, m: int, lx: np.ndarray, out: np.ndarray
    ) -> None:
        """The rare outcomes of the compiled play: refused (raises), out of log room
        (grows it and plays), or a legal list longer than ``out`` (lists again into a
        larger buffer)."""
        while m == -2:
            self._grow()
            m = _pos_play(self._CW, self._PB, self._FL, lx, out, self._nleg, ext)
        if m == -1:
            explain(self, action)
            raise IllegalAction("{action} is not a legal action here", action=str(action))
        self._lcodes = None
        if out is not lx:
            self._spare = lx
        if m < 0:
            self._lx = np.zeros(max(-3 - m, 2 * len(out)), np.int32)
            self._regenerate()
        else:
            self._lx = out
            self._nleg = m

    def _grow(self) -> None:
        """Double the room for undo frames and log entries."""
        self._FL = _kernels.doubled_room(self._meta, self._FL)

    # ------------------------------------------------------------------- undo
    def undo(self) -> Action:
        """Take back the last action and return it (unlimited; ``IndexError`` at the
        start)."""
        if not self._history:
            raise IndexError("no action to take back: this is the start position")
        lx = self._lx
        if self._lcodes is None:
            out = lx
        else:  # as in play: the spare buffer unless an ActionList still holds it
            out = self._spare
            if _refcount(out) > _FREE:
                out = np.empty(len(lx), np.int32)
        m = _pos_undo(self._CW, self._PB, self._FL, out)
        if m < 0:
            self._regenerate()
        else:
            if out is not lx:
                self._spare = lx
                self._lx = out
            self._nleg = m
            self._lcodes = None
        return self._history.pop()

    # ------------------------------------------------------------- primitives
    def _point(self, label: str) -> int:
        """Index of a label (case-insensitive); :class:`IllegalAction` when it is not a
        point of this board."""
        if not isinstance(label, str):
            raise IllegalAction("a point label such as 'e3' is needed, got {label}",
                                label=repr(label))
        try:
            return self._tables.board.index(label)
        except ValueError as exc:
            raise IllegalAction(reason_of(exc)) from None

    def _man(self, i: int) -> Man | None:
        o = self._ov.item(i)
        if o != RED and o != BLUE:
            return None
        f = self._fv.item(i)
        return Man(
            COLOR_NAMES[o], self._sv.item(i), bool(f & KING), bool(f & BLESSED),
            bool(f & CURSED), bool(f & LOCKED),
        )

    def iter_men(self) -> Iterator[tuple[str, Man]]:
        """``(label, man)`` for every man, in index order."""
        labels = self._tables.board.labels
        for i, o in enumerate(self._ov.tolist()):
            if o in (RED, BLUE):
                yield labels[i], self._man(i)  # type: ignore[misc]

    def turn_ends(self) -> list[bool]:
        """For each action of :attr:`history`: whether it ended its turn (for records)."""
        frames = self._meta.item(M_NFRAME)
        al = self._FL[1 : frames * FRAME_LEN : FRAME_LEN]
        return [bool(x) for x in (al == 1).tolist()]


def _restore(
    rules: Rules, starts: tuple[str, str], pb: np.ndarray, fl: np.ndarray,
    history: list[Action], start_text: str | None,
) -> Position:
    """Rebuild a pickled :class:`Position`."""
    p = Position(rules, starts)
    p._PB[:] = pb
    p._FL = np.array(fl, np.int64)
    p._history = list(history)
    p._start_text = start_text
    p._views()
    p._regenerate()
    return p


def _is_int(value: object) -> bool:
    return type(value) is int or (
        isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    )


def _color_code(color: str) -> int:
    try:
        return _COLOR_CODE[color.strip().lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"colour must be 'red' or 'blue', got {color!r}") from None


__all__ = [
    "BLESSED",
    "BLOCK",
    "BLUE",
    "CURSED",
    "EMPTY",
    "KING",
    "LOCKED",
    "RED",
    "START_CHECKERS",
    "ActionList",
    "Man",
    "Position",
    "Termination",
    "UndoRecord",
    "merge_problem",
]
