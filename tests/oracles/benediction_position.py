"""The test oracle: the pure-Python Benediction engine that the product used before its
rules moved into the compiled core (:mod:`hexgames.benediction.core`).

It is kept here, independent of the core, so that differential tests can compare the
product's :class:`hexgames.benediction.Position` (a thin layer over the core) with a
second implementation of the same rules at every step of many random games
(``tests/test_benediction_core.py``, ``tests/test_benediction_thin.py``). Its public API is the
product's; the text below is its original design note.


Design (speed is a feature: the AI is only as strong as this is fast):

* State lives in flat lists indexed by point (see :mod:`hexgrid` for the index order);
  every geometric question is a lookup in :mod:`._tables` (portal rays, walls, block
  adjacency), computed once per board side.
* ``play`` keeps one :class:`UndoRecord` per action: the compact change records
  ``(point, old_owner, old_size, old_flags)`` plus a few scalars; ``undo`` replays the
  changes backwards. No copies.
* The Zobrist key is kept up to date by the single mutation primitive ``_put``.
* Actions are shared immutable instances per board (``Tables.move_row`` etc.), so the
  generator never constructs objects. ``legal_actions`` remembers, by key, whether each
  listed action passes the enemy wall, so ``play`` of a listed action skips validation;
  any other action is validated on its own, and a refused action raises
  :class:`IllegalAction` before anything changes.
* Reach (where a stack can travel) depends only on the blocks on its rays, since men are
  jumped: results are cached per board side, keyed by origin, colour, steps and the
  blocks among the ray points (``_bm`` is the bit mask of blocks).

Public read API (for the AI and for engines built on this one; python-chess exposes its
bitboards the same way). Every point has an index (see :mod:`hexgrid` for the order;
``position.board.labels[i]`` is its label, ``position.board.index(label)`` its index):

* :attr:`Position.owners` ``[i]``: ``EMPTY=0``, ``RED=1``, ``BLUE=2`` or ``BLOCK=3``;
  :attr:`Position.sizes` ``[i]``: checkers in the man (0 when none);
  :attr:`Position.flags` ``[i]``: bit mask ``KING=1, BLESSED=2, CURSED=4, LOCKED=8``.
  These are *live read-only views* (no copy, so cheap in a search): they follow
  ``play``/``undo`` and must never be mutated; take ``tuple(...)`` for a snapshot.
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

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from hexgames.benediction._tables import (
    BLESSED,
    BLOCK,
    BLUE,
    COLOR_NAMES,
    CURSED,
    DROP,
    EMPTY,
    KING,
    LOCKED,
    MAX_TRAVEL,
    MERGE,
    MOVE,
    PLACE_BLOCK,
    RED,
    SPLIT,
    Tables,
    tables,
)
from hexgames.benediction.actions import Action
from hexgames.benediction.rules import START_CHECKERS, Rules, Termination
from hexgames.benediction.textformat import TextPosition, format_text, parse_text
from hexgames.errors import IllegalAction
from hexgames.game import HistoryView, Outcome
from hexgames.hexgrid import HexBoard

_KIND_CODE = {"move": MOVE, "merge": MERGE, "split": SPLIT, "drop": DROP, "block": PLACE_BLOCK}
_NO_PATH = 1 << 20
#: Entries of the shared reach cache before it is emptied (bounds memory in long runs).
REACH_CACHE_LIMIT = 50_000
_WIN_NONE, _DRAW = 0, 3
_COLOR_CODE = {"red": RED, "blue": BLUE}


class UndoRecord(NamedTuple):
    """What :meth:`Position.undo` needs to take back one action (kept per action)."""

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


_new_record = tuple.__new__  # builds an UndoRecord without a Python-level call


@dataclass(frozen=True, slots=True)
class Man:
    """A man as the outside world sees it (the engine keeps flat lists instead)."""

    color: str
    size: int
    king: bool = False
    blessed: bool = False
    cursed: bool = False
    locked: bool = False


def merge_problem(
    src_flags: int, src_size: int, tgt_flags: int, tgt_size: int, passed: bool, max_stack: int
) -> str | None:
    """Why a merge (or split-merge) is illegal, or ``None`` when conditions 1-4 hold.

    ``passed``: the source's path passed the enemy wall; a non-cursed source gains a
    blessing on the way, which satisfies conditions 2 and 3.
    """
    if src_flags & tgt_flags & KING:
        return "two kings may not merge"
    gains = passed and not src_flags & CURSED
    if src_flags & CURSED and not tgt_flags & BLESSED:
        return "a cursed man may only merge onto a blessed man"
    if tgt_flags & CURSED and not (src_flags & BLESSED or gains):
        return "merging onto a cursed man needs a blessed source or a blessing on the way"
    total = src_size + tgt_size
    if total > 2 and not (src_flags & BLESSED or tgt_flags & BLESSED or gains):
        return (
            f"a stack of {total} needs a blessing: one of the men blessed, "
            "or the source passing the enemy wall"
        )
    if total > max_stack:
        return f"the stack would have {total} checkers; the largest allowed is {max_stack}"
    return None


class Position:
    """A Benediction position with its history; mutate with :meth:`play`/:meth:`undo`.

    Create one with :meth:`initial` or :meth:`from_text`.
    """

    __slots__ = (
        "_acted",
        "_al",
        "_bk",
        "_bkey",
        "_bm",
        "_changes",
        "_count",
        "_flags",
        "_history",
        "_is_start",
        "_legal",
        "_legal_key",
        "_locked",
        "_near",
        "_owner",
        "_reason",
        "_rules",
        "_size",
        "_skey",
        "_start_text",
        "_starts",
        "_tables",
        "_to_move",
        "_turn",
        "_undo",
        "_winner",
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
        self._owner = [EMPTY] * n
        self._size = [0] * n
        self._flags = [0] * n
        self._near = [0] * n
        self._count = [0, 0, 0]
        self._bk = [0, 0, 0]
        self._bkey = 0
        side = self._rules.board_side
        if starts is None:
            red_start = t.board.index_at(side - 1, 1)
            blue_start = t.board.index_at(side - 1, 2 * side - 3)
        else:
            if not isinstance(starts, (tuple, list)) or len(starts) != 2:
                raise ValueError(f"starts must be two point labels, got {starts!r}")
            red_start, blue_start = (self._point(label) for label in starts)
            if red_start == blue_start:
                raise ValueError("the two starting points must differ")
        self._starts = (red_start, blue_start)
        self._is_start = [i in self._starts for i in range(n)]
        self._zone = (
            (),
            (red_start, *t.board.neighbours[red_start]),
            (blue_start, *t.board.neighbours[blue_start]),
        )
        self._to_move = RED
        self._al = 2
        self._acted = 0
        self._turn = 1
        self._winner = _WIN_NONE
        self._reason: Termination | None = None
        self._locked: list[int] = []
        self._undo: list[UndoRecord] = []
        self._history: list[Action] = []
        self._changes: list[tuple[int, int, int, int]] = []
        self._legal: dict[int, bool] | None = None
        self._bm = 0
        self._legal_key = -1
        self._start_text: str | None = None
        self._update_skey()

    @classmethod
    def initial(cls, rules: Rules | None = None) -> Position:
        """The start position: each side's king on its starting point and a single man
        on each other point of its zone; Red acts, with ``rules.first_turn_actions``."""
        p = cls(rules)
        for color in (RED, BLUE):
            start = p._starts[color - 1]
            for i in p._zone[color]:
                p._put(i, color, 1, KING if i == start else 0)
        p._al = p._rules.first_turn_actions
        p._update_skey()
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
        for label, (color, size, flags) in parsed.men.items():
            i = index[label]
            p._put(i, color, size, flags)
            if flags & LOCKED:
                p._locked.append(i)
        for label in parsed.blocks:
            i = index[label]
            p._put(i, BLOCK, 0, 0)
            for j in p._tables.block_adjacent[i]:
                p._near[j] += 1
        winner = parsed.winner
        if winner == _WIN_NONE:
            p._to_move = parsed.to_move
            p._al = parsed.actions_left
            p._acted = 2 - parsed.actions_left
            p._update_skey()
            p._lose_if_stuck()
        elif winner == _DRAW:
            p._winner, p._reason = _DRAW, Termination.TURN_LIMIT
        else:
            p._to_move = 3 - winner
            p._winner = winner
            if parsed.king_taken:
                p._reason = Termination.KING_CAPTURED
            elif p._bk[winner]:
                p._reason = Termination.BLESSED_KING
            else:
                p._reason = Termination.NO_LEGAL_ACTION
        if p._winner:
            p._al = 0
        p._update_skey()
        p._start_text = p.to_text()
        return p

    def to_text(self) -> str:
        """The board-text format (rules section 8, plus the ``l`` locked suffix)."""
        labels = self._tables.board.labels
        owner, size, flags = self._owner, self._size, self._flags
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
                to_move=self._to_move,
                actions_left=self._al,
                winner=self._winner,
                king_taken=self._reason == Termination.KING_CAPTURED,
            )
        )

    def __str__(self) -> str:
        return self.to_text()

    def copy(self) -> Position:
        """An independent position with the same state and history (undo still works)."""
        other = object.__new__(Position)
        for name in Position.__slots__:
            value = getattr(self, name)
            if isinstance(value, list):
                value = list(value)
            setattr(other, name, value)
        other._legal = None
        other._legal_key = -1
        return other

    def __copy__(self) -> Position:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        return self.copy()

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
        return COLOR_NAMES[self._to_move]

    @property
    def current_seat(self) -> int:
        return self._to_move - 1

    @property
    def actions_left(self) -> int:
        """Actions the player to act still has in this turn (1 or 2; 0 once over)."""
        return self._al

    @property
    def turn_number(self) -> int:
        """1-based count of turns (one player's one or two actions) from the start."""
        return self._turn

    @property
    def is_over(self) -> bool:
        return self._winner != _WIN_NONE

    @property
    def winner(self) -> str | None:
        """``"red"``, ``"blue"``, ``"draw"`` (only by the ``max_turns`` cap) or ``None``."""
        return (None, "red", "blue", "draw")[self._winner]

    @property
    def win_reason(self) -> str | None:
        """Why the game ended, in words (``outcome().termination.value``): ``"king
        captured"``, ``"blessed king"``, ``"no legal action"``, ``"turn limit"``; ``None``
        while the game goes on. Kept for compatibility; prefer :meth:`outcome`."""
        reason = self._reason
        return None if reason is None else reason.value

    def outcome(self) -> Outcome | None:
        """How the game ended by the rules, ``None`` while it goes on: the
        :class:`Termination`, the winning colour and seat (``None`` for a draw by the
        ``max_turns`` cap). Resignations and timeouts are decided outside the engine."""
        winner = self._winner
        if winner == _WIN_NONE:
            return None
        assert self._reason is not None
        if winner == _DRAW:
            return Outcome(self._reason, None, None)
        return Outcome(self._reason, COLOR_NAMES[winner], winner - 1)

    @property
    def key(self) -> int:
        """Zobrist hash of men, flags, locks, blocks, side to act, actions left and result
        (the supply is a function of the men). Not the turn number."""
        return self._bkey ^ self._skey

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
        read-only view of the engine's array (no copy): never mutate it."""
        return self._owner

    @property
    def sizes(self) -> Sequence[int]:
        """Per point index: checkers in the man there (0 when none). Live, read-only."""
        return self._size

    @property
    def flags(self) -> Sequence[int]:
        """Per point index: bit mask ``KING | BLESSED | CURSED | LOCKED`` of the man
        there (0 when none). Live, read-only."""
        return self._flags

    @property
    def to_move_code(self) -> int:
        """:attr:`to_move` as a colour code (``RED`` or ``BLUE``)."""
        return self._to_move

    @property
    def checker_counts(self) -> Sequence[int]:
        """``[0, red, blue]``: checkers of each colour code on the board. Live, read-only."""
        return self._count

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
        return {labels[i] for i, o in enumerate(self._owner) if o == BLOCK}

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
        return max(0, supply + START_CHECKERS - self._count[_color_code(color)])

    def seat_of(self, color: str) -> int:
        return _color_code(color) - 1

    def color_of_seat(self, seat: int) -> str:
        if not _is_int(seat) or seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        return COLOR_NAMES[seat + 1]

    def returns(self) -> tuple[float, float]:
        if self._winner == RED:
            return (1.0, -1.0)
        if self._winner == BLUE:
            return (-1.0, 1.0)
        return (0.0, 0.0)

    def is_turn_start(self) -> bool:
        return self._acted == 0

    def parse_action(self, text: str) -> Action:
        """Read notation into an :class:`Action` whose points exist on this board
        (legality is checked by :meth:`play`)."""
        action = Action.parse(text)
        for label in (action.origin, action.target):
            if label is not None and label not in self._tables.index:
                raise IllegalAction(f"{label} is not a point of a side-{self.board.side} board")
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
        steps = steps_max if steps_max is not None else max(1, self._size[i])
        code = _color_code(color) if color is not None else (
            self._owner[i] if self._owner[i] in (RED, BLUE) else self._to_move
        )
        return list(self.reach_indices(i, steps, code).items())

    def reach_indices(self, origin: int, steps: int, color: int) -> dict[int, bool]:
        """``{target: passed_wall}`` for a stack of colour code ``color`` (``RED`` or
        ``BLUE``) and at most ``steps`` steps from point index ``origin`` (destination !=
        origin; blocks stop). ``ValueError`` for an index, steps or colour out of range."""
        if not (
            _is_int(color)
            and color in (RED, BLUE)
            and _is_int(origin)
            and 0 <= origin < len(self._owner)
            and _is_int(steps)
        ):
            raise ValueError(
                f"reach_indices needs a point index 0..{len(self._owner) - 1}, integer "
                f"steps and a colour code RED=1 or BLUE=2, got ({origin!r}, {steps!r}, "
                f"{color!r})"
            )
        steps = min(steps, MAX_TRAVEL)
        if steps < 1:
            return {}
        return {j: mp <= steps for j, _fewest, mp in self._reach_list(origin, steps, color)}

    # ------------------------------------------------------------- generation
    def legal_actions(self) -> list[Action]:
        """Every legal action exactly once (empty when the game is over)."""
        if self._winner:
            return []
        actions, passed = self._generate(False)
        # Remember "passed the wall" per listed action so that play() of one of them
        # skips validation. Keyed by identity: listed actions are the board's shared
        # cached instances, which live as long as the tables.
        self._legal = dict(zip(map(id, actions), passed, strict=True))
        self._legal_key = self._bkey ^ self._skey
        return actions

    def _reach(self, i: int, steps: int, color: int) -> dict[int, tuple[int, int]]:
        """``{target: (fewest steps without the portal, fewest steps through it)}``
        (``_NO_PATH`` where there is no such path) within ``steps`` steps."""
        owner = self._owner
        found: dict[int, tuple[int, int]] = {}
        for points, portal_at in self._tables.rays[color][i]:
            n = 0
            for j in points:
                if n >= steps or owner[j] == BLOCK:
                    break
                n += 1
                if j == i:
                    continue
                old = found.get(j)
                if n <= portal_at:
                    if old is None:
                        found[j] = (n, _NO_PATH)
                    elif n < old[0]:
                        found[j] = (n, old[1])
                elif old is None:
                    found[j] = (_NO_PATH, n)
                elif n < old[1]:
                    found[j] = (old[0], n)
        return found

    def _reach_list(self, i: int, steps: int, color: int) -> tuple[tuple[int, int, int], ...]:
        """``(target, fewest steps, fewest steps through the portal)`` triples, cached.

        Reach depends only on the blocks lying on the rays (men are jumped), so the
        cache key is the origin, colour, steps and the blocks among those ray points.
        """
        t = self._tables
        code = (color * len(self._owner) + i) << 4 | steps
        key = (self._bm & t.raymask[code]) << 13 | code
        cache = t.reach_cache
        found = cache.get(key)
        if found is None:
            if len(cache) > REACH_CACHE_LIMIT:
                cache.clear()
            found = cache[key] = tuple(
                (j, mnp if mnp < mp else mp, mp)
                for j, (mnp, mp) in self._reach(i, steps, color).items()
            )
        return found

    def _generate(self, first_only: bool) -> tuple[list[Action], list[bool]]:
        """Legal actions of the player to act and, for each, whether its path passed the
        enemy wall. With ``first_only``, stops at the first one found (existence test)."""
        out: list[Action] = []
        walls: list[bool] = []
        add, add_wall = out.append, walls.append
        extend, extend_walls = out.extend, walls.extend
        t = self._tables
        c = self._to_move
        owner, size, flags = self._owner, self._size, self._flags
        n = len(owner)
        max_stack = self._rules.max_stack
        near, is_start = self._near, self._is_start
        if first_only:
            # A block is almost always possible: look for one before anything costly.
            for i in range(n):
                if owner[i] == EMPTY and not near[i] and not is_start[i]:
                    return [t.blocks[i]], [False]
        reach = self._reach_list
        split_counts = t.split_counts
        for i in range(n):
            if owner[i] != c:
                continue
            s = size[i]
            f = flags[i]
            movable = not f & LOCKED
            moves = t.moves[i] or t.move_row(i)
            merges = t.merges[i] or t.merge_row(i)
            splits = t.splits[i] or t.split_row(i)
            for j, fewest, mp in reach(i, s, c):
                if owner[j] == c:
                    fj, sj = flags[j], size[j]
                    passed = mp <= s
                    if merge_problem(f, s, fj, sj, passed, max_stack) is None:
                        add(merges[j])
                        add_wall(passed)
                    if fewest < s:
                        counts = splits[j] or split_counts(i, j)
                        for k in range(fewest, s):
                            passed = mp <= k
                            if merge_problem(f, k, fj, sj, passed, max_stack) is None:
                                add(counts[k])
                                add_wall(passed)
                else:
                    if movable:
                        add(moves[j])
                        add_wall(mp <= s)
                    if fewest < s:
                        extend((splits[j] or split_counts(i, j))[fewest:s])
                        if mp <= fewest:
                            extend_walls((True,) * (s - fewest))
                        elif mp >= s:
                            extend_walls((False,) * (s - fewest))
                        else:
                            extend_walls((False,) * (mp - fewest))
                            extend_walls((True,) * (s - mp))
                if first_only and out:
                    return out, walls
        if self._can_drop(c):
            drops = t.drops
            for z in self._zone[c]:
                if owner[z] == EMPTY:
                    add(drops[z])
                    add_wall(False)
                    if first_only:
                        return out, walls
        if not first_only:
            blocks = t.blocks
            placeable = [
                blocks[i]
                for i in range(n)
                if owner[i] == EMPTY and not near[i] and not is_start[i]
            ]
            extend(placeable)
            extend_walls((False,) * len(placeable))
        return out, walls

    def _can_drop(self, color: int) -> bool:
        supply = self._rules.supply
        return supply is None or self._count[color] < supply + START_CHECKERS

    # ------------------------------------------------------------------- play
    def play(self, action: Action | str) -> None:
        """Play one action (an :class:`Action` or its notation).

        Raises :class:`IllegalAction` naming the reason, leaving the position unchanged.
        """
        if isinstance(action, str):
            action = self.parse_action(action)
        elif not isinstance(action, Action):
            raise IllegalAction(f"not a Benediction action: {action!r}")
        legal = self._legal
        if legal is not None and self._legal_key == self._bkey ^ self._skey:
            passed = legal.get(id(action))
            if passed is not None:
                index = self._tables.index
                origin = action.origin
                self._apply(
                    action,
                    _KIND_CODE[action.kind],
                    index[origin] if origin is not None else -1,
                    index[action.target],
                    action.count,
                    passed,
                )
                return
        kind, o, t, k, passed = self._validate(action)
        self._apply(action, kind, o, t, k, passed)

    def _validate(self, action: Action) -> tuple[int, int, int, int, bool]:
        """Resolve an action against this position or raise :class:`IllegalAction`."""
        if self._winner:
            raise IllegalAction(f"the game is over ({self._result_words()})")
        kind = _KIND_CODE[action.kind]
        c = self._to_move
        name = COLOR_NAMES[c]
        t = self._action_point(action.target)
        owner, size, flags = self._owner, self._size, self._flags
        tgt = action.target
        if kind == DROP:
            if owner[t] != EMPTY:
                raise IllegalAction(f"cannot drop on {tgt}: it is not empty")
            if t not in self._zone[c]:
                zone = " ".join(self.zone(name))
                raise IllegalAction(f"cannot drop on {tgt}: it is not in {name}'s zone ({zone})")
            if not self._can_drop(c):
                raise IllegalAction(f"cannot drop: {name} has no checker left in the supply")
            return kind, -1, t, 0, False
        if kind == PLACE_BLOCK:
            if owner[t] != EMPTY:
                raise IllegalAction(f"cannot place a block on {tgt}: it is not empty")
            if self._is_start[t]:
                raise IllegalAction(f"cannot place a block on {tgt}: it is a starting point")
            if self._near[t]:
                labels = self._tables.board.labels
                other = next(
                    labels[j] for j in self._tables.block_adjacent[t] if owner[j] == BLOCK
                )
                raise IllegalAction(
                    f"cannot place a block on {tgt}: it is block-adjacent to the block on {other}"
                )
            return kind, -1, t, 0, False
        o = self._action_point(action.origin)
        org = action.origin
        if owner[o] == EMPTY:
            raise IllegalAction(f"{org} is empty: there is no man to act with")
        if owner[o] != c:
            what = ("", "a red man", "a blue man", "a block")[owner[o]]
            raise IllegalAction(f"{org} holds {what}; {name} is to act")
        if o == t:
            raise IllegalAction(f"the destination must differ from the origin ({org})")
        s, f = size[o], flags[o]
        if kind == SPLIT:
            k = action.count
            if k >= s:
                raise IllegalAction(
                    f"cannot split {k} off {org}: it holds {s} checker{'s' * (s > 1)}, "
                    f"a split takes 1 to {s - 1}" if s > 1 else
                    f"cannot split {org}: a single checker cannot be split"
                )
            steps = k
        else:
            k = 0
            steps = s
        if kind == MOVE and f & LOCKED:
            raise IllegalAction(
                f"{org} is locked: it already moved, was dropped or was split off this turn "
                "(it may still merge or split)"
            )
        if owner[t] == BLOCK:
            raise IllegalAction(f"{tgt} holds a block")
        if kind == MOVE and owner[t] == c:
            raise IllegalAction(f"{tgt} holds a man of {name}: to join it, merge ({org}+{tgt})")
        if kind == MERGE and owner[t] != c:
            what = "is empty" if owner[t] == EMPTY else "holds an enemy man"
            raise IllegalAction(f"cannot merge onto {tgt}: it {what}; merge needs a friendly man")
        through_portal = next((mp for j, _, mp in self._reach_list(o, steps, c) if j == t), None)
        if through_portal is None:
            raise IllegalAction(
                f"{org} cannot reach {tgt}: a stack of {steps} travels 1 to {steps} "
                "step(s) along one line, jumping men, stopped by blocks and by the edge "
                "(the portal works only forward from the enemy wall)"
            )
        passed = through_portal <= steps
        if owner[t] == c:
            problem = merge_problem(f, steps, flags[t], size[t], passed, self._rules.max_stack)
            if problem is not None:
                raise IllegalAction(f"cannot merge {org} onto {tgt}: {problem}")
        return kind, o, t, k, passed

    def _action_point(self, label: str | None) -> int:
        try:
            return self._tables.index[label]  # type: ignore[index]
        except KeyError:
            raise IllegalAction(
                f"{label} is not a point of a side-{self._rules.board_side} board"
            ) from None

    def _apply(self, action: Action, kind: int, o: int, t: int, k: int, passed: bool) -> None:
        """Make the action and settle its consequences (rules section 6)."""
        owner, size, flags = self._owner, self._size, self._flags
        c = self._to_move
        e = 3 - c
        before = (
            action, self._to_move, self._al, self._acted, self._turn,
            self._winner, self._reason, tuple(self._locked),
        )
        self._changes = []
        put = self._set
        block_at = -1
        captured_king = False
        pending: list[int] = []
        if kind == MOVE:
            s, f = size[o], flags[o]
            captured_king = owner[t] == e and bool(flags[t] & KING)
            nf = f | LOCKED
            if passed and not f & CURSED:
                nf |= BLESSED
            put(o, EMPTY, 0, 0)
            put(t, c, s, nf)
            self._locked.append(t)
        elif kind == DROP:
            put(t, c, 1, LOCKED)
            self._locked.append(t)
        elif kind == PLACE_BLOCK:
            put(t, BLOCK, 0, 0)
            block_at = t
            near = self._near
            for j in self._tables.block_adjacent[t]:
                near[j] += 1
        elif kind == MERGE:
            s, f = size[o], flags[o]
            nf = (f | flags[t]) & KING
            if f & KING and passed:
                nf |= BLESSED
            put(o, EMPTY, 0, 0)
            put(t, c, s + size[t], nf)
        else:  # split
            s, f = size[o], flags[o]
            if owner[t] == c:
                nf = (f | flags[t]) & KING
                if f & KING and passed:
                    nf |= BLESSED
                put(t, c, k + size[t], nf)
                put(o, c, s - k, f & (KING | LOCKED))
            else:
                captured_king = owner[t] == e and bool(flags[t] & KING)
                sub = (f & (KING | CURSED)) | LOCKED
                if passed and not f & CURSED:
                    sub |= BLESSED
                elif not f & (KING | CURSED):
                    pending.append(t)
                if not f & (KING | CURSED):
                    pending.append(o)
                put(t, c, k, sub)
                put(o, c, s - k, f & (KING | LOCKED | CURSED))
                self._locked.append(t)
        # Rules section 6: every step applies, also after a step that decided a win;
        # the winner is the one decided first.
        for p in self._starts:
            op = owner[p]
            if op in (RED, BLUE) and not flags[p] & KING:
                put(p, op, size[p], KING | (flags[p] & LOCKED))
        self._bless_bridges(RED)
        self._bless_bridges(BLUE)
        if captured_king:
            self._winner, self._reason = c, Termination.KING_CAPTURED
        elif self._bk[c]:
            self._winner, self._reason = c, Termination.BLESSED_KING
        elif self._bk[e]:
            self._winner, self._reason = e, Termination.BLESSED_KING
        for p in pending:
            fp = flags[p]
            if owner[p] == c and not fp & (KING | BLESSED | CURSED):
                put(p, c, size[p], fp | CURSED)
        self._acted += 1
        self._al -= 1
        if not self._winner:
            if self._al == 0:
                for p in self._locked:
                    fp = flags[p]
                    if fp & LOCKED:
                        put(p, owner[p], size[p], fp & ~LOCKED)
                self._locked = []
                self._to_move = e
                self._al = 2
                self._acted = 0
                self._turn += 1
                cap = self._rules.max_turns
                if cap is not None and self._turn - 1 >= cap:
                    self._winner, self._reason = _DRAW, Termination.TURN_LIMIT
            if not self._winner:
                self._lose_if_stuck()
        if self._winner:
            self._al = 0
            if self._winner != _DRAW:
                self._to_move = 3 - self._winner  # as in a finished board text
        self._undo.append(_new_record(UndoRecord, (*before, tuple(self._changes), block_at)))
        self._history.append(action)
        self._update_skey()

    def _lose_if_stuck(self) -> None:
        """Rule 6.6: the player due to act who has no legal action loses."""
        if not self._generate(True)[0]:
            self._winner, self._reason = 3 - self._to_move, Termination.NO_LEGAL_ACTION

    def _bless_bridges(self, c: int) -> None:
        """Bless every non-cursed member of each group of ``c``'s men that touches both
        walls (ordinary adjacency only)."""
        owner = self._owner
        t = self._tables
        e = 3 - c
        for p in t.wall_points[e]:
            if owner[p] == c:
                break
        else:
            return
        enemy_wall = t.wall[e]
        neighbours = t.board.neighbours
        flags, size = self._flags, self._size
        seen: set[int] = set()
        for seed in t.wall_points[c]:
            if owner[seed] != c or seed in seen:
                continue
            group = [seed]
            seen.add(seed)
            touches = False
            for q in group:  # grows while iterating: breadth-first search
                if enemy_wall[q]:
                    touches = True
                for r in neighbours[q]:
                    if owner[r] == c and r not in seen:
                        seen.add(r)
                        group.append(r)
            if touches:
                for q in group:
                    fq = flags[q]
                    if not fq & (CURSED | BLESSED):
                        self._set(q, c, size[q], fq | BLESSED)

    # ------------------------------------------------------------------- undo
    def undo(self) -> Action:
        """Take back the last action and return it (unlimited; ``IndexError`` at the
        start)."""
        if not self._undo:
            raise IndexError("no action to take back: this is the start position")
        (
            action, to_move, al, acted, turn, winner, reason, locked, changes, block_at,
        ) = self._undo.pop()
        put = self._put
        for i, o, s, f in reversed(changes):
            put(i, o, s, f)
        if block_at >= 0:
            near = self._near
            for j in self._tables.block_adjacent[block_at]:
                near[j] -= 1
        self._to_move, self._al, self._acted, self._turn = to_move, al, acted, turn
        self._winner, self._reason = winner, reason
        self._locked = list(locked)
        self._history.pop()
        self._update_skey()
        return action

    # ------------------------------------------------------------- primitives
    def _put(self, i: int, o: int, s: int, f: int) -> None:
        """Set point ``i`` to owner/size/flags, keeping key and counters up to date."""
        t = self._tables
        owner = self._owner
        old = owner[i]
        if old:
            os_, of = self._size[i], self._flags[i]
            self._bkey ^= t.zman[i][old * 16 + os_] ^ t.zflag[i][old * 16 + of]
            if old != BLOCK:
                self._count[old] -= os_
                if of & 3 == 3:
                    self._bk[old] -= 1
        if o:
            self._bkey ^= t.zman[i][o * 16 + s] ^ t.zflag[i][o * 16 + f]
            if o != BLOCK:
                self._count[o] += s
                if f & 3 == 3:
                    self._bk[o] += 1
        if old == BLOCK or o == BLOCK:
            self._bm = (self._bm & ~(1 << i)) | ((o == BLOCK) << i)
        owner[i] = o
        self._size[i] = s
        self._flags[i] = f

    def _set(self, i: int, o: int, s: int, f: int) -> None:
        """:meth:`_put`, remembering the old contents for :meth:`undo`."""
        self._changes.append((i, self._owner[i], self._size[i], self._flags[i]))
        self._put(i, o, s, f)

    def _update_skey(self) -> None:
        t = self._tables
        if self._winner:
            self._skey = t.zwin[self._winner]
        else:
            self._skey = (t.zblue if self._to_move == BLUE else 0) ^ (
                t.ztwo if self._al == 2 else 0
            )

    def _point(self, label: str) -> int:
        """Index of a label (case-insensitive); :class:`IllegalAction` when it is not a
        point of this board."""
        if not isinstance(label, str):
            raise IllegalAction(f"a point label such as 'e3' is needed, got {label!r}")
        try:
            return self._tables.board.index(label)
        except ValueError as exc:
            raise IllegalAction(str(exc)) from None

    def _man(self, i: int) -> Man | None:
        o = self._owner[i]
        if o != RED and o != BLUE:
            return None
        f = self._flags[i]
        return Man(
            COLOR_NAMES[o], self._size[i], bool(f & KING), bool(f & BLESSED),
            bool(f & CURSED), bool(f & LOCKED),
        )

    def _result_words(self) -> str:
        if self._winner == _DRAW:
            return "a draw by the turn limit"
        return f"{COLOR_NAMES[self._winner]} won: {self.win_reason}"

    def iter_men(self) -> Iterator[tuple[str, Man]]:
        """``(label, man)`` for every man, in index order."""
        labels = self._tables.board.labels
        for i, o in enumerate(self._owner):
            if o in (RED, BLUE):
                yield labels[i], self._man(i)  # type: ignore[misc]

    def turn_ends(self) -> list[bool]:
        """For each action of :attr:`history`: whether it ended its turn (for records)."""
        return [record.actions_left == 1 for record in self._undo]


def _is_int(value: object) -> bool:
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


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
    "Man",
    "Position",
    "Termination",
    "UndoRecord",
    "merge_problem",
]
