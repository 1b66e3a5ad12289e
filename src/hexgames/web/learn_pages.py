"""The learn pages: every game's lessons and puzzles, played on the site, checked by the engine.

Stateless: a try is the list of actions the player made since the lesson's position, sent
whole with every click (a lesson needs a handful), so nothing is stored. Game-agnostic:
lessons and puzzles come from :mod:`hexgames.tutorial` (each game's ``Game.lessons`` and its
shipped ``puzzles.json``); the board and its click gestures from the game's renderer and
``gesture`` like on the play page.

Routes (added to the app by :func:`add_learn_routes`):

* ``GET /learn/<game>``: the page (``static/learn.html``);
* ``GET /api/learn/<game>``: the lessons and puzzles, titles and tasks;
* ``GET /api/learn/<game>/<id>``: one lesson or puzzle with its start board;
* ``POST /api/learn/<game>/<id>/try`` ``{"actions": [...]}``: the verdict on a try.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from hexgames.game import Game, GameState, game_names, get_game
from hexgames.tutorial import MAX_TRY, Lesson, Verdict, attempt, find_lesson, lessons, puzzles

STATIC = Path(__file__).parent / "static"


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
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    return get_game(name)


def legal_entries(game: Game, position: GameState) -> list[dict[str, Any]]:
    """Every legal action with the clicks that enter it (as the play page gets them)."""
    entries: list[dict[str, Any]] = []
    if position.is_over:
        return entries
    for action in position.legal_actions():
        gesture = game.gesture(position, action)
        entry: dict[str, Any] = {
            "action": str(action),
            "tool": gesture.tool,
            "points": list(gesture.points),
            "paths": [list(path) for path in gesture.paths],
            "label": gesture.label,
        }
        if gesture.explanation:
            entry["explanation"] = gesture.explanation
        entries.append(entry)
    return entries


def board_view(game: Game, lesson: Lesson, position: GameState, played: int) -> dict[str, Any]:
    """The board after a try's accepted actions: SVG (the lesson's points highlighted at
    the start, the try's actions shown as the last move), who acts, the legal clicks."""
    last = list(position.history)[-played:] if played else None
    highlights = lesson.marks if not played else ()
    svg = game.render_svg(position, highlights=highlights, last_action=last)
    view: dict[str, Any] = {
        "svg": str(svg),
        "to_move": position.to_move,
        "legal": legal_entries(game, position),
    }
    if game.live_score is not None:  # games that keep a score (Dendria)
        view["score"] = {str(k): float(v) for k, v in game.live_score(position).items()}
    return view


def summary(lesson: Lesson) -> dict[str, Any]:
    return {"id": lesson.id, "title": lesson.title, "task": lesson.task}


def detail(game: Game, lesson: Lesson, kind: str) -> dict[str, Any]:
    position = lesson.start(game)
    return {
        "game": game.name,
        "kind": kind,
        **summary(lesson),
        "rule": lesson.rule,
        "hint": lesson.hint,
        "moves": lesson.moves,
        **board_view(game, lesson, position, 0),
    }


def verdict_view(game: Game, lesson: Lesson, verdict: Verdict,
                 actions: list[str]) -> dict[str, Any]:
    return {
        "status": verdict.status,
        "message": verdict.message,
        "played": verdict.played,
        "parsed": verdict.parsed,
        "actions": actions[: verdict.played],
        **board_view(game, lesson, verdict.position, verdict.played),
    }


def add_learn_routes(app: FastAPI) -> None:
    """The learn page and its API (one call from :func:`hexgames.web.app.create_app`)."""

    @app.get("/learn/{game_name}", include_in_schema=False, response_model=None)
    async def learn_page(game_name: str) -> FileResponse | HTMLResponse:
        if game_name not in game_names():
            from hexgames.web.rules_pages import not_found_page

            return HTMLResponse(not_found_page(f"/learn/{game_name}"), status_code=404)
        return FileResponse(STATIC / "learn.html")

    @app.get("/api/learn/{game_name}")
    async def catalogue(game_name: str) -> dict[str, Any]:
        """A game's lessons and puzzles (titles and tasks)."""
        game = _game(game_name)
        return {
            "game": game.name,
            "title": game.title,
            "lessons": [summary(lesson) for lesson in lessons(game)],
            "puzzles": [summary(puzzle) for puzzle in puzzles(game)],
        }

    @app.get("/api/learn/{game_name}/{lesson_id}")
    async def lesson_detail(game_name: str, lesson_id: str) -> dict[str, Any]:
        """One lesson or puzzle: its rule, task, hint and start board."""
        game = _game(game_name)
        lesson = find_lesson(game, lesson_id)
        kind = "puzzle" if lesson_id.startswith("puzzle-") else "lesson"
        return await asyncio.to_thread(detail, game, lesson, kind)

    @app.post("/api/learn/{game_name}/{lesson_id}/try")
    async def try_lesson(game_name: str, lesson_id: str, body: TryIn) -> dict[str, Any]:
        """The engine's verdict on a try: ``solved``, ``wrong`` (with the lesson's
        explanation), ``illegal`` (with the engine's reason) or ``continue``."""
        game = _game(game_name)
        lesson = find_lesson(game, lesson_id)
        return await asyncio.to_thread(judge, game, lesson, body)


def judge(game: Game, lesson: Lesson, body: TryIn) -> dict[str, Any]:
    """The verdict on a try as the API answers it (blocking: the engine replays it).
    Also the puzzle page's judge (:mod:`hexgames.web.puzzle_pages`)."""
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
    return verdict_view(game, lesson, verdict, actions)
