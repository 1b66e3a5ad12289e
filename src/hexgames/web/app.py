"""The FastAPI application: JSON API, WebSocket play, pages and the static front end.

``create_app(data_dir=..., database_url=...)`` builds a self-contained app (its own
storage, AI workers and connection hub), so tests can run several side by side and a
"restart" is simply a new app on the same data directory.

This module is wiring only: the parts of the app (:class:`~hexgames.web.http.state.AppState`,
stored once on ``app.state.site``), the middleware (``web/http/``: the edge), the table of
exception handlers (:mod:`hexgames.web.http.errors`: the error policy) and the routers,
one ``APIRouter`` per domain (``web/routes/``). Limits are listed in docs/web.md
("Limits and hardening").
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.staticfiles import StaticFiles

from hexgames.web.accounts.mail import MailSettings
from hexgames.web.accounts.rated_play import RatedPlay
from hexgames.web.engine.prep import EnginePreparation
from hexgames.web.engine.workers import AiWorkers
from hexgames.web.http.body_limit import BodyLimit
from hexgames.web.http.client_limits import ClientLimits, Exports, PerClient
from hexgames.web.http.cross_site import CrossSiteGuard
from hexgames.web.http.engine_gate import EngineGate
from hexgames.web.http.errors import add_error_handlers
from hexgames.web.http.hosts import HostGuard
from hexgames.web.http.identity import (
    NEW_IDENTITIES_PER_ADDRESS,
    NEW_IDENTITY_WINDOW,
    IdentityCookie,
)
from hexgames.web.http.security_headers import SecurityHeaders
from hexgames.web.http.state import AppState
from hexgames.web.lobby.tv import Television
from hexgames.web.play.absence import AbsenceLimits
from hexgames.web.play.hub import Hub
from hexgames.web.routes import (
    alerts,
    analysis,
    catalog,
    chat,
    conditional,
    games,
    languages,
    learn,
    pages,
    pairing,
    players,
    profiles,
    puzzle_streaks,
    puzzles,
    relations,
    rules,
    seeks,
    sockets,
    tournaments,
    tv,
)
from hexgames.web.service import MAX_RECORD, GameService
from hexgames.web.storage import open_storage
from hexgames.web.storage.site_limits import SiteLimiter

STATIC = Path(__file__).parent / "static"

#: Largest request body (bytes); larger ones are refused with 413 before parsing.
MAX_BODY = 2 * MAX_RECORD + 64 * 1024

#: The routers in the order they are matched (a path that two could answer goes to the
#: first; the static files are mounted after all of them).
ROUTERS: tuple[APIRouter, ...] = (
    catalog.router,  # /api/catalog, /api/engine-status, /openapi.json
    games.router,  # /api/games/..., /api/records, /api/me/turn
    seeks.router,  # /api/seeks/...: the lobby's challenges
    sockets.router,  # /ws/games/{id}, /ws/lobby
    chat.router,  # /api/games/{id}/chat...: a game's chat
    analysis.router,  # the analysis board, hints and the board editor
    conditional.router,  # correspondence lines that play themselves
    pairing.router,  # quick-pairing pools, absence claims
    players.router,  # identities, player pages, leaderboards
    profiles.router,  # rating history, statistics, game search, export
    relations.router,  # following and blocking players
    tv.router,  # /tv/<game> and /api/tv/<game>: the featured game
    alerts.router,  # /ws/alerts, /api/me/alerts and the email links
    pages.router,  # home, a game, the lobby, a replay
    rules.router,  # /rules/<game>
    learn.router,  # /learn/<game> and /api/learn/...: lessons and puzzles
    languages.router,  # /i18n/<lang>.js, /api/languages
    puzzles.router,  # /puzzles/<game> and /api/puzzles/...
    puzzle_streaks.router,  # /api/puzzles/<game>/streak/...
    tournaments.router,  # /api/tournaments/..., /ws/tournaments/{id}
)


def app_parts(service: GameService, mail: MailSettings | None,
              engines: EnginePreparation | None) -> AppState:
    """The parts of a new app around ``service`` (what the routes share)."""
    turn_alerts, turn_emails, follow_alerts = alerts.wire_alerts(service, mail)
    return AppState(
        service=service,
        rated_play=RatedPlay(service),  # guests play no rated games; rated games per hour
        client_limits=ClientLimits(),
        turn_alerts=turn_alerts,
        turn_emails=turn_emails,
        follow_alerts=follow_alerts,
        profile_exports=Exports(profiles.EXPORTS_PER_WINDOW, profiles.EXPORT_WINDOW),
        # Shared by every server process (counted in storage: web/storage/site_limits.py).
        game_posts=SiteLimiter("game", games.GAMES_PER_ADDRESS, games.GAME_WINDOW),
        seek_posts=SiteLimiter("seek", seeks.SEEKS_PER_ADDRESS, seeks.SEEK_WINDOW),
        new_identities=SiteLimiter("new-identity", NEW_IDENTITIES_PER_ADDRESS,
                                   NEW_IDENTITY_WINDOW),
        engines=engines,
        television=Television(service.games),
    )


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
    site = app_parts(service, mail, engines)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if engines is not None:
            engines.start()  # in the background; the site answers meanwhile
        # PostgreSQL: hear the other server processes' changes
        await service.start(engines.wait_ready if engines is not None else None)
        yield
        await alerts.close_alerts(site)  # turn alerts' sockets and mail thread
        await service.close()
        if engines is not None:
            await asyncio.to_thread(engines.stop)  # no compiling process left behind

    # No /api/docs: Swagger UI would load from a CDN, and the site loads nothing from
    # the internet. The schema stays at /api/openapi.json (and /openapi.json).
    app = FastAPI(title="hexgames", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json")
    app.state.site = site
    app.add_middleware(IdentityCookie)
    app.add_middleware(CrossSiteGuard)  # other sites' pages change nothing (403)
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    if engines is not None:  # what needs an engine waits until it is ready (503)
        app.add_middleware(EngineGate, engines=engines)
    app.add_middleware(SecurityHeaders)
    # Another host name (DNS rebinding: 400) or a page of another scheme (403).
    app.add_middleware(HostGuard, allowed=allowed_hosts)
    # Outermost: sockets and requests in flight per client address (docs/web.md, "Limits").
    app.add_middleware(PerClient, limits=site.client_limits)
    add_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
