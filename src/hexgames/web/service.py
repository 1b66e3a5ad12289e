"""The games of a running server: creating, loading, changing, saving and broadcasting them.

One :class:`GameService` per app. It keeps the live :class:`~hexgames.web.matches.Match`
of every game someone opened, serialises changes to a game with a per-game lock (two
browsers clicking at once cannot interleave), writes every change to storage before
telling anyone about it, and starts the AI whenever it is an AI seat's turn. Storage calls
run in threads and AI searches in worker processes, so the event loop never blocks.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import logging
import secrets
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from hexgames.ai.levels import LEVELS
from hexgames.errors import IllegalAction
from hexgames.game import game_names, get_game
from hexgames.web.ai_worker import AiBusy, AiWorkers
from hexgames.web.hub import Hub
from hexgames.web.matches import MAX_PLIES, MODES, Match, start_position
from hexgames.web.options import parse_options
from hexgames.web.storage import (
    Change,
    StaleWrite,
    Storage,
    StorageUnavailable,
    StoredGame,
    hashed,
)

__all__ = ["AiBusy", "GameNotFound", "GameService"]

log = logging.getLogger(__name__)

#: Largest record accepted by the upload (characters); see docs/web.md.
MAX_RECORD = 1_000_000
#: Seconds a storage call may take before the request is answered 503.
STORAGE_TIMEOUT = 10.0
#: ``players[seat]["invite"]`` while a seat's invitation link has not been opened.
INVITE_OPEN = "open"
#: Seconds between two looks at an AI turn that another server process is searching
#: (if that process died, its claim is gone and this one takes over).
AI_CLAIM_RETRY = 1.0


class GameNotFound(LookupError):
    """No game with that id (a 404, not a server error)."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_token() -> str:
    return secrets.token_urlsafe(18)


def resigned_from_tags(match: Match, tags: dict[str, str]) -> None:
    """Restore a resignation or timeout stated by a record's tags, which the position
    itself cannot express.

    Accepted: this site's own ``Winner``/``Ending`` pair (a colour of the game and an
    ending that says "resigned"), or ``Result`` ``1-0``/``0-1`` with ``Termination``
    ``resignation``/``timeout``. The reason shown is written here, never taken from the
    tags: a record cannot make the site display words of its uploader's choosing.
    """
    colors = tuple(match.game.colors)
    winner: str | None = None
    how = "resigned"
    raw_winner = str(tags.get("Winner", "")).strip().lower()[:20]
    ending = str(tags.get("Ending", "")).strip().lower()
    if raw_winner in colors and ending.endswith("resigned"):
        winner = raw_winner
    result = str(tags.get("Result", "")).strip()
    termination = str(tags.get("Termination", "")).strip().lower()
    if winner is None and result in ("1-0", "0-1") and termination in ("resignation", "timeout"):
        winner = match.position.color_of_seat(0 if result == "1-0" else 1)
        how = "resigned" if termination == "resignation" else "ran out of time"
    if winner is None:
        return
    loser = colors[1] if winner == colors[0] else colors[0]
    match.stored.status, match.stored.winner = "over", winner
    match.stored.reason = f"{loser.capitalize()} {how}"


