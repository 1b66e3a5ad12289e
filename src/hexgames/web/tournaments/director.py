"""The tournament director: creates tournaments, takes players in, starts, pairs and ends
them. Async, no HTTP, and no game-playing code: the site hands it three things.

- ``storage_call(function, *args)`` runs a storage method off the event loop (the web
  app's ``StorageCalls.call``);
- ``make_game(tournament, first_id, second_id)`` creates the real game of a pairing (the
  first player moves first) and returns its id;
- ``now()`` gives the time in ms (a fake clock in the tests).

Every process of the site runs a director and calls :meth:`TournamentDirector.tick` every
second; :meth:`~TournamentDirector.game_ended` is called when a tournament game ends.
Both read the tournament, compute what comes next with the pure core (a Swiss round, an
arena wave, the start, the end) and store it through one conditional claim of the
tournament's step (:meth:`~hexgames.web.storage.interface.Storage.store_pairing`), the
pairing's games in the same transaction. Of several processes doing so at the same
instant, one stores its pairing and creates the games; the others store nothing and move
on. The whole walk-through is in docs/tournaments.md, "How the site runs a tournament".
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from hexgames.phrases import N_, Phrase
from hexgames.web.storage.errors import StorageUnavailable
from hexgames.web.storage.interface import Storage
from hexgames.web.storage.records import TournamentGame, TournamentRecord, TournamentState
from hexgames.web.storage.sql_tournaments import TournamentRefused, TournamentUnknown
from hexgames.web.tournaments import arena, ledger, swiss
from hexgames.web.tournaments.model import TournamentSettings

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: Tournaments one player may create in 24 hours.
MAX_PER_CREATOR_PER_DAY = 5
#: Tournaments one tick looks at (by id from where the last tick stopped; see
#: :meth:`TournamentDirector._due`).
TICK_LIMIT = 100
#: A pairing still without its game this long after it was stored (ms) is void: the
#: process that stored it died before creating the game (creating one takes far less).
PENDING_MS = 60_000
#: How long a Swiss whose start has come waits for its second player (ms); then it ends
#: without a game (an arena starts alone: players may join it while it runs).
START_GRACE_MS = 10 * 60_000
#: Times a pairing is computed again to keep apart the players it found blocking each
#: other, before the pairs still blocked are simply left out of the step.
BLOCK_TRIES = 4
#: How often (ms) a tick asks after the games of one tournament whose end it has not
#: heard of (a result lost on the way: see ``ended_game``).
RECONCILE_MS = 30_000
#: A live pairing younger than this (ms) is not asked after: its end is on its way.
RECONCILE_AFTER_MS = 60_000


class StorageCall(Protocol):
    """Runs a storage method off the event loop and returns its answer."""

    def __call__(self, function: Callable[..., _T], /, *args: Any) -> Awaitable[_T]: ...


#: Creates the game of a pairing: ``(tournament, first_id, second_id) -> game id``.
MakeGame = Callable[[TournamentRecord, str, str], Awaitable[str]]
#: The result of a game if it is over: ``game id -> (winner seat or None, turns)``, or
#: ``None`` while it is still being played.
EndedGame = Callable[[str], Awaitable[tuple[int | None, int] | None]]


class GuestsRefused(TournamentRefused):
    """Guests neither create nor join tournaments (HTTP 403): a tournament needs names
    that last, and rated games."""


def _seed(tournament_id: str, step: int) -> int:
    """The same seed on every process for the same step."""
    return int.from_bytes(hashlib.sha256(f"{tournament_id}:{step}".encode()).digest()[:8], "big")


class TournamentDirector:
    """Runs every tournament of one storage; any number of directors may share it."""

    def __init__(self, storage: Storage, storage_call: StorageCall, make_game: MakeGame,
                 now: Callable[[], int],
                 daily_limit: int = MAX_PER_CREATOR_PER_DAY,
                 ended_game: EndedGame | None = None) -> None:
        self._storage = storage
        self._call = storage_call
        self._make_game = make_game
        self._now = now
        self.daily_limit = daily_limit
        #: The last tournament id the previous tick looked at (see :meth:`_due`).
        self._cursor = ""
        #: Asks whether a live pairing's game is over (the safety net for a result that
        #: never reached :meth:`game_ended`); ``None``: never asked.
        self._ended_game = ended_game
        #: When each tournament's live games were last asked after (ms).
        self._reconciled: dict[str, int] = {}

    # ------------------------------------------------------------ players' calls
    async def create(self, creator_id: str, creator_is_guest: bool, game: str,
                     options: Mapping[str, Any], control: Mapping[str, Any],
                     settings: Mapping[str, object]) -> TournamentRecord:
        """A new tournament, counting down to its start. ``GuestsRefused``; a
        :class:`~.model.SettingsError` naming the field; ``TournamentQuota`` past
        :attr:`daily_limit` creations in 24 hours. The game, its options and the clock
        are the caller's to check (they belong to the game packages and the lobby)."""
        if creator_is_guest:
            raise GuestsRefused(N_("guests cannot create tournaments; sign in first"))
        checked = TournamentSettings.from_mapping(settings)
        at = self._now()
        starts = at + checked.starts_in_s * 1000
        ends = starts + checked.minutes * 60_000 if checked.minutes is not None else None
        record = TournamentRecord(secrets.token_urlsafe(8), creator_id, game, checked.kind,
                                  dict(options), ledger.settings_json(checked), dict(control),
                                  at, starts, checked.max_players, ends)
        await self._call(self._storage.create_tournament, record, self.daily_limit)
        return record

    async def join(self, tournament_id: str, player_id: str, player_is_guest: bool,
                   rating: float) -> bool:
        """Enter a player (``rating``: their rating in the game, for the pairing); False
        when in already. ``GuestsRefused``, ``TournamentUnknown``, ``TournamentClosed``
        (ended, or full)."""
        if player_is_guest:
            raise GuestsRefused(N_("guests cannot join tournaments; sign in first"))
        return await self._call(self._storage.join_tournament, tournament_id, player_id,
                                float(rating), self._now())

    async def leave(self, tournament_id: str, player_id: str) -> bool:
        """Withdraw: never paired again (a live game is played to its end)."""
        return await self._call(self._storage.leave_tournament, tournament_id, player_id)

    async def pause(self, tournament_id: str, player_id: str, paused: bool = True) -> bool:
        """Pause (not paired until unpaused) or come back: an arena's only.
        ``TournamentRefused`` (409) in a Swiss, which pairs everyone each round."""
        state = await self._state(tournament_id)
        if state.tournament.kind != "arena":
            raise TournamentRefused(N_("only an arena has a pause: a Swiss pairs every "
                                       "player each round"))
        return await self._call(self._storage.pause_tournament, tournament_id, player_id,
                                paused)

    async def game_ended(self, game_id: str, winner_seat: int | None, turns: int,
                         berserk: tuple[bool, bool] = (False, False)) -> bool:
        """Record a tournament game's result (``winner_seat`` 0: the player who moved
        first won; ``None``: a draw), once; False for a game of no tournament or one
        recorded already. The players are waiting again at once: the next :meth:`tick`
        (within a second) pairs them in an arena, with whoever else finished meanwhile,
        and pairs a Swiss's next round once this one is over."""
        pairing = await self._call(self._storage.tournament_game, game_id)
        if pairing is None:
            return False
        if winner_seat not in (None, 0, 1):
            raise ValueError(f"a winner's seat is 0 or 1, not {winner_seat!r}")
        result = "draw" if winner_seat is None else ("first", "second")[winner_seat]
        return await self._call(self._storage.record_tournament_result, game_id, result,
                                int(turns), bool(berserk[0]), bool(berserk[1]), self._now())

    # ------------------------------------------------------------ the site's clock
    async def tick(self) -> None:
        """Move on every tournament that is due: start those whose countdown is over,
        pair arena waves and Swiss rounds, end what is over. Safe on every process at
        once. A storage failure leaves a tournament to the next tick."""
        due = await self._due()
        for tournament_id in due:
            try:
                await self._advance(tournament_id)
            except StorageUnavailable as error:
                log.warning("tournament %s left to the next tick: %s", tournament_id, error)

    async def _due(self) -> list[str]:
        """The next :data:`TICK_LIMIT` due tournaments after this director's cursor (by
        id), wrapping round to the first when the end is reached: with more due than one
        tick takes, each still gets its turn every few ticks (never the same oldest
        ones only)."""
        now = self._now()
        due = await self._call(self._storage.due_tournaments, now, TICK_LIMIT, self._cursor)
        if len(due) < TICK_LIMIT and self._cursor:
            more = await self._call(self._storage.due_tournaments, now,
                                    TICK_LIMIT - len(due), "")
            due += [found for found in more if found not in due]
            self._cursor = more[-1] if more else ""  # go on after the wrapped ones
        else:
            self._cursor = due[-1] if len(due) >= TICK_LIMIT else ""
        return due

    async def _advance(self, tournament_id: str) -> None:
        state = await self._call(self._storage.load_tournament, tournament_id)
        if state is None:
            return
        t = state.tournament
        now = self._now()
        if t.status == "finished" or (t.status == "created" and now < t.starts_at):
            self._reconciled.pop(t.id, None)
            return
        if await self._void_orphans(state, now) | await self._reconcile(state, now):
            state = await self._call(self._storage.load_tournament, tournament_id)
            if state is None:
                return
        if t.kind == "swiss":
            await self._swiss(state, now)
        else:
            await self._arena(state, now)

    # ------------------------------------------------------------------ Swiss
    async def _swiss(self, state: TournamentState, now: int) -> None:
        t = state.tournament
        if any(game.live for game in state.games):
            return  # the round is being played
        active = [e for e in state.players if not e.withdrawn and not e.paused]
        rounds = ledger.settings_of(state).rounds or 0
        if t.status == "created" and len(active) < 2 and now < t.starts_at + START_GRACE_MS:
            return  # not started: it waits for a second player, a while
        if t.step >= rounds or len(active) < 2:
            await self._call(self._storage.claim_tournament_step, t.id, t.step, now,
                             "finished")
            return
        avoid: dict[str, frozenset[str]] = {}
        for _ in range(BLOCK_TRIES):
            paired = swiss.pair_round(ledger.swiss_players(state, avoid))
            blocked = await self._blocked(paired.pairings)
            if not blocked:
                break
            for first, second in blocked:
                avoid[first] = avoid.get(first, frozenset()) | {second}
                avoid[second] = avoid.get(second, frozenset()) | {first}
        pairings = [pair for pair in paired.pairings if pair not in blocked]
        step = t.step + 1
        games = [TournamentGame(t.id, step, board, first, second, now)
                 for board, (first, second) in enumerate(pairings, start=1)]
        if paired.bye is not None:
            games.append(TournamentGame(t.id, step, len(games) + 1, paired.bye, None, now,
                                        result="bye", ended_at=now))
        await self._store(t, games, now)

    # ------------------------------------------------------------------ arena
    async def _arena(self, state: TournamentState, now: int) -> None:
        t = state.tournament
        starting = "running" if t.status == "created" else None
        if t.ends_at is not None and now >= t.ends_at:
            # No new pairings; the games being played finish and still count.
            await self._call(self._storage.claim_tournament_step, t.id, t.step, now,
                             "finished")
            return
        ready = ledger.waiting(state)
        pairs: list[tuple[str, str]] = []
        if len(ready) >= 2:
            avoid: set[frozenset[str]] = set()
            for _ in range(BLOCK_TRIES):
                wave = arena.pair_wave(ready, _seed(t.id, t.step), avoid=avoid)
                blocked = await self._blocked(wave.pairings)
                if not blocked:
                    break
                avoid |= {frozenset(pair) for pair in blocked}
            pairs = [pair for pair in wave.pairings if pair not in blocked]
        if pairs:
            step = t.step + 1
            await self._store(t, [TournamentGame(t.id, step, board, first, second, now)
                                  for board, (first, second) in enumerate(pairs, start=1)],
                              now, starting)
        elif starting:
            await self._call(self._storage.claim_tournament_step, t.id, t.step, now, starting)

    # ------------------------------------------------------------------ shared
    async def _void_orphans(self, state: TournamentState, now: int) -> bool:
        """Void the pairings whose game was never created (see :data:`PENDING_MS`), so
        that their players are free again; whether there were any."""
        found = False
        for game in state.games:
            if game.live and game.game_id is None and now - game.paired_at >= PENDING_MS:
                log.warning("tournament %s: pairing %s/%s never got its game; void",
                            game.tournament_id, game.step, game.board)
                found |= await self._call(self._storage.attach_tournament_game,
                                          game.tournament_id, game.step, game.board, None, now)
        return found

    async def _reconcile(self, state: TournamentState, now: int) -> bool:
        """Record the games that are over though their end was never reported (the
        report failed, or was dropped under load): without it a Swiss would wait for that
        round forever. At most every :data:`RECONCILE_MS` per tournament, and only for
        pairings older than :data:`RECONCILE_AFTER_MS`; whether any was recorded."""
        t = state.tournament
        if self._ended_game is None or now - self._reconciled.get(t.id, -RECONCILE_MS) \
                < RECONCILE_MS:
            return False
        self._reconciled[t.id] = now
        found = False
        for game in state.games:
            if not game.live or game.game_id is None or now - game.paired_at < RECONCILE_AFTER_MS:
                continue
            ended = await self._ended_game(game.game_id)
            if ended is not None:
                log.warning("tournament %s: the end of game %s was never reported; recorded",
                            t.id, game.game_id)
                found |= await self.game_ended(game.game_id, ended[0], ended[1])
        return found

    async def _blocked(self, pairs: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        if not pairs:
            return set()
        return await self._call(self._storage.blocked_between, list(pairs))

    async def _store(self, t: TournamentRecord, games: Sequence[TournamentGame], now: int,
                     status: str | None = None) -> None:
        """Claim the step with its pairing; if this process won, create the games."""
        status = status or ("running" if t.status == "created" else None)
        if not await self._call(self._storage.store_pairing, t.id, t.step, games, now,
                                status):
            return  # another process paired this step
        for game in games:
            if game.second_id is None:
                continue  # a bye
            game_id: str | None
            try:
                game_id = await self._make_game(t, game.first_id, game.second_id)
            except Exception:  # the pairing is void, and its players free again
                log.exception("tournament %s: no game for %s v %s", t.id, game.first_id,
                              game.second_id)
                game_id = None
            await self._call(self._storage.attach_tournament_game, t.id, game.step,
                             game.board, game_id, self._now())
            if game_id is not None:
                await self._record_if_over(game_id)

    async def _record_if_over(self, game_id: str) -> None:
        """Record a game that ended before its id was attached to its pairing (a resign
        or an abort in that moment): its end was reported while :meth:`game_ended` could
        not find it, and its players would otherwise wait for the reconciliation."""
        if self._ended_game is None:
            return
        try:
            ended = await self._ended_game(game_id)
            if ended is not None:
                await self.game_ended(game_id, ended[0], ended[1])
        except StorageUnavailable as error:  # the reconciliation records it later
            log.warning("the result of tournament game %s is left to the reconciliation: %s",
                        game_id, error)

    # ------------------------------------------------------------------ reading
    async def _state(self, tournament_id: str) -> TournamentState:
        state = await self._call(self._storage.load_tournament, tournament_id)
        if state is None:
            raise TournamentUnknown(Phrase("there is no tournament {id}",
                                           id=repr(tournament_id)))
        return state

    async def standings(self, tournament_id: str) -> list[ledger.Line]:
        """Rank, player, score, games played and tiebreaks (Swiss: Buchholz and
        Sonneborn-Berger; arena: performance, and the streak)."""
        return ledger.standings(await self._state(tournament_id))

    async def listing(self, which: str, limit: int = 50) -> list[dict[str, Any]]:
        """The tournaments page's list: ``upcoming``, ``running`` or ``recent``
        (``ValueError`` otherwise), each tournament without its standings."""
        records = await self._call(self._storage.list_tournaments, which, limit)
        now = self._now()
        return [{"id": t.id, "kind": t.kind, "game": t.game, "status": t.status,
                 "settings": t.settings, "control": t.control, "creator": t.creator_id,
                 "starts_at": t.starts_at, "ends_at": t.ends_at,
                 "countdown_ms": max(0, t.starts_at - now) if t.status == "created" else None}
                for t in records]

    async def view(self, tournament_id: str) -> dict[str, Any]:
        """Everything the API shows of a tournament, as JSON."""
        state = await self._state(tournament_id)
        t = state.tournament
        now = self._now()
        lines = [line.as_json() for line in ledger.standings(state)]
        return {
            "id": t.id, "kind": t.kind, "game": t.game, "options": t.options,
            "control": t.control, "settings": t.settings, "creator": t.creator_id,
            "status": t.status, "starts_at": t.starts_at, "ends_at": t.ends_at,
            "countdown_ms": max(0, t.starts_at - now) if t.status == "created" else None,
            "remaining_ms": (max(0, t.ends_at - now)
                             if t.status == "running" and t.ends_at is not None else None),
            "round": ledger.rounds_paired(state) if t.kind == "swiss" else
            len({game.step for game in state.games}),
            "rounds": t.settings.get("rounds"),
            "players": sum(1 for entry in state.players if not entry.withdrawn),
            "max_players": t.max_players,
            "standings": lines,
            "games": [ledger.game_json(game) for game in state.games],
            "podium": lines[:3] if t.status == "finished" else None,
        }
