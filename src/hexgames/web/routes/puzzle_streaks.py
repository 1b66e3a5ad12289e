"""Puzzle streaks (lichess's Puzzle Streak): puzzles of increasing difficulty until the
first mistake, judged by the server, the best streak kept per named player and game.

A streak lives in the storage (:class:`~hexgames.web.storage.records.PuzzleStreak`), not
in the page: its puzzles are fixed when it starts (:func:`~hexgames.web.ratings.puzzles.
streak_puzzles`) and each one is judged once (the storage's conditional
``advance_streak``), so a page cannot take a mistake back, skip a puzzle or claim a
longer streak, whatever it sends or however many processes serve it. Streaks are
unrated. The streak's id is its credential; a streak started by an identity answers only
to it. Streaks last played a day ago are forgotten when a new one starts.

Routes: ``POST /api/puzzles/<game>/streak`` (start), ``GET
/api/puzzles/<game>/streak/<id>`` (where it stands), ``POST
/api/puzzles/<game>/streak/<id>/try`` ``{"index", "actions", "clicks"?}`` (a try at
puzzle number ``index``; the verdict, and the streak after it).
"""

from __future__ import annotations

import random
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import Field, StrictInt

from hexgames.game import Game
from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.tutorial import find_puzzle, puzzle_set
from hexgames.web.http.addresses import client_address
from hexgames.web.http.identity import Player, known_player
from hexgames.web.http.language import request_translator
from hexgames.web.http.state import Service
from hexgames.web.ratings.puzzles import PLAYER_START, now, puzzle_rating, streak_puzzles
from hexgames.web.routes.learn import TryIn, judge
from hexgames.web.routes.puzzles import FINAL, detail, puzzle_game, rated
from hexgames.web.service import GameService
from hexgames.web.storage.records import PuzzleStreak
from hexgames.web.storage.site_limits import SiteLimiter

#: Streaks one client address may start per window of seconds (each is a stored row).
STREAKS_PER_ADDRESS = 30
STREAK_WINDOW = 600.0
STARTS = SiteLimiter("streak", STREAKS_PER_ADDRESS, STREAK_WINDOW)  # per site
#: Draws each streak's puzzles.
DRAWER = random.SystemRandom()
#: A streak not played for this long is deleted (when another one starts).
STREAK_TTL = timedelta(days=1)

router = APIRouter()


class StreakTryIn(TryIn):
    #: The number of the puzzle the try is for (the streak's solved count when it was
    #: shown): a try for a puzzle the streak has left is refused, never judged on another.
    index: StrictInt = Field(ge=0, le=10_000)


def owned(streak: PuzzleStreak | None, player: Player | None, game: Game) -> PuzzleStreak:
    """The streak, if it is this game's and the visitor may play it (404/403 else)."""
    if streak is None or streak.game != game.name:
        raise HTTPException(404, N_("there is no such streak"))
    if streak.player_id is not None and (player is None or player.id != streak.player_id):
        raise PermissionError(N_("this streak belongs to another player"))
    return streak


async def view(service: GameService, game: Game, streak: PuzzleStreak,
               player: Player | None, words: Translator) -> dict[str, Any]:
    """Where the streak stands, with its current puzzle while it is played (its
    words in ``words``' language)."""
    best = None
    if rated(player):
        assert player is not None
        record = await service.call_storage(service.storage.puzzle_rating, player.id,
                                            game.name)
        best = record.best_streak if record else 0
    answer: dict[str, Any] = {
        "id": streak.id, "game": game.name, "solved": streak.solved,
        "length": len(streak.puzzles), "status": streak.status, "best": best,
        "puzzle": None,
    }
    if streak.status == "playing":
        puzzle = find_puzzle(game, streak.puzzles[streak.solved])
        stats = await service.call_storage(service.storage.puzzle_stats, game.name)
        stat = stats.get(puzzle.id)
        answer["puzzle"] = await service.call_thread(
            detail, game, puzzle, puzzle_rating(puzzle, stat).rating,
            stat.attempts if stat else 0, words)
    return answer


@router.post("/api/puzzles/{game_name}/streak", status_code=201)
async def start_streak(game_name: str, request: Request, service: Service) -> dict[str, Any]:
    """A new streak and its first puzzle (``best``: the visitor's best streak, for a
    named player)."""
    game = puzzle_game(game_name)
    wait = await STARTS.hit(service, client_address(request.scope))
    if wait is not None:
        raise HTTPException(429, Phrase("too many streaks started; try again in "
                                        "{seconds} s", seconds=int(wait) + 1),
                            headers={"Retry-After": str(int(wait) + 1)})
    player = await known_player(request)
    at = now()
    stale = (datetime.now(UTC) - STREAK_TTL).isoformat(timespec="seconds")
    await service.call_storage(service.storage.delete_streaks, stale)
    streak = PuzzleStreak(secrets.token_urlsafe(12), player.id if player else None,
                          game.name, tuple(streak_puzzles(puzzle_set(game), DRAWER)),
                          0, "playing", at, at)
    await service.call_storage(service.storage.create_streak, streak)
    return await view(service, game, streak, player, request_translator(request))


@router.get("/api/puzzles/{game_name}/streak/{streak_id}")
async def streak_state(game_name: str, streak_id: str, request: Request,
                       service: Service) -> dict[str, Any]:
    game = puzzle_game(game_name)
    player = await known_player(request)
    stored = await service.call_storage(service.storage.load_streak, streak_id[:40])
    return await view(service, game, owned(stored, player, game), player,
                      request_translator(request))


@router.post("/api/puzzles/{game_name}/streak/{streak_id}/try")
async def streak_try(game_name: str, streak_id: str, body: StreakTryIn, request: Request,
                     service: Service) -> dict[str, Any]:
    """The verdict on a try at the streak's current puzzle; once it is over, the
    streak moves on (solved) or ends (a line that does not win), and ``streak`` says
    where it stands (the next puzzle in it)."""
    game = puzzle_game(game_name)
    player = await known_player(request)
    stored = await service.call_storage(service.storage.load_streak, streak_id[:40])
    streak = owned(stored, player, game)
    if streak.status != "playing":
        raise HTTPException(409, N_("this streak is over; start a new one"))
    if body.index != streak.solved:
        raise HTTPException(409, Phrase("this streak is at puzzle {number}, not {index}: "
                                        "reload it", number=streak.solved + 1,
                                        index=body.index + 1))
    words = request_translator(request)
    puzzle = find_puzzle(game, streak.puzzles[streak.solved])
    answer = await service.call_thread(judge, game, puzzle.lesson, body, words)
    if answer["status"] not in FINAL:
        return answer
    won = answer["status"] == "solved"
    moved = await service.call_storage(service.storage.advance_streak, streak.id,
                                       streak.solved, won, now(), PLAYER_START,
                                       rated(player))
    if moved is None:
        raise HTTPException(409, N_("this puzzle of the streak was judged already: "
                                    "reload"))
    answer["solution"] = list(puzzle.lesson.solution)
    answer["streak"] = await view(service, game, moved, player, words)
    return answer


