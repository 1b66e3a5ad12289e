"""The analysis board, the hint button and the board editor: their API and pages.

Everything here is game-agnostic: positions are rebuilt from a game name, rules options,
an optional start text and actions in notation; searches run in the AI workers
(:meth:`hexgames.web.engine.workers.AiWorkers.run`) through :mod:`hexgames.ai.review`; the
editor's palette and text come from the game's ``Game.editor`` (:mod:`hexgames.editing`).

Bounds (see docs/web.md, "Analysis board"): an evaluation asks for one ``depth`` of
:data:`BUDGETS` (a client streams deeper results by asking for the next depth), each
search is capped at :data:`SEARCH_SECONDS`; a graph request evaluates at most
:data:`GRAPH_CHUNK` positions; a client (by address) has at most
:data:`MAX_PER_CLIENT` analysis requests in flight (429 beyond); lines are at most
:data:`MAX_LINE` actions. A request whose client goes away is cancelled
(:func:`unless_abandoned`), so work nobody will read does not wait for the engine.

No engine help at a position being played (:mod:`~hexgames.web.play.live_positions`): an
evaluation, a graph slice or a hint at a position now on the board of an online game in
progress (or a few actions after it) is refused (403); openings and finished games stay
open.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from contextlib import suppress
from typing import Any, TypeVar

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from hexgames.ai.review import MISTAKE_DROP, analyse_line, line_values
from hexgames.editing import EditorSpec
from hexgames.errors import IllegalAction
from hexgames.game import Game, GameState, game_names, get_game, reason_of
from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.web.game.matches import (
    ENGLISH,
    MAX_ACTION_LENGTH,
    joined,
    legal_entry,
    rebuild,
    render,
)
from hexgames.web.game.options import parse_options
from hexgames.web.http.client_limits import MAX_ANALYSES_PER_ADDRESS
from hexgames.web.http.language import page, request_translator
from hexgames.web.http.state import Service, Site
from hexgames.web.storage import Mode

#: Iterations of the successive searches of one position (depth 0, 1, ...).
BUDGETS = (100, 400, 1500, 4000)
#: Longest search of one position (seconds), whatever its budget.
SEARCH_SECONDS = 8.0
#: Iterations per position of the evaluation graph.
GRAPH_ITERATIONS = 60
#: Positions per evaluation-graph request (the client asks for the game in slices).
GRAPH_CHUNK = 40
#: Analysis requests one client may have in flight at once (``AppState.client_limits``).
MAX_PER_CLIENT = MAX_ANALYSES_PER_ADDRESS
#: Longest line analysed (actions).
MAX_LINE = 5000
#: Strength of the hint (an AI level).
HINT_LEVEL = 3
#: Largest position text the editor reads.
MAX_TEXT = 20_000
#: How often (seconds) a request waiting for the engine checks that its client is still
#: there.
DISCONNECT_POLL = 0.25

router = APIRouter()

T = TypeVar("T")


class Strict(BaseModel):
    model_config = ConfigDict(strict=True)


class LineIn(Strict):
    game: StrictStr
    options: dict[StrictStr, Any] = Field(default_factory=dict)
    start: StrictStr | None = None
    actions: list[StrictStr] = Field(default_factory=list)
    flip: StrictBool = False


class EvaluateIn(LineIn):
    depth: StrictInt = 0


class GraphIn(LineIn):
    first: StrictInt = 0
    count: StrictInt = GRAPH_CHUNK


class HintIn(Strict):
    token: StrictStr | None = None


class EditorSpecIn(Strict):
    game: StrictStr
    options: dict[StrictStr, Any] = Field(default_factory=dict)


class EditorBoardIn(EditorSpecIn):
    cells: dict[StrictStr, Any] = Field(default_factory=dict)
    settings: dict[StrictStr, Any] = Field(default_factory=dict)
    flip: StrictBool = False


class EditorReadIn(Strict):
    text: StrictStr
    game: StrictStr | None = None
    flip: StrictBool = False


async def unless_abandoned(request: Request, work: Awaitable[T]) -> T:
    """Await ``work`` (a search in the AI workers) while its client is connected.

    A reader who moves on (another position, another page, a closed tab) abandons the
    request in flight. Without this the search would still queue for the engine and count
    against the client's share (:class:`ClientLimit`), so the next page of the same
    reader, or another reader, would wait behind work nobody reads. When the client
    disconnects, the work is cancelled: a search still waiting for a worker leaves the
    queue at once; one already running ends within :data:`SEARCH_SECONDS`, as before.
    """
    task = asyncio.ensure_future(work)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=DISCONNECT_POLL)
            if done:
                return task.result()
            if await request.is_disconnected():
                raise HTTPException(499, N_("the client closed the request"))
    finally:
        if not task.done():
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task


# ------------------------------------------------------------------ positions
def checked_line(body: LineIn) -> tuple[Game, dict[str, Any]]:
    game = get_game(body.game)
    options = parse_options(game, body.options)
    if len(body.actions) > MAX_LINE:
        raise ValueError(Phrase("a line is at most {limit} actions, not {count}",
                                limit=MAX_LINE, count=len(body.actions)))
    if body.start is not None and len(body.start) > MAX_TEXT:
        raise ValueError(Phrase("a start text is at most {limit} characters", limit=MAX_TEXT))
    for text in body.actions:
        if len(text) > MAX_ACTION_LENGTH:
            raise IllegalAction("an action is at most {limit} characters long",
                                limit=MAX_ACTION_LENGTH)
    return game, options


def legal_entries(game: Game, position: GameState,
                  words: Translator = ENGLISH) -> list[dict[str, Any]]:
    """Every legal action with the clicks that enter it (as the play page receives,
    without the explanation)."""
    if position.is_over:
        return []
    entries = []
    for action in position.legal_actions():
        entry = legal_entry(str(action), game.gesture(position, action), words)
        entry.pop("explanation", None)
        entries.append(entry)
    return entries


def describe_position(game: Game, position: GameState, flip: bool = False,
                      words: Translator = ENGLISH) -> dict[str, Any]:
    """What the analysis board and the editor show of a position (``result_text``:
    ``result`` in ``words``' language)."""
    outcome = position.outcome()
    return {
        "svg": render(game, position, flip=flip),
        "text": position.to_text(),
        "to_move": position.to_move,
        "current_seat": position.current_seat,
        "turn_start": position.is_turn_start(),
        "is_over": position.is_over,
        "result": outcome.describe() if outcome is not None else None,
        "result_text": words.text(outcome.phrase()) if outcome is not None else None,
        "actions_left": game.actions_left(position) if game.actions_left else None,
        "legal": legal_entries(game, position, words),
    }


def line_view(body: LineIn, words: Translator = ENGLISH) -> dict[str, Any]:
    game, options = checked_line(body)
    position, plies = rebuild(game, options, list(body.actions), body.start)
    return {
        "game": game.name,
        "title": game.title,
        "colors": list(game.colors),
        "options": options,
        "ply": len(plies),
        "history": [{"notation": p.notation, "seat": p.seat, "color": p.color,
                     "turn_start": p.turn_start} for p in plies],
        **describe_position(game, position, body.flip, words),
    }


# --------------------------------------------------------------------- editor
def editor_of(game: Game, options: dict[str, Any]) -> tuple[EditorSpec, Any]:
    if game.editor is None:
        raise ValueError(Phrase("{game} has no board editor", game=game.title))
    rules = game.make_rules(**options)
    return game.editor(rules), rules


def labels_of(game: Game, rules: Any) -> set[str]:
    if game.board is None:  # pragma: no cover - both games have hex boards
        raise ValueError(Phrase("{game} declares no board", game=game.title))
    return set(game.board(rules).labels)


def editor_board(game: Game, options: dict[str, Any], cells: Any, settings: Any,
                 flip: bool = False, words: Translator = ENGLISH) -> dict[str, Any]:
    """An edited board checked by the spec, written as text and read by the engine:
    ``valid`` with the drawing, or the engine's message in ``error`` (English) and
    ``message`` (``words``' language)."""
    spec, rules = editor_of(game, options)
    cells, settings = spec.check_board(cells, settings, labels_of(game, rules))
    answer: dict[str, Any] = {"game": game.name, "options": options, "cells": cells,
                              "settings": settings, "text": None, "valid": False,
                              "error": None, "message": None}
    try:
        text = spec.write(cells, settings, rules)
        answer["text"] = text
        position = game.position_from_text(text, rules)
    except ValueError as error:  # IllegalAction included: the engine's own words
        answer["error"] = str(error)[:300]
        answer["message"] = words.text(reason_of(error))[:300]
        return answer
    answer.update(valid=True, **describe_position(game, position, flip, words))
    answer.pop("legal")
    return answer


def read_text(text: str, game_name: str | None, flip: bool,
              words: Translator = ENGLISH) -> dict[str, Any]:
    """A pasted position text (of ``game_name``, else of whichever game reads it)."""
    if len(text) > MAX_TEXT:
        raise ValueError(Phrase("a position text is at most {limit} characters",
                                limit=MAX_TEXT))
    errors: list[Phrase | str] = []
    for name in [game_name] if game_name else game_names():
        game = get_game(name)
        try:
            position = game.position_from_text(text, None)
        except ValueError as error:
            errors.append(Phrase("{game}: {reason}", game=game.title,
                                 reason=reason_of(error)))
            continue
        options = dict(game.rules_options(position.rules))
        spec, rules = editor_of(game, options)
        cells, settings = spec.read(position.to_text(), rules)
        return editor_board(game, options, cells, settings, flip, words)
    raise ValueError(Phrase("not a position text this site can read: {reasons}",
                            reasons=joined(errors)))


def editor_start(game: Game, options: dict[str, Any],
                 words: Translator = ENGLISH) -> dict[str, Any]:
    spec, rules = editor_of(game, options)
    position = game.new_position(rules)
    cells, settings = spec.read(position.to_text(), rules)
    return {"title": game.title, "colors": list(game.colors),
            "spec": spec.describe(words.text),
            **editor_board(game, options, cells, settings, words=words)}


# --------------------------------------------------------------------- routes
@router.post("/api/analysis/position")
async def analysis_position(body: LineIn, request: Request, service: Service) -> dict[str, Any]:
    """The board, move list and legal actions after a line of actions."""
    return await service.call_thread(line_view, body, request_translator(request))


@router.post("/api/analysis/evaluate")
async def analysis_evaluate(body: EvaluateIn, request: Request, service: Service,
                            site: Site) -> dict[str, Any]:
    """One search of the position after the line, of budget ``BUDGETS[depth]``; the
    client asks for depth 0, 1, ... in turn to see deeper results as they come."""
    if not 0 <= body.depth < len(BUDGETS):
        raise ValueError(Phrase("depth must be 0..{last}, got {depth}",
                                last=len(BUDGETS) - 1, depth=body.depth))
    game, options = checked_line(body)
    await service.live_positions.refuse(game, options, body.start, list(body.actions))
    with site.client_limits.analyses.hold(request):
        found = await unless_abandoned(request, service.workers.run(
            analyse_line, game.name, options, body.start, list(body.actions),
            BUDGETS[body.depth], SEARCH_SECONDS,
        ))
    last = body.depth + 1 >= len(BUDGETS) or found["proven"]
    return {**found, "depth": body.depth, "depths": len(BUDGETS),
            "next_depth": None if last else body.depth + 1}


@router.post("/api/analysis/graph")
async def analysis_graph(body: GraphIn, request: Request, service: Service,
                         site: Site) -> dict[str, Any]:
    """Seat 0's win probability after ``first`` .. ``first + count - 1`` actions
    (a slice of the evaluation graph; at most ``GRAPH_CHUNK`` positions)."""
    if not 1 <= body.count <= GRAPH_CHUNK:
        raise ValueError(Phrase("count must be 1..{last}, got {count}",
                                last=GRAPH_CHUNK, count=body.count))
    if not 0 <= body.first <= len(body.actions):
        raise ValueError(Phrase("first must be 0..{last}, got {first}",
                                last=len(body.actions), first=body.first))
    game, options = checked_line(body)
    last = min(len(body.actions), body.first + body.count - 1)
    await service.live_positions.refuse(game, options, body.start, list(body.actions[:last]),
                                        body.first)
    with site.client_limits.analyses.hold(request):
        values = await unless_abandoned(request, service.workers.run(
            line_values, game.name, options, body.start, list(body.actions),
            body.first, body.count, GRAPH_ITERATIONS,
        ))
    return {"first": body.first, "values": values, "total": len(body.actions) + 1,
            "iterations": GRAPH_ITERATIONS, "mistake_drop": MISTAKE_DROP,
            "seat0": game.colors[0]}


@router.get("/api/analysis/source/{game_id}")
async def analysis_source(game_id: str, request: Request, service: Service) -> dict[str, Any]:
    """A stored game as a line to analyse: game, options, start text and actions.
    An online game opens to analysis once it is over (no engine help mid-game)."""
    match = await service.get(game_id)
    if match.stored.mode == Mode.ONLINE and not match.is_over:
        raise PermissionError(N_("an online game can be analysed once it is over"))
    words = request_translator(request)
    return {"id": match.id, "game": match.game.name, "options": match.stored.options,
            "start": match.stored.start or None,
            "actions": [ply.notation for ply in match.plies],
            # which actions open a turn: the page numbers the line by turn
            "turn_starts": [ply.turn_start for ply in match.plies],
            "players": match.players_view(words),
            "result": match.result_text() if match.is_over else None,
            "result_text": words.text(match.result_phrase()) if match.is_over else None}


@router.post("/api/games/{game_id}/hint")
async def hint(game_id: str, body: HintIn, request: Request, service: Service,
               site: Site) -> dict[str, Any]:
    """The engine's suggestion for the player to act (games against the computer and
    hot-seat games only: refused in online games)."""
    match = await service.get(game_id)
    seats = match.seats_of(body.token)
    if match.stored.mode == Mode.ONLINE:
        raise PermissionError(N_("hints are off in online games"))
    if not seats:
        raise PermissionError(N_("only a player of this game may ask for a hint"))
    if match.is_over:
        raise IllegalAction("the game is over: {result}", result=match.result_phrase())
    if match.position.current_seat not in seats or match.ai_to_move():
        raise IllegalAction("it is not your turn")
    await service.live_positions.refuse_match(match)  # e.g. an imported copy of a live game
    revision = match.revision
    actions = [ply.notation for ply in match.plies]
    with site.client_limits.hints.hold(request):  # a few searches per address at once
        choice = await service.workers.choose(
            match.stored.game, match.stored.options, actions, HINT_LEVEL,
            start=match.stored.start or None,
        )
    if match.revision != revision:
        raise IllegalAction("the position changed while the engine was thinking")
    action = match.position.parse_action(choice)
    gesture = match.game.gesture(match.position, action)
    entry = legal_entry(str(action), gesture, request_translator(request))
    return {"action": entry["action"], "label": entry["label"],
            **({"label_text": entry["label_text"]} if "label_text" in entry else {}),
            "points": entry["points"], "ply": len(match.plies)}


@router.post("/api/editor/spec")
async def editor_spec(body: EditorSpecIn, request: Request, service: Service) -> dict[str, Any]:
    """The game's palette and settings, and its start position as an edited board."""
    game = get_game(body.game)
    return await service.call_thread(editor_start, game, parse_options(game, body.options),
                                     request_translator(request))


@router.post("/api/editor/board")
async def editor_check(body: EditorBoardIn, request: Request,
                       service: Service) -> dict[str, Any]:
    """An edited board: its text, and the engine's verdict (drawing or message)."""
    game = get_game(body.game)
    options = parse_options(game, body.options)
    return await service.call_thread(editor_board, game, options, body.cells,
                                     body.settings, body.flip, request_translator(request))


@router.post("/api/editor/read")
async def editor_read(body: EditorReadIn, request: Request, service: Service) -> dict[str, Any]:
    """A pasted position text as an edited board (400 with the reader's message)."""
    return await service.call_thread(read_text, body.text, body.game, body.flip,
                                     request_translator(request))


@router.get("/analysis", include_in_schema=False)
async def analysis_page(request: Request) -> HTMLResponse:
    return page(request, "analysis.html")


@router.get("/analysis/{game_id}", include_in_schema=False)
async def analysis_game_page(game_id: str, request: Request) -> HTMLResponse:
    return page(request, "analysis.html")


@router.get("/editor", include_in_schema=False)
async def editor_page(request: Request) -> HTMLResponse:
    return page(request, "editor.html")


