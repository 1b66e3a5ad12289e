"""Turn alerts: telling a player, wherever they are on the site, that it is their turn.

Every page of the site may hold one alerts socket (``/ws/alerts``, the identity from the
cookie; the pages elect one per browser). When the turn of an online game passes to a
seat held by an identity, each of that identity's alerts sockets gets
``{"type": "your_turn", "id", "ply", ...}`` (:meth:`Turn.event`); the page decides
whether to play a sound and show a notification (static/js/alerts.js).

Where turns are seen, in this process:

- :meth:`TurnAlerts.published`, a listener of the hub: every change to a game held here
  ends with its state published (moves, takebacks, another process's change read back,
  a player connecting). A game at a turn start whose seat to act is held by an identity
  is a turn; each ``(game, seat, ply)`` is announced once (the last one is remembered per
  game), a repeat is not;
- :meth:`TurnAlerts.heard`, a listener of the change feed: a change another server
  process stored (PostgreSQL) to a game this one does not hold. An online turn ends with
  a move that changes the meta (the clock and the seat to move, ``meta.turn``: a
  ``turn`` change; a ``meta`` one for a takeback), so for those, when
  alerts sockets are open here, the game's row is read (one reader task, a bounded set of
  games waiting) and the same check is made.

``on_turn`` hears every turn announced here (turn emails: :mod:`.turn_emails`, which
makes them once per game and turn whichever processes see it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from hexgames.game import game_names, get_game
from hexgames.phrases import N_, Phrase
from hexgames.web.game.clocks import TimeControl
from hexgames.web.game.matches import Match
from hexgames.web.play.hub import Connection, Socket
from hexgames.web.play.live_games import LiveGames
from hexgames.web.storage import Change, GameMeta, Mode, StoredGame

__all__ = ["MAX_ALERT_SOCKETS", "MAX_SOCKETS_PER_PLAYER", "Turn", "TurnAlerts"]

log = logging.getLogger(__name__)

#: Alerts sockets in this process, and per identity (a browser elects one per profile;
#: more come from browsers without Web Locks, or several devices).
MAX_ALERT_SOCKETS = 1000
MAX_SOCKETS_PER_PLAYER = 16
#: Games whose last announced turn is remembered (the least recently used forgotten).
REMEMBERED_GAMES = 10_000
#: Games changed by other processes waiting to be read (beyond: not read, logged).
MAX_PENDING_READS = 1000
#: ``load_tail``'s ``since`` that reads a game's row without its actions.
_ROW_ONLY = 10**9


@dataclass(frozen=True)
class Turn:
    """The turn of an online game passing to ``player_id`` (its ``seat``) at ``ply``."""

    game_id: str
    ply: int
    seat: int
    player_id: str
    game: str
    title: str
    opponent: str
    last: str | None
    control: str
    time: str
    deadline: float | None

    def event(self) -> dict[str, Any]:
        """The ``your_turn`` message of the alerts socket (docs/web.md, "Turn alerts")."""
        view = asdict(self)
        del view["player_id"], view["game_id"]
        return {"type": "your_turn", "id": self.game_id, **view,
                "url": f"/play/{self.game_id}"}


#: Who a turn alert names when the opponent has no name (a page may translate it).
YOUR_OPPONENT = N_("your opponent")


def _control(meta: GameMeta) -> TimeControl:
    try:
        return TimeControl.parse(meta.control)
    except ValueError:
        return TimeControl()


def _deadline(meta: GameMeta) -> float | None:
    return None if meta.deadline is None else float(meta.deadline)


def turn_of_match(match: Match) -> Turn | None:
    """The turn a live online game is at, if an identity's seat is to act at a turn start
    (none while an invitation is open, at a turn's later actions, or once it is over)."""
    stored = match.stored
    if stored.mode != Mode.ONLINE or match.is_over:
        return None
    if any(player.get("invite") for player in stored.players):
        return None
    position = match.position
    if not position.is_turn_start():
        return None
    seat = position.current_seat
    holders = dict(match.seat_holders())
    holder = holders.get(seat)
    if holder is None:
        return None
    opponent = next((match.names.get(other, YOUR_OPPONENT)
                     for other_seat, other in holders.items() if other_seat != seat),
                    YOUR_OPPONENT)
    control = _control(stored.meta)
    return Turn(game_id=match.id, ply=len(match.plies), seat=seat, player_id=holder,
                game=stored.game, title=match.game.title, opponent=opponent,
                last=match.plies[-1].notation if match.plies else None,
                control=control.kind, time=control.describe(), deadline=_deadline(stored.meta))


def turn_of_row(stored: StoredGame, total: int) -> Turn | None:
    """The same from a stored row (no position): the seat the stored meta says is to act
    (``meta.turn``, written at each turn start of an online game)."""
    seat = stored.meta.turn
    if (stored.mode != Mode.ONLINE or stored.status != "playing" or not isinstance(seat, int)
            or isinstance(seat, bool) or not 0 <= seat < len(stored.players)
            or any(player.get("invite") for player in stored.players)):
        return None
    holder = stored.players[seat].get("player_id")
    if not holder:
        return None
    control = _control(stored.meta)
    title = get_game(stored.game).title if stored.game in game_names() else stored.game
    return Turn(game_id=stored.id, ply=total, seat=seat, player_id=str(holder),
                game=stored.game, title=title, opponent=YOUR_OPPONENT, last=None,
                control=control.kind, time=control.describe(), deadline=_deadline(stored.meta))


def _nobody(turn: Turn) -> None:
    """No ``on_turn`` listener."""


class TurnAlerts:
    """The alerts sockets of this process and the turns they are told of (see the
    module's doc)."""

    def __init__(self, games: LiveGames, max_sockets: int = MAX_ALERT_SOCKETS,
                 per_player: int = MAX_SOCKETS_PER_PLAYER) -> None:
        self.games = games
        self.max_sockets = max_sockets
        self.per_player = per_player
        #: Called with every turn announced here (turn emails).
        self.on_turn: Callable[[Turn], None] = _nobody
        self._sockets: dict[Any, tuple[str, Connection]] = {}
        self._by_player: dict[str, dict[Any, Connection]] = {}
        #: The last turn announced per game: ``(seat, ply)``.
        self._last: OrderedDict[str, tuple[int, int]] = OrderedDict()
        self._pending: dict[str, None] = {}
        self._reader: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ sockets
    def refusal(self, player_id: str) -> Phrase | None:
        """Why another alerts socket of ``player_id`` cannot be opened now (None: it can)."""
        if len(self._sockets) >= self.max_sockets:
            return Phrase("the server has too many open pages right now; turn alerts come "
                          "back later")
        if len(self._by_player.get(player_id, ())) >= self.per_player:
            return Phrase("at most {count} pages of one player get turn alerts at once; "
                          "close some", count=self.per_player)
        return None

    def join(self, socket: Socket, player_id: str) -> Connection:
        """Register an alerts socket (after :meth:`refusal`, with no await between)."""
        connection = Connection(socket, None)
        self._sockets[socket] = (player_id, connection)
        self._by_player.setdefault(player_id, {})[socket] = connection
        return connection

    def leave(self, socket: Socket) -> None:
        entry = self._sockets.pop(socket, None)
        if entry is None:
            return
        player_id, connection = entry
        connection.stop()
        mine = self._by_player.get(player_id, {})
        mine.pop(socket, None)
        if not mine:
            self._by_player.pop(player_id, None)

    def listening(self, player_id: str) -> int:
        """Alerts sockets of ``player_id`` open here."""
        return len(self._by_player.get(player_id, ()))

    def anybody(self) -> bool:
        """Whether any alerts socket is open here."""
        return bool(self._sockets)

    def send_to(self, player_id: str, event: dict[str, Any]) -> int:
        """Queue ``event`` on every alerts socket of ``player_id`` here (each socket's
        queue is bounded); returns 1 when one was open, else 0."""
        connections = list(self._by_player.get(player_id, {}).items())
        sent = 0
        for socket, connection in connections:
            if connection.closed:
                self.leave(socket)
            else:
                connection.send(event, state=False)
                sent = 1
        return sent

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
        for _, connection in list(self._sockets.values()):
            await connection.close(1001)
        self._sockets.clear()
        self._by_player.clear()

    # ------------------------------------------------------------ seeing turns
    def published(self, match: Match) -> None:
        """The hub published ``match``'s state (synchronous, never waits: see the
        module's doc)."""
        try:
            turn = turn_of_match(match)
        except Exception:  # a listener must never break the publisher
            log.exception("could not read the turn of game %s", match.id)
            return
        if turn is not None and self._remember(turn):
            self.announce(turn)

    def heard(self, change: Change | None) -> None:
        """The change feed heard another process's change (see the module's doc)."""
        if change is None or change.kind not in ("turn", "meta") or not self._sockets:
            return
        game_id = change.game_id
        if game_id in self.games.matches or game_id in self.games.loading:
            return  # held here: its refresh publishes it
        if game_id not in self._pending and len(self._pending) >= MAX_PENDING_READS:
            log.warning("too many games changed elsewhere to read; turn alerts missed")
            return
        self._pending[game_id] = None
        if self._reader is None or self._reader.done():
            self._reader = asyncio.get_running_loop().create_task(self._read_pending())

    async def _read_pending(self) -> None:
        games = self.games
        while self._pending:
            game_id = next(iter(self._pending))
            del self._pending[game_id]
            try:
                loaded = await games.calls.call(games.storage.load_tail, game_id, _ROW_ONLY)
                if loaded is None:
                    continue
                turn = turn_of_row(*loaded)
                if turn is None or not self.listening(turn.player_id):
                    continue
                if not self._remember(turn):
                    continue
                turn = await self._completed(turn, loaded[0])
            except Exception:
                log.exception("could not read game %s for turn alerts", game_id)
                continue
            self.push(turn)

    async def _completed(self, turn: Turn, stored: StoredGame) -> Turn:
        """``turn`` (read from a row) with the opponent's name and the last action."""
        games = self.games
        other = [player_id for seat, player_id in enumerate(
            str(player.get("player_id") or "") for player in stored.players)
            if player_id and seat != turn.seat]
        names = await games.calls.call(games.storage.player_names, other) if other else {}
        tail = await games.calls.call(games.storage.load_tail, turn.game_id,
                                      max(0, turn.ply - 1)) if turn.ply else None
        last = tail[0].actions[-1] if tail and tail[0].actions else None
        opponent = names.get(other[0], turn.opponent) if other else turn.opponent
        return Turn(**{**asdict(turn), "opponent": opponent, "last": last})

    def _remember(self, turn: Turn) -> bool:
        """Note ``turn`` as the game's last announced one; False when it already was."""
        key = (turn.seat, turn.ply)
        if self._last.get(turn.game_id) == key:
            self._last.move_to_end(turn.game_id)
            return False
        self._last[turn.game_id] = key
        self._last.move_to_end(turn.game_id)
        while len(self._last) > REMEMBERED_GAMES:
            self._last.popitem(last=False)
        return True

    def announce(self, turn: Turn) -> None:
        """Tell the player's sockets here, and ``on_turn``."""
        self.push(turn)
        try:
            self.on_turn(turn)
        except Exception:
            log.exception("a turn listener failed on game %s", turn.game_id)

    def push(self, turn: Turn) -> None:
        """Queue the ``your_turn`` message on every alerts socket of the player here."""
        connections = list(self._by_player.get(turn.player_id, {}).items())
        if not connections:
            return
        event = turn.event()
        for socket, connection in connections:
            if connection.closed:
                self.leave(socket)
            else:
                connection.send(event, state=False)
