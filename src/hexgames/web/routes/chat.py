"""A game's chat over HTTP (issue 42): read the rooms, post, report, mute.

The reader is the identity of the request's cookie (:func:`known_player`): a seat held by
it makes a player; a guest reads the spectators' room and writes nowhere. The rules and
bounds are :mod:`hexgames.web.chat.rules`; the checks, storage and pushes
:mod:`hexgames.web.play.chat`. Refusals go through the app's error table: 400 bad input,
403 not allowed (a stranger in the players' room, a guest, a block, a computer game),
404 unknown game or message, 409 a full room or a silenced writer, 429 beyond the rate
(``Retry-After``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from hexgames.web.http.identity import CurrentPlayer, KnownPlayer
from hexgames.web.http.language import request_translator
from hexgames.web.http.state import Service
from hexgames.web.play.chat import message_json

__all__ = ["router"]

router = APIRouter()


class Strict(BaseModel):
    model_config = ConfigDict(strict=True)


class PostIn(Strict):
    room: StrictStr
    #: Checked by the chat rules (any string reaches them: their 400 names the bound).
    text: StrictStr


class ReportIn(Strict):
    room: StrictStr
    #: A message's number in its room (a room keeps at most ROOM_LIMIT).
    seq: StrictInt = Field(ge=1, le=2**31 - 1)


class MuteIn(Strict):
    on: StrictBool


@router.get("/api/games/{game_id}/chat")
async def read_chat(game_id: str, request: Request, service: Service, player: KnownPlayer,
                    room: str | None = None) -> dict[str, Any]:
    """The rooms this reader reads (or ``room`` only: 403 when it may not read it)."""
    return await service.chat.view(game_id, player, request_translator(request), room)


@router.post("/api/games/{game_id}/chat", status_code=201)
async def post_chat(game_id: str, body: PostIn, service: Service,
                    player: KnownPlayer) -> dict[str, Any]:
    message = await service.chat.post(game_id, player, body.room, body.text)
    return {"message": {**message_json(message), "mine": True}}


@router.post("/api/games/{game_id}/chat/report", status_code=201)
async def report_chat(game_id: str, body: ReportIn, service: Service,
                      player: CurrentPlayer) -> dict[str, Any]:
    report = await service.chat.report(game_id, player, body.room, body.seq)
    return {"reported": True, "id": report.id, "room": report.room, "seq": report.seq}


@router.post("/api/games/{game_id}/chat/mute")
async def mute_chat(game_id: str, body: MuteIn, service: Service,
                    player: CurrentPlayer) -> dict[str, Any]:
    await service.chat.mute(game_id, player, body.on)
    return {"muted": body.on}
