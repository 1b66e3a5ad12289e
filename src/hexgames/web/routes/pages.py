"""The site's main pages: home, a game, the lobby and a replay (each a template filled
in by its script). A first visit to home, a game or the lobby creates the visitor's
identity (and its cookie)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from hexgames.web.http.identity import PagePlayer
from hexgames.web.http.language import page

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


@router.get("/")
async def home(request: Request, player: PagePlayer) -> HTMLResponse:
    return page(request, "index.html")


@router.get("/play/{game_id}")
async def play_page(game_id: str, request: Request, player: PagePlayer) -> HTMLResponse:
    return page(request, "play.html")


@router.get("/lobby")
async def lobby_page(request: Request, player: PagePlayer) -> HTMLResponse:
    return page(request, "lobby.html")


@router.get("/replay/{game_id}")
async def replay_page(game_id: str, request: Request) -> HTMLResponse:
    return page(request, "replay.html")
