"""Following and blocking players, from their profile (docs/web.md, "Following and
blocking").

- ``POST /api/players/{name}/follow`` ``{"on": bool}``: follow or unfollow (idempotent);
  the followed player's new games ring the follower's bell (:mod:`hexgames.web.alerts.follows`).
- ``POST /api/players/{name}/block`` ``{"on": bool}``: block or unblock (idempotent). A
  block holds both ways: no direct challenge, no accepted lobby challenge, no pool pairing
  between the two, and blocking ends the follows between them.
- ``GET /api/me/blocks``: the players the viewer blocked, and those kept apart from the
  viewer (a block either way): the lobby shows their open challenges without an Accept
  button (accepting one is refused, 409, saying that one of the two blocked the other).
- ``POST /player/{name}/follow`` and ``/player/{name}/block`` (a form: ``on=1`` or
  ``on=0``, and the profile's hidden ``form`` field): the same without scripts, answered
  with a redirect back to the profile (303). A form without the viewer's ``form`` value
  (:func:`~hexgames.web.routes.players.form_token`), or from a page whose ``Origin``
  names another site, is refused (403), as the API is by the cross-site guard.

Only named players follow and block (a guest is told to choose a name), never themselves,
and at most :data:`MAX_RELATIONS` players of each kind.
"""

from __future__ import annotations

import hmac
import time
from typing import Any
from urllib.parse import parse_qs, quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, StrictBool

from hexgames.phrases import N_, Phrase
from hexgames.web.http.errors import error_response
from hexgames.web.http.identity import Player, known_player
from hexgames.web.http.language import page, request_translator
from hexgames.web.http.origins import origin_allowed
from hexgames.web.http.state import Service
from hexgames.web.routes.players import (
    CROSS_SITE,
    MAX_RELATIONS,
    form_token,
    no_player,
    relation_view,
)
from hexgames.web.service import GameService
from hexgames.web.storage import PlayerRecord

__all__ = ["router", "set_relation"]

router = APIRouter()

#: The two relations a profile sets.
KINDS = ("follow", "block")
#: Form bodies are tiny: ``on=1``.
MAX_FORM = 256


class RelationIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    on: StrictBool


class Refused(Exception):
    """A relation that cannot be set: ``status`` and a phrase saying why."""

    def __init__(self, status: int, message: object) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def set_relation(service: GameService, viewer: Player | None, name: str,
                       kind: str, on: bool) -> tuple[PlayerRecord, dict[str, Any]]:
    """Follow, unfollow, block or unblock ``name`` for ``viewer``; :class:`Refused`
    says why not."""
    record = await service.call_storage(service.storage.player_by_name, name[:40])
    if record is None:
        raise Refused(404, no_player(name))
    if viewer is None or viewer.guest:
        raise Refused(400, N_("following and blocking are for named players: choose a "
                              "name on your player page first"))
    if viewer.id == record.id:
        raise Refused(400, N_("you cannot follow or block yourself"))
    storage = service.storage
    if on:
        mine = await service.call_storage(storage.relations_of, viewer.id, kind,
                                          MAX_RELATIONS)
        if record.id not in mine and len(mine) >= MAX_RELATIONS:
            if kind == "follow":
                raise Refused(409, Phrase("you already follow {count} players; unfollow "
                                          "one first", count=MAX_RELATIONS))
            raise Refused(409, Phrase("you already block {count} players; unblock one "
                                      "first", count=MAX_RELATIONS))
        if kind == "follow" and await service.call_storage(
                storage.blocked_between, [(viewer.id, record.id)]):
            raise Refused(409, N_("you cannot follow this player: one of you blocked "
                                  "the other"))
    at = int(time.time())
    await service.call_storage(storage.set_relation, viewer.id, record.id, kind, on, at)
    if kind == "block" and on:
        # A block ends the follows both ways: neither hears of the other's games.
        await service.call_storage(storage.set_relation, viewer.id, record.id, "follow",
                                   False, at)
        await service.call_storage(storage.set_relation, record.id, viewer.id, "follow",
                                   False, at)
    return record, await relation_view(service, viewer, record)


async def _api(kind: str, name: str, body: RelationIn, request: Request,
               service: GameService) -> Any:
    try:
        record, view = await set_relation(service, await known_player(request), name,
                                          kind, body.on)
    except Refused as refused:
        return error_response(refused.status, refused.message, request)
    return {"name": record.name, **view}


@router.post("/api/players/{name}/follow")
async def follow(name: str, body: RelationIn, request: Request, service: Service) -> Any:
    """Follow (``on``: true) or unfollow the player; answers how the viewer stands."""
    return await _api("follow", name, body, request, service)


@router.post("/api/players/{name}/block")
async def block(name: str, body: RelationIn, request: Request, service: Service) -> Any:
    """Block (``on``: true) or unblock the player; answers how the viewer stands."""
    return await _api("block", name, body, request, service)


@router.get("/api/me/blocks")
async def my_blocks(request: Request, service: Service) -> dict[str, Any]:
    """``blocked``: the names the viewer blocked; ``kept_apart``: the names with a block
    between them and the viewer, whoever made it (each at most ``MAX_RELATIONS``, by
    name, case folded)."""
    viewer = await known_player(request)
    if viewer is None:
        return {"blocked": [], "kept_apart": []}
    storage = service.storage
    mine = await service.call_storage(storage.relations_of, viewer.id, "block", MAX_RELATIONS)
    theirs = await service.call_storage(storage.related_to, viewer.id, "block", MAX_RELATIONS)
    names = await service.call_storage(storage.player_names, [*mine, *theirs])
    def by_name(ids: list[str]) -> list[str]:
        return sorted({names[found] for found in ids if found in names}, key=str.casefold)

    return {"blocked": by_name(mine), "kept_apart": by_name([*mine, *theirs])}


def _notice(request: Request, status: int, message: object) -> HTMLResponse:
    words = request_translator(request)
    return page(request, "notice.html", status_code=status,
                title=words.gettext("Following and blocking"), text=words.text(message))


async def _form(kind: str, name: str, request: Request,
                service: GameService) -> Response:
    """The profile's forms, without scripts: set the relation, then back to the profile."""
    origin = request.headers.get("origin")
    if origin not in (None, "null") and not origin_allowed(request):
        return _notice(request, 403, CROSS_SITE)
    raw = (await request.body())[:MAX_FORM].decode("utf-8", "replace")
    fields = parse_qs(raw)
    value = fields.get("on", [""])[0]
    if value not in ("0", "1"):
        return _notice(request, 400, N_("the form says on=1 or on=0"))
    viewer = await known_player(request)
    given = fields.get("form", [""])[0]
    if viewer is None or not hmac.compare_digest(given, await form_token(service, viewer.id)):
        return _notice(request, 403, CROSS_SITE)  # not the profile's own form
    try:
        record, _ = await set_relation(service, viewer, name, kind, value == "1")
    except Refused as refused:
        return _notice(request, refused.status, refused.message)
    return RedirectResponse(f"/player/{quote(record.name)}", status_code=303)


@router.post("/player/{name}/follow", include_in_schema=False)
async def follow_form(name: str, request: Request, service: Service) -> Response:
    return await _form("follow", name, request, service)


@router.post("/player/{name}/block", include_in_schema=False)
async def block_form(name: str, request: Request, service: Service) -> Response:
    return await _form("block", name, request, service)
