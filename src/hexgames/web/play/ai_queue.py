"""The AI queue: the computer's turns in the games a server process holds.

Whenever it is an AI seat's turn in a held game, :meth:`AiQueue.schedule` starts one task
for that game (never two), which asks the AI worker processes
(:class:`~hexgames.web.engine.workers.AiWorkers`) for one action per search and plays it if
nothing changed meanwhile. With several server processes on one storage, a turn's search
is claimed in storage first (:meth:`AiQueue._claim`), so exactly one process searches it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from hexgames.game import reason_of
from hexgames.phrases import Phrase
from hexgames.web.engine.workers import AiBusy, AiWorkers
from hexgames.web.game.matches import Match
from hexgames.web.play.change_feed import ChangeFeed
from hexgames.web.play.live_games import LiveGames
from hexgames.web.play.live_positions import LivePositions

__all__ = ["AI_CLAIM_RETRY", "AiQueue"]

log = logging.getLogger(__name__)

#: Seconds between two looks at an AI turn that another server process is searching
#: (if that process died, its claim is gone and this one takes over).
AI_CLAIM_RETRY = 1.0


class AiQueue:
    """One search task per held game whose AI seat is to act."""

    def __init__(self, games: LiveGames, feed: ChangeFeed, workers: AiWorkers,
                 live: LivePositions | None = None) -> None:
        self.games = games
        self.feed = feed
        self.workers = workers
        #: No move of the computer at a live game's position (issue 39, row 3).
        self.live = live
        self.tasks: dict[str, asyncio.Task[None]] = {}

    def schedule(self, match: Match) -> None:
        """Start the AI's task if it is its turn (and none runs for the game)."""
        if match.ai_to_move() and match.id not in self.tasks:
            self.tasks[match.id] = asyncio.create_task(self._run(match))

    async def close(self) -> None:
        for task in list(self.tasks.values()):
            task.cancel()
        for task in list(self.tasks.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _run(self, match: Match) -> None:
        """Let the AI act while it is its turn, one action per search.

        The position is captured under the lock, searched without it, and the answer is
        played only if nothing changed meanwhile (an undo or resignation makes it moot).
        """
        games, hub = self.games, self.games.hub
        try:
            while True:
                async with games.locks[match.id]:
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
                    await hub.broadcast(match)
                shared = games.storage.shared
                try:
                    if self.live is not None:  # at every move, not only the start
                        await self.live.refuse_match(match)
                    if shared:
                        claimed = await self._claim(match, len(actions), revision)
                        if claimed is None:
                            break  # the game was reloaded: its new copy has its own task
                        if not claimed:
                            continue  # the game changed meanwhile: look again
                    choice = await self.workers.choose(
                        match.stored.game, match.stored.options, actions, level,
                        start=start or None, game_id=match.id,
                    )
                    async with games.locks[match.id]:
                        if match.revision != revision:
                            continue  # undone or resigned meanwhile: look again
                        first = len(match.plies)
                        ply = match.play_for_seat(seat, choice)  # checked like any input
                        match.ai_error = None
                        if not match.ai_to_move():
                            match.thinking = False
                        await games.save_or_take_back(match, first, ply.notation)
                except Exception as error:
                    match.thinking = False
                    if isinstance(error, AiBusy):
                        match.ai_error = Phrase("{reason} (reload the page to try again)",
                                                reason=reason_of(error))
                    elif isinstance(error, PermissionError):  # a live game's position
                        match.ai_error = Phrase("the computer will not play here: {reason}",
                                                reason=reason_of(error))
                    else:
                        log.exception("the AI failed in game %s", match.id)
                        match.ai_error = Phrase(
                            "the computer could not move ({error}); reload the page to let "
                            "it try again", error=type(error).__name__)
                    await hub.broadcast(match)
                    return
                finally:
                    if shared:
                        with contextlib.suppress(Exception):
                            await games.calls.call(games.storage.release_ai, match.id,
                                                   len(actions))
                await hub.broadcast(match)
        finally:
            match.thinking = False
            self.tasks.pop(match.id, None)
            current = games.matches.get(match.id)
            if current is not None and current is not match:
                self.schedule(current)  # reloaded meanwhile: go on with the new copy

    async def _claim(self, match: Match, ply: int, revision: int) -> bool | None:
        """Wait until this process holds the AI search of ``match`` at ``ply`` (another
        process may hold it: its answer then arrives as a change, or, if that process
        died, its claim goes with it and this one takes over). False when the game
        changed meanwhile, None when it was replaced by a reloaded copy."""
        games = self.games
        while True:
            if games.matches.get(match.id) is not match:
                return None
            if match.revision != revision:
                return False
            if await games.calls.call(games.storage.claim_ai, match.id, ply):
                return True
            await asyncio.sleep(AI_CLAIM_RETRY)
            if games.matches.get(match.id) is match and match.revision == revision:
                await self.feed.refresh(match.id)  # in case a notification was missed
