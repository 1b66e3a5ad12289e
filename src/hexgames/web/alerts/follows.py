"""The bell for followed players: when a player starts an online game or creates a
tournament, each of their followers with an alerts socket open is told, whichever
server process holds it.

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

A tournament is told the same way: :meth:`FollowAlerts.tournament_created` when it was
created through this process, :meth:`FollowAlerts.heard` on a ``tournament`` change
from another; its creator's followers get ``{"type": "followed_tournament", ...}``
(:func:`followed_tournament_event`).
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
from hexgames.web.storage import Change, Mode, StoredGame, TournamentRecord

__all__ = ["MAX_FOLLOWERS_READ", "FollowAlerts", "followed_event", "followed_tournament_event"]

log = logging.getLogger(__name__)

#: Followers read per player per started game (the oldest follows first).
MAX_FOLLOWERS_READ = 500
#: Started games waiting to be told (beyond: not told, logged).
MAX_PENDING = 1000
#: ``load_tail``'s ``since`` that reads a game's row without its actions.
_ROW_ONLY = 10**9

#: What a pending telling is about: ``("game", id)`` or ``("tournament", id)``.
_Key = tuple[str, str]


def _players_of(stored: StoredGame) -> list[str]:
    """The identities holding the seats of an online game being played, in seat order;
    none for a private invitation (nobody is told of a game not yet public)."""
    if stored.mode != Mode.ONLINE or stored.status != "playing":
        return []
    if any(player.get("invite") for player in stored.players):
        return []
    return [str(player["player_id"]) for player in stored.players if player.get("player_id")]


def _time_text(control: Any) -> str:
    """A time control's description ("3+2", "3 days a move"), or "" for a bad one."""
    try:
        return (TimeControl.parse(control) if control else TimeControl()).describe()
    except ValueError:
        return ""


def followed_tournament_event(record: TournamentRecord, creator_name: str) -> dict[str, Any]:
    """What a follower of a tournament's creator is sent when it is created
    (docs/web-api.md, "Alerts socket"): who, which game, what kind, when it starts."""
    title = get_game(record.game).title if record.game in game_names() else record.game
    return {"type": "followed_tournament", "player": creator_name,
            "player_id": record.creator_id, "tournament_id": record.id,
            "game": record.game, "title": title, "kind": record.kind,
            "rated": bool(record.settings.get("rated", False)),
            "time": _time_text(record.control), "starts_at": record.starts_at,
            "url": f"/tournament/{record.id}"}


def followed_event(stored: StoredGame, player_id: str,
                   names: dict[str, str]) -> dict[str, Any]:
    """What a follower of ``player_id`` is sent when ``stored`` starts (docs/web-api.md,
    "Alerts socket"): who, which game, against whom, rated or not, where to watch."""
    title = get_game(stored.game).title if stored.game in game_names() else stored.game
    others = [names.get(str(player.get("player_id")), "?") for player in stored.players
              if player.get("player_id") and player.get("player_id") != player_id]
    time = _time_text(stored.meta.control)
    tournament = stored.meta.tournament
    return {"type": "followed", "player": names.get(player_id, "?"),
            "player_id": player_id, "game_id": stored.id, "game": stored.game,
            "title": title, "opponent": others[0] if others else None,
            "rated": bool(stored.rated), "time": time,
            "tournament": str(tournament) if tournament else None,
            "url": f"/play/{stored.id}"}


class FollowAlerts:
    """Tell followers, on this process's alerts sockets, that a player started a game or
    created a tournament."""

    def __init__(self, games: LiveGames, alerts: TurnAlerts) -> None:
        self.games = games
        self.alerts = alerts
        self._pending: dict[_Key, StoredGame | TournamentRecord | None] = {}
        self._worker: asyncio.Task[None] | None = None

    def started(self, match: Match) -> None:
        """A game was stored and held here (the hook of :class:`LiveGames`)."""
        if _players_of(match.stored):
            self._queue(("game", match.id), match.stored)

    def tournament_created(self, record: TournamentRecord) -> None:
        """A tournament was created through this process (the route that created it)."""
        self._queue(("tournament", record.id), record)

    def heard(self, change: Change | None) -> None:
        """Another process stored a change: a ``started`` game or a created
        ``tournament`` is read and told."""
        if change is not None and change.kind == "started":
            self._queue(("game", change.game_id), None)
        elif change is not None and change.kind == "tournament":
            self._queue(("tournament", change.game_id), None)

    def _queue(self, key: _Key, known: StoredGame | TournamentRecord | None) -> None:
        if not self.alerts.anybody():
            return  # no alerts socket here: nobody to tell
        if key not in self._pending and len(self._pending) >= MAX_PENDING:
            log.warning("too many started games to tell followers of; some missed")
            return
        self._pending[key] = known
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a synchronous test): nobody is listening
            self._pending.pop(key, None)
            return
        if self._worker is None or self._worker.done():
            self._worker = loop.create_task(self._tell_pending())

    async def _tell_pending(self) -> None:
        while self._pending:
            key = next(iter(self._pending))
            known = self._pending.pop(key)
            what, an_id = key
            try:
                if what == "tournament":
                    await self.tell_tournament(
                        an_id, known if isinstance(known, TournamentRecord) else None)
                else:
                    await self.tell(an_id, known if isinstance(known, StoredGame) else None)
            except Exception:
                log.exception("could not tell the followers of %s %s", what, an_id)

    async def close(self) -> None:
        """Stop telling (the app is stopping): the worker is cancelled, what was waiting
        is dropped (its followers' sockets are being closed anyway)."""
        self._pending.clear()
        worker, self._worker = self._worker, None
        if worker is not None and not worker.done():
            worker.cancel()
            with contextlib.suppress(BaseException):
                await worker

    async def tell_tournament(self, tournament_id: str,
                              record: TournamentRecord | None = None) -> int:
        """Send the ``followed_tournament`` event of a new tournament to its creator's
        followers who listen here; returns how many sockets' players were told.
        ``record``: the tournament (else it is read)."""
        calls, storage = self.games.calls, self.games.storage
        if record is None:
            state = await calls.call(storage.load_tournament, tournament_id)
            if state is None:
                return 0
            record = state.tournament
        followers = await calls.call(storage.related_to, record.creator_id, "follow",
                                     MAX_FOLLOWERS_READ)
        here = [other for other in followers if self.alerts.listening(other)]
        if not here:
            return 0
        names = await calls.call(storage.player_names, [record.creator_id])
        event = followed_tournament_event(record, names.get(record.creator_id, "?"))
        return sum(self.alerts.send_to(follower, event) for follower in here)

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
