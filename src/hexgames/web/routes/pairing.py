"""HTTP routes of quick pairing and absence claims (issue 32; docs/web.md, "Lobby").

- ``GET /api/pools``: every pool with the players waiting in it, and this identity's
  latest entry (``entry``; a waiting entry counts the request as a sign of life: the
  lobby page asks every 2.5 s while it waits).
- ``POST /api/pools/join`` ``{"pool", "rated"?}``: join a pool (leaving any other);
  ``rated`` defaults to true for a named player, false for a guest (who may not play
  rated). Answers ``{entry, token}``: ``token`` is the seat credential of the game to
  come; the entry may be ``paired`` already, with its ``game``.
- ``POST /api/pools/leave``: leave the pool this identity waits in.
- ``POST /api/games/{id}/absence-claim`` ``{"token", "claim": "victory"|"draw"}``: the
  opponent has been gone long enough (:mod:`hexgames.web.play.absence`); the new state.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, StrictBool, StrictStr

from hexgames.phrases import Phrase
from hexgames.web.http.addresses import client_address
from hexgames.web.http.identity import current_player, known_player
from hexgames.web.http.language import request_translator
from hexgames.web.http.state import Service, Site
from hexgames.web.lobby.pools import entry_view
from hexgames.web.storage.site_limits import SiteLimiter

__all__ = ["POOL_JOINS_PER_ADDRESS", "POOL_JOIN_WINDOW", "router"]

#: Pool joins one client address may make per window of seconds (429 past them; a page
#: joins again after a lost connection, so a few per minute are ordinary).
POOL_JOINS_PER_ADDRESS = 30
POOL_JOIN_WINDOW = 600.0

router = APIRouter()


def pool_joins() -> SiteLimiter:
    """The pool joins' limit (per site, counted in storage; its bound read now)."""
    return SiteLimiter("pool-join", POOL_JOINS_PER_ADDRESS, POOL_JOIN_WINDOW)


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True)


class JoinIn(_Strict):
    pool: StrictStr
    #: ``None``: rated for a named player, casual for a guest.
    rated: StrictBool | None = None


class ClaimIn(_Strict):
    token: StrictStr | None = None
    claim: StrictStr


@router.get("/api/pools")
async def pools(request: Request, service: Service) -> dict[str, Any]:
    player = await known_player(request)
    return await service.pools_overview(player.id if player is not None else None,
                                        request_translator(request))


@router.post("/api/pools/join", status_code=201)
async def join_pool(body: JoinIn, request: Request, service: Service,
                    site: Site) -> dict[str, Any]:
    address = client_address(request.scope)
    wait = await pool_joins().hit(service, address)
    if wait is not None:
        raise HTTPException(429, Phrase("too many pool joins; try again in {seconds} s",
                                        seconds=int(wait) + 1),
                            headers={"Retry-After": str(int(wait) + 1)})
    player = await current_player(request)
    rated = (not player.guest) if body.rated is None else body.rated
    if rated:
        await site.rated_play.check(player)  # guests 403, too many rated games 429
    entry, token = await service.join_pool(
        body.pool, {"player_id": player.id, "name": player.name}, rated, address)
    return {"entry": entry_view(entry, service.now()), "token": token}


@router.post("/api/pools/leave")
async def leave_pool(request: Request, service: Service) -> dict[str, Any]:
    player = await known_player(request)
    left = player is not None and await service.leave_pool(player.id)
    return {"left": bool(left)}


@router.post("/api/games/{game_id}/absence-claim")
async def claim_absence(game_id: str, body: ClaimIn, request: Request,
                        service: Service) -> Response:
    match = await service.claim_absence(game_id, body.token, body.claim)
    return Response(match.view_json(body.token, words=request_translator(request)),
                    media_type="application/json")


