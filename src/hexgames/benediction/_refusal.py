"""Why Benediction refuses an action: the words of :class:`~hexgames.IllegalAction`.

The compiled core alone decides what is legal (:mod:`._legal_actions`); once it has
refused an action, :func:`explain` works out the reason in Python, from the position's
public read API only (its board arrays, the side to act, zones, reach), so that the
reason's wording can change without touching the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from hexgames.benediction._tables import (
    BLESSED,
    BLOCK,
    COLOR_NAMES,
    CURSED,
    EMPTY,
    KING,
    LOCKED,
    Tables,
)
from hexgames.benediction.actions import Action
from hexgames.benediction.rules import Rules
from hexgames.errors import IllegalAction


class RefusingPosition(Protocol):
    """What :func:`explain` reads of a position (the public API of
    :class:`~hexgames.benediction.position.Position`)."""

    @property
    def owners(self) -> Sequence[int]: ...

    @property
    def sizes(self) -> Sequence[int]: ...

    @property
    def flags(self) -> Sequence[int]: ...

    @property
    def to_move_code(self) -> int: ...

    @property
    def winner(self) -> str | None: ...

    @property
    def win_reason(self) -> str | None: ...

    @property
    def rules(self) -> Rules: ...

    @property
    def tables(self) -> Tables: ...

    @property
    def starting_points(self) -> tuple[str, str]: ...

    def zone(self, color: str) -> tuple[str, ...]: ...

    def reach_indices(self, origin: int, steps: int, color: int) -> dict[int, bool]: ...


def merge_problem(
    src_flags: int, src_size: int, tgt_flags: int, tgt_size: int, passed: bool, max_stack: int
) -> str | None:
    """Why a merge (or split-merge) is illegal, or ``None`` when conditions 1-4 hold.

    ``passed``: the source's path passed the enemy wall; a non-cursed source gains a
    blessing on the way, which satisfies conditions 2 and 3. (Used to explain a refused
    action; the compiled core decides legality.)
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


def point_of(position: RefusingPosition, label: str | None) -> int:
    """The index of ``label`` on the position's board; :class:`IllegalAction` when it
    names no point of it."""
    try:
        return position.tables.index[label]  # type: ignore[index]
    except KeyError:
        raise IllegalAction(
            f"{label} is not a point of a side-{position.rules.board_side} board"
        ) from None


def explain(position: RefusingPosition, action: Action) -> None:
    """Raise :class:`IllegalAction` saying why ``action`` is refused in ``position``
    (called once the core has refused it; returns when no reason is found)."""
    winner = position.winner
    if winner is not None:
        words = ("a draw by the turn limit" if winner == "draw"
                 else f"{winner} won: {position.win_reason}")
        raise IllegalAction(f"the game is over ({words})")
    kind = action.kind
    c = position.to_move_code
    name = COLOR_NAMES[c]
    t = point_of(position, action.target)
    owner, size, flags = ([int(v) for v in values] for values in (
        position.owners, position.sizes, position.flags))
    tgt = action.target
    tables = position.tables
    if kind == "drop":
        if owner[t] != EMPTY:
            raise IllegalAction(f"cannot drop on {tgt}: it is not empty")
        zone = position.zone(name)
        if t not in {tables.index[label] for label in zone}:
            raise IllegalAction(
                f"cannot drop on {tgt}: it is not in {name}'s zone ({' '.join(zone)})")
        raise IllegalAction(f"cannot drop: {name} has no checker left in the supply")
    if kind == "block":
        if owner[t] != EMPTY:
            raise IllegalAction(f"cannot place a block on {tgt}: it is not empty")
        if t in {tables.index[label] for label in position.starting_points}:
            raise IllegalAction(f"cannot place a block on {tgt}: it is a starting point")
        labels = tables.board.labels
        other = next((labels[j] for j in tables.block_adjacent[t] if owner[j] == BLOCK), "?")
        raise IllegalAction(
            f"cannot place a block on {tgt}: it is block-adjacent to the block on {other}"
        )
    o = point_of(position, action.origin)
    org = action.origin
    if owner[o] == EMPTY:
        raise IllegalAction(f"{org} is empty: there is no man to act with")
    if owner[o] != c:
        what = ("", "a red man", "a blue man", "a block")[owner[o]]
        raise IllegalAction(f"{org} holds {what}; {name} is to act")
    if o == t:
        raise IllegalAction(f"the destination must differ from the origin ({org})")
    s, f = size[o], flags[o]
    if kind == "split":
        k = action.count
        if k >= s:
            raise IllegalAction(
                f"cannot split {k} off {org}: it holds {s} checker{'s' * (s > 1)}, "
                f"a split takes 1 to {s - 1}" if s > 1 else
                f"cannot split {org}: a single checker cannot be split"
            )
        steps = k
    else:
        steps = s
    if kind == "move" and f & LOCKED:
        raise IllegalAction(
            f"{org} is locked: it already moved, was dropped or was split off this turn "
            "(it may still merge or split)"
        )
    if owner[t] == BLOCK:
        raise IllegalAction(f"{tgt} holds a block")
    if kind == "move" and owner[t] == c:
        raise IllegalAction(f"{tgt} holds a man of {name}: to join it, merge ({org}+{tgt})")
    if kind == "merge" and owner[t] != c:
        what = "is empty" if owner[t] == EMPTY else "holds an enemy man"
        raise IllegalAction(f"cannot merge onto {tgt}: it {what}; merge needs a friendly man")
    passed = position.reach_indices(o, steps, c).get(t)
    if passed is None:
        raise IllegalAction(
            f"{org} cannot reach {tgt}: a stack of {steps} travels 1 to {steps} "
            "step(s) along one line, jumping men, stopped by blocks and by the edge "
            "(the portal works only forward from the enemy wall)"
        )
    if owner[t] == c:
        problem = merge_problem(f, steps, flags[t], size[t], passed, position.rules.max_stack)
        if problem is not None:
            raise IllegalAction(f"cannot merge {org} onto {tgt}: {problem}")
