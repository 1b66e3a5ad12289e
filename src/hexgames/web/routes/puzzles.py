"""The puzzle page: rated puzzle training by theme, and the daily puzzle (lichess's
/training, on the shipped sets of :func:`hexgames.tutorial.puzzle_set`).

The server judges every try with the learn page's judge (:func:`hexgames.web.routes.learn.
judge`: the engine replays the whole try), never the page; the page only keeps the
actions of the try it shows. A named player's first finished try at a puzzle rates both
(:mod:`hexgames.web.ratings.puzzles`); a guest's tries are judged the same and not rated.
The solution is never sent before the try is over (or given up).

Routes (on :data:`router`; the streak's are in
:mod:`hexgames.web.routes.puzzle_streaks`):

* pages ``/puzzles`` (the first game's), ``/puzzles/<game>``, ``/puzzles/<game>/<id>``;
* ``GET /api/puzzles/daily``: each game's puzzle of the day (UTC), with a small board;
* ``GET /api/puzzles/<game>``: the set's size, the themes (the game's vocabulary, with
  counts; only those that pick some puzzles but not all) and the visitor's puzzle rating;
* ``GET /api/puzzles/<game>/next?theme=&near=&skip=``: the next puzzle for the visitor;
* ``GET /api/puzzles/<game>/<id>``: one puzzle (board, clicks, themes, rating);
* ``POST /api/puzzles/<game>/<id>/try`` ``{"actions", "clicks"?}``: the verdict, and once
  the try is over its ``result`` (rating changes on a named player's first try);
* ``POST /api/puzzles/<game>/<id>/solution``: give up (a failed first try) and see it.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import RedirectResponse, Response

from hexgames.game import Game, game_names, get_game
from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.tutorial import Puzzle, find_puzzle, puzzle_set
from hexgames.web.game.matches import ENGLISH
from hexgames.web.http.addresses import client_address
from hexgames.web.http.identity import PagePlayer, Player, known_player
from hexgames.web.http.language import page, request_translator, said
from hexgames.web.http.not_found import not_found_response
from hexgames.web.http.state import Service
from hexgames.web.ratings.puzzles import (
    choose,
    daily_puzzle,
    player_rating,
    puzzle_rating,
    rating_view,
    record_attempt,
    today,
)
from hexgames.web.routes.learn import TryIn, board_view, judge
from hexgames.web.service import GameService
from hexgames.web.storage.site_limits import SiteLimiter

#: Ids a ``skip`` list may name (a guest's browser sends the puzzles it just saw).
MAX_SKIP = 200
_PUZZLE_ID = re.compile(r"^[a-z0-9]{1,12}$")
#: A try that is over: the result is judged (and rated) on it.
FINAL = ("solved", "wrong")
#: Solutions one client address may look up per hour (counted in storage, for the whole
#: site).
SOLUTIONS_PER_ADDRESS = 20
SOLUTION_WINDOW = 3600.0
SOLUTIONS = SiteLimiter("solution", SOLUTIONS_PER_ADDRESS, SOLUTION_WINDOW)
#: Draws the next puzzle among the equally fitting ones.
CHOOSER = random.SystemRandom()

router = APIRouter()


def puzzle_game(name: str) -> Game:
    """The game ``name`` if it has puzzles (404 otherwise)."""
    if name not in game_names() or not puzzle_set(get_game(name)):
        raise HTTPException(404, Phrase("no puzzles for a game called {name}",
                                        name=repr(name[:40])))
    return get_game(name)


def shipped(game: Game, puzzle_id: str) -> Puzzle:
    """The game's puzzle ``puzzle_id`` (404 otherwise)."""
    try:
        return find_puzzle(game, puzzle_id)
    except ValueError as error:
        raise HTTPException(404, said(error)) from None


def rated(player: Player | None) -> bool:
    """Named players are rated; guests (and visitors without an identity) are not."""
    return player is not None and not player.guest


def theme_list(game: Game, words: Translator = ENGLISH) -> list[dict[str, Any]]:
    """The game's themes that pick some of its puzzles, in its order, each with the
    number of puzzles it tags (its ``title`` and ``description`` in ``words``' language).

    A theme of the vocabulary that tags no shipped puzzle (Benediction's bridge) offers
    an empty choice, and one that tags every puzzle (Dendria's quiet limit: each puzzle
    of the set ends the game by it) picks nothing out and says nothing about a puzzle;
    both are left out, here and on the puzzles (issue 39, row 15)."""
    vocabulary = game.puzzle_themes.themes if game.puzzle_themes is not None else ()
    puzzles = puzzle_set(game)
    counts = {theme.name: sum(theme.name in puzzle.themes for puzzle in puzzles)
              for theme in vocabulary}
    return [{"name": theme.name, "title": words.text(theme.title),
             "description": words.text(theme.description), "count": counts[theme.name]}
            for theme in vocabulary if 0 < counts[theme.name] < len(puzzles)]


