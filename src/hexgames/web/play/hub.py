"""Who is watching which game, and pushing each of them the state they may see.

Every browser showing a game holds a WebSocket registered here with the token it
presented. After any change the hub sends each connection its own view: the seat to act
gets the legal actions and their gestures, everybody else only the board and history.

Sending never waits on a client. Each connection has a small bounded queue and a writer
task of its own; :meth:`Hub.publish` only puts messages in queues (it is synchronous, so
the mover's request cannot await anybody else's socket). A state is a complete snapshot,
so when a queue is full the oldest state in it is dropped (the client loses nothing it
needs: a newer state follows). A client that stays too slow (a send blocked for
``SEND_TIMEOUT`` seconds) is disconnected.

A socket is anything with ``send_text`` and ``close`` (:class:`Socket`: Starlette's
WebSocket in the app), so the hub, and the service built on it, need no web framework.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import defaultdict, deque
from collections.abc import Callable
from typing import Any, Protocol

from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.web.game.errors import socket_error
from hexgames.web.game.matches import ENGLISH, Match

log = logging.getLogger(__name__)

#: Messages waiting for one connection; past this the oldest *state* is dropped.
QUEUE_SIZE = 8
#: A single send blocked this long (a client that does not read) closes the connection.
SEND_TIMEOUT = 10.0
#: Open game sockets per game and in total (spectators included); see docs/web.md. A
#: player (a socket presenting a seat token of its game) is never refused for viewers:
#: when the game or the total is full, the oldest viewer makes room (:meth:`Hub.admit`).
MAX_PER_GAME = 64
MAX_TOTAL = 1000
#: Sockets of one seat holder in one game, per process (a page in a few tabs or devices).
#: A seat holder's new socket beyond it closes the holder's own oldest one: no seat (nor
#: the other player's sockets) can take another seat's places (issue 39, row 1).
MAX_PER_SEAT = 4
#: What a viewer closed to make room for a player is told (then closed with 1013).
MAKE_ROOM = N_("a player of the game needed this place; you may watch again later")
#: What a seat holder's oldest socket is told when the same seat opened one too many.
REPLACED = N_("this game was opened in another tab or device; this one is closed")
#: The close code of a socket replaced by a newer one of the same seat holder.
REPLACED_CODE = 4001


class Socket(Protocol):
    """What the hub needs of a WebSocket (Starlette's has both)."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class Connection:
    """One WebSocket with its outgoing queue and writer task."""

    def __init__(self, socket: Socket, token: str | None, delta: bool = False,
                 svg_patch: bool = False, words: Translator = ENGLISH,
                 seats: frozenset[int] = frozenset(), player_id: str | None = None) -> None:
        self.socket = socket
        self.token = token
        #: The identity of the socket's cookie (who reads the game's chat), if any.
        self.player_id = player_id
        #: The seats its token holds (empty: a viewer); what :meth:`Hub.admit` counts.
        self.seats = seats
        #: The language of the page on the other end (its states' ``*_text`` fields).
        self.words = words
        self.closed = False
        #: The client opted in to deltas: states carry ``history_tail`` from ``since``.
        self.delta = delta
        #: (history epoch, ply) of the last state queued for a delta client.
        self.known: tuple[int, int] | None = None
        #: The client opted in to board patches: states carry ``svg_patch`` from the
        #: drawing it holds, number ``svg_known`` (None: it holds none yet).
        self.svg_patch = svg_patch
        self.svg_known: int | None = None
        #: (is a state, JSON text, the ply its history starts at for a delta client, the
        #: drawing its board patch starts from): states are encoded once per view, not
        #: per socket.
        self._queue: deque[tuple[bool, str, int, int | None]] = deque()
        self._ready = asyncio.Event()
        self.dropped = 0
        self._writer = asyncio.get_running_loop().create_task(self._write())

    def since(self, match: Match) -> int | None:
        """For a delta client: the ply from which the next state must carry the move list
        (None: not a delta client). When the queue is full, the queued states are
        dropped first (the one about to be built replaces them), so that no tail ever
        starts after what the client really received (nor a board patch after the
        drawing it really holds)."""
        if not (self.delta or self.svg_patch):
            return None
        if len(self._queue) >= QUEUE_SIZE:
            states = [item for item in self._queue if item[0]]
            if states:
                for item in states:
                    self._queue.remove(item)
                self.dropped += len(states)
                self.known = (self.known[0], states[0][2]) if self.known else None
                self.svg_known = states[0][3]
        if not self.delta:
            return None
        if self.known is None or self.known[0] != match.epoch:
            return 0
        return min(self.known[1], len(match.plies))

    def svg_base(self) -> int | None:
        """For a client that opted in to board patches: the drawing it holds (call
        after :meth:`since`, which may change it)."""
        return self.svg_known if self.svg_patch else None

    def send(self, message: dict[str, Any] | str, state: bool | None = None,
             since: int = 0, match: Match | None = None, svg_base: int | None = None) -> None:
        """Queue a message (a dict, or JSON text already encoded) without waiting; when
        the queue is full, drop the oldest state (a newer one is coming). ``match`` (with
        ``since`` and ``svg_base``) records what a delta client now knows."""
        if self.closed:
            return
        if isinstance(message, dict):
            state = message.get("type") == "state" if state is None else state
            message = json.dumps(message, separators=(",", ":"))
        if len(self._queue) >= QUEUE_SIZE:
            self.dropped += 1
            if self.delta or self.svg_patch:
                # Each queued state builds on the one before (see since()): drop an
                # error or pong instead, or this message if it is one.
                index = next((i for i, item in enumerate(self._queue) if not item[0]), None)
                if index is not None:
                    del self._queue[index]
                elif not state:
                    return
                else:  # pragma: no cover - send_state() makes room first (since())
                    self._queue.clear()
            else:
                for index, item in enumerate(self._queue):
                    if item[0]:
                        del self._queue[index]
                        break
                else:
                    self._queue.popleft()
        if match is not None and self.delta:
            self.known = (match.epoch, len(match.plies))
        if match is not None and self.svg_patch:
            self.svg_known = match.svg_id
        self._queue.append((bool(state), message, since, svg_base))
        self._ready.set()

    async def _write(self) -> None:
        try:
            while not self.closed:
                await self._ready.wait()
                self._ready.clear()
                while self._queue and not self.closed:
                    text = self._queue.popleft()[1]
                    async with asyncio.timeout(SEND_TIMEOUT):  # no task per send
                        await self.socket.send_text(text)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a timeout or a closed socket: this client is gone
            log.info("closing a slow or broken game socket: %r", error)
            self.closed = True
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self.socket.close(code=1008), 1.0)

    async def evict(self, message: Phrase | str, code: int = 1013) -> None:
        """Tell this client ``message`` and close it with ``code`` (1013: try again
        later; :data:`REPLACED_CODE`: opened elsewhere, so a page does not reconnect by
        itself and take the place back)."""
        self.closed = True
        self._writer.cancel()
        with contextlib.suppress(BaseException):
            await self._writer
        with contextlib.suppress(Exception):
            text = json.dumps(socket_error(message, self.words))
            await asyncio.wait_for(self.socket.send_text(text), 1.0)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.socket.close(code=code), 1.0)

    async def close(self, code: int = 1001) -> None:
        self.closed = True
        self._writer.cancel()
        with contextlib.suppress(BaseException):
            await self._writer
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.socket.close(code=code), 1.0)

    def stop(self) -> None:
        """Stop writing (the socket's handler is ending)."""
        self.closed = True
        self._writer.cancel()


