"""The lobby's challenges over HTTP: list them, post one (a direct challenge names its
only acceptor), read, accept or cancel one (``/ws/lobby`` pushes the same lobby)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from hexgames.phrases import Phrase
from hexgames.web.http.addresses import client_address
from hexgames.web.http.errors import error_response
from hexgames.web.http.identity import current_player
from hexgames.web.http.language import request_translator
from hexgames.web.http.state import Service, Site
from hexgames.web.routes.games import TokenIn, links
from hexgames.web.service import public_seek

__all__ = ["SEEKS_PER_ADDRESS", "SEEK_WINDOW", "router"]

router = APIRouter()

#: Challenges one client address may post per window of seconds (see ``new_seek``).
SEEKS_PER_ADDRESS = 20
SEEK_WINDOW = 600.0


class SeekIn(BaseModel):
    model_config = ConfigDict(strict=True)
    game: StrictStr
    options: dict[StrictStr, Any] = Field(default_factory=dict)
    control: dict[StrictStr, Any] | None = None
    color: StrictStr = "random"
    rated: bool = False
    #: A direct challenge: the name of the only player who may accept it.
    target: StrictStr | None = None


async def player_entry(request: Request) -> dict[str, Any]:
    """The visitor's identity (created with its cookie if new) as ``{"player_id",
    "name"}``: who posts or accepts a challenge."""
    player = await current_player(request)
    return {"player_id": player.id, "name": player.name}


@router.get("/api/seeks")
async def seeks(request: Request, service: Service) -> dict[str, Any]:
    """The open challenges and the games being played (what ``/ws/lobby`` sends)."""
    return await service.lobby_state(request_translator(request))


@router.post("/api/seeks", status_code=201)
async def new_seek(body: SeekIn, request: Request, service: Service, site: Site) -> Any:
    """Post a challenge; ``token`` is the seat credential of the game to come. At most
    ``SEEKS_PER_ADDRESS`` per address per ``SEEK_WINDOW`` seconds (429 past that):
    new identities are free, the address is what a flood has to spend."""
    address = request.client.host if request.client else "?"
    wait = await site.seek_posts.hit(service, address)
    if wait is not None:
        seconds = int(wait) + 1
        return error_response(429, Phrase("too many challenges posted; try again in "
                                          "{seconds} s", seconds=seconds),
                              request, {"Retry-After": str(seconds)})
    if body.rated:
        await site.rated_play.check(await current_player(request))
    creator = await player_entry(request)
    seek, token = await service.create_seek(
        body.game, body.options, body.control, body.color, body.rated, creator,
        body.target, address=client_address(request.scope),
    )
    return {"id": seek.id, "token": token,
            "seek": public_seek(seek, request_translator(request))}


@router.get("/api/seeks/{seek_id}")
async def seek_status(seek_id: str, request: Request, service: Service) -> dict[str, Any]:
    return await service.seek_status(seek_id, request_translator(request))


@router.post("/api/seeks/{seek_id}/accept", status_code=201)
async def accept_seek(seek_id: str, request: Request, service: Service,
                      site: Site) -> dict[str, Any]:
    if (await service.seek_status(seek_id))["rated"]:
        await site.rated_play.check(await current_player(request))
    acceptor = await player_entry(request)
    match, token = await service.accept_seek(seek_id, acceptor)
    return {"id": match.id, "token": token, "links": links(match, [None, None])}


@router.post("/api/seeks/{seek_id}/cancel")
async def cancel_seek(seek_id: str, body: TokenIn, service: Service) -> dict[str, Any]:
    await service.cancel_seek(seek_id, body.token)
    return {"id": seek_id, "status": "cancelled"}

