"""The lobby: open challenges, accepting one, and the lists of games being played.

A challenge (a *seek*) is stored, with the hash of its poster's seat credential; whoever
accepts it first gets the game (the storage's conditional update: of two accepting
together, the other gets :class:`~hexgames.web.storage.SeekTaken`). Bounds keep anyone
from filling the lobby: ``MAX_OPEN_SEEKS_PER_PLAYER`` open challenges per identity,
``MAX_OPEN_SEEKS_PER_ADDRESS`` per client address, ``MAX_OPEN_SEEKS`` in all, each open
for ``SEEK_TTL`` at most; a poster's real-time challenges are withdrawn
``LOBBY_LEAVE_GRACE`` seconds after their last lobby socket closed.

Lobby sockets (``/ws/lobby``) are told of every change (:meth:`Lobby.changed`): a new
challenge, one taken, a game started or ended (the other collaborators call it through
:attr:`hexgames.web.play.live_games.Hooks.lobby_changed`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from hexgames.errors import IllegalAction
from hexgames.game import game_names, get_game
from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.web.accounts.credentials import new_token
from hexgames.web.game.clocks import TimeControl
from hexgames.web.game.matches import ENGLISH, Match, start_position
from hexgames.web.game.options import parse_options
from hexgames.web.play.clock_watch import ClockWatch
from hexgames.web.play.hub import Connection
from hexgames.web.play.live_games import GameNotFound, LiveGames, iso_now
from hexgames.web.storage import (
    GameMeta,
    Mode,
    SeatPlayer,
    Seek,
    SeekTaken,
    Storage,
    StoredGame,
    hashed,
)

__all__ = ["Lobby", "LobbyFull", "playing_summary", "public_seek"]

log = logging.getLogger(__name__)

#: Open challenges shown in the lobby, and games listed as being played.
LOBBY_LIMIT = 100
#: Open challenges one identity may have at once (a fourth waits until one is accepted,
#: withdrawn or expired), and in the whole lobby (past that: "the lobby is full", 503):
#: nobody can push the other players' challenges out of the lobby's list.
MAX_OPEN_SEEKS_PER_PLAYER = 3
MAX_OPEN_SEEKS = LOBBY_LIMIT
#: Seconds an open challenge waits for an opponent: a day for correspondence, an hour
#: otherwise (a real-time challenge accepted long after its poster left starts a game
#: nobody plays).
SEEK_TTL = {"correspondence": 86_400.0, "realtime": 3_600.0, "untimed": 3_600.0}
#: Open challenges posted from one client address at once (issue 31: 5 addresses filled
#: the lobby of 100): past them 409, whatever identities the address makes up.
MAX_OPEN_SEEKS_PER_ADDRESS = 5
#: Seconds a poster's real-time or untimed challenges stay open once their last lobby
#: socket (in this process) closed: then they are withdrawn (correspondence ones stay).
LOBBY_LEAVE_GRACE = 60.0


class LobbyFull(RuntimeError):
    """As many open challenges as the lobby lists: try again when one is taken (503)."""


class Lobby:
    """The challenges and the lobby sockets of one server process."""

    def __init__(self, games: LiveGames, clocks: ClockWatch) -> None:
        self.games = games
        self.clocks = clocks
        #: Lobby sockets (``/ws/lobby``).
        self._sockets: dict[Any, Connection] = {}
        #: The identity of each lobby socket that has one, and when each poster's last
        #: lobby socket closed (ms; see :meth:`withdraw_departed`).
        self._players: dict[Any, str] = {}
        self.departed: dict[str, float] = {}
        self._timers: set[asyncio.Task[Any]] = set()
        #: Called with a player's id when their last lobby socket here closes (the
        #: quick-pairing pools take them out: :meth:`~hexgames.web.lobby.pools.Pools.player_left`).
        self.player_gone: Callable[[str], None] = lambda player_id: None
        #: The players waiting in each quick-pairing pool (``{pool id: count}``), sent
        #: with every lobby state, so a count reaches the lobby's pages when it changes
        #: rather than at their next poll (issue 39, row 17); set by the service.
        self.pool_counts: Callable[[], Awaitable[dict[str, int]]] | None = None

    def now(self) -> float:
        return self.games.now()

    def cancel_timers(self) -> None:
        """Forget the pending withdrawals of departed posters (the server stops)."""
        for timer in list(self._timers):
            timer.cancel()

    async def close(self) -> None:
        """Close the lobby sockets."""
        for connection in list(self._sockets.values()):
            await connection.close(1001)
        self._sockets.clear()

    async def _store(self, function: Any, *args: Any) -> Any:
        """A storage call, off the loop (see
        :class:`~hexgames.web.play.storage_calls.StorageCalls`)."""
        return await self.games.calls.call(function, *args)

    @property
    def _storage(self) -> Storage:
        return self.games.storage

    async def create_seek(self, game_name: str, options: dict[str, Any] | None,
                          control: dict[str, Any] | None, color: str, rated: bool,
                          creator: dict[str, Any], target: str | None = None,
                          address: str | None = None) -> tuple[Seek, str]:
        """Post an open challenge (or a direct one to the player named ``target``).
        Returns it with the seat credential its creator will hold in the game.
        ``address``: the poster's client address (at most
        ``MAX_OPEN_SEEKS_PER_ADDRESS`` open challenges each; kept as a keyed hash)."""
        game = get_game(game_name)
        rules_options = parse_options(game, options)
        time_control = TimeControl.parse(control)
        if rated:
            time_control.check_rated()
        if color != "random" and color not in game.colors:
            raise ValueError(Phrase("colour must be random or one of {colors}",
                                    colors=", ".join(game.colors)))
        if target is not None and (not target.strip() or len(target) > 40):
            raise ValueError(N_("a direct challenge names a player"))
        if target is not None:
            named = await self._store(self._storage.player_by_name, target.strip())
            if named is not None:
                await self.refuse_blocked(creator.get("player_id"), named.id)
        open_now = [seek for seek in await self._store(self._storage.open_seeks, MAX_OPEN_SEEKS)
                    if not self.seek_expired(seek)]
        poster = creator.get("player_id")
        if poster and sum(seek.creator.get("player_id") == poster
                          for seek in open_now) >= MAX_OPEN_SEEKS_PER_PLAYER:
            raise IllegalAction("you already have {count} open challenges; withdraw one "
                                "or wait for an opponent", count=MAX_OPEN_SEEKS_PER_PLAYER)
        if address is not None:
            key = await self.games.seat_key()
            origin = hmac.new(key, b"address\x00" + address.encode("utf-8", "replace"),
                              hashlib.sha256).hexdigest()[:24]
            creator = {**creator, "from": origin}
            if sum(seek.creator.get("from") == origin
                   for seek in open_now) >= MAX_OPEN_SEEKS_PER_ADDRESS:
                raise IllegalAction("{count} open challenges come from your address "
                                    "already; withdraw one or wait for an opponent",
                                    count=MAX_OPEN_SEEKS_PER_ADDRESS)
        if len(open_now) >= MAX_OPEN_SEEKS:
            raise LobbyFull(N_("the lobby is full of open challenges; accept one, or try "
                               "again in a few minutes"))
        token = new_token()
        seek = Seek(
            id=secrets.token_urlsafe(9), game=game.name, options=rules_options,
            control=time_control.to_dict(), color=color, rated=bool(rated),
            creator=dict(creator), creator_token=hashed(token) or "",
            target=target.strip() if target else None, status="open", game_id=None,
            created_at=datetime.fromtimestamp(self.now() / 1000, UTC).isoformat(
                timespec="milliseconds"),
        )
        await self._store(self._storage.create_seek, seek)
        self.changed()
        return seek, token

    async def accept_seek(self, seek_id: str, acceptor: dict[str, Any]) -> tuple[Match, str]:
        """Accept an open challenge: the game starts for both at once. Of two players
        accepting together exactly one gets the game (the storage's conditional update);
        the other gets :class:`SeekTaken` (409)."""
        seek = await self._store(self._storage.load_seek, seek_id)
        if seek is None:
            raise GameNotFound(Phrase("there is no challenge {id}", id=repr(seek_id[:40])))
        if seek.status == "open" and self.seek_expired(seek):
            await self._store(self._storage.expire_seek, seek.id)
            raise SeekTaken(N_("this challenge has expired"))
        if seek.status != "open":
            raise SeekTaken(N_("this challenge has already been accepted, withdrawn or "
                               "expired"))
        mine = acceptor.get("player_id")
        if mine and mine == seek.creator.get("player_id"):
            raise IllegalAction("this is your own challenge; wait for an opponent")
        if seek.target is not None:
            name = str(acceptor.get("name") or "").casefold()
            if name != seek.target.casefold():
                raise PermissionError(Phrase("this challenge is for {name}", name=seek.target))
        await self.refuse_blocked(seek.creator.get("player_id"), mine)
        game = get_game(seek.game)
        color = seek.color if seek.color != "random" else secrets.choice(list(game.colors))
        start = await self.games.calls.call_thread(start_position, game, seek.options)
        creator_seat = start.seat_of(color)
        token = new_token()
        players: list[SeatPlayer] = [{}, {}]
        tokens: list[str | None] = [None, None]
        for seat, who in ((creator_seat, seek.creator), (1 - creator_seat, acceptor)):
            players[seat] = {"kind": "human", "level": None}
            if who.get("player_id"):
                players[seat]["player_id"] = who["player_id"]
        tokens[creator_seat], tokens[1 - creator_seat] = seek.creator_token, hashed(token)
        stamp = iso_now()
        stored = StoredGame(
            id=secrets.token_urlsafe(9), game=game.name, options=dict(seek.options),
            mode=Mode.ONLINE, players=players, seat_tokens=tokens, status="playing",
            winner=None, reason=None, created_at=stamp, updated_at=stamp,
            rated=seek.rated, meta=GameMeta(seek=seek.id),
        )
        match = await self.games.build(stored)  # off the loop
        self.clocks.start_clock(match, TimeControl.parse(seek.control))
        await self._store(self._storage.accept_seek, seek.id, stored)
        self.games.hold(match)
        self.clocks.watch(match)
        self.changed({"type": "seek_taken", "seek": seek.id, "game": stored.id})
        return match, token

    async def refuse_blocked(self, first: Any, second: Any) -> None:
        """Refuse (409, :class:`IllegalAction`) a challenge between two identities when
        either blocked the other (docs/web.md, "Following and blocking")."""
        if not first or not second or first == second:
            return
        pair = (str(first), str(second))
        if await self._store(self._storage.blocked_between, [pair]):
            raise IllegalAction("no challenge between you and this player: one of you "
                                "blocked the other")

    async def cancel_seek(self, seek_id: str, token: str | None) -> None:
        if not token or not await self._store(self._storage.cancel_seek, seek_id, token):
            raise IllegalAction("only an open challenge of yours can be withdrawn")
        self.changed()

    async def seek_status(self, seek_id: str, words: Translator = ENGLISH) -> dict[str, Any]:
        seek = await self._store(self._storage.load_seek, seek_id)
        if seek is None:
            raise GameNotFound(Phrase("there is no challenge {id}", id=repr(seek_id[:40])))
        return {**public_seek(seek, words), "status": seek.status, "game": seek.game_id}

    def seek_expired(self, seek: Seek) -> bool:
        ttl = SEEK_TTL.get(str(seek.control.get("kind")), SEEK_TTL["untimed"])
        try:
            posted = datetime.fromisoformat(seek.created_at).timestamp() * 1000
        except ValueError:
            return False
        return self.now() - posted > ttl * 1000

    async def lobby_state(self, words: Translator = ENGLISH) -> dict[str, Any]:
        """The open challenges and the games being played (``time_text``: each one's
        time control in ``words``' language)."""
        seeks = []
        for seek in await self._store(self._storage.open_seeks, LOBBY_LIMIT):
            if self.seek_expired(seek):
                await self._store(self._storage.expire_seek, seek.id)
            else:
                seeks.append(seek)
        playing = [
            stored for stored in
            await self._store(self._storage.games_with_status, "playing", LOBBY_LIMIT)
            if stored.mode == Mode.ONLINE
            and not any(player.get("invite") for player in stored.players)
        ]
        names = await self._names(playing)
        state = {
            "type": "lobby",
            "seeks": [public_seek(seek, words) for seek in seeks],
            "playing": [playing_summary(stored, names, words) for stored in playing],
        }
        if self.pool_counts is not None:
            counts = await self.pool_counts()
            state["pools"] = [{"pool": pool, "waiting": count}
                              for pool, count in counts.items()]
        return state

    async def names_of(self, games: list[StoredGame]) -> dict[str, str]:
        """The display names of the identities holding seats in ``games`` (id -> name)."""
        return await self._names(games)

    async def _names(self, games: list[StoredGame]) -> dict[str, str]:
        ids = {player["player_id"] for stored in games for player in stored.players
               if player.get("player_id")}
        return await self._store(self._storage.player_names, sorted(ids)) if ids else {}

    def lobby_full(self) -> bool:
        """As many lobby sockets as the hub allows game sockets in total (1,000)."""
        return len(self._sockets) >= self.games.hub.max_total

    def join_lobby(self, socket: Any, player_id: str | None = None,
                   words: Translator = ENGLISH) -> Connection:
        """A lobby socket opened (``player_id``: its identity, if the cookie names one:
        while it is open, that player's challenges are not withdrawn as departed;
        ``words``: its page's language)."""
        connection = Connection(socket, None, words=words)
        self._sockets[socket] = connection
        if player_id:
            self._players[socket] = player_id
            self.departed.pop(player_id, None)
        return connection

    def leave_lobby(self, socket: Any) -> None:
        connection = self._sockets.pop(socket, None)
        if connection is not None:
            connection.stop()
        player_id = self._players.pop(socket, None)
        if player_id and player_id not in self._players.values():
            # The poster's last lobby socket here closed: real-time challenges are
            # withdrawn unless they are back within the grace period.
            self.departed[player_id] = self.now()
            self.player_gone(player_id)
            with contextlib.suppress(RuntimeError):  # no running loop: tests call it
                loop = asyncio.get_running_loop()
                loop.call_later(LOBBY_LEAVE_GRACE + 0.5, self._withdraw_later)

    def _withdraw_later(self) -> None:
        task = asyncio.get_running_loop().create_task(self.withdraw_departed())
        self._timers.add(task)
        task.add_done_callback(self._timers.discard)

    async def withdraw_departed(self) -> list[str]:
        """Withdraw the real-time and untimed open challenges of posters whose last
        lobby socket closed ``LOBBY_LEAVE_GRACE`` seconds ago or more and who did not
        come back (status ``expired``; correspondence challenges stay). Returns their
        ids. Called after each grace period; tests call it after moving their clock."""
        current = self.now()
        due = {player_id for player_id, since in self.departed.items()
               if current - since >= LOBBY_LEAVE_GRACE * 1000}
        if not due:
            return []
        for player_id in due:
            self.departed.pop(player_id, None)
        withdrawn = []
        try:
            for seek in await self._store(self._storage.open_seeks, 2 * LOBBY_LIMIT):
                if (seek.creator.get("player_id") in due
                        and seek.control.get("kind") != "correspondence"
                        and await self._store(self._storage.expire_seek, seek.id)):
                    withdrawn.append(seek.id)
        except Exception:
            log.exception("could not withdraw the challenges of departed posters")
        if withdrawn:
            self.changed()
        return withdrawn

    def send_to_player(self, player_id: str, event: dict[str, Any]) -> None:
        """Send ``event`` to the lobby sockets of one identity in this process."""
        for socket, holder in list(self._players.items()):
            connection = self._sockets.get(socket)
            if holder == player_id and connection is not None:
                connection.send(event, state=False)

    def changed(self, event: dict[str, Any] | None = None) -> None:
        """Send every lobby socket ``event`` (if any) and the new lobby (off the caller)."""
        if not self._sockets:
            return
        for connection in list(self._sockets.values()):
            if event is not None:
                connection.send(event, state=False)
        with contextlib.suppress(RuntimeError):  # no running loop: nobody to tell
            asyncio.get_running_loop().create_task(self._publish_lobby())

    async def _publish_lobby(self) -> None:
        try:
            state = await self.lobby_state()
        except Exception:
            log.exception("could not read the lobby")
            return
        texts: dict[str, str] = {}  # encoded once per language of the sockets
        for socket, connection in list(self._sockets.items()):
            if connection.closed:
                self.leave_lobby(socket)
                continue
            words = connection.words
            if words.language not in texts:
                texts[words.language] = json.dumps(_in_language(state, words),
                                                   separators=(",", ":"))
            connection.send(texts[words.language], state=True)

    async def your_turn(self, player_id: str, games: list[StoredGame],
                        words: Translator = ENGLISH) -> list[dict[str, Any]]:
        """Of ``games`` (a player's), those being played where it is their turn."""
        mine = []
        names = await self._names(games)
        for stored in games:
            seat = stored.meta.turn
            if (stored.status == "playing" and isinstance(seat, int)
                    and stored.players[seat].get("player_id") == player_id):
                mine.append(playing_summary(stored, names, words))
        return mine


def _in_language(state: dict[str, Any], words: Translator) -> dict[str, Any]:
    """A lobby state read in English, its ``time_text`` fields in ``words``' language."""
    def again(entry: dict[str, Any]) -> dict[str, Any]:
        control = entry.get("control")
        return {**entry, "time_text": words.text(TimeControl.parse(control).phrase())}

    return {**state, "seeks": [again(seek) for seek in state["seeks"]],
            "playing": [again(game) for game in state["playing"]]}


def public_seek(seek: Seek, words: Translator = ENGLISH) -> dict[str, Any]:
    """A challenge as the lobby shows it (no credential; ``time_text``: ``time`` in
    ``words``' language)."""
    game = get_game(seek.game)
    control = TimeControl.parse(seek.control)
    return {
        "id": seek.id,
        "game": seek.game,
        "title": game.title,
        "options": seek.options,
        "control": seek.control,
        "time": control.describe(),
        "time_text": words.text(control.phrase()),
        "color": seek.color,
        "rated": seek.rated,
        "by": str(seek.creator.get("name") or N_("Anonymous")),
        "by_player": seek.creator.get("player_id"),
        "target": seek.target,
        "created_at": seek.created_at,
    }


def playing_summary(stored: StoredGame, names: dict[str, str] | None = None,
                    words: Translator = ENGLISH) -> dict[str, Any]:
    """A game being played, for the lobby and "your turn" lists."""
    control = TimeControl.parse(stored.meta.control)
    return {
        "id": stored.id,
        "game": stored.game,
        "title": get_game(stored.game).title if stored.game in game_names() else stored.game,
        "names": [(names or {}).get(str(player.get("player_id")), f"Player {seat + 1}")
                  for seat, player in enumerate(stored.players)],
        "time": control.describe(),
        "time_text": words.text(control.phrase()),
        "control": control.to_dict(),
        "rated": stored.rated,
        "turn": stored.meta.turn,
        "deadline": stored.meta.deadline,
        "updated_at": stored.updated_at,
    }
