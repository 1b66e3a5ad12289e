"""The learn pages: every game's lessons and puzzles, played on the site, checked by the engine.

Stateless: a try is the list of actions the player made since the lesson's position, sent
whole with every click (a lesson needs a handful), so nothing is stored. Game-agnostic:
lessons and puzzles come from :mod:`hexgames.tutorial` (each game's ``Game.lessons`` and its
shipped ``puzzles.json``); the board and its click gestures from the game's renderer and
``gesture`` like on the play page.

Routes (on :data:`router`):

* ``GET /learn/<game>``: the page (``static/learn.html``);
* ``GET /api/learn/<game>``: the lessons and puzzles, titles and tasks;
* ``GET /api/learn/<game>/<id>``: one lesson or puzzle with its start board;
* ``POST /api/learn/<game>/<id>/try`` ``{"actions": [...]}``: the verdict on a try.

Every text a player reads (titles, rules, tasks, hints, verdicts, action labels) comes in
the visitor's language (:func:`hexgames.web.http.language.request_translator`; the lessons
give :class:`~hexgames.phrases.Phrase` objects or marked English).
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from hexgames.game import Game, GameState, game_names, get_game
from hexgames.i18n import Translator
from hexgames.phrases import Phrase
from hexgames.tutorial import MAX_TRY, Lesson, Verdict, attempt, find_lesson, lessons, puzzles
from hexgames.web.game.matches import ENGLISH, legal_entry
from hexgames.web.http.language import page, request_translator
from hexgames.web.http.not_found import not_found_response

router = APIRouter()


class ClicksIn(BaseModel):
    model_config = ConfigDict(strict=True)
    tool: StrictStr | None = None
    points: list[StrictStr] = Field(default_factory=list, max_length=4)


class TryIn(BaseModel):
    model_config = ConfigDict(strict=True)
    actions: list[StrictStr] = Field(default_factory=list, max_length=MAX_TRY)
    #: Clicks that matched no legal action (after ``actions``): the server reads them as
    #: the action they would enter (``Game.action_for_clicks``) and lets the engine say
    #: why it is refused.
    clicks: ClicksIn | None = None


def _game(name: str) -> Game:
    if name not in game_names():
        raise ValueError(Phrase("unknown game {name}; known games: {games}",
                                name=repr(name), games=", ".join(game_names())))
    return get_game(name)


def legal_entries(game: Game, position: GameState,
                  words: Translator = ENGLISH) -> list[dict[str, Any]]:
    """Every legal action with the clicks that enter it (as the play page gets them,
    ``label_text`` and ``explanation`` in ``words``' language)."""
    if position.is_over:
        return []
    return [legal_entry(str(action), game.gesture(position, action), words)
            for action in position.legal_actions()]


def board_view(game: Game, lesson: Lesson, position: GameState, played: int,
               words: Translator = ENGLISH) -> dict[str, Any]:
    """The board after a try's accepted actions: SVG (the lesson's points highlighted at
    the start, the try's actions shown as the last move), who acts, the legal clicks."""
    last = list(position.history)[-played:] if played else None
    highlights = lesson.marks if not played else ()
    svg = game.render_svg(position, highlights=highlights, last_action=last)
    view: dict[str, Any] = {
        "svg": str(svg),
        "to_move": position.to_move,
        "legal": legal_entries(game, position, words),
    }
    if game.live_score is not None:  # games that keep a score (Dendria)
        view["score"] = {str(k): float(v) for k, v in game.live_score(position).items()}
    return view


def summary(lesson: Lesson, words: Translator = ENGLISH) -> dict[str, Any]:
    return {"id": lesson.id, "title": words.text(lesson.title), "task": words.text(lesson.task)}


def detail(game: Game, lesson: Lesson, kind: str,
           words: Translator = ENGLISH) -> dict[str, Any]:
    position = lesson.start(game)
    return {
        "game": game.name,
        "kind": kind,
        **summary(lesson, words),
        "rule": words.text(lesson.rule),
        "hint": words.text(lesson.hint),
        "moves": lesson.moves,
        **board_view(game, lesson, position, 0, words),
    }


def verdict_view(game: Game, lesson: Lesson, verdict: Verdict,
                 actions: list[str], words: Translator = ENGLISH) -> dict[str, Any]:
    return {
        "status": verdict.status,
        "message": words.text(verdict.message),
        "played": verdict.played,
        "parsed": verdict.parsed,
        "actions": actions[: verdict.played],
        **board_view(game, lesson, verdict.position, verdict.played, words),
    }


@router.get("/learn/{game_name}", include_in_schema=False, response_model=None)
async def learn_page(game_name: str, request: Request) -> HTMLResponse:
    if game_name not in game_names():
        return not_found_response(request, f"/learn/{game_name}")
    return page(request, "learn.html")


@router.get("/api/learn/{game_name}")
async def catalogue(game_name: str, request: Request) -> dict[str, Any]:
    """A game's lessons and puzzles (titles and tasks)."""
    game = _game(game_name)
    words = request_translator(request)
    return {
        "game": game.name,
        "title": game.title,
        "lessons": [summary(lesson, words) for lesson in lessons(game)],
        "puzzles": [summary(puzzle, words) for puzzle in puzzles(game)],
    }


@router.get("/api/learn/{game_name}/{lesson_id}")
async def lesson_detail(game_name: str, lesson_id: str,
                        request: Request) -> dict[str, Any]:
    """One lesson or puzzle: its rule, task, hint and start board."""
    game = _game(game_name)
    lesson = find_lesson(game, lesson_id)
    kind = "puzzle" if lesson_id.startswith("puzzle-") else "lesson"
    return await asyncio.to_thread(detail, game, lesson, kind, request_translator(request))


@router.post("/api/learn/{game_name}/{lesson_id}/try")
async def try_lesson(game_name: str, lesson_id: str, body: TryIn,
                     request: Request) -> dict[str, Any]:
    """The engine's verdict on a try: ``solved``, ``wrong`` (with the lesson's
    explanation), ``illegal`` (with the engine's reason) or ``continue``."""
    game = _game(game_name)
    lesson = find_lesson(game, lesson_id)
    return await asyncio.to_thread(judge, game, lesson, body, request_translator(request))


def judge(game: Game, lesson: Lesson, body: TryIn,
          words: Translator = ENGLISH) -> dict[str, Any]:
    """The verdict on a try as the API answers it (blocking: the engine replays it).
    Also the puzzle page's judge (:mod:`hexgames.web.routes.puzzles`)."""
    actions = list(body.actions)
    verdict = attempt(game, lesson, actions)
    if body.clicks is not None and verdict.status == "continue":
        reading = game.action_for_clicks
        text = (reading(verdict.position, body.clicks.tool, body.clicks.points)
                if reading is not None else None)
        if text is None:  # the clicks mean no action: nothing for the engine
            verdict.status, verdict.parsed = "illegal", False
        else:
            actions.append(text)
            verdict = attempt(game, lesson, actions)
    return verdict_view(game, lesson, verdict, actions, words)
