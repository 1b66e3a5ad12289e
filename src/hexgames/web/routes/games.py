"""The games' API: create and list games, read a state, play (an action, undo, resign,
takeback, abort, rematch), claim a seat link, a record's download and upload, the
replay's boards and the board with overlays; and ``GET /api/me/turn``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from hexgames.game import game_names, get_game
from hexgames.i18n import Translator
from hexgames.phrases import Phrase
from hexgames.web.game.matches import ENGLISH, Match, reason_phrase, render
from hexgames.web.game.records import record_tags
from hexgames.web.http.addresses import client_address
from hexgames.web.http.identity import KnownPlayer, Player, known_player
from hexgames.web.http.language import request_translator
from hexgames.web.http.state import Service, Site
from hexgames.web.play.setup import INVITE_OPEN
from hexgames.web.storage import Mode, StoredGame

__all__ = ["GAMES_PER_ADDRESS", "GAME_WINDOW", "links", "router", "state_response",
           "summary"]

router = APIRouter()

#: Games one client address may create per window of seconds (``POST /api/games``;
#: issue 31: 1,000 in 4.5 s), then 429 with ``Retry-After``.
GAMES_PER_ADDRESS = 30
GAME_WINDOW = 60.0


# Strict types: "1" is not a seat and true is not a level (400, not a silent coercion).
class Strict(BaseModel):
    model_config = ConfigDict(strict=True)


class NewGame(Strict):
    game: StrictStr
    mode: StrictStr = "ai"
    options: dict[StrictStr, Any] = Field(default_factory=dict)
    seat: StrictInt = 0
    level: StrictInt = 3
    #: A start position in the game's board text (the board editor's); none: standard.
    start: StrictStr | None = None
    rated: StrictBool = False
    #: Online games: ``{"kind": "realtime", "base_s", "increment_s"}``,
    #: ``{"kind": "correspondence", "days"}`` or untimed (``None``).
    control: dict[StrictStr, Any] | None = None


class ActionIn(Strict):
    token: StrictStr | None = None
    action: StrictStr
    ply: StrictInt | None = None
    #: The client's measured round trip (ms), credited to its clock within an allowance.
    lag: float | None = Field(default=None, ge=0, le=60_000)


class TokenIn(Strict):
    token: StrictStr | None = None


class ClaimIn(Strict):
    token: StrictStr | None = None
    #: The seat token this browser already holds for the game, if any.
    have: StrictStr | None = None


class AnswerIn(Strict):
    token: StrictStr | None = None
    answer: StrictStr = "offer"


class RecordIn(Strict):
    text: StrictStr
    game: StrictStr | None = None


def summary(stored: StoredGame, names: dict[str, str] | None = None,
            words: Translator = ENGLISH) -> dict[str, Any]:
    """A line of the games list (no tokens: the list is public). ``names``: display names
    by identity id; a seat held by a named identity shows it (``names``), else null.
    ``reason_text``: ``reason`` in ``words``' language."""
    reason = (stored.reason or "")[:120] or None  # bounded (older rows too)
    return {
        "id": stored.id,
        "game": stored.game,
        "title": get_game(stored.game).title if stored.game in game_names() else stored.game,
        "mode": stored.mode,
        "players": stored.players,
        "names": [(names or {}).get(str(player.get("player_id"))) if player.get("player_id")
                  else None for player in stored.players],
        "status": stored.status,
        "winner": stored.winner,
        "reason": reason,
        "reason_text": words.text(reason_phrase(reason)) if reason else None,
        "options": stored.options,
        "created_at": stored.created_at,
        "updated_at": stored.updated_at,
    }


def links(match: Match, tokens: list[str | None]) -> dict[str, Any]:
    base = f"/play/{match.id}"
    return {
        "seats": [f"{base}?token={token}" if token else None for token in tokens],
        "spectate": base,
        "replay": f"/replay/{match.id}",
    }


