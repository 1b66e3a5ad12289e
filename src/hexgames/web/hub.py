"""Who is watching which game, and pushing each of them the state they may see.

Every browser showing a game holds a WebSocket registered here with the token it
presented. After any change the hub sends each connection its own view: the seat to act
gets the legal actions and their gestures, everybody else only the board and history.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from typing import Any

from fastapi import WebSocket

from hexgames.web.matches import Match

log = logging.getLogger(__name__)


class Hub:
    def __init__(self) -> None:
        self._connections: dict[str, dict[WebSocket, str | None]] = defaultdict(dict)
        self._background: set[asyncio.Task[None]] = set()

    def join(self, game_id: str, socket: WebSocket, token: str | None) -> None:
        self._connections[game_id][socket] = token

    def leave(self, game_id: str, socket: WebSocket) -> None:
        connections = self._connections.get(game_id)
        if connections is not None:
            connections.pop(socket, None)
            if not connections:
                del self._connections[game_id]

    def watchers(self, game_id: str) -> int:
        return len(self._connections.get(game_id, {}))

    def seats_present(self, match: Match) -> list[int]:
        """Seats with at least one open connection (an online opponent who is here)."""
        present: set[int] = set()
        for token in self._connections.get(match.id, {}).values():
            present |= match.seats_of(token)
        return sorted(present)

    async def broadcast(self, match: Match) -> None:
        """Send every connection of the game its view of the current state.

        Views are built once per distinct token (players and spectators differ), and a
        connection that fails to receive is dropped rather than failing the others.
        """
        connections = list(self._connections.get(match.id, {}).items())
        if not connections:
            return
        present = self.seats_present(match)
        views: dict[str | None, dict[str, Any]] = {}
        for _, token in connections:
            if token not in views:
                views[token] = {**match.view(token), "present": present}
        results = await asyncio.gather(
            *(socket.send_json(views[token]) for socket, token in connections),
            return_exceptions=True,
        )
        for (socket, _), result in zip(connections, results, strict=True):
            if isinstance(result, Exception):
                log.info("dropping a connection to game %s: %s", match.id, result)
                self.leave(match.id, socket)

    def broadcast_later(self, match: Match) -> None:
        """Broadcast from a task of its own: for a connection handler that is ending (and
        may be cancelled at any await) but whose departure the others should see."""
        task = asyncio.get_running_loop().create_task(self.broadcast(match))
        self._background.add(task)  # keep a reference until it is done
        task.add_done_callback(self._background.discard)

    async def close_all(self) -> None:
        for connections in list(self._connections.values()):
            for socket in list(connections):
                with contextlib.suppress(Exception):
                    await socket.close(code=1001)
        self._connections.clear()