def detail(game: Game, puzzle: Puzzle, rating: float, plays: int,
           words: Translator = ENGLISH) -> dict[str, Any]:
    """A puzzle as the page gets it: its board and clicks, who acts, its themes and
    rating; no hint and no solution (blocking: draws the board). Its words in ``words``'
    language."""
    lesson = puzzle.lesson
    start = lesson.start(game)
    titles = {theme["name"]: theme["title"] for theme in theme_list(game, words)}
    return {
        "game": game.name,
        "id": puzzle.id,
        "number": puzzle.number,
        "task": words.text(lesson.task),
        "rule": words.text(lesson.rule),
        "moves": lesson.moves,
        "color": start.to_move,
        "themes": [{"name": name, "title": titles[name]} for name in puzzle.themes
                   if name in titles],
        "rating": round(rating),
        "plays": plays,
        "url": f"/puzzles/{game.name}/{puzzle.id}",
        **board_view(game, lesson, start, 0, words),
    }


@lru_cache(maxsize=64)
def small_board(game_name: str, puzzle_id: str) -> str:
    """A puzzle's start board for the home page (drawn once per puzzle)."""
    game = get_game(game_name)
    puzzle = find_puzzle(game, puzzle_id)
    return str(game.render_svg(puzzle.lesson.start(game)))


def parse_skip(skip: str) -> set[str]:
    """The ids of a ``skip`` list (comma-separated; 400 when malformed or too long)."""
    ids = {item for item in skip.split(",") if item}
    if len(ids) > MAX_SKIP or not all(_PUZZLE_ID.match(item) for item in ids):
        raise HTTPException(400, Phrase("skip must be at most {limit} puzzle ids, separated "
                                        "by commas", limit=MAX_SKIP))
    return ids


async def current(service: GameService, game: Game, puzzle: Puzzle) -> tuple[float, int]:
    """The puzzle's rating now, and how often it was tried."""
    stats = await service.call_storage(service.storage.puzzle_stats, game.name)
    stat = stats.get(puzzle.id)
    return puzzle_rating(puzzle, stat).rating, (stat.attempts if stat else 0)


async def result(service: GameService, game: Game, puzzle: Puzzle, player: Player | None,
                 win: bool) -> dict[str, Any]:
    """What a finished try did: rated (a named player's first try) or not."""
    answer: dict[str, Any] = {"win": win, "solution": list(puzzle.lesson.solution)}
    if not rated(player):
        return {**answer, "rated": False}
    assert player is not None
    changes = await service.call_storage(record_attempt, service.storage, player.id,
                                         game.name, puzzle, win)
    return {**answer, "rated": bool(changes.get("first")), "changes": changes}


@router.get("/puzzles", include_in_schema=False)
async def first_puzzles() -> Response:
    games = [name for name in game_names() if puzzle_set(get_game(name))]
    return RedirectResponse(f"/puzzles/{games[0]}" if games else "/", status_code=307)


# A first visit gets its identity (PagePlayer), as on the other pages.
@router.get("/puzzles/{game_name}", include_in_schema=False, response_model=None)
async def puzzle_page(game_name: str, request: Request, player: PagePlayer) -> Response:
    return _page(game_name, None, request)


@router.get("/puzzles/{game_name}/{puzzle_id}", include_in_schema=False, response_model=None)
async def one_puzzle_page(game_name: str, puzzle_id: str, request: Request,
                          player: PagePlayer) -> Response:
    return _page(game_name, puzzle_id, request)


def _page(game_name: str, puzzle_id: str | None, request: Request) -> Response:
    try:
        game = puzzle_game(game_name)
        if puzzle_id is not None:
            shipped(game, puzzle_id)
    except HTTPException:
        return not_found_response(request)
    return page(request, "puzzles.html")


@router.get("/api/puzzles/daily")
async def daily(service: Service) -> dict[str, Any]:
    """Each game's puzzle of the day (the same for everyone until midnight UTC)."""
    day = today()
    found = []
    for name in game_names():
        game = get_game(name)
        puzzle = daily_puzzle(puzzle_set(game), name, day)
        if puzzle is None:
            continue
        svg = await service.call_thread(small_board, name, puzzle.id)
        found.append({
            "game": name, "title": game.title, "id": puzzle.id,
            "rating": round(puzzle.rating), "themes": [
                theme for theme in puzzle.themes
                if theme in {item["name"] for item in theme_list(game)}],
            "color": puzzle.lesson.start(game).to_move, "svg": svg,
            "url": f"/puzzles/{name}/{puzzle.id}",
        })
    return {"date": day.isoformat(), "puzzles": found}


