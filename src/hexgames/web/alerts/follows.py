"""The bell for followed players: when a player starts an online game, each of their
followers with an alerts socket open is told, whichever server process holds it.

A game *starts* when it is stored being played (an accepted challenge, a quick pairing, a
rematch, a tournament's pairing: anything that stores an online game and holds it, see
:attr:`hexgames.web.play.live_games.Hooks.started`). Two paths lead here:

- :meth:`FollowAlerts.started`: the game was created in this process;
- :meth:`FollowAlerts.heard`: another process stored it (PostgreSQL): its storage sent a
  ``started`` change (``LISTEN/NOTIFY``), and the game's row is read here.

Either way the followers of both players are read (at most :data:`MAX_FOLLOWERS_READ`
each) and those with an alerts socket in this process get
``{"type": "followed", "player", "game_id", "game", "title", "rated", "url", ...}``
(:func:`followed_event`) on the sockets' bounded queues. Nothing is read while this
process has no alerts socket at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from hexgames.game import game_names, get_game
from hexgames.web.alerts.turns import TurnAlerts
from hexgames.web.game.clocks import TimeControl
from hexgames.web.game.matches import Match
from hexgames.web.play.live_games import LiveGames
from hexgames.web.storage import Change, Mode, StoredGame

__all__ = ["MAX_FOLLOWERS_READ", "FollowAlerts", "followed_event"]

log = logging.getLogger(__name__)

#: Followers read per player per started game (the oldest follows first).
MAX_FOLLOWERS_READ = 500
#: Started games waiting to be told (beyond: not told, logged).
MAX_PENDING = 1000
#: ``load_tail``'s ``since`` that reads a game's row without its actions.
_ROW_ONLY = 10**9


def _players_of(stored: StoredGame) -> list[str]:
    """The identities holding the seats of an online game being played, in seat order;
    none for a private invitation (nobody is told of a game not yet public)."""
    if stored.mode != Mode.ONLINE or stored.status != "playing":
        return []
    if any(player.get("invite") for player in stored.players):
        return []
    return [str(player["player_id"]) for player in stored.players if player.get("player_id")]


def followed_event(stored: StoredGame, player_id: str,
                   names: dict[str, str]) -> dict[str, Any]:
    """What a follower of ``player_id`` is sent when ``stored`` starts (docs/web-api.md,
    "Alerts socket"): who, which game, against whom, rated or not, where to watch."""
    title = get_game(stored.game).title if stored.game in game_names() else stored.game
    others = [names.get(str(player.get("player_id")), "?") for player in stored.players
              if player.get("player_id") and player.get("player_id") != player_id]
    try:
        control = TimeControl.parse(stored.meta.control) \
            if stored.meta.control else TimeControl()
        time = control.describe()
    except ValueError:
        time = ""
    tournament = stored.meta.tournament
    return {"type": "followed", "player": names.get(player_id, "?"),
            "player_id": player_id, "game_id": stored.id, "game": stored.game,
            "title": title, "opponent": others[0] if others else None,
            "rated": bool(stored.rated), "time": time,
            "tournament": str(tournament) if tournament else None,
            "url": f"/play/{stored.id}"}


class FollowAlerts:
    """Tell followers, on this process's alerts sockets, that a player started a game."""

    def __init__(self, games: LiveGames, alerts: TurnAlerts) -> None:
        self.games = games
        self.alerts = alerts
        self._pending: dict[str, StoredGame | None] = {}
        self._worker: asyncio.Task[None] | None = None

    def started(self, match: Match) -> None:
        """A game was stored and held here (the hook of :class:`LiveGames`)."""
        if _players_of(match.stored):
            self._queue(match.id, match.stored)

    def heard(self, change: Change | None) -> None:
        """Another process stored a change: a ``started`` one is read and told."""
        if change is not None and change.kind == "started":
            self._queue(change.game_id, None)

    def _queue(self, game_id: str, stored: StoredGame | None) -> None:
        if not self.alerts.anybody():
            return  # no alerts socket here: nobody to tell
        if game_id not in self._pending and len(self._pending) >= MAX_PENDING:
            log.warning("too many started games to tell followers of; some missed")
            return
        self._pending[game_id] = stored
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a synchronous test): nobody is listening
            self._pending.pop(game_id, None)
            return
        if self._worker is None or self._worker.done():
            self._worker = loop.create_task(self._tell_pending())

    async def _tell_pending(self) -> None:
        while self._pending:
            game_id = next(iter(self._pending))
            stored = self._pending.pop(game_id)
            try:
                await self.tell(game_id, stored)
            except Exception:
                log.exception("could not tell the followers of game %s", game_id)

    async def close(self) -> None:
        """Stop telling (the app is stopping): the worker is cancelled, what was waiting
        is dropped (its followers' sockets are being closed anyway)."""
        self._pending.clear()
        worker, self._worker = self._worker, None
        if worker is not None and not worker.done():
            worker.cancel()
            with contextlib.suppress(BaseException):
                await worker

    async def tell(self, game_id: str, stored: StoredGame | None = None) -> int:
        """Send the ``followed`` event of the game to the followers of its players who
        listen here; returns how many sockets' players were told. ``stored``: the game
        (else its row is read)."""
        calls, storage = self.games.calls, self.games.storage
        if stored is None:
            loaded = await calls.call(storage.load_tail, game_id, _ROW_ONLY)
            if loaded is None:
                return 0
            stored = loaded[0]
        players = _players_of(stored)
        if not players:
            return 0
        names: dict[str, str] | None = None
        told = 0
        for player_id in players:
            followers = await calls.call(storage.related_to, player_id, "follow",
                                         MAX_FOLLOWERS_READ)
            here = [other for other in followers
                    if other not in players and self.alerts.listening(other)]
            if not here:
                continue
            if names is None:
                names = await calls.call(storage.player_names, players)
            event = followed_event(stored, player_id, names)
            for follower in here:
                told += self.alerts.send_to(follower, event)
        return told
