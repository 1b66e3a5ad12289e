"""TV: the featured game of each game (docs/web.md, "TV").

- ``GET /api/tv/{game}``: the highest-rated online game of ``game`` being played
  (:mod:`hexgames.web.lobby.tv`): ``{"game_id", "players": [{"name", "rating", ...}],
  ...}``, or ``{"game_id": null}`` when none is.
- ``GET /tv/{game}``: the page that shows it as a spectator and switches to the next
  when it ends; ``GET /tv``: the first game's.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from hexgames.game import game_names, get_game
from hexgames.phrases import Phrase
from hexgames.web.http.errors import error_response
from hexgames.web.http.identity import PagePlayer
from hexgames.web.http.language import page
from hexgames.web.http.not_found import not_found_response
from hexgames.web.http.state import Site
from hexgames.web.lobby.tv import Television

__all__ = ["router"]

router = APIRouter()


def _television(site: Site) -> Television:
    if site.television is None:  # pragma: no cover - an app not built by create_app
        raise RuntimeError("the app has no television")
    return site.television


@router.get("/api/tv/{game_name}")
async def tv_api(game_name: str, request: Request, site: Site) -> Any:
    """The featured game of ``game_name`` (404 for a game the site does not have)."""
    if game_name not in game_names():
        return error_response(404, Phrase("there is no game {name}; games: {games}",
                                          name=repr(game_name[:40]),
                                          games=", ".join(game_names())), request)
    return await _television(site).featured(game_name)


@router.get("/tv", include_in_schema=False)
async def first_tv() -> Response:
    names = game_names()
    return RedirectResponse(f"/tv/{names[0]}" if names else "/", status_code=307)


@router.get("/tv/{game_name}", include_in_schema=False, response_model=None)
async def tv_page(game_name: str, request: Request, player: PagePlayer) -> Response:
    if game_name not in game_names():
        return not_found_response(request)
    channels = [(name, get_game(name).title) for name in game_names()]
    return page(request, "tv.html", game_name=game_name, title=get_game(game_name).title,
                channels=channels)
