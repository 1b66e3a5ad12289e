"""A game's chat, live: who reads and posts (:mod:`hexgames.web.chat.rules`), the rate,
blocks and mutes, storing a message, and pushing it to the game's sockets.

A message is checked (its text, the room, the poster's seat and name, a block by the
other player, the rate per identity counted in storage), stored (``post_chat``, the room
bounded), then pushed as ``{"type": "chat", "room", "message"}`` to every socket of the
game whose reader may read the room and has no block with the poster. The sockets of the
other server processes get it through the change feed: the storage announces a
``chat.<room>`` change numbered by the message, and each process reads the message back
and pushes it to its own sockets (:meth:`GameChat.heard`). Nothing here needs a web
framework: the routes and the socket handler call it with the reader's identity.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Sequence
from typing import Any, Protocol

from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.web.chat.rules import (
    MAX_TEXT,
    POSTS_PER_WINDOW,
    ROOM_LIMIT,
    WINDOW_S,
    ChatGame,
    Reader,
    Room,
    checked_text,
    post_refusal,
    readable_rooms,
)
from hexgames.web.game.matches import ENGLISH, Match
from hexgames.web.play.hub import Connection
from hexgames.web.play.live_games import LiveGames
from hexgames.web.storage import Change, ChatMessage, ChatReport, Storage
from hexgames.web.storage.site_limits import SiteLimiter

__all__ = ["CHANGE_PREFIX", "SHOWN", "ChatForbidden", "ChatTooFast", "ChatViewer",
           "GameChat", "MessageNotFound", "chat_game", "message_json"]

log = logging.getLogger(__name__)

#: The messages of a room a reader is sent when opening the chat (the newest ones).
SHOWN = 200
#: A stored message's change kind is this and its room (``chat.players``).
CHANGE_PREFIX = "chat."


#: Messages one identity may report in an hour, in all games together.
REPORTS_PER_HOUR = 20

class ChatForbidden(PermissionError):
    """This reader may not read or write there (403): a stranger in the players' room,
    a guest writing, a game against the computer, a block."""


class ChatTooFast(RuntimeError):
    """Beyond the rate of messages (429): ``retry_after`` seconds until the next one."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(Phrase("too many chat messages; try again in {seconds} s",
                                seconds=retry_after))
        self.retry_after = retry_after


class MessageNotFound(LookupError):
    """No such message in the room (a report of one: 404)."""


