"""Conditional lines as data: a line played out from a position, what is left of a stored
line in a game, and how two lines stand to each other.

Pure functions over the game protocol (``play``, ``current_seat``, ``is_turn_start``,
notation) and stored :class:`~hexgames.web.storage.ConditionalLine` records, used by
:mod:`hexgames.web.play.conditional_moves` (which stores, shows and plays the lines). A
stored line never changes: how far it has been followed is read from the game's actions
after its ply (:func:`future`), and a takeback under the line (the actions before its
ply no longer hash to its digest) voids it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hexgames.errors import IllegalAction
from hexgames.game import Game, GameState, reason_of
from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.web.game.matches import ENGLISH, MAX_ACTION_LENGTH, legal_entry, play_checked
from hexgames.web.storage import ConditionalLine

__all__ = ["MAX_LINE_ACTIONS", "MAX_LINE_TURNS", "Future", "Walk", "complete", "digest",
           "future", "legal_entries", "relation", "walk"]

#: A line has at most this many actions and turns (expected and replies together).
MAX_LINE_ACTIONS = 40
MAX_LINE_TURNS = 20


def digest(notations: Sequence[str]) -> str:
    """What a line remembers of the actions before it (a takeback under it voids it)."""
    return hashlib.sha256("\n".join(notations).encode()).hexdigest()


@dataclass
class Walk:
    """A line played on a copy of the position: its turns as ``(seat, actions)``, the
    position after it and the action objects of its last turn (to highlight them)."""

    turns: list[tuple[int, list[str]]]
    position: GameState
    last: list[Any]


def walk(position: GameState, actions: Any) -> Walk:
    """Play ``actions`` (a client's list of notations) on ``position`` (a copy: it is
    changed), grouped into turns by the engine's seat and turn starts. ``ValueError``
    (400) for a malformed or too long list, ``IllegalAction`` (409) naming the first
    action the engine refuses."""
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise ValueError(N_("line must be a list of actions in the game's notation"))
    if len(actions) > MAX_LINE_ACTIONS:
        raise ValueError(Phrase("a line has at most {limit} actions, this one has {count}",
                                limit=MAX_LINE_ACTIONS, count=len(actions)))
    turns: list[tuple[int, list[str]]] = []
    last: list[Any] = []
    for number, text in enumerate(actions, start=1):
        if len(text) > MAX_ACTION_LENGTH:
            raise ValueError(Phrase("action {number} of the line is over {limit} characters",
                                    number=number, limit=MAX_ACTION_LENGTH))
        try:
            ply, action = play_checked(position, text)
        except ValueError as error:  # IllegalAction included: the engine's words
            shown = text.strip()[:40]
            raise IllegalAction("action {number} of the line ({shown}): {reason}",
                                number=number, shown=repr(shown),
                                reason=reason_of(error)) from None
        if not turns or ply.turn_start or turns[-1][0] != ply.seat:
            turns.append((ply.seat, []))
            last = []
        turns[-1][1].append(ply.notation)
        last.append(action)
    if len(turns) > MAX_LINE_TURNS:
        raise ValueError(Phrase("a line has at most {limit} turns, this one has {count}",
                                limit=MAX_LINE_TURNS, count=len(turns)))
    return Walk(turns, position, last)


@dataclass(frozen=True)
class Future:
    """What is left of a line in the game as it stands: ``turns`` from the line's turn
    number ``index`` on (the line's even turns are the opponent's, odd ones its owner's),
    of which the first has ``offset`` actions played already."""

    turns: tuple[tuple[str, ...], ...]
    index: int
    offset: int

    def due(self) -> bool:
        """The opponent played the expected turn: the owner's reply is next, untouched."""
        return bool(self.turns) and self.index % 2 == 1 and self.offset == 0


def future(line: ConditionalLine, notations: Sequence[str],
           digests: dict[int, str] | None = None) -> Future | None:
    """What is left of ``line`` after the game's actions ``notations`` (``turns`` empty:
    followed to its end); ``None`` when the game left it (a deviation, or a takeback
    under it). ``digests`` caches the history digests by ply."""
    if len(notations) < line.ply:
        return None
    cache = {} if digests is None else digests
    if line.ply not in cache:
        cache[line.ply] = digest(notations[:line.ply])
    if cache[line.ply] != line.digest:
        return None
    played = list(notations[line.ply:])
    flat = [action for turn in line.turns for action in turn]
    if played[:len(flat)] != flat[:len(played)]:
        return None
    done = len(played)
    for index, turn in enumerate(line.turns):
        if done < len(turn):
            return Future(tuple((turn[done:], *line.turns[index + 1:])), index, done)
        done -= len(turn)
    return Future((), len(line.turns), 0)


def relation(new: Sequence[Sequence[str]], old: Sequence[Sequence[str]]) -> str | None:
    """How a new line's turns stand to a stored one's (both from the same position, the
    opponent's turn first): ``"conflict"`` (another reply to the same turns),
    ``"covered"`` (the same, or a part of it), ``"extends"`` (it goes further), or
    ``None`` (they part at an opponent's turn)."""
    for index, (mine, theirs) in enumerate(zip(new, old, strict=False)):
        if tuple(mine) != tuple(theirs):
            return "conflict" if index % 2 == 1 else None
    return "covered" if len(new) <= len(old) else "extends"


def legal_entries(game: Game, position: GameState,
                  words: Translator = ENGLISH) -> list[dict[str, Any]]:
    """The legal actions with the clicks that enter them (the state's ``legal`` shape,
    their words in ``words``' language)."""
    if position.is_over:
        return []
    return [legal_entry(str(action), game.gesture(position, action), words)
            for action in position.legal_actions()]


def complete(line: Walk, seat: int) -> bool:
    """The line ends with a whole turn of its owner (the game over, or the opponent to
    act at a turn start)."""
    if not line.turns or line.turns[-1][0] != seat:
        return False
    position = line.position
    return position.is_over or (position.current_seat != seat and position.is_turn_start())
