"""The cross-site guard (ASGI middleware): every state-changing API request (``POST``,
``PUT``, ``PATCH``, ``DELETE`` under ``/api/``) sent by a page of another site (another
host *or port*: a form on ``site:8001`` posting to ``site:8000``, whose ``SameSite=Lax``
cookie a browser still sends) is refused with 403 before any route runs. A browser
names the page's origin in ``Origin`` on every such request; one that sends none but
says ``Sec-Fetch-Site`` other than ``same-origin``/``none`` is refused too. A request
with neither header is not from a browser page (a script, ``hexgames loadtest``,
``curl``): it is let through, as the API is documented for scripts.

(Who may play rated games is an accounts rule: :mod:`hexgames.web.accounts.rated_play`.)
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from hexgames.web.http.origins import origin_matches
from hexgames.web.http.refusals import refused, send_error

__all__ = ["CrossSiteGuard", "cross_site"]

#: Methods that change something (``GET``/``HEAD``/``OPTIONS`` never do here).
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: ``Sec-Fetch-Site`` values of a request made by the site's own pages (or typed by the
#: person: ``none``).
SAME_SITE_FETCH = frozenset({"same-origin", "none"})
#: What a refused request is told (in English: API clients match on it).
REFUSAL = "cross-site request refused: this site's API answers its own pages (and scripts)"


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def cross_site(scope: Scope) -> str | None:
    """Why a request comes from another site's page (``None``: it does not).

    ``Origin`` must name this site: the host and port the browser connected to (the
    ``Host`` header), over http or https. ``Origin: null`` (a sandboxed frame, a file)
    is another site, unless the browser says ``Sec-Fetch-Site: same-origin`` (a form of
    the site's own page, under its ``no-referrer`` policy). Without ``Origin``, a
    ``Sec-Fetch-Site`` of ``cross-site`` or ``same-site`` (another port or subdomain) is
    refused as well."""
    origin = _header(scope, b"origin")
    fetch_site = _header(scope, b"sec-fetch-site")
    if origin is not None:
        if origin_matches(origin.strip(), _header(scope, b"host") or ""):
            return None
        if origin.strip() == "null" and (fetch_site or "").strip().lower() == "same-origin":
            # A form of the site's own page: under the site's "Referrer-Policy:
            # no-referrer" a browser sends "Origin: null" with it, and says in
            # Sec-Fetch-Site (which no page can set) that it comes from this origin.
            return None
        return "another site's page"
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
            await send_error(send, 403, refused(scope, REFUSAL))
            return
        await self.app(scope, receive, send)
