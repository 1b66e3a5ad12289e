"""The games of a running server: creating, loading, changing, saving and broadcasting them.

One :class:`GameService` per app. It keeps the live :class:`~hexgames.web.matches.Match`
of every game someone opened, serialises changes to a game with a per-game lock (two
browsers clicking at once cannot interleave), writes every change to storage before
telling anyone about it, and starts the AI whenever it is an AI seat's turn. Storage calls
run in threads and AI searches in worker processes, so the event loop never blocks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from hexgames.game import get_game
from hexgames.web.ai_worker import AiWorkers
from hexgames.web.hub import Hub
from hexgames.web.matches import MODES, Match, rebuild
from hexgames.web.options import parse_options
from hexgames.web.storage import Storage, StoredGame

log = logging.getLogger(__name__)

AI_LEVELS = range(1, 6)


class GameNotFound(LookupError):
    """No game with that id (a 404, not a server error)."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_token() -> str:
    return secrets.token_urlsafe(18)


def resigned_from_tags(match: Match, tags: dict[str, str]) -> None:
    """Restore a resignation recorded by this site's record download (tags ``Winner`` and
    ``Ending``), which the position itself cannot express."""
    winner, ending = tags.get("Winner", ""), tags.get("Ending", "")
    if winner in match.game.colors and ending.endswith("resigned"):
        match.stored.status, match.stored.winner, match.stored.reason = "over", winner, ending


class GameService:
    def __init__(self, storage: Storage, workers: AiWorkers, hub: Hub) -> None:
        self.storage = storage
        self.workers = workers
        self.hub = hub
        self._matches: dict[str, Match] = {}
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._ai_tasks: dict[str, asyncio.Task[None]] = {}

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
        human = {"kind": "human", "level": None}
        if mode == "ai":
            if level not in AI_LEVELS:
                raise ValueError(f"AI level must be 1 to 5, got {level!r}")
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
        stamp = now()
        stored = StoredGame(
            id=secrets.token_urlsafe(9),
            game=game.name,
            options=rules_options,
            mode=mode,
            players=players,
            seat_tokens=tokens,
            status="playing",
            winner=None,
            reason=None,
            created_at=stamp,
            updated_at=stamp,
        )
        match = Match(stored)
        await asyncio.to_thread(self.storage.create_game, stored)
        self._matches[stored.id] = match
        self._schedule_ai(match)
        return match, tokens

    async def import_record(self, text: str, game_name: str | None = None) -> tuple[Match, str]:
        """A hot-seat game continuing from an uploaded record (any registered game)."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("the record is empty")
        from hexgames.game import game_names

        errors = []
        for name in [game_name] if game_name else game_names():
            game = get_game(name)
            try:
                position, tags = game.read_record(text)
            except ValueError as error:
                errors.append(f"{game.title}: {error}")
                continue
            options = dict(game.rules_options(position.rules))
            actions = [str(action) for action in position.history]
            # The stored form must replay (raises if not); off the loop, as it may be long.
            await asyncio.to_thread(rebuild, game, options, actions)
            token = new_token()
            stamp = now()
            stored = StoredGame(
                id=secrets.token_urlsafe(9),
                game=game.name,
                options=options,
                mode="hotseat",
                players=[{"kind": "human", "level": None}, {"kind": "human", "level": None}],
                seat_tokens=[token, token],
                status="playing",
                winner=None,
                reason=None,
                created_at=stamp,
                updated_at=stamp,
                actions=actions,
            )
            match = await asyncio.to_thread(Match, stored)
            if not match.sync_result():
                resigned_from_tags(match, tags)
            await asyncio.to_thread(self.storage.create_game, stored)  # with its result
            self._matches[stored.id] = match
            return match, token
        raise ValueError("not a game record this site can read: " + "; ".join(errors))

    # ----------------------------------------------------------------- reading
    async def get(self, game_id: str) -> Match:
        match = self._matches.get(game_id)
        if match is not None:
            self._schedule_ai(match)  # retries after a failed search
            return match
        async with self._locks[game_id]:
            match = self._matches.get(game_id)
            if match is None:
                stored = await asyncio.to_thread(self.storage.load_game, game_id)
                if stored is None:
                    self._locks.pop(game_id, None)
                    raise GameNotFound(f"there is no game {game_id!r}")
                match = await asyncio.to_thread(Match, stored)
                self._matches[game_id] = match
        self._schedule_ai(match)  # a server restart interrupted the AI's turn
        return match

    async def list(self, limit: int = 50) -> list[StoredGame]:
        return await asyncio.to_thread(self.storage.list_games, limit)

    # ---------------------------------------------------------------- changing
    async def act(self, game_id: str, token: str | None, action: Any,
                  expected_ply: int | None = None) -> Match:
        match = await self.get(game_id)
        async with self._locks[game_id]:
            first = len(match.plies)
            ply = match.play(token, action, expected_ply)
            await self._save_or_take_back(match, first, ply.notation)
        await self.hub.broadcast(match)
        self._schedule_ai(match)
        return match

    async def undo(self, game_id: str, token: str | None) -> Match:
        match = await self.get(game_id)
        async with self._locks[game_id]:
            match.undo(token)
            match.thinking = False
            stamp = now()
            await asyncio.to_thread(self.storage.truncate_actions, game_id, len(match.plies), stamp)
            await asyncio.to_thread(self.storage.finish_game, game_id, None, None, stamp)
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
            await asyncio.to_thread(
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
        except BaseException:
            match.take_back_unsaved()
            raise

    async def _save_actions(self, match: Match, first: int, actions: list[str]) -> None:
        stamp = now()
        await asyncio.to_thread(self.storage.append_actions, match.id, first, actions, stamp)
        match.stored.updated_at = stamp
        if match.sync_result():
            stored = match.stored
            await asyncio.to_thread(
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
                    announce = not match.thinking
                    match.thinking = True
                if announce:
                    await self.hub.broadcast(match)
                try:
                    choice = await self.workers.choose(
                        match.stored.game, match.stored.options, actions, level
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
                    log.exception("the AI failed in game %s", match.id)
                    match.thinking = False
                    match.ai_error = (
                        f"the computer could not move ({type(error).__name__}); "
                        "reload the page to let it try again"
                    )
                    await self.hub.broadcast(match)
                    return
                await self.hub.broadcast(match)
        finally:
            match.thinking = False
            self._ai_tasks.pop(match.id, None)

    async def close(self) -> None:
        for task in list(self._ai_tasks.values()):
            task.cancel()
        for task in list(self._ai_tasks.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.workers.shutdown()
        await self.hub.close_all()
        self.storage.close()
