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
from hexgames.phrases import N_, Phrase, nphrase

#: The colour names as refusals write them (words: translated where they are shown).
COLOR_WORDS = {"red": N_("red"), "blue": N_("blue")}

#: What stands on a point, by owner code (empty, red, blue, block).
_OCCUPANTS = ("", N_("a red man"), N_("a blue man"), N_("a block"))


def color_word(color: str) -> Phrase | str:
    """``"red"``/``"blue"`` as a translatable word (anything else as it is)."""
    word = COLOR_WORDS.get(color)
    return color if word is None else Phrase(word)



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
) -> Phrase | None:
    """Why a merge (or split-merge) is illegal, or ``None`` when conditions 1-4 hold.

    ``passed``: the source's path passed the enemy wall; a non-cursed source gains a
    blessing on the way, which satisfies conditions 2 and 3. (Used to explain a refused
    action; the compiled core decides legality.)
    """
    if src_flags & tgt_flags & KING:
        return Phrase("two kings may not merge")
    gains = passed and not src_flags & CURSED
    if src_flags & CURSED and not tgt_flags & BLESSED:
        return Phrase("a cursed man may only merge onto a blessed man")
    if tgt_flags & CURSED and not (src_flags & BLESSED or gains):
        return Phrase(
            "merging onto a cursed man needs a blessed source or a blessing on the way"
        )
    total = src_size + tgt_size
    if total > 2 and not (src_flags & BLESSED or tgt_flags & BLESSED or gains):
        return Phrase(
            "a stack of {total} needs a blessing: one of the men blessed, "
            "or the source passing the enemy wall", total=total
        )
    if total > max_stack:
        return Phrase("the stack would have {total} checkers; the largest allowed is {most}",
                      total=total, most=max_stack)
    return None


def point_of(position: RefusingPosition, label: str | None) -> int:
    """The index of ``label`` on the position's board; :class:`IllegalAction` when it
    names no point of it."""
    try:
        return position.tables.index[label]  # type: ignore[index]
    except KeyError:
        raise IllegalAction(
            "{point} is not a point of a side-{side} board",
            point=label, side=position.rules.board_side,
        ) from None


def explain(position: RefusingPosition, action: Action) -> None:
    """Raise :class:`IllegalAction` saying why ``action`` is refused in ``position``
    (called once the core has refused it; returns when no reason is found)."""
    winner = position.winner
    if winner is not None:
        reason = position.win_reason
        words = (Phrase("a draw by the turn limit") if winner == "draw"
                 else Phrase("{color} won: {reason}", color=color_word(winner),
                             reason=reason if reason is None else Phrase(reason)))
        raise IllegalAction("the game is over ({words})", words=words)
    kind = action.kind
    c = position.to_move_code
    name = COLOR_NAMES[c]
    color = color_word(name)
    t = point_of(position, action.target)
    owner, size, flags = ([int(v) for v in values] for values in (
        position.owners, position.sizes, position.flags))
    tgt = action.target
    tables = position.tables
    if kind == "drop":
        if owner[t] != EMPTY:
            raise IllegalAction("cannot drop on {point}: it is not empty", point=tgt)
        zone = position.zone(name)
        if t not in {tables.index[label] for label in zone}:
            raise IllegalAction("cannot drop on {point}: it is not in {color}'s zone ({zone})",
                                point=tgt, color=color, zone=" ".join(zone))
        raise IllegalAction("cannot drop: {color} has no checker left in the supply",
                            color=color)
    if kind == "block":
        if owner[t] != EMPTY:
            raise IllegalAction("cannot place a block on {point}: it is not empty", point=tgt)
        if t in {tables.index[label] for label in position.starting_points}:
            raise IllegalAction("cannot place a block on {point}: it is a starting point",
                                point=tgt)
        labels = tables.board.labels
        other = next((labels[j] for j in tables.block_adjacent[t] if owner[j] == BLOCK), "?")
        raise IllegalAction(
            "cannot place a block on {point}: it is block-adjacent to the block on {other}",
            point=tgt, other=other,
        )
    o = point_of(position, action.origin)
    org = action.origin
    if owner[o] == EMPTY:
        raise IllegalAction("{point} is empty: there is no man to act with", point=org)
    if owner[o] != c:
        raise IllegalAction("{point} holds {what}; {color} is to act",
                            point=org, what=Phrase(_OCCUPANTS[owner[o]]), color=color)
    if o == t:
        raise IllegalAction("the destination must differ from the origin ({point})", point=org)
    s, f = size[o], flags[o]
    if kind == "split":
        k = action.count
        if k >= s:
            if s > 1:
                raise IllegalAction(nphrase(
                    "cannot split {k} off {point}: it holds {n} checker, a split takes 1 to "
                    "{most}",
                    "cannot split {k} off {point}: it holds {n} checkers, a split takes 1 to "
                    "{most}",
                    s, k=k, point=org, most=s - 1,
                ))
            raise IllegalAction("cannot split {point}: a single checker cannot be split",
                                point=org)
        steps = k
    else:
        steps = s
    if kind == "move" and f & LOCKED:
        raise IllegalAction(
            "{point} is locked: it already moved, was dropped or was split off this turn "
            "(it may still merge or split)", point=org,
        )
    if owner[t] == BLOCK:
        raise IllegalAction("{point} holds a block", point=tgt)
    if kind == "move" and owner[t] == c:
        raise IllegalAction("{target} holds a man of {color}: to join it, merge ({merge})",
                            target=tgt, color=color, merge=str(org) + "+" + tgt)
    if kind == "merge" and owner[t] != c:
        if owner[t] == EMPTY:
            raise IllegalAction("cannot merge onto {point}: it is empty; merge needs a "
                                "friendly man", point=tgt)
        raise IllegalAction("cannot merge onto {point}: it holds an enemy man; merge needs a "
                            "friendly man", point=tgt)
    passed = position.reach_indices(o, steps, c).get(t)
    if passed is None:
        raise IllegalAction(
            "{origin} cannot reach {target}: a stack of {steps} travels 1 to {steps} "
            "step(s) along one line, jumping men, stopped by blocks and by the edge "
            "(the portal works only forward from the enemy wall)",
            origin=org, target=tgt, steps=steps,
        )
    if owner[t] == c:
        problem = merge_problem(f, steps, flags[t], size[t], passed, position.rules.max_stack)
        if problem is not None:
            raise IllegalAction("cannot merge {origin} onto {target}: {problem}",
                                origin=org, target=tgt, problem=problem)