def state_response(match: Match, token: str | None, request: Request | None = None
                   ) -> Response:
    """A state as JSON, encoded by the match (the move list is not re-encoded); its
    ``*_text`` fields in the language of ``request``'s visitor."""
    words = request_translator(request) if request is not None else ENGLISH
    return Response(match.view_json(token, words=words), media_type="application/json")


def takes_rated_seat(match: Match, token: str | None, player: Player | None) -> bool:
    """Would claiming ``token`` seat ``player`` in a rated game (an invitation still
    open, and the player holds no seat of the game yet)?"""
    stored = match.stored
    if not stored.rated or match.is_over or player is None:
        return False
    if match.seats_of_player(player.id):
        return False
    return any(stored.players[seat].get("invite") == INVITE_OPEN
               for seat in match.seats_of(token))


@router.post("/api/games", status_code=201)
async def new_game(body: NewGame, player: KnownPlayer, request: Request, service: Service,
                   site: Site) -> dict[str, Any]:
    wait = await site.game_posts.hit(service, client_address(request.scope))
    if wait is not None:
        raise HTTPException(429, Phrase("too many games created; try again in {seconds} s",
                                        seconds=int(wait) + 1),
                            headers={"Retry-After": str(int(wait) + 1)})
    if body.rated and body.mode == Mode.ONLINE:
        await site.rated_play.check(player)
    if body.mode == Mode.AI and body.start:  # not the engine on a live game's board
        await service.live_positions.refuse_start(body.game, body.options, body.start)
    match, tokens = await service.create(
        body.game, body.options, body.mode, seat=body.seat, level=body.level,
        start=body.start,
        player=player, rated=body.rated, control=body.control,
    )
    seat_token = tokens[body.seat] if body.mode != Mode.HOTSEAT else tokens[0]
    return {
        "id": match.id,
        "token": seat_token,
        "tokens": tokens,
        "links": links(match, tokens),
    }


@router.get("/api/games")
async def list_games(request: Request, service: Service,
                     limit: int = Query(50, ge=1, le=500)) -> dict[str, Any]:
    games = await service.list(limit)
    names = await service.names_of(games)
    words = request_translator(request)
    return {"games": [summary(stored, names, words) for stored in games]}


@router.get("/api/games/{game_id}")
async def game_state(game_id: str, request: Request, service: Service,
                     token: str | None = None) -> Response:
    match = await service.get(game_id)
    return state_response(match, token, request)


@router.post("/api/games/{game_id}/actions")
async def play(game_id: str, body: ActionIn, request: Request, service: Service) -> Response:
    match = await service.act(game_id, body.token, body.action, body.ply,
                              lag_ms=body.lag or 0)
    return state_response(match, body.token, request)


@router.post("/api/games/{game_id}/undo")
async def undo(game_id: str, body: TokenIn, request: Request, service: Service) -> Response:
    match = await service.undo(game_id, body.token)
    return state_response(match, body.token, request)


@router.post("/api/games/{game_id}/resign")
async def resign(game_id: str, body: TokenIn, request: Request, service: Service) -> Response:
    match = await service.resign(game_id, body.token)
    return state_response(match, body.token, request)


@router.post("/api/games/{game_id}/takeback")
async def takeback(game_id: str, body: AnswerIn, request: Request,
                   service: Service) -> Response:
    """Online games: ``answer`` offer / accept / decline / cancel."""
    match = await service.takeback(game_id, body.token, body.answer)
    return state_response(match, body.token, request)


@router.post("/api/games/{game_id}/abort")
async def abort(game_id: str, body: TokenIn, request: Request, service: Service) -> Response:
    match = await service.abort(game_id, body.token)
    return state_response(match, body.token, request)


@router.post("/api/games/{game_id}/rematch")
async def rematch(game_id: str, body: AnswerIn, request: Request, service: Service) -> Response:
    """After an online game: ``answer`` offer (or accept) / decline."""
    match = await service.rematch(game_id, body.token, body.answer)
    return state_response(match, body.token, request)