class Hub:
    def __init__(self, max_per_game: int = MAX_PER_GAME, max_total: int = MAX_TOTAL,
                 max_per_seat: int = MAX_PER_SEAT) -> None:
        self._connections: dict[str, dict[Socket, Connection]] = defaultdict(dict)
        self.max_per_game = max_per_game
        self.max_per_seat = max_per_seat
        self.max_total = max_total
        self._total = 0
        self._evictions: set[asyncio.Task[None]] = set()
        #: Called with every game published, watched or not (turn alerts: they must
        #: not wait either).
        self.listeners: list[Callable[[Match], None]] = []

    def refusal(self, game_id: str) -> Phrase | str | None:
        """Why a new viewer's socket for this game cannot be accepted now (None: it can)."""
        if self._total >= self.max_total:
            return N_("the server has too many open games right now; try again later")
        if len(self._connections.get(game_id, {})) >= self.max_per_game:
            return Phrase("this game already has {count} viewers; try again later",
                          count=self.max_per_game)
        return None

    def admit(self, game_id: str, seats: frozenset[int]) -> Phrase | str | None:
        """Make room for a new socket of this game, or say why there is none (call just
        before :meth:`join`, with no await between).

        A viewer (no ``seats``) is refused when the game or the server is full
        (:meth:`refusal`). A player (``seats``: those its token holds) is never refused
        because of anybody else's sockets: its seats' own sockets are capped at
        ``max_per_seat`` (its oldest is closed, :data:`REPLACED_CODE`, :data:`REPLACED`),
        and when the game or the server is full the oldest viewer of the game, else of
        any game, makes room (closed with :data:`MAKE_ROOM`). Since each seat holder
        keeps at most ``max_per_seat`` sockets and ``max_per_game`` is larger than both
        seats' share, a player always finds a place."""
        if not seats:
            return self.refusal(game_id)
        mine = [socket for socket, connection in self._connections.get(game_id, {}).items()
                if connection.seats == seats]
        while len(mine) >= self.max_per_seat:
            self._evict(game_id, mine.pop(0), REPLACED)
        full = len(self._connections.get(game_id, {})) >= self.max_per_game
        if full and not self._evict_viewer(game_id):
            return (f"this game already has {self.max_per_game} sockets of its players; "
                    "close one, or try again later")
        if self._total >= self.max_total and not (
                self._evict_viewer(game_id)
                or any(self._evict_viewer(other) for other in list(self._connections))):
            return N_("the server has too many open games right now; try again later")
        return None

    def _evict(self, game_id: str, socket: Socket, message: Phrase | str) -> None:
        """Drop ``socket`` from the counts at once and close it, telling it why."""
        connection = self._connections.get(game_id, {}).get(socket)
        broken = connection is None or connection.closed
        self.leave(game_id, socket)
        if broken:
            return
        assert connection is not None
        code = REPLACED_CODE if message == REPLACED else 1013
        task = asyncio.get_running_loop().create_task(connection.evict(message, code))
        self._evictions.add(task)
        task.add_done_callback(self._evictions.discard)

    def _evict_viewer(self, game_id: str) -> bool:
        """Close the oldest viewer of ``game_id`` (at once for the counts); False: none."""
        connections = self._connections.get(game_id, {})
        for socket, connection in list(connections.items()):
            if connection.closed:  # a broken socket whose handler has not left yet
                self.leave(game_id, socket)
                return True
            if connection.token is None:
                self._evict(game_id, socket, MAKE_ROOM)
                return True
        return False

    def join(self, game_id: str, socket: Socket, token: str | None,
             delta: bool = False, svg_patch: bool = False,
             words: Translator = ENGLISH, seats: frozenset[int] = frozenset(),
             player_id: str | None = None) -> Connection:
        connection = Connection(socket, token, delta, svg_patch, words, seats, player_id)
        self._connections[game_id][socket] = connection
        self._total += 1
        return connection

    def connections(self, game_id: str) -> list[Connection]:
        """The open connections of the game (the chat picks its readers among them)."""
        return [connection for connection in self._connections.get(game_id, {}).values()
                if not connection.closed]

    def watchers(self, game_id: str) -> int:
        """Sockets open on this game (a game with none may be dropped from memory)."""
        return len(self._connections.get(game_id, ()))

    def leave(self, game_id: str, socket: Socket) -> None:
        connections = self._connections.get(game_id)
        if connections is not None:
            connection = connections.pop(socket, None)
            if connection is not None:
                self._total -= 1
                connection.stop()
            if not connections:
                del self._connections[game_id]

    def holds_seat(self, game_id: str, seat: int) -> bool:
        """Is a socket of ``seat`` open on this game here? (The seats each socket's token
        held when it joined: no token is hashed again.)"""
        return any(seat in connection.seats and not connection.closed
                   for connection in self._connections.get(game_id, {}).values())

    def seats_present(self, match: Match) -> list[int]:
        """Seats with at least one open connection (an online opponent who is here)."""
        present: set[int] = set()
        for connection in self._connections.get(match.id, {}).values():
            if not connection.closed:
                present |= match.seats_of(connection.token)
        return sorted(present)

    def publish(self, match: Match) -> None:
        """Queue for every connection of the game its view of the current state.

        Views are built once per distinct token (players and spectators differ). Nothing
        here waits for a client.
        """
        for listener in self.listeners:
            listener(match)
        connections = list(self._connections.get(match.id, {}).items())
        if not connections:
            return
        present = self.seats_present(match)
        views: dict[tuple[str | None, int | None, int | None, str], str] = {}
        for socket, connection in connections:
            if connection.closed:
                self.leave(match.id, socket)
                continue
            self.send_state(connection, match, present, views)

    @staticmethod
    def send_state(connection: Connection, match: Match, present: list[int],
                   views: dict[tuple[str | None, int | None, int | None, str], str]
                   | None = None) -> None:
        """Queue ``connection``'s view of ``match`` (``views`` shares encoded views)."""
        since = connection.since(match)
        svg_base = connection.svg_base()
        key = (connection.token, since, svg_base, connection.words.language)
        text = views.get(key) if views is not None else None
        if text is None:
            text = match.view_json(connection.token, since=since, svg_base=svg_base,
                                   words=connection.words, present=present)
            if views is not None:
                views[key] = text
        connection.send(text, state=True, since=since or 0, match=match, svg_base=svg_base)

    async def broadcast(self, match: Match) -> None:
        """Kept for callers that await it: queues at once (see :meth:`publish`)."""
        self.publish(match)

    def broadcast_later(self, match: Match) -> None:
        self.publish(match)

    async def close_all(self) -> None:
        for connections in list(self._connections.values()):
            for connection in list(connections.values()):
                await connection.close(1001)
        self._connections.clear()
        self._total = 0
