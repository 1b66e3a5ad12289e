"""Guards around identities: cross-site requests and who may play rated games.

- :class:`CrossSiteGuard` (ASGI middleware): every state-changing API request (``POST``,
  ``PUT``, ``PATCH``, ``DELETE`` under ``/api/``) sent by a page of another site (another
  host *or port*: a form on ``site:8001`` posting to ``site:8000``, whose ``SameSite=Lax``
  cookie a browser still sends) is refused with 403 before any route runs. A browser
  names the page's origin in ``Origin`` on every such request; one that sends none but
  says ``Sec-Fetch-Site`` other than ``same-origin``/``none`` is refused too. A request
  with neither header is not from a browser page (a script, ``hexgames loadtest``,
  ``curl``): it is let through, as the API is documented for scripts.
- :class:`RatedPlay`: guests (the name the site gave) do not play rated games, and an
  identity starts at most :data:`RATED_PER_HOUR` rated games an hour
  (:data:`NEW_RATED_PER_HOUR` in its first day). See docs/web.md, "Ratings".
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from fastapi import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from hexgames.phrases import N_, Phrase
from hexgames.web.http.identity import Player
from hexgames.web.play.setup import INVITE_OPEN
from hexgames.web.storage.site_limits import SiteLimiter, StorageCaller

__all__ = [
    "NEW_IDENTITY_SECONDS",
    "NEW_RATED_PER_HOUR",
    "RATED_PER_HOUR",
    "CrossSiteGuard",
    "RatedPlay",
    "cross_site",
    "takes_rated_seat",
]

#: Methods that change something (``GET``/``HEAD``/``OPTIONS`` never do here).
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: ``Sec-Fetch-Site`` values of a request made by the site's own pages (or typed by the
#: person: ``none``).
SAME_SITE_FETCH = frozenset({"same-origin", "none"})

#: Rated games an identity may start per hour, and in its first day.
RATED_PER_HOUR = 60
NEW_RATED_PER_HOUR = 10
NEW_IDENTITY_SECONDS = 24 * 3600.0
RATED_WINDOW = 3600.0


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def cross_site(scope: Scope) -> str | None:
    """Why a request comes from another site's page (``None``: it does not).

    ``Origin`` must name this site: the host and port the browser connected to (the
    ``Host`` header), over http or https. ``Origin: null`` (a sandboxed frame, a file)
    is another site. Without ``Origin``, a ``Sec-Fetch-Site`` of ``cross-site`` or
    ``same-site`` (another port or subdomain) is refused as well."""
    origin = _header(scope, b"origin")
    if origin is not None:
        host = _header(scope, b"host") or ""
        parsed = urlsplit(origin.strip())
        if host and parsed.scheme in ("http", "https") and parsed.netloc == host:
            return None
        return "another site's page"
    fetch_site = _header(scope, b"sec-fetch-site")
    if fetch_site is not None and fetch_site.strip().lower() not in SAME_SITE_FETCH:
        return "another site's page"
    return None


class CrossSiteGuard:
    """Refuse (403) state-changing ``/api/`` requests from other sites' pages."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] == "http" and scope.get("method") in UNSAFE_METHODS
                and str(scope.get("path", "")).startswith("/api/")
                and cross_site(scope) is not None):
            body = json.dumps({"error": "cross-site request refused: this site's API "
                                        "answers its own pages (and scripts)"}).encode()
            await send({"type": "http.response.start", "status": 403, "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def _age_seconds(player: Player, now: datetime) -> float:
    try:
        created = datetime.fromisoformat(player.created_at)
    except (TypeError, ValueError):
        return 0.0  # unknown: treated as new
    if created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    return (now - created).total_seconds()


class RatedPlay:
    """Who may start a rated game now (a guest never; others within the hourly limit).

    :meth:`check` is called where an identity enters a rated game: creating one,
    posting or accepting a rated challenge, claiming a rated game's invitation. Counted
    in storage (``calls``), shared by every server process; ``clock`` (ms since the
    epoch) and ``wall`` are injectable."""

    def __init__(self, calls: StorageCaller, clock: Any = None, wall: Any = None) -> None:
        self.calls = calls
        self.everyone = SiteLimiter("rated", RATED_PER_HOUR, RATED_WINDOW, clock=clock)
        self.new = SiteLimiter("rated-new", NEW_RATED_PER_HOUR, RATED_WINDOW, clock=clock)
        self.wall = wall or (lambda: datetime.now(UTC))

    async def check(self, player: Player | None) -> None:
        """Raise ``HTTPException`` 403 (a guest) or 429 (too many rated games this
        hour); else count one rated game for ``player``. ``None`` (a client without a
        cookie) is let through: a seat without an identity is never rated."""
        if player is None:
            return
        if player.guest:
            raise HTTPException(403, N_("rated games are for named players: pick a name on "
                                        "your player page (it takes a second), then try "
                                        "again"))
        young = _age_seconds(player, self.wall()) < NEW_IDENTITY_SECONDS
        limiter, limit = ((self.new, NEW_RATED_PER_HOUR) if young
                          else (self.everyone, RATED_PER_HOUR))
        wait = await limiter.hit(self.calls, player.id)
        if wait is not None:
            minutes = int(wait) // 60 + 1
            refusal = (Phrase("at most {limit} rated games an hour in a player's first day; "
                              "try again in {minutes} min (casual games are not limited)",
                              limit=limit, minutes=minutes) if young
                       else Phrase("at most {limit} rated games an hour; try again in "
                                   "{minutes} min (casual games are not limited)",
                                   limit=limit, minutes=minutes))
            raise HTTPException(429, refusal, headers={"Retry-After": str(int(wait) + 1)})


def takes_rated_seat(match: Any, token: str | None, player: Player | None) -> bool:
    """Would claiming ``token`` seat ``player`` in a rated game (an invitation still
    open, and the player holds no seat of the game yet)?"""
    stored = match.stored
    if not stored.rated or match.is_over or player is None:
        return False
    if match.seats_of_player(player.id):
        return False
    return any(stored.players[seat].get("invite") == INVITE_OPEN
               for seat in match.seats_of(token))
