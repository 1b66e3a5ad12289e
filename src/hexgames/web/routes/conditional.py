"""The HTTP side of conditional moves (:mod:`hexgames.web.play.conditional_moves`).

``GET/POST /api/games/{id}/conditional``, ``POST .../conditional/preview`` and
``DELETE .../conditional/{line_id}``: the seat's lines, a line being entered, a line
stored, a line removed. Every call needs the seat's token; lines are never shown to
anyone else (spectators and the opponent get 403).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from hexgames.web.http.language import request_translator, said
from hexgames.web.http.state import Service
from hexgames.web.play.conditional_lines import MAX_LINE_ACTIONS
from hexgames.web.play.conditional_moves import LineNotFound

router = APIRouter()


class LineIn(BaseModel):
    """A line in the game's notation, action by action: the opponent's expected turn,
    your reply, and so on (the server splits it into turns)."""

    model_config = ConfigDict(strict=True)
    token: StrictStr | None = None
    line: list[StrictStr] = Field(max_length=MAX_LINE_ACTIONS)
    #: Draw the board turned half a turn (the second player's view).
    flip: StrictBool = False


@router.get("/api/games/{game_id}/conditional")
async def conditional_lines(game_id: str, request: Request, service: Service,
                            token: str | None = None) -> dict[str, Any]:
    """The token's lines (what is left of each) and whether it may add one now."""
    return await service.conditional.lines(game_id, token, request_translator(request))


@router.post("/api/games/{game_id}/conditional", status_code=201)
async def store_line(game_id: str, body: LineIn, service: Service) -> dict[str, Any]:
    """Check a line from the position as it stands and store it."""
    return await service.conditional.store(game_id, body.token, list(body.line))


@router.post("/api/games/{game_id}/conditional/preview")
async def preview_line(game_id: str, body: LineIn, request: Request,
                       service: Service) -> dict[str, Any]:
    """The board and legal actions after a line being entered (nothing stored)."""
    return await service.conditional.preview(game_id, body.token, list(body.line), body.flip,
                               request_translator(request))


@router.delete("/api/games/{game_id}/conditional/{line_id}")
async def remove_line(game_id: str, line_id: str, request: Request, service: Service,
                      token: str | None = None) -> dict[str, Any]:
    """Remove one of the token's lines; answers the lines left."""
    try:
        return await service.conditional.remove(game_id, token, line_id,
                                                request_translator(request))
    except LineNotFound as error:
        raise HTTPException(404, said(error)) from None


