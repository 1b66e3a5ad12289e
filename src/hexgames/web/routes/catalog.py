"""What the site offers: the games, their options and the AI levels
(``GET /api/catalog``), whether the rules engines are ready (``GET /api/engine-status``)
and the API's schema under its second address (``/openapi.json``)."""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from hexgames.ai import LEVELS
from hexgames.game import game_names, get_game
from hexgames.web.engine.prep import engine_status, engines_ready
from hexgames.web.game.options import describe_options
from hexgames.web.http.language import request_translator
from hexgames.web.http.state import Site

__all__ = ["preview", "router"]

router = APIRouter()


@cache
def preview(game_name: str) -> str:
    """The start position of a game's default variant, drawn once for the home page."""
    game = get_game(game_name)
    return str(game.render_svg(game.new()))


@router.get("/api/catalog")
async def catalog(request: Request, site: Site) -> dict[str, Any]:
    """The games, their colours and options: everything the home page's form needs
    (its words in the visitor's language: ``blurb``, the options' ``label`` and
    ``help``, the levels' ``description_text``)."""
    words = request_translator(request)
    ready = engines_ready(site.engines)
    return {
        "games": [
            {
                "name": game.name,
                "title": game.title,
                "colors": list(game.colors),
                "options": describe_options(game, words),
                "blurb": words.text(game.tagline),
                # drawn by the engine: empty until it is ready
                "preview_svg": preview(game.name) if ready else "",
            }
            for game in map(get_game, game_names())
        ],
        "levels": [
            {"level": level, "description": spec.description,
             "description_text": words.text(spec.description)}
            for level, spec in sorted(LEVELS.items())
        ],
    }


@router.get("/api/engine-status")
async def engine_state(request: Request, site: Site) -> dict[str, Any]:
    """Whether the rules engines are ready; while they are prepared, the progress."""
    return engine_status(site.engines, request_translator(request))


@router.get("/openapi.json", include_in_schema=False)
async def openapi_alias(request: Request) -> JSONResponse:
    return JSONResponse(request.app.openapi())
