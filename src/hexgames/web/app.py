"""The FastAPI application: JSON API, WebSocket play, pages and the static front end.

``create_app(data_dir=..., database_url=...)`` builds a self-contained app (its own
storage, AI workers and connection hub), so tests can run several side by side and a
"restart" is simply a new app on the same data directory.

Error policy: bad input of any kind (malformed JSON, unknown game or id, bad options,
illegal or out-of-turn actions, a token for another seat, a body over the limit) is
answered with a 4xx and a JSON ``{"error": "..."}`` naming the problem (bounded in length),
and changes nothing. A storage that does not answer, or an AI with too many searches
waiting, is a 503 ("try again"). Unexpected failures are logged and answered with a JSON
500 that reveals no internals. Limits are listed in docs/web.md ("Limits and hardening").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from starlette.exceptions import HTTPException as StarletteHTTPException

from hexgames.ai import LEVELS
from hexgames.errors import IllegalAction
from hexgames.game import game_names, get_game
from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.web.accounts.mail import MailSettings
from hexgames.web.engine.prep import EnginePreparation, engine_status, engines_ready
from hexgames.web.engine.workers import AiWorkers
from hexgames.web.game.matches import ENGLISH, Match, reason_phrase, render
from hexgames.web.game.options import describe_options
from hexgames.web.game.records import record_tags
from hexgames.web.http.cross_site import CrossSiteGuard, RatedPlay, takes_rated_seat
from hexgames.web.http.engine_gate import EngineGate
from hexgames.web.http.hosts import HostGuard
from hexgames.web.http.identity import (
    NEW_IDENTITIES_PER_ADDRESS,
    NEW_IDENTITY_WINDOW,
    IdentityCookie,
    KnownPlayer,
    PagePlayer,
    current_player,
    known_player,
)
from hexgames.web.http.language import (
    add_language_routes,
    chosen_language,
    page,
    remember,
    request_translator,
    said,
)
from hexgames.web.http.limits import (
    BodyLimit,
    PerClient,
    SecurityHeaders,
    client_address,
    limits_of,
)
from hexgames.web.play.absence import AbsenceLimits
from hexgames.web.play.hub import Hub
from hexgames.web.routes.alerts import add_alert_routes, close_alerts
from hexgames.web.routes.analysis import add_analysis_routes
from hexgames.web.routes.conditional import add_conditional_routes
from hexgames.web.routes.pairing import add_pairing_routes
from hexgames.web.routes.players import add_player_routes
from hexgames.web.routes.profiles import add_profile_routes
from hexgames.web.routes.rules import not_found_response, rules_page
from hexgames.web.routes.sockets import add_lobby_route, add_socket_route, clip
from hexgames.web.service import (
    MAX_RECORD,
    AiBusy,
    GameNotFound,
    GameService,
    LobbyFull,
    PoolFull,
    SeekTaken,
    WriteUnconfirmed,
    public_seek,
)
from hexgames.web.storage import StaleWrite, StorageUnavailable, StoredGame, open_storage
from hexgames.web.storage.site_limits import SiteLimiter

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"


#: Largest request body (bytes); larger ones are refused with 413 before parsing.
MAX_BODY = 2 * MAX_RECORD + 64 * 1024


# ------------------------------------------------------------------ request bodies
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


class SeekIn(Strict):
    game: StrictStr
    options: dict[StrictStr, Any] = Field(default_factory=dict)
    control: dict[StrictStr, Any] | None = None
    color: StrictStr = "random"
    rated: bool = False
    #: A direct challenge: the name of the only player who may accept it.
    target: StrictStr | None = None


class RecordIn(Strict):
    text: StrictStr
    game: StrictStr | None = None


#: Challenges one client address may post per window of seconds (see ``new_seek``).
SEEKS_PER_ADDRESS = 20
SEEK_WINDOW = 600.0
#: Games one client address may create per window of seconds (``POST /api/games``;
#: issue 31: 1,000 in 4.5 s), then 429 with ``Retry-After``.
GAMES_PER_ADDRESS = 30
GAME_WINDOW = 60.0


def error(status: int, message: object, request: Request | None = None) -> JSONResponse:
    """The error shape of every 4xx/5xx (bounded: it may quote the client's input):
    ``error`` in English (what API clients match on), ``message`` in the visitor's
    language (what the site shows)."""
    english = clip(str(message))
    words = request_translator(request) if request is not None else None
    shown = clip(words.text(message)) if words is not None else english
    return JSONResponse({"error": english, "message": shown}, status_code=status)


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


def create_app(
    data_dir: str | Path = "data",
    database_url: str | None = None,
    ai_processes: int | None = None,
    mail: MailSettings | None = None,
    engines: EnginePreparation | None = None,
    absence: AbsenceLimits | None = None,
    allowed_hosts: frozenset[str] | None = None,
) -> FastAPI:
    """A complete web app storing games in ``data_dir`` (SQLite) or ``database_url``;
    ``mail``: where turn emails are sent from (none: the site sends no email).

    The environment is not consulted here (``hexgames serve`` reads ``DATABASE_URL``), so
    an app built in a test or a script stores exactly where it is told to.

    ``engines``: the rules engines being prepared (``hexgames serve`` on a cold cache):
    it starts with the app, and what needs an engine waits for it (503, ``EngineGate``).
    Without it an engine compiles or loads on first use (tests, scripts).

    ``absence``: how long an online opponent must be gone before a claim (default: the
    documented limits, or the ``HEXGAMES_ABSENCE_*`` environment variables that shorten
    them: :meth:`~hexgames.web.play.absence.AbsenceLimits.from_environ`).

    ``allowed_hosts``: the ``Host`` names the site answers to
    (:func:`hexgames.web.http.hosts.allowed_hosts`; ``None``: any, as in tests and scripts).
    """
    storage = open_storage(data_dir=data_dir, database_url=database_url or None)
    service = GameService(storage, AiWorkers(ai_processes), Hub(),
                          absence=absence or AbsenceLimits.from_environ())
    # Shared by every server process (counted in storage: hexgames.web.storage.site_limits).
    seek_posts = SiteLimiter("seek", SEEKS_PER_ADDRESS, SEEK_WINDOW)
    game_posts = SiteLimiter("game", GAMES_PER_ADDRESS, GAME_WINDOW)
    rated_play = RatedPlay(service)  # guests play no rated games; rated games per hour

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if engines is not None:
            engines.start()  # in the background; the site answers meanwhile
        # PostgreSQL: hear the other server processes' changes
        await service.start(engines.wait_ready if engines is not None else None)
        yield
        await close_alerts(app)  # turn alerts' sockets and mail thread
        await service.close()
        if engines is not None:
            await asyncio.to_thread(engines.stop)  # no compiling process left behind

    # No /api/docs: Swagger UI would load from a CDN, and the site loads nothing from
    # the internet. The schema stays at /api/openapi.json (and /openapi.json).
    app = FastAPI(title="hexgames", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json")
    app.state.service = service
    app.state.rated_play = rated_play
    app.state.engines = engines
    app.state.game_posts = game_posts
    app.state.new_identities = SiteLimiter("new-identity", NEW_IDENTITIES_PER_ADDRESS,
                                           NEW_IDENTITY_WINDOW)
    app.add_middleware(IdentityCookie)
    app.add_middleware(CrossSiteGuard)  # other sites' pages change nothing (403)
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    if engines is not None:  # what needs an engine waits until it is ready (503)
        app.add_middleware(EngineGate, engines=engines)
    app.add_middleware(SecurityHeaders)
    # Another host name (DNS rebinding: 400) or a page of another scheme (403).
    app.add_middleware(HostGuard, allowed=allowed_hosts)
    # Outermost: sockets and requests in flight per client address (docs/web.md, "Limits").
    app.add_middleware(PerClient, limits=limits_of(app))

    # -------------------------------------------------------------- errors
    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for item in exc.errors()[:5]:
            where = ".".join(str(part)[:40] for part in item.get("loc", ()) if part != "body")
            problems.append(f"{where}: {item.get('msg')}" if where else str(item.get("msg")))
        return error(400, Phrase("bad request: {problems}", problems="; ".join(problems)),
                     request)

    @app.exception_handler(StorageUnavailable)
    async def storage_down(request: Request, exc: StorageUnavailable) -> JSONResponse:
        return error(503, said(exc), request)

    @app.exception_handler(AiBusy)
    async def ai_busy(request: Request, exc: AiBusy) -> JSONResponse:
        return error(503, said(exc), request)

    @app.exception_handler(StaleWrite)
    async def stale(request: Request, exc: StaleWrite) -> JSONResponse:
        return error(409, said(exc), request)

    @app.exception_handler(WriteUnconfirmed)  # may still commit: reload, never 503
    async def unconfirmed(request: Request, exc: WriteUnconfirmed) -> JSONResponse:
        return error(409, said(exc), request)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404 and wants_page(request):
            return not_found_response(request)
        refused = error(exc.status_code, exc.detail, request)
        refused.headers.update(exc.headers or {})  # e.g. a 429's Retry-After
        return refused

    @app.exception_handler(PoolFull)
    async def pool_full(request: Request, exc: PoolFull) -> JSONResponse:
        return error(503, said(exc), request)

    @app.exception_handler(LobbyFull)
    async def lobby_full(request: Request, exc: LobbyFull) -> JSONResponse:
        return error(503, said(exc), request)

    @app.exception_handler(SeekTaken)
    async def seek_taken(request: Request, exc: SeekTaken) -> JSONResponse:
        return error(409, said(exc), request)

    @app.exception_handler(GameNotFound)
    async def not_found(request: Request, exc: GameNotFound) -> JSONResponse:
        return error(404, said(exc), request)

    @app.exception_handler(PermissionError)
    async def forbidden(request: Request, exc: PermissionError) -> JSONResponse:
        return error(403, said(exc), request)

    @app.exception_handler(IllegalAction)
    async def illegal(request: Request, exc: IllegalAction) -> JSONResponse:
        return error(409, said(exc), request)

    @app.exception_handler(ValueError)
    async def invalid(request: Request, exc: ValueError) -> JSONResponse:
        return error(400, said(exc), request)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error(500, N_("internal error: the server could not handle this request"),
                     request)

    # ---------------------------------------------------------------- API
    @app.get("/api/catalog")
    async def catalog(request: Request) -> dict[str, Any]:
        """The games, their colours and options: everything the home page's form needs
        (its words in the visitor's language: ``blurb``, the options' ``label`` and
        ``help``, the levels' ``description_text``)."""
        words = request_translator(request)
        return {
            "games": [
                {
                    "name": game.name,
                    "title": game.title,
                    "colors": list(game.colors),
                    "options": describe_options(game, words),
                    "blurb": words.text(game.tagline),
                    # drawn by the engine: empty until it is ready
                    "preview_svg": preview(game.name) if engines_ready(app) else "",
                }
                for game in map(get_game, game_names())
            ],
            "levels": [
                {"level": level, "description": spec.description,
                 "description_text": words.text(spec.description)}
                for level, spec in sorted(LEVELS.items())
            ],
        }

    @app.get("/api/engine-status")
    async def engine_state(request: Request) -> dict[str, Any]:
        """Whether the rules engines are ready; while they are prepared, the progress."""
        return engine_status(app, request_translator(request))

    @app.post("/api/games", status_code=201)
    async def new_game(body: NewGame, player: KnownPlayer, request: Request) -> dict[str, Any]:
        wait = await game_posts.hit(service, client_address(request.scope))
        if wait is not None:
            raise HTTPException(429, Phrase("too many games created; try again in {seconds} s",
                                            seconds=int(wait) + 1),
                                headers={"Retry-After": str(int(wait) + 1)})
        if body.rated and body.mode == "online":
            await rated_play.check(player)
        if body.mode == "ai" and body.start:  # not the engine on a live game's board
            await app.state.live_positions.refuse_start(body.game, body.options, body.start)
        match, tokens = await service.create(
            body.game, body.options, body.mode, seat=body.seat, level=body.level,
            start=body.start,
            player=player, rated=body.rated, control=body.control,
        )
        seat_token = tokens[body.seat] if body.mode != "hotseat" else tokens[0]
        return {
            "id": match.id,
            "token": seat_token,
            "tokens": tokens,
            "links": links(match, tokens),
        }

    @app.get("/api/games")
    async def list_games(request: Request,
                         limit: int = Query(50, ge=1, le=500)) -> dict[str, Any]:
        games = await service.list(limit)
        names = await service.names_of(games)
        words = request_translator(request)
        return {"games": [summary(stored, names, words) for stored in games]}

    @app.get("/api/games/{game_id}")
    async def game_state(game_id: str, request: Request, token: str | None = None) -> Response:
        match = await service.get(game_id)
        return state_response(match, token, request)

    @app.post("/api/games/{game_id}/actions")
    async def play(game_id: str, body: ActionIn, request: Request) -> Response:
        match = await service.act(game_id, body.token, body.action, body.ply,
                                  lag_ms=body.lag or 0)
        return state_response(match, body.token, request)

    @app.post("/api/games/{game_id}/undo")
    async def undo(game_id: str, body: TokenIn, request: Request) -> Response:
        match = await service.undo(game_id, body.token)
        return state_response(match, body.token, request)

    @app.post("/api/games/{game_id}/resign")
    async def resign(game_id: str, body: TokenIn, request: Request) -> Response:
        match = await service.resign(game_id, body.token)
        return state_response(match, body.token, request)

    @app.post("/api/games/{game_id}/takeback")
    async def takeback(game_id: str, body: AnswerIn, request: Request) -> Response:
        """Online games: ``answer`` offer / accept / decline / cancel."""
        match = await service.takeback(game_id, body.token, body.answer)
        return state_response(match, body.token, request)

    @app.post("/api/games/{game_id}/abort")
    async def abort(game_id: str, body: TokenIn, request: Request) -> Response:
        match = await service.abort(game_id, body.token)
        return state_response(match, body.token, request)

    @app.post("/api/games/{game_id}/rematch")
    async def rematch(game_id: str, body: AnswerIn, request: Request) -> Response:
        """After an online game: ``answer`` offer (or accept) / decline."""
        match = await service.rematch(game_id, body.token, body.answer)
        return state_response(match, body.token, request)

    # ---------------------------------------------------------- lobby
    @app.get("/api/seeks")
    async def seeks(request: Request) -> dict[str, Any]:
        """The open challenges and the games being played (what ``/ws/lobby`` sends)."""
        return await service.lobby_state(request_translator(request))

    @app.post("/api/seeks", status_code=201)
    async def new_seek(body: SeekIn, request: Request) -> Any:
        """Post a challenge; ``token`` is the seat credential of the game to come. At most
        ``SEEKS_PER_ADDRESS`` per address per ``SEEK_WINDOW`` seconds (429 past that):
        new identities are free, the address is what a flood has to spend."""
        address = request.client.host if request.client else "?"
        wait = await seek_posts.hit(service, address)
        if wait is not None:
            refused = error(429, Phrase("too many challenges posted; try again in {seconds} s",
                                        seconds=int(wait) + 1), request)
            refused.headers["Retry-After"] = str(int(wait) + 1)
            return refused
        if body.rated:
            await rated_play.check(await current_player(request))
        creator = await player_entry(request)
        seek, token = await service.create_seek(
            body.game, body.options, body.control, body.color, body.rated, creator,
            body.target, address=client_address(request.scope),
        )
        return {"id": seek.id, "token": token,
                "seek": public_seek(seek, request_translator(request))}

    @app.get("/api/me/turn")
    async def my_turn(request: Request) -> dict[str, Any]:
        """The games of this browser's identity being played where it is its turn
        (correspondence and real time alike), most recently changed first."""
        player = await known_player(request)
        if player is None:
            return {"games": []}
        games = await service.call_storage(service.storage.games_of_player, player.id, 200)
        return {"games": await service.your_turn(player.id, games, request_translator(request))}

    @app.get("/api/seeks/{seek_id}")
    async def seek_status(seek_id: str, request: Request) -> dict[str, Any]:
        return await service.seek_status(seek_id, request_translator(request))

    @app.post("/api/seeks/{seek_id}/accept", status_code=201)
    async def accept_seek(seek_id: str, request: Request) -> dict[str, Any]:
        if (await service.seek_status(seek_id))["rated"]:
            await rated_play.check(await current_player(request))
        acceptor = await player_entry(request)
        match, token = await service.accept_seek(seek_id, acceptor)
        return {"id": match.id, "token": token, "links": links(match, [None, None])}

    @app.post("/api/seeks/{seek_id}/cancel")
    async def cancel_seek(seek_id: str, body: TokenIn) -> dict[str, Any]:
        await service.cancel_seek(seek_id, body.token)
        return {"id": seek_id, "status": "cancelled"}

    @app.get("/openapi.json", include_in_schema=False)
    async def openapi_alias() -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.post("/api/games/{game_id}/claim")
    async def claim(game_id: str, body: ClaimIn, player: KnownPlayer,
                    request: Request) -> dict[str, Any]:
        """Open a seat link from a browser: an online invitation is claimed once (the
        first browser gets a credential of its own; later ones watch and are told so).
        Without a link, a browser of an identity holding a seat gets its credential."""
        if takes_rated_seat(await service.get(game_id), body.token, player):
            await rated_play.check(player)
        claimed = await service.claim(game_id, body.token, body.have, player)
        notice = claimed.get("notice")  # ``notice_text``: in the visitor's language
        return {**claimed, "notice_text": request_translator(request).text(notice)
                if notice else None}

    @app.get("/api/games/{game_id}/record")
    async def record(game_id: str) -> PlainTextResponse:
        match = await service.get(game_id)
        text = match.game.write_record(match.position, record_tags(match))
        filename = f"{match.game.name}-{match.id}.txt"
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="{filename}"'}
        )

    @app.post("/api/records", status_code=201)
    async def upload(body: RecordIn, request: Request) -> dict[str, Any]:
        with limits_of(app).uploads.hold(request):  # a few parses per address at once
            wait = await limits_of(app).upload_rate.hit(
                service, request.client.host if request.client else "?")
            if wait is not None:  # and a few per address per window
                raise HTTPException(429, Phrase("too many records uploaded; try again in "
                                                "{seconds} s", seconds=int(wait) + 1),
                                    headers={"Retry-After": str(int(wait) + 1)})
            match, token = await service.import_record(body.text, body.game)
        return {"id": match.id, "token": token, "links": links(match, [token, token])}

    @app.get("/api/games/{game_id}/replay")
    async def replay(game_id: str, ply: int = Query(..., ge=0),
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

    @app.get("/api/games/{game_id}/board")
    async def board(game_id: str, overlays: str = "", flip: bool = False) -> dict[str, Any]:
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

    # ---------------------------------------------------------- WebSocket
    add_socket_route(app, service)
    # Analysis board, hints and the board editor (their API and pages).
    add_analysis_routes(app, service)
    add_conditional_routes(app, service)  # correspondence lines that play themselves
    add_lobby_route(app, service)
    add_pairing_routes(app, service)  # quick-pairing pools, absence claims

    # ----------------------------------------------- players and ratings
    add_player_routes(app, service)
    add_profile_routes(app, service)  # rating history, statistics, game search, export
    # Turn alerts: /ws/alerts, /api/me/alerts and the email links (alert_routes.py).
    add_alert_routes(app, service, mail)

    # -------------------------------------------------------------- pages
    # A first visit creates the visitor's identity (and its cookie).
    @app.get("/", include_in_schema=False)
    async def home(request: Request, player: PagePlayer) -> HTMLResponse:
        return page(request, "index.html")

    @app.get("/play/{game_id}", include_in_schema=False)
    async def play_page(game_id: str, request: Request, player: PagePlayer) -> HTMLResponse:
        return page(request, "play.html")

    @app.get("/lobby", include_in_schema=False)
    async def lobby_page(request: Request, player: PagePlayer) -> HTMLResponse:
        return page(request, "lobby.html")

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_page(game_id: str, request: Request) -> HTMLResponse:
        return page(request, "replay.html")

    @app.get("/rules/{game_name}", include_in_schema=False)
    async def rules(game_name: str, request: Request) -> HTMLResponse:
        if game_name not in game_names():
            return not_found_response(request, f"/rules/{game_name}")
        # The first request draws a sample game (AI moves): keep it off the event loop.
        language = chosen_language(request)
        response = HTMLResponse(await asyncio.to_thread(rules_page, get_game(game_name), language))
        remember(response, request)
        return response

    from hexgames.web.routes.learn import add_learn_routes  # (a hook kept to one place)

    add_learn_routes(app)  # /learn/<game> and /api/learn/...: lessons and puzzles
    add_language_routes(app)  # /i18n/<lang>.js (the scripts' catalogs), /api/languages
    # /puzzles/<game> and /api/puzzles/...: rated puzzles, themes, streaks, daily puzzle
    from hexgames.web.routes.puzzle_streaks import add_streak_routes
    from hexgames.web.routes.puzzles import add_puzzle_routes

    add_puzzle_routes(app, service)
    add_streak_routes(app, service)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def wants_page(request: Request) -> bool:
    """A person's address (answered with an HTML page) rather than the API's (JSON)."""
    path = request.url.path
    return not (path.startswith(("/api/", "/ws/")) or path == "/openapi.json")


def state_response(match: Match, token: str | None, request: Request | None = None
                   ) -> Response:
    """A state as JSON, encoded by the match (the move list is not re-encoded); its
    ``*_text`` fields in the language of ``request``'s visitor."""
    words = request_translator(request) if request is not None else ENGLISH
    return Response(match.view_json(token, words=words), media_type="application/json")


@cache
def preview(game_name: str) -> str:
    """The start position of a game's default variant, drawn once for the home page."""
    game = get_game(game_name)
    return str(game.render_svg(game.new()))


async def player_entry(request: Request) -> dict[str, Any]:
    """The visitor's identity (created with its cookie if new) as ``{"player_id",
    "name"}``: who posts or accepts a challenge."""
    player = await current_player(request)
    return {"player_id": player.id, "name": player.name}