class ChatViewer(Protocol):
    """Who reads or writes: the identity of the request's cookie."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def guest(self) -> bool: ...


def chat_game(match: Match) -> ChatGame:
    """What the chat rules need of a game: against the computer (mode ``ai`` or a seat
    the computer plays), rated, over."""
    computer = match.stored.mode == "ai" or any(
        player.get("kind") == "ai" for player in match.stored.players)
    return ChatGame(against_computer=computer, rated=bool(match.stored.rated),
                    over=match.is_over)


def reader_of(match: Match, viewer: ChatViewer | None,
              seats: frozenset[int] = frozenset()) -> Reader:
    """The reader: a player when the identity (or the seat token, ``seats``) holds a
    seat; named when the identity chose its name."""
    player = bool(seats) or (viewer is not None and bool(match.seats_of_player(viewer.id)))
    return Reader(player=player, named=viewer is not None and not viewer.guest)


def message_json(message: ChatMessage) -> dict[str, Any]:
    """A message as the API and the sockets send it (the text as stored: plain text)."""
    return {"room": message.room, "seq": message.seq, "player_id": message.player_id,
            "name": message.name, "text": message.text, "at": message.at}


def _room(raw: object) -> Room:
    if not isinstance(raw, str) or raw not in {room.value for room in Room}:
        raise ValueError(Phrase("unknown chat room {room}: players or spectators",
                                room=repr(str(raw)[:40])))
    return Room(raw)


class GameChat:
    """The chat of the games of one server process (see the module's doc)."""

    def __init__(self, games: LiveGames) -> None:
        self.games = games
        #: Messages per identity per window, counted in storage (every process alike).
        self.limiter = SiteLimiter("chat", POSTS_PER_WINDOW, WINDOW_S,
                                   clock=lambda: int(self.games.now()))
        #: Reports per identity per hour, counted in storage: a report keeps a copy of
        #: a message for the moderators, so it is bounded like a message.
        self.reports = SiteLimiter("chat-report", REPORTS_PER_HOUR, 3600.0,
                                   clock=lambda: int(self.games.now()))
        self._pushes: set[asyncio.Task[None]] = set()

    # ------------------------------------------------ what SiteLimiter needs
    @property
    def storage(self) -> Storage:
        return self.games.storage

    async def call_storage(self, function: Any, *args: Any) -> Any:
        return await self.games.calls.call(function, *args)

    # ------------------------------------------------------------- reading
    async def view(self, game_id: str, viewer: ChatViewer | None,
                   words: Translator = ENGLISH, room: str | None = None) -> dict[str, Any]:
        """What ``GET /api/games/{id}/chat`` answers: the rooms this viewer reads with
        their newest messages (none from or to a blocked player; none at all when the
        viewer muted the game), and whether the viewer may post in each (and if not,
        why). ``room``: that room only (:class:`ChatForbidden` when not readable)."""
        match = await self.games.get(game_id)
        game = chat_game(match)
        reader = reader_of(match, viewer)
        rooms = readable_rooms(game, reader)
        if room is not None:
            wanted = _room(room)
            if wanted not in rooms:
                raise ChatForbidden(N_("only the two players read the players' chat"))
            rooms = (wanted,)
        muted = viewer is not None and bool(
            await self.call_storage(self.storage.chat_muted, viewer.id, game_id))
        answer = []
        for each in rooms:
            messages = [] if muted else await self._newest(game_id, each)
            if viewer is not None and messages:
                hidden = await self._blocked_authors(viewer.id, messages)
                messages = [m for m in messages if m.player_id not in hidden]
            refusal = post_refusal(game, reader, each)
            if refusal is None and viewer is not None and each is Room.PLAYERS:
                refusal = await self._block_refusal(match, viewer.id)
            answer.append({
                "room": each.value,
                "messages": [{**message_json(m), "mine": viewer is not None
                              and m.player_id == viewer.id} for m in messages],
                "can_post": refusal is None,
                "refusal": str(refusal) if refusal is not None else None,
                "refusal_text": words.text(refusal) if refusal is not None else None,
            })
        off = Phrase("chat is off in games against the computer") \
            if game.against_computer else None
        return {
            "game_id": game_id,
            "enabled": not game.against_computer,
            "off_reason": str(off) if off else None,
            "off_text": words.text(off) if off else None,
            "muted": muted,
            "you": None if viewer is None else {"id": viewer.id, "name": viewer.name,
                                                "guest": viewer.guest},
            "player": reader.player,
            "max_text": MAX_TEXT,
            "rooms": answer,
        }

    async def _newest(self, game_id: str, room: Room) -> list[ChatMessage]:
        messages: list[ChatMessage] = await self.call_storage(
            self.storage.newest_chat_messages, game_id, room.value, SHOWN)
        return messages

    async def _blocked_authors(self, reader_id: str,
                               messages: Sequence[ChatMessage]) -> set[str]:
        """The authors of ``messages`` with a block between them and the reader."""
        authors = sorted({m.player_id for m in messages if m.player_id != reader_id})
        if not authors:
            return set()
        pairs = [(reader_id, author) for author in authors[:500]]
        blocked = await self.call_storage(self.storage.blocked_between, pairs)
        return {author for _, author in blocked}

    async def _block_refusal(self, match: Match, poster_id: str) -> Phrase | None:
        """Why a player may not write to the other: a block between them."""
        others = sorted({holder for _, holder in match.seat_holders() if holder != poster_id})
        if not others:
            return None
        blocked = await self.call_storage(self.storage.blocked_between,
                                          [(poster_id, other) for other in others])
        if blocked:
            return Phrase("you cannot write to this player: one of you blocked the other")
        return None

    # ------------------------------------------------------------- writing
    async def post(self, game_id: str, viewer: ChatViewer | None, room: object,
                   text: object, seats: frozenset[int] = frozenset()) -> ChatMessage:
        """Check, count, store and push one message (nothing is stored when it is
        refused: :class:`ValueError` for bad input, :class:`ChatForbidden`,
        :class:`ChatTooFast`, storage's ``ChatRefused`` for a full room or a
        silenced writer)."""
        chosen = _room(room)
        checked = checked_text(text)
        match = await self.games.get(game_id)
        reader = reader_of(match, viewer, seats)
        refusal = post_refusal(chat_game(match), reader, chosen)
        if refusal is not None:
            raise ChatForbidden(refusal)
        assert viewer is not None  # a named reader has an identity
        if chosen is Room.PLAYERS:
            blocked = await self._block_refusal(match, viewer.id)
            if blocked is not None:
                raise ChatForbidden(blocked)
        wait = await self.limiter.hit(self, viewer.id)
        if wait is not None:
            raise ChatTooFast(max(1, math.ceil(wait)))
        message: ChatMessage = await self.call_storage(
            self.storage.post_chat, game_id, chosen.value, viewer.id, viewer.name, checked,
            int(self.games.now()), ROOM_LIMIT)
        await self.push(match, message)
        return message

    async def report(self, game_id: str, viewer: ChatViewer, room: object,
                     seq: int) -> ChatReport:
        """Keep a message for the moderators (one the reporter may read, not their
        own)."""
        chosen = _room(room)
        if viewer.guest:
            raise ChatForbidden(N_("guests do not report messages: choose a name on your "
                                   "profile first"))
        match = await self.games.get(game_id)
        if chosen not in readable_rooms(chat_game(match), reader_of(match, viewer)):
            raise ChatForbidden(N_("only the two players read the players' chat"))
        wait = await self.reports.hit(self, viewer.id)
        if wait is not None:
            raise ChatTooFast(max(1, math.ceil(wait)))
        found: list[ChatMessage] = await self.call_storage(
            self.storage.chat_messages, game_id, chosen.value, seq - 1, 1)
        if not found or found[0].seq != seq:
            raise MessageNotFound(Phrase("there is no message {seq} in this room", seq=seq))
        if found[0].player_id == viewer.id:
            raise ValueError(N_("you cannot report your own message"))
        report: ChatReport = await self.call_storage(
            self.storage.report_chat, game_id, chosen.value, seq, viewer.id,
            int(self.games.now()))
        return report

    async def mute(self, game_id: str, viewer: ChatViewer, on: bool) -> None:
        """Mute (or unmute) the game's chat for the viewer (stored: every tab, every
        process)."""
        await self.games.get(game_id)  # an unknown game is a 404
        await self.call_storage(self.storage.mute_chat, viewer.id, game_id, bool(on))

    # ------------------------------------------------------------- pushing
    async def push(self, match: Match, message: ChatMessage) -> None:
        """Send ``message`` to this process's sockets of the game that may read its
        room, but not to a reader with a block between them and the poster, nor to one
        who muted the game's chat (a muted chat is sent nothing, not only hidden)."""
        room = Room(message.room)
        game = chat_game(match)
        readers: list[Connection] = []
        for connection in self.games.hub.connections(match.id):
            player_id = connection.player_id
            reader = Reader(player=bool(connection.seats) or (
                player_id is not None and bool(match.seats_of_player(player_id))),
                named=True)
            if room in readable_rooms(game, reader):
                readers.append(connection)
        if not readers:
            return
        others = sorted({c.player_id for c in readers
                         if c.player_id is not None and c.player_id != message.player_id})
        left_out: set[str] = set()
        if others:
            pairs = [(message.player_id, other) for other in others[:500]]
            left_out = {other for _, other in
                        await self.call_storage(self.storage.blocked_between, pairs)}
            left_out |= await self.call_storage(self.storage.chat_muters, match.id,
                                                others[:500])
        payload = {"type": "chat", "room": message.room, "message": message_json(message)}
        for connection in readers:
            if connection.player_id not in left_out:
                connection.send(payload, state=False)

    def heard(self, change: Change | None) -> None:
        """A change another process stored (the change feed's listener): a message
        posted there is read back and pushed to the sockets here."""
        if change is None or not change.kind.startswith(CHANGE_PREFIX):
            return
        if not self.games.hub.connections(change.game_id):
            return
        task = asyncio.get_running_loop().create_task(self._push_stored(change))
        self._pushes.add(task)
        task.add_done_callback(self._pushes.discard)

    async def _push_stored(self, change: Change) -> None:
        room = change.kind.removeprefix(CHANGE_PREFIX)
        try:
            found: list[ChatMessage] = await self.call_storage(
                self.storage.chat_messages, change.game_id, room, change.ply - 1, 1)
            if found and found[0].seq == change.ply:
                await self.push(await self.games.get(change.game_id), found[0])
        except Exception:
            log.exception("could not push a chat message of game %s", change.game_id)

    async def close(self) -> None:
        for task in list(self._pushes):
            task.cancel()
