"""Who reads and writes in a game's chat, and what a message may hold.

Each game has two rooms, as on lichess: the **players'** room, where the two players talk
(nobody else reads or writes there), and the **spectators'** room, where those watching
talk. During a rated game the players neither read nor write in the spectators' room (a
watcher must not be able to help or taunt them); once it is over, they may. Chat is off
in games against the computer. Guests (the names the site gave) read but do not write: a
name chosen by its owner is what a report and a silence hold on to.

A message is plain text: control and formatting characters (bidirectional overrides,
zero-width joiners...) are removed, runs of white space become one space, and it is at
most :data:`MAX_TEXT` characters. Pages show it as text, never as HTML, and a link stays
text. These rules are pure: the caller says who is reading and what the game is.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from hexgames.phrases import N_, Phrase

#: The longest message, in characters (lichess's bound).
MAX_TEXT = 140
#: Messages one room keeps; then it takes no more (bounded storage per game).
ROOM_LIMIT = 1000
#: Messages one identity may write per window, in all games together (counted in
#: storage: the same on every server process).
POSTS_PER_WINDOW = 5
WINDOW_S = 10.0

_SPACES = re.compile(r"\s+")


class Room(StrEnum):
    """The two rooms of a game's chat."""

    PLAYERS = "players"
    SPECTATORS = "spectators"


@dataclass(frozen=True)
class ChatGame:
    """What the rules need to know of a game."""

    against_computer: bool
    rated: bool
    over: bool


@dataclass(frozen=True)
class Reader:
    """Who asks: whether they hold a seat of the game, and whether they chose their name
    (a guest did not)."""

    player: bool
    named: bool


def readable_rooms(game: ChatGame, reader: Reader) -> tuple[Room, ...]:
    """The rooms ``reader`` may read, in the order a page shows them."""
    if game.against_computer:
        return ()
    if not reader.player:
        return (Room.SPECTATORS,)
    if game.rated and not game.over:
        return (Room.PLAYERS,)
    return (Room.PLAYERS, Room.SPECTATORS)


def post_refusal(game: ChatGame, reader: Reader, room: Room) -> Phrase | None:
    """Why ``reader`` may not write in ``room`` (``None``: they may)."""
    if game.against_computer:
        return Phrase("chat is off in games against the computer")
    if not reader.named:
        return Phrase("guests do not write in chat: choose a name on your profile first")
    if room is Room.PLAYERS and not reader.player:
        return Phrase("only the two players write in the players' chat")
    if room not in readable_rooms(game, reader):
        return Phrase("players do not write in the spectators' room during a rated game")
    return None


def _kept(char: str) -> bool:
    """Whether a character stays in a message: not a control, format, surrogate or
    private-use character (``Cc``, ``Cf``, ``Cs``, ``Co``, unassigned ``Cn``)."""
    return not unicodedata.category(char).startswith("C")


def checked_text(raw: object) -> str:
    """The message as stored, or ``ValueError`` saying what is wrong (nothing else is
    thrown, whatever ``raw`` is)."""
    if not isinstance(raw, str):
        raise ValueError(N_("a chat message is text"))
    if len(raw) > 4 * MAX_TEXT:  # before any work on a hostile length
        raise ValueError(Phrase("a chat message is at most {limit} characters",
                                limit=MAX_TEXT))
    text = unicodedata.normalize("NFC", raw)
    text = "".join(char if _kept(char) else (" " if char in "\t\n\r" else "")
                   for char in text)
    text = _SPACES.sub(" ", text).strip()
    if not text:
        raise ValueError(N_("a chat message needs some words"))
    if len(text) > MAX_TEXT:
        raise ValueError(Phrase("a chat message is at most {limit} characters",
                                limit=MAX_TEXT))
    return text