@router.get("/api/puzzles/{game_name}")
async def catalogue(game_name: str, request: Request, service: Service) -> dict[str, Any]:
    """The set (its size and themes) and the visitor's puzzle rating (``null`` for a
    guest: unrated)."""
    game = puzzle_game(game_name)
    player = await known_player(request)
    me = None
    if rated(player):
        assert player is not None
        record = await service.call_storage(service.storage.puzzle_rating, player.id,
                                            game.name)
        me = rating_view(record)
    return {"game": game.name, "title": game.title, "count": len(puzzle_set(game)),
            "themes": theme_list(game, request_translator(request)), "rated": rated(player),
            "me": me}


@router.get("/api/puzzles/{game_name}/next")
async def next_puzzle(game_name: str, request: Request, service: Service,
                      theme: str | None = None, near: int = Query(1500, ge=100, le=3500),
                      skip: str = Query("", max_length=MAX_SKIP * 13)) -> dict[str, Any]:
    """The visitor's next puzzle: near their rating (a guest: ``near``), not tried
    yet (a guest: not in ``skip``), of ``theme`` when given."""
    game = puzzle_game(game_name)
    names = {item["name"] for item in theme_list(game)}
    if theme is not None and theme not in names:
        raise HTTPException(400, Phrase("{game} has no puzzle theme {theme}; themes: "
                                        "{themes}", game=game.title,
                                        theme=repr(theme[:40]),
                                        themes=", ".join(sorted(names)) or "none"))
    exclude = parse_skip(skip)
    player = await known_player(request)
    target = float(near)
    if rated(player):
        assert player is not None
        record = await service.call_storage(service.storage.puzzle_rating, player.id,
                                            game.name)
        target = player_rating(record).rating
        exclude |= await service.call_storage(service.storage.attempted_puzzles,
                                              player.id, game.name)
    stats = await service.call_storage(service.storage.puzzle_stats, game.name)
    ratings = {key: stat.rating for key, stat in stats.items()}
    puzzle = choose(puzzle_set(game), ratings, target, exclude, theme, CHOOSER)
    if puzzle is None:
        raise HTTPException(404, Phrase("no {game} puzzle has the theme {theme}",
                                        game=game.title, theme=repr(theme)))
    stat = stats.get(puzzle.id)
    return await service.call_thread(detail, game, puzzle,
                                     puzzle_rating(puzzle, stat).rating,
                                     stat.attempts if stat else 0,
                                     request_translator(request))


@router.get("/api/puzzles/{game_name}/{puzzle_id}")
async def one_puzzle(game_name: str, puzzle_id: str, request: Request,
                     service: Service) -> dict[str, Any]:
    game = puzzle_game(game_name)
    puzzle = shipped(game, puzzle_id)
    rating, plays = await current(service, game, puzzle)
    return await service.call_thread(detail, game, puzzle, rating, plays,
                                     request_translator(request))


@router.post("/api/puzzles/{game_name}/{puzzle_id}/try")
async def try_puzzle(game_name: str, puzzle_id: str, body: TryIn, request: Request,
                     service: Service) -> dict[str, Any]:
    """The engine's verdict on a try; once it is over (solved, or a line that does
    not win), ``result``: the solution and, on a named player's first try, the
    rating changes of the player and the puzzle."""
    game = puzzle_game(game_name)
    puzzle = shipped(game, puzzle_id)
    answer = await service.call_thread(judge, game, puzzle.lesson, body,
                                       request_translator(request))
    if answer["status"] in FINAL:
        player = await known_player(request)
        answer["result"] = await result(service, game, puzzle, player,
                                        answer["status"] == "solved")
    return answer


@router.post("/api/puzzles/{game_name}/{puzzle_id}/solution")
async def give_up(game_name: str, puzzle_id: str, request: Request,
                  service: Service) -> dict[str, Any]:
    """The solution, as a failed try (a named player's first try at the puzzle
    loses rating, as viewing the solution does on lichess). Only for an identity
    (403 without one: looking solutions up anonymously, then solving them rated,
    rated nothing honest) and at most :data:`SOLUTIONS_PER_ADDRESS` an hour per
    client address, for the whole site (429 beyond)."""
    game = puzzle_game(game_name)
    puzzle = shipped(game, puzzle_id)
    player = await known_player(request)
    if player is None:
        raise HTTPException(403, N_("solutions are shown to players of this site: open "
                                    "the puzzle's page first"))
    wait = await SOLUTIONS.hit(service, client_address(request.scope))
    if wait is not None:
        raise HTTPException(429, Phrase("too many solutions looked up; try again in "
                                        "{minutes} min", minutes=int(wait) // 60 + 1),
                            headers={"Retry-After": str(int(wait) + 1)})
    return {"solution": list(puzzle.lesson.solution),
            "result": await result(service, game, puzzle, player, False)}