@router.get("/api/me/turn")
async def my_turn(request: Request, service: Service) -> dict[str, Any]:
    """The games of this browser's identity being played where it is its turn
    (correspondence and real time alike), most recently changed first."""
    player = await known_player(request)
    if player is None:
        return {"games": []}
    games = await service.call_storage(service.storage.games_of_player, player.id, 200)
    return {"games": await service.your_turn(player.id, games, request_translator(request))}


@router.post("/api/games/{game_id}/claim")
async def claim(game_id: str, body: ClaimIn, player: KnownPlayer, request: Request,
                service: Service, site: Site) -> dict[str, Any]:
    """Open a seat link from a browser: an online invitation is claimed once (the
    first browser gets a credential of its own; later ones watch and are told so).
    Without a link, a browser of an identity holding a seat gets its credential."""
    if takes_rated_seat(await service.get(game_id), body.token, player):
        await site.rated_play.check(player)
    claimed = await service.claim(game_id, body.token, body.have, player)
    notice = claimed.get("notice")  # ``notice_text``: in the visitor's language
    return {**claimed, "notice_text": request_translator(request).text(notice)
            if notice else None}


@router.get("/api/games/{game_id}/record")
async def record(game_id: str, service: Service) -> PlainTextResponse:
    match = await service.get(game_id)
    text = match.game.write_record(match.position, record_tags(match))
    filename = f"{match.game.name}-{match.id}.txt"
    return PlainTextResponse(
        text, headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )


@router.post("/api/records", status_code=201)
async def upload(body: RecordIn, request: Request, service: Service,
                 site: Site) -> dict[str, Any]:
    with site.client_limits.uploads.hold(request):  # a few parses per address at once
        wait = await site.client_limits.upload_rate.hit(
            service, request.client.host if request.client else "?")
        if wait is not None:  # and a few per address per window
            raise HTTPException(429, Phrase("too many records uploaded; try again in "
                                            "{seconds} s", seconds=int(wait) + 1),
                                headers={"Retry-After": str(int(wait) + 1)})
        match, token = await service.import_record(body.text, body.game)
    return {"id": match.id, "token": token, "links": links(match, [token, token])}


@router.get("/api/games/{game_id}/replay")
async def replay(game_id: str, service: Service, ply: int = Query(..., ge=0),
                 flip: bool = False) -> dict[str, Any]:
    """The board after the first ``ply`` actions (the replay viewer steps through these)."""
    match = await service.get(game_id)
    total = len(match.plies)
    if ply > total:
        raise ValueError(Phrase("ply {ply} is past the end of the game ({total} actions)",
                                ply=ply, total=total))
    # From the nearest stored checkpoint: a bounded number of actions, off the loop.
    svg = await service.call_thread(match.replay_svg, ply, flip)
    return {"ply": ply, "total": total, "svg": svg}


@router.get("/api/games/{game_id}/board")
async def board(game_id: str, service: Service, overlays: str = "",
                flip: bool = False) -> dict[str, Any]:
    """The current board with optional overlays (those the game lists in
    ``Game.overlays``, e.g. Dendria's fertilized and plantable cells), turned
    half a turn when ``flip`` (the second player's side at the bottom)."""
    match = await service.get(game_id)
    offered = match.game.overlays
    chosen = tuple(name for name in overlays.split(",") if name)
    unknown = [name for name in chosen if name not in offered]
    if unknown:
        raise ValueError(Phrase("{game} has no overlay {overlay}; offered: {offered}",
                                game=match.game.title, overlay=repr(unknown[0]),
                                offered=", ".join(offered) or "none"))
    svg = render(match.game, match.position, chosen, latest=match.latest_turn(), flip=flip)
    return {"ply": len(match.plies), "svg": svg}