class GameService:
    def __init__(self, storage: Storage, workers: AiWorkers, hub: Hub) -> None:
        self.storage = storage
        self.workers = workers
        self.hub = hub
        self._matches: dict[str, Match] = {}
        self.storage_timeout = STORAGE_TIMEOUT
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._ai_tasks: dict[str, asyncio.Task[None]] = {}
        # Changes stored by other server processes (PostgreSQL LISTEN/NOTIFY).
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_listening: Any = None
        self._dirty: set[str] = set()
        self._full_reload: set[str] = set()
        self._refreshing: dict[str, asyncio.Task[None]] = {}
        #: Games being loaded: a change heard meanwhile is applied once they are in.
        self._loading: set[str] = set()

    async def start(self) -> None:
        """Listen to the other server processes' changes (a shared storage only)."""
        self._loop = asyncio.get_running_loop()
        if self.storage.shared:
            self._stop_listening = await asyncio.to_thread(self.storage.listen, self._on_change)

    def _on_change(self, change: Change | None) -> None:
        """Called by the storage's listener thread: hand the change to the event loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._changed, change)

    def _changed(self, change: Change | None) -> None:
        """Another process stored a change (``None``: maybe several were missed): bring
        the games this process holds up to date, one refresh task per game at a time."""
        ids = list(self._matches) if change is None else [change.game_id]
        for game_id in ids:
            if game_id not in self._matches and game_id not in self._loading:
                continue  # not held here: it is loaded from storage when opened
            if change is None or change.kind != "append":
                self._full_reload.add(game_id)
            self._dirty.add(game_id)
            if game_id not in self._refreshing:
                self._refreshing[game_id] = asyncio.create_task(self._refresh_loop(game_id))

    async def _refresh_loop(self, game_id: str) -> None:
        try:
            while game_id in self._dirty:
                self._dirty.discard(game_id)
                full = game_id in self._full_reload
                self._full_reload.discard(game_id)
                try:
                    await self.refresh(game_id, full)
                except Exception:
                    log.exception("could not bring game %s up to date", game_id)
        finally:
            self._refreshing.pop(game_id, None)

    async def refresh(self, game_id: str, full: bool = False) -> Match | None:
        """Bring the game held in memory up to the stored one (the single source of
        truth): the actions stored since, or (``full``, or when they do not follow on)
        the whole game again. Publishes the new state to this process's sockets."""
        async with self._locks[game_id]:
            match = self._matches.get(game_id)
            if match is None:
                return None
            have = len(match.plies)
            loaded = await self._store(self.storage.load_tail, game_id, 0 if full else have)
            if loaded is None:
                return match
            stored, total = loaded
            changed = False
            if not full and total == have + len(stored.actions):
                try:
                    for text in stored.actions:
                        match.play_for_seat(match.position.current_seat, text)
                        changed = True
                except (IllegalAction, ValueError):
                    full = True
            else:
                full = True
            if full:
                whole = await self._store(self.storage.load_game, game_id)
                if whole is None:
                    return match
                fresh = await asyncio.to_thread(Match, whole)
                fresh.thinking = match.thinking
                self._matches[game_id] = match = fresh
                changed = True
            else:
                row = (stored.status, stored.winner, stored.reason, stored.players,
                       stored.seat_tokens)
                mine = match.stored
                if row != (mine.status, mine.winner, mine.reason, mine.players,
                           mine.seat_tokens):
                    mine.status, mine.winner, mine.reason = row[:3]
                    mine.players, mine.seat_tokens = row[3], row[4]
                    match.revision += 1
                    changed = True
                mine.updated_at = stored.updated_at
        if changed:
            self.hub.publish(match)
            self._schedule_ai(match)
        return match

    async def _store(self, function: Any, *args: Any) -> Any:
        """Run a storage call in a thread, giving up after ``storage_timeout`` seconds (a
        frozen database answers 503 rather than hanging the request)."""
        try:
            async with asyncio.timeout(self.storage_timeout):  # no extra task per call
                return await asyncio.to_thread(function, *args)
        except TimeoutError:
            raise StorageUnavailable(
                "the game storage is not answering; try again in a moment"
            ) from None

    # ---------------------------------------------------------------- creating
    async def create(
        self,
        game_name: str,
        options: dict[str, Any] | None,
        mode: str,
        seat: int = 0,
        level: int = 3,
    ) -> tuple[Match, list[str | None]]:
        """A new game; returns it with the seat tokens (the creator's seat first for AI)."""
        game = get_game(game_name)
        rules_options = parse_options(game, options)
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        human: dict[str, Any] = {"kind": "human", "level": None}
        if mode == "ai":
            if level not in LEVELS:
                raise ValueError(f"AI level must be 1 to 5, got {level!r}")
            if self.workers.busy(level):
                raise AiBusy("the computer is busy with other games; try again in a minute")
            token = new_token()
            players = [dict(human), dict(human)]
            players[1 - seat] = {"kind": "ai", "level": level}
            tokens: list[str | None] = [None, None]
            tokens[seat] = token
        elif mode == "hotseat":
            token = new_token()
            players, tokens = [dict(human), dict(human)], [token, token]
        else:
            players, tokens = [dict(human), dict(human)], [new_token(), new_token()]
            # The opponent's link is an invitation: the first browser to open it takes
            # the seat and gets a credential of its own (see claim).
            players[1 - seat]["invite"] = INVITE_OPEN
        stamp = now()
        stored = StoredGame(
            id=secrets.token_urlsafe(9),
            game=game.name,
            options=rules_options,
            mode=mode,
            players=players,
            seat_tokens=[hashed(token) for token in tokens],  # only hashes are kept
            status="playing",
            winner=None,
            reason=None,
            created_at=stamp,
            updated_at=stamp,
        )
        match = Match(stored)
        await self._store(self.storage.create_game, stored)
        self._matches[stored.id] = match
        self._schedule_ai(match)
        return match, tokens

    async def import_record(self, text: str, game_name: str | None = None) -> tuple[Match, str]:
        """A hot-seat game continuing from an uploaded record (any registered game).

        Parsing and replaying run in a thread (a long record must not stall the server),
        and both are linear in the record's length.
        """
        if not isinstance(text, str) or not text.strip():
            raise ValueError("the record is empty")
        if len(text) > MAX_RECORD:
            raise ValueError(f"a record is at most {MAX_RECORD} characters, not {len(text)}")
        if game_name is not None and game_name not in game_names():
            known = ", ".join(game_names())
            raise ValueError(f"unknown game {game_name[:40]!r}; known games: {known}")
        match, token = await asyncio.to_thread(self._read_record, text, game_name)
        await self._store(self.storage.create_game, match.stored)  # with its result
        self._matches[match.id] = match
        return match, token

    def _read_record(self, text: str, game_name: str | None) -> tuple[Match, str]:
        errors = []
        for name in [game_name] if game_name else game_names():
            game = get_game(name)
            try:
                position, tags = game.read_record(text)
            except ValueError as error:
                errors.append(f"{game.title}: {str(error)[:200]}")
                continue
            options = dict(game.rules_options(position.rules))
            actions = [str(action) for action in position.history]
            if len(actions) > MAX_PLIES:
                raise ValueError(f"a game is at most {MAX_PLIES} actions long")
            start = None
            if "Start" in tags:  # the record's own start position (records write it so)
                start = "\n".join(part.strip() for part in tags["Start"].split("/"))
                start_position(game, options, start)  # raises ValueError if malformed
            token = new_token()
            stamp = now()
            stored = StoredGame(
                id=secrets.token_urlsafe(9),
                game=game.name,
                options=options,
                mode="hotseat",
                players=[{"kind": "human", "level": None}, {"kind": "human", "level": None}],
                seat_tokens=[hashed(token), hashed(token)],
                status="playing",
                winner=None,
                reason=None,
                created_at=stamp,
                updated_at=stamp,
                actions=actions,
                start=start,
            )
            match = Match(stored)  # replays the stored form: raises if it does not
            if not match.sync_result():
                resigned_from_tags(match, tags)
            return match, token
        raise ValueError("not a game record this site can read: " + "; ".join(errors))

    async def claim(self, game_id: str, token: str | None, have: str | None) -> dict[str, Any]:
        """A browser opened a link with ``token`` (it already holds ``have``, if any).

        An online game's invitation is claimed once: the first browser to open it takes
        the seat with a fresh credential of its own (the link's token stops working), so
        whoever opens the link later is a spectator and is told so. The game's creator
        opening their opponent's link is told so and keeps their own seat.
        """
        match = await self.get(game_id)
        async with self._locks[game_id]:
            seats = match.seats_of(token)
            mine = match.seats_of(have)
            if mine and not seats:
                return {"role": "player", "token": have, "seats": sorted(mine), "notice": None}
            if not seats:
                notice = ("this invitation has already been taken by another browser: "
                          "you are watching" if token else None)
                return {"role": "spectator", "token": None, "seats": [], "notice": notice}
            if mine and mine != seats:
                return {
                    "role": "player", "token": have, "seats": sorted(mine),
                    "notice": "this is your opponent's invitation link: send it to them; "
                              "you keep your own seat",
                }
            players = match.stored.players
            open_seats = [s for s in sorted(seats) if players[s].get("invite") == INVITE_OPEN]
            if not open_seats:
                return {"role": "player", "token": token, "seats": sorted(seats), "notice": None}
            seat = open_seats[0]
            fresh = new_token()
            tokens = list(match.stored.seat_tokens)
            tokens[seat] = hashed(fresh)
            new_players = [dict(player) for player in players]
            new_players[seat].pop("invite", None)
            stamp = now()
            await self._store(self.storage.set_seats, game_id, new_players, tokens, stamp)
            match.stored.seat_tokens, match.stored.players = tokens, new_players
            match.stored.updated_at = stamp
        self.hub.publish(match)  # a socket still using the old link now only watches
        return {"role": "player", "token": fresh, "seats": [seat], "notice": None}

    # ----------------------------------------------------------------- reading
    async def get(self, game_id: str) -> Match:
        match = self._matches.get(game_id)
        if match is not None:
            self._schedule_ai(match)  # retries after a failed search
            return match
        async with self._locks[game_id]:
            match = self._matches.get(game_id)
            if match is None:
                self._loading.add(game_id)
                try:
                    stored = await self._store(self.storage.load_game, game_id)
                    if stored is None:
                        self._locks.pop(game_id, None)
                        raise GameNotFound(f"there is no game {game_id!r}")
                    match = await asyncio.to_thread(Match, stored)
                    self._matches[game_id] = match
                finally:
                    self._loading.discard(game_id)
        self._schedule_ai(match)  # a server restart interrupted the AI's turn
        return match

    async def list(self, limit: int = 50) -> list[StoredGame]:
        return await self._store(self.storage.list_games, limit)

    # ---------------------------------------------------------------- changing
    async def act(self, game_id: str, token: str | None, action: Any,
                  expected_ply: int | None = None) -> Match:
        match = await self.get(game_id)
        if self.storage.shared and expected_ply is not None and expected_ply > len(match.plies):
            # The client saw a newer position (stored through another process): catch up.
            match = await self.refresh(game_id) or match
        for attempt in (1, 2):
            try:
                async with self._locks[game_id]:
                    match = self._matches.get(game_id, match)
                    first = len(match.plies)
                    ply = match.play(token, action, expected_ply)
                    await self._save_or_take_back(match, first, ply.notation)
                break
            except StaleWrite:
                # Another process stored this ply first. The stored game wins: reload it
                # and show it; an action meant for a ply (``expected_ply``) is tried once
                # more (refused as stale if that ply is taken), others are refused.
                match = await self.get(game_id)
                self.hub.publish(match)
                if attempt == 2 or expected_ply is None:
                    raise
        await self.hub.broadcast(match)
        self._schedule_ai(match)
        return match

    async def undo(self, game_id: str, token: str | None) -> Match:
        match = await self.get(game_id)
        async with self._locks[game_id]:
            match.undo(token)
            match.thinking = False
            stamp = now()
            await self._store(self.storage.truncate_actions, game_id, len(match.plies), stamp)
            await self._store(self.storage.finish_game, game_id, None, None, stamp)
            match.stored.updated_at = stamp
        await self.hub.broadcast(match)
        self._schedule_ai(match)
        return match

    async def resign(self, game_id: str, token: str | None) -> Match:
        match = await self.get(game_id)
        async with self._locks[game_id]:
            match.resign(token)
            match.thinking = False
            stamp = now()
            stored = match.stored
            await self._store(
                self.storage.finish_game, game_id, stored.winner, stored.reason, stamp
            )
            stored.updated_at = stamp
        await self.hub.broadcast(match)
        return match

    async def _save_or_take_back(self, match: Match, first: int, notation: str) -> None:
        """Store an action just played; if storing fails, the live game forgets it too,
        so that memory and database never disagree (the error then reaches the caller)."""
        try:
            await self._save_actions(match, first, [notation])
        except StaleWrite:
            # The stored game is not what this server holds (another writer, or a write
            # that timed out and landed later): reload it from storage next time.
            match.take_back_unsaved()
            self._matches.pop(match.id, None)
            raise
        except BaseException:
            match.take_back_unsaved()
            raise

    async def _save_actions(
        self, match: Match, first: int, actions: builtins.list[str]
    ) -> None:
        stamp = now()
        await self._store(self.storage.append_actions, match.id, first, actions, stamp)
        match.stored.updated_at = stamp
        if match.sync_result():
            stored = match.stored
            await self._store(
                self.storage.finish_game, match.id, stored.winner, stored.reason, stamp
            )

    # ---------------------------------------------------------------------- AI
    def _schedule_ai(self, match: Match) -> None:
        if match.ai_to_move() and match.id not in self._ai_tasks:
            self._ai_tasks[match.id] = asyncio.create_task(self._run_ai(match))

    async def _run_ai(self, match: Match) -> None:
        """Let the AI act while it is its turn, one action per search.

        The position is captured under the lock, searched without it, and the answer is
        played only if nothing changed meanwhile (an undo or resignation makes it moot).
        """
        try:
            while True:
                async with self._locks[match.id]:
                    if not match.ai_to_move():
                        break
                    revision = match.revision
                    seat = match.position.current_seat
                    level = match.ai_level(seat) or 1
                    actions = [ply.notation for ply in match.plies]
                    start = match.stored.start
                    announce = not match.thinking
                    match.thinking = True
                if announce:
                    await self.hub.broadcast(match)
                try:
                    if self.storage.shared:
                        claimed = await self._claim_ai(match, len(actions), revision)
                        if claimed is None:
                            break  # the game was reloaded: its new copy has its own task
                        if not claimed:
                            continue  # the game changed meanwhile: look again
                    choice = await self.workers.choose(
                        match.stored.game, match.stored.options, actions, level,
                        start=start or None, game_id=match.id,
                    )
                    async with self._locks[match.id]:
                        if match.revision != revision:
                            continue  # undone or resigned meanwhile: look again
                        first = len(match.plies)
                        ply = match.play_for_seat(seat, choice)  # checked like any input
                        match.ai_error = None
                        if not match.ai_to_move():
                            match.thinking = False
                        await self._save_or_take_back(match, first, ply.notation)
                except Exception as error:
                    match.thinking = False
                    if isinstance(error, AiBusy):
                        match.ai_error = str(error) + " (reload the page to try again)"
                    else:
                        log.exception("the AI failed in game %s", match.id)
                        match.ai_error = (
                            f"the computer could not move ({type(error).__name__}); "
                            "reload the page to let it try again"
                        )
                    await self.hub.broadcast(match)
                    return
                finally:
                    if self.storage.shared:
                        with contextlib.suppress(Exception):
                            await self._store(self.storage.release_ai, match.id, len(actions))
                await self.hub.broadcast(match)
        finally:
            match.thinking = False
            self._ai_tasks.pop(match.id, None)
            current = self._matches.get(match.id)
            if current is not None and current is not match:
                self._schedule_ai(current)  # reloaded meanwhile: go on with the new copy

    async def _claim_ai(self, match: Match, ply: int, revision: int) -> bool | None:
        """Wait until this process holds the AI search of ``match`` at ``ply`` (another
        process may hold it: its answer then arrives as a change, or, if that process
        died, its claim goes with it and this one takes over). False when the game
        changed meanwhile, None when it was replaced by a reloaded copy."""
        while True:
            if self._matches.get(match.id) is not match:
                return None
            if match.revision != revision:
                return False
            if await self._store(self.storage.claim_ai, match.id, ply):
                return True
            await asyncio.sleep(AI_CLAIM_RETRY)
            if self._matches.get(match.id) is match and match.revision == revision:
                await self.refresh(match.id)  # in case a notification was missed

    async def close(self) -> None:
        if self._stop_listening is not None:
            await asyncio.to_thread(self._stop_listening)
        for task in list(self._refreshing.values()):
            task.cancel()
        for task in list(self._ai_tasks.values()):
            task.cancel()
        for task in list(self._ai_tasks.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.workers.shutdown()
        await self.hub.close_all()
        self.storage.close()
