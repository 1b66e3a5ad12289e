"""The games of a running server: the one entry point the routes and sockets call.

One :class:`GameService` per app. It is a facade over small collaborators, each with one
job, built bottom-up so that none imports one above it (what a lower one needs of a
higher one goes through :class:`~hexgames.web.play.live_games.Hooks`, set here):

=========================  ==============================================================
:mod:`.storage_calls`      storage calls in threads of their own, time limits, batching
:mod:`.live_games`         the games held in memory: locks, loading, saving, dropping
:mod:`.change_feed`        keeping them in step with storage (other processes' changes)
:mod:`.ai_queue`           the computer's turns
:mod:`.clock_watch`        clocks, flag falls, first-turn aborts, the clocks' heartbeat
:mod:`.game_setup`         new games, uploaded records, invitations claimed
:mod:`.game_actions`       moves, undos, resignations
:mod:`.conditional_moves`  correspondence lines that play themselves
:mod:`.offers`             takeback, abort, rematch
:mod:`.lobby`              open challenges and the lobby sockets
:mod:`.pools`              quick pairing: pools by game and time control
:mod:`.absence`            absent opponents: presence, and claims of the game
:mod:`.chat`               the games' chat: posting, reading, pushing to the sockets
:mod:`.housekeeping`       what expires on its own
=========================  ==============================================================

Every change to a game is made under the game's lock, stored before anyone is told
about it, then published to the game's sockets (:class:`~hexgames.web.play.hub.Hub`). Storage
calls run in threads and AI searches in worker processes, so the event loop never blocks.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from hexgames.i18n import Translator
from hexgames.web.engine.workers import AiBusy, AiWorkers
from hexgames.web.game.clocks import wall_ms
from hexgames.web.game.matches import ENGLISH, Match
from hexgames.web.lobby.challenges import Lobby, LobbyFull, playing_summary, public_seek
from hexgames.web.lobby.housekeeping import Housekeeping
from hexgames.web.lobby.pools import PoolFull, Pools
from hexgames.web.lobby.tournaments import TournamentGames
from hexgames.web.play.absence import Absence, AbsenceLimits
from hexgames.web.play.actions import GameActions
from hexgames.web.play.ai_queue import AiQueue
from hexgames.web.play.change_feed import ChangeFeed
from hexgames.web.play.chat import GameChat
from hexgames.web.play.clock_watch import ClockWatch
from hexgames.web.play.conditional_moves import ConditionalMoves
from hexgames.web.play.hub import Connection, Hub
from hexgames.web.play.live_games import GameNotFound, LiveGames
from hexgames.web.play.live_positions import LivePositions
from hexgames.web.play.offers import Offers
from hexgames.web.play.setup import INVITE_OPEN, MAX_RECORD, GameSetup
from hexgames.web.play.storage_calls import StorageCalls, WriteUnconfirmed
from hexgames.web.storage import Seek, SeekTaken, Storage, StoredGame

__all__ = [
    "INVITE_OPEN",
    "MAX_RECORD",
    "AiBusy",
    "GameNotFound",
    "GameService",
    "LobbyFull",
    "PoolFull",
    "SeekTaken",
    "WriteUnconfirmed",
    "playing_summary",
    "public_seek",
]

log = logging.getLogger(__name__)


class GameService:
    """The collaborators of one server, wired together, behind one set of methods.

    The routes, the sockets and the tests call these methods; each hands the call to
    the collaborator its section names (the collaborators' docstrings say what they do),
    so a change to, say, the lobby is made in :mod:`~hexgames.web.lobby.challenges` alone. The
    collaborators are attributes too (``service.lobby``, ``service.clocks``...).
    """

    def __init__(self, storage: Storage, workers: AiWorkers, hub: Hub,
                 now: Callable[[], float] = wall_ms,
                 absence: AbsenceLimits | None = None) -> None:
        self.workers = workers
        self.hub = hub
        self.calls = StorageCalls(storage)
        self.games = LiveGames(self.calls, hub, now)
        self.feed = ChangeFeed(self.games)
        self.live_positions = LivePositions(self.games)
        self.ai = AiQueue(self.games, self.feed, workers, self.live_positions)
        self.clocks = ClockWatch(self.games, self.feed)
        self.setup = GameSetup(self.games, self.feed, self.clocks, self.ai)
        self.conditional = ConditionalMoves(self.games, self.feed, self.clocks)
        self.actions = GameActions(self.games, self.feed, self.clocks, self.ai,
                                   self.conditional)
        self.offers = Offers(self.games, self.feed, self.clocks)
        self.lobby = Lobby(self.games, self.clocks)
        self.housekeeper = Housekeeping(self.games, self.clocks, self.lobby)
        self.pools = Pools(self.games, self.clocks, self.lobby.send_to_player,
                           self.lobby.changed)
        self.lobby.player_gone = self.pools.player_left
        self.lobby.pool_counts = self.pools.counts
        self.absence = Absence(self.games, self.clocks, absence)
        #: Tournaments: their games, their ends, and the director's tick.
        self.tournaments = TournamentGames(self.games, self.clocks)
        self.chat = GameChat(self.games)
        self.feed.listeners.append(self.chat.heard)
        hooks = self.games.hooks
        hooks.acted = self.absence.acted
        hooks.schedule_ai = self.ai.schedule
        hooks.watch_clock = self.clocks.watch
        hooks.move_change = self.clocks.move_change
        hooks.lobby_changed = self.lobby.changed
        hooks.game_over = self.tournaments.game_over
        hooks.busy = lambda game_id: game_id in self.ai.tasks or game_id in self.feed.refreshing
        #: Run the flag-fall watch task (tests with an injected time turn it off and call
        #: :meth:`resync_clocks`/:meth:`check_clocks` themselves).
        self.watch_clocks = True
        #: Run the housekeeping task (expiries, the clocks' heartbeat); tests with an
        #: injected time turn it off and call :meth:`housekeep` themselves.
        self.housekeeping = True
        #: Run the pools' matching waves and the presence beat (tests with an injected
        #: time turn them off and call :meth:`match_pools` and ``absence.beat``).
        self.pooling = True
        self.presence = True
        #: Run the tournaments' tick (tests with an injected time turn it off and call
        #: ``tournaments.director.tick()`` themselves).
        self.ticking = True
        self._tasks: dict[str, asyncio.Task[None]] = {}

    # ------------------------------------------------------- shared settings
    @property
    def storage(self) -> Storage:
        return self.calls.storage

    @storage.setter
    def storage(self, storage: Storage) -> None:
        self.calls.storage = storage

    @property
    def now(self) -> Callable[[], float]:
        """Wall time in ms since the epoch (clock tests inject their own)."""
        return self.games.now

    @now.setter
    def now(self, now: Callable[[], float]) -> None:
        self.games.now = now

    @property
    def storage_timeout(self) -> float:
        return self.calls.storage_timeout

    @storage_timeout.setter
    def storage_timeout(self, seconds: float) -> None:
        self.calls.storage_timeout = seconds

    @property
    def storage_write_timeout(self) -> float:
        return self.calls.storage_write_timeout

    @storage_write_timeout.setter
    def storage_write_timeout(self, seconds: float) -> None:
        self.calls.storage_write_timeout = seconds

    # ------------------------------------------------------------ lifetime
    async def start(self, engine_ready: Callable[[], Awaitable[None]] | None = None) -> None:
        """Listen to the other server processes' changes (a shared storage only), credit
        the clocks with the time no server kept them, and start the background tasks.
        ``engine_ready()`` (``hexgames serve`` preparing the engines in the background)
        is awaited before the flag-fall watch and housekeeping start: they load games,
        which must not call an engine before it is ready."""
        await self.feed.start()
        self.clocks.start()
        try:  # before the flag-fall watch first reads the deadlines
            await self.clocks.credit_outage()
        except Exception:
            log.exception("could not credit the clocks with the server's downtime")
        if engine_ready is None:
            self._start_loops()
        else:
            self._tasks["engine"] = asyncio.create_task(self._loops_when_ready(engine_ready))
        self._tasks["evict"] = asyncio.create_task(self.games.evict_loop())
        if self.pooling:
            self._tasks["pools"] = asyncio.create_task(self.pools.loop())
        if self.presence:
            self._tasks["presence"] = asyncio.create_task(self.absence.loop())

    def _start_loops(self) -> None:
        if self.housekeeping:
            self._tasks["housekeeping"] = asyncio.create_task(self.housekeeper.loop())
        if self.watch_clocks:
            self._tasks["clocks"] = asyncio.create_task(self.clocks.watch_loop())
        if self.ticking:  # it starts games: after the engines are ready
            self._tasks["tournaments"] = asyncio.create_task(self.tournaments.loop())

    async def _loops_when_ready(self, engine_ready: Callable[[], Awaitable[None]]) -> None:
        await engine_ready()
        self._start_loops()

    async def close(self) -> None:
        await self._stop("engine")
        await self._stop("housekeeping")
        self.lobby.cancel_timers()
        self.pools.cancel_tasks()
        await self._stop("pools")
        await self._stop("presence")
        await self._stop("tournaments")
        await self.tournaments.close()
        with contextlib.suppress(Exception):  # the clocks are kept until now
            await self.clocks.mark_clocks_kept()
        evict = self._tasks.pop("evict", None)
        if evict is not None:
            evict.cancel()
        await self._stop("clocks")
        await self.lobby.close()
        await self.feed.close()
        await self.chat.close()
        await self.ai.close()
        self.workers.shutdown()
        await self.hub.close_all()
        self.storage.close()
        self.calls.shutdown()

    async def _stop(self, name: str) -> None:
        task = self._tasks.pop(name, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ------------------------------------------------- storage and threads
    async def call_storage(self, function: Any, *args: Any) -> Any:
        """Run a storage call off the event loop with the storage timeout (for modules
        built on the service: identity, players, analysis)."""
        return await self.calls.call(function, *args)

    async def call_thread(self, function: Any, *args: Any) -> Any:
        """Run CPU work (a password hash, parsing, rebuilding a game, drawing, analysis)
        off the event loop, in the work threads: never in the storage threads."""
        return await self.calls.call_thread(function, *args)

    async def seat_key(self) -> bytes:
        """The site key of identity-derived seat tokens (shared by every process)."""
        return await self.games.seat_key()

    # ------------------------------------------------------- the held games
    async def get(self, game_id: str) -> Match:
        return await self.games.get(game_id)

    def current(self, game_id: str, held: Match) -> Match:
        return self.games.current(game_id, held)

    async def list(self, limit: int = 50) -> builtins.list[StoredGame]:
        return await self.calls.call(self.storage.list_games, limit)

    async def refresh(self, game_id: str, full: bool = False) -> Match | None:
        return await self.feed.refresh(game_id, full)

    async def renamed(self, player_id: str, name: str) -> None:
        await self.games.renamed(player_id, name)

    async def on_game_over(self, match: Match) -> None:
        """Call it (with the game's lock held, the end stored) from code that ends a game
        other than by a move or a resignation: it applies a rated result."""
        await self.games.record_result(match)

    def evict_idle(self, now: float | None = None) -> builtins.list[str]:
        return self.games.evict_idle(now)

    # ----------------------------------------------------- creating, acting
    async def create(self, game_name: str, options: dict[str, Any] | None, mode: str,
                     seat: int = 0, level: int = 3, start: str | None = None,
                     control: dict[str, Any] | None = None, player: Any = None,
                     rated: bool = False, opponent: Any = None,
                     ) -> tuple[Match, builtins.list[str | None]]:
        return await self.setup.create(game_name, options, mode, seat, level, start,
                                       control, player, rated, opponent)

    async def import_record(self, text: str, game_name: str | None = None) -> tuple[Match, str]:
        return await self.setup.import_record(text, game_name)

    async def claim(self, game_id: str, token: str | None, have: str | None,
                    player: Any = None) -> dict[str, Any]:
        return await self.setup.claim(game_id, token, have, player)

    async def act(self, game_id: str, token: str | None, action: Any,
                  expected_ply: int | None = None, lag_ms: float = 0) -> Match:
        return await self.actions.act(game_id, token, action, expected_ply, lag_ms)

    async def undo(self, game_id: str, token: str | None) -> Match:
        return await self.actions.undo(game_id, token)

    async def resign(self, game_id: str, token: str | None) -> Match:
        return await self.actions.resign(game_id, token)

    # --------------------------------------------------------------- offers
    async def takeback(self, game_id: str, token: str | None, answer: str) -> Match:
        return await self.offers.takeback(game_id, token, answer)

    async def abort(self, game_id: str, token: str | None) -> Match:
        return await self.offers.abort(game_id, token)

    async def rematch(self, game_id: str, token: str | None, answer: str = "offer") -> Match:
        return await self.offers.rematch(game_id, token, answer)

    # --------------------------------------------------------------- clocks
    async def check_clocks(self) -> builtins.list[str]:
        return await self.clocks.check_clocks()

    async def resync_clocks(self) -> None:
        await self.clocks.resync_clocks()

    async def credit_outage(self) -> int:
        return await self.clocks.credit_outage()

    async def mark_clocks_kept(self) -> None:
        await self.clocks.mark_clocks_kept()

    async def housekeep(self) -> dict[str, int]:
        return await self.housekeeper.housekeep()

    # ---------------------------------------------------------------- lobby
    async def create_seek(self, game_name: str, options: dict[str, Any] | None,
                          control: dict[str, Any] | None, color: str, rated: bool,
                          creator: dict[str, Any], target: str | None = None,
                          address: str | None = None) -> tuple[Seek, str]:
        return await self.lobby.create_seek(game_name, options, control, color, rated,
                                            creator, target, address)

    async def accept_seek(self, seek_id: str, acceptor: dict[str, Any]) -> tuple[Match, str]:
        return await self.lobby.accept_seek(seek_id, acceptor)

    async def cancel_seek(self, seek_id: str, token: str | None) -> None:
        await self.lobby.cancel_seek(seek_id, token)

    async def seek_status(self, seek_id: str, words: Translator = ENGLISH) -> dict[str, Any]:
        return await self.lobby.seek_status(seek_id, words)

    def seek_expired(self, seek: Seek) -> bool:
        return self.lobby.seek_expired(seek)

    async def lobby_state(self, words: Translator = ENGLISH) -> dict[str, Any]:
        return await self.lobby.lobby_state(words)

    async def names_of(self, games: builtins.list[StoredGame]) -> dict[str, str]:
        return await self.lobby.names_of(games)

    async def your_turn(self, player_id: str, games: builtins.list[StoredGame],
                        words: Translator = ENGLISH) -> builtins.list[dict[str, Any]]:
        return await self.lobby.your_turn(player_id, games, words)

    def lobby_full(self) -> bool:
        return self.lobby.lobby_full()

    def join_lobby(self, socket: Any, player_id: str | None = None,
                   words: Translator = ENGLISH) -> Connection:
        return self.lobby.join_lobby(socket, player_id, words)

    def leave_lobby(self, socket: Any) -> None:
        self.lobby.leave_lobby(socket)

    async def withdraw_departed(self) -> builtins.list[str]:
        return await self.lobby.withdraw_departed()

    # ---------------------------------------------------------------- pools
    async def join_pool(self, pool_id: str, player: dict[str, Any], rated: bool,
                        address: str | None = None) -> tuple[Any, str]:
        return await self.pools.join(pool_id, player, rated, address)

    async def leave_pool(self, player_id: str) -> bool:
        return await self.pools.leave(player_id)

    async def pools_overview(self, player_id: str | None = None,
                             words: Translator = ENGLISH) -> dict[str, Any]:
        return await self.pools.overview(player_id, words)

    async def match_pools(self) -> builtins.list[str]:
        return await self.pools.match()

    # -------------------------------------------------------------- absence
    async def claim_absence(self, game_id: str, token: str | None, claim: str) -> Match:
        return await self.absence.claim(game_id, token, claim)
