"""What the routes share of one app: :class:`AppState`, typed, stored once on
``app.state.site`` by :func:`hexgames.web.app.create_app` and read through
:func:`app_state` (or, in a route, the dependencies :data:`Site` and :data:`Service`).

Several apps may live side by side in one process (tests; a "restart" is a new app on
the same data), so nothing here is module-level: every counter, limiter and socket
registry belongs to its app.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends
from starlette.requests import HTTPConnection

from hexgames.web.accounts.rated_play import RatedPlay
from hexgames.web.alerts.emails import TurnEmails
from hexgames.web.alerts.follows import FollowAlerts
from hexgames.web.alerts.turns import TurnAlerts
from hexgames.web.engine.prep import EnginePreparation
from hexgames.web.http.client_limits import ClientLimits, Exports
from hexgames.web.lobby.tv import Television
from hexgames.web.service import GameService
from hexgames.web.storage.site_limits import SiteLimiter

__all__ = ["AppState", "Service", "Site", "app_state", "service_of", "site_of"]


@dataclass
class AppState:
    """The parts of one app the routes and the middleware use."""

    #: The facade over games, lobby, clocks, ratings... (:mod:`hexgames.web.service`).
    service: GameService
    #: Guests play no rated games; rated games per hour.
    rated_play: RatedPlay
    #: Sockets and requests in flight per address; uploads, hints, analyses in flight.
    client_limits: ClientLimits
    #: Turn alerts over ``/ws/alerts`` and the turn emails.
    turn_alerts: TurnAlerts
    turn_emails: TurnEmails
    #: Game exports being written, and their rate per address (tests lower the bounds).
    profile_exports: Exports
    #: Per site, counted in storage (:mod:`hexgames.web.storage.site_limits`).
    game_posts: SiteLimiter
    seek_posts: SiteLimiter
    new_identities: SiteLimiter
    #: The rules engines being prepared (``hexgames serve`` on a cold cache), or none.
    engines: EnginePreparation | None = None
    #: Followers told when a player they follow starts a game (``/ws/alerts``).
    follow_alerts: FollowAlerts | None = None
    #: The featured game of each game (``/tv/<game>``); built by ``create_app``.
    television: Television | None = None


def app_state(app: Any) -> AppState:
    """The :class:`AppState` of ``app`` (a FastAPI app built by ``create_app``)."""
    state = app.state.site
    if not isinstance(state, AppState):  # pragma: no cover - an app not built by create_app
        raise TypeError("the app has no AppState: build it with create_app")
    return state


async def site_of(connection: HTTPConnection) -> AppState:
    """A dependency: the :class:`AppState` of the app answering ``connection`` (async:
    FastAPI would run a plain function in a thread, a hop for every request)."""
    return app_state(connection.app)


async def service_of(connection: HTTPConnection) -> GameService:
    """A dependency: the app's :class:`~hexgames.web.service.GameService`."""
    return app_state(connection.app).service


#: A route's parameter ``site: Site`` is its app's state; ``service: Service`` its service.
Site = Annotated[AppState, Depends(site_of)]
Service = Annotated[GameService, Depends(service_of)]
