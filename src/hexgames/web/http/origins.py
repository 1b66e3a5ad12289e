"""Whether a browser's ``Origin`` is this site's own page: the same host and port as
the ``Host`` it connected to, over http or https. The cross-site guard, the sockets'
handshake and the identity-changing routes all ask it."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.websockets import WebSocket

__all__ = ["origin_allowed", "origin_matches", "refused_from_another_site"]


def origin_matches(origin: str, host: str) -> bool:
    """``origin`` (an ``Origin`` header) names ``host`` (the ``Host`` header), over http
    or https; ``null`` or another host or port does not."""
    parsed = urlsplit(origin)
    return bool(host) and parsed.scheme in ("http", "https") and parsed.netloc == host


def origin_allowed(connection: HTTPConnection) -> bool:
    """A browser always sends ``Origin``: it must be this site's own (same host and port
    as the ``Host`` the browser connected to). No ``Origin`` at all is a client that is
    not a browser (a bot, a script): allowed, as it carries no victim's credentials."""
    origin = connection.headers.get("origin")
    if origin is None:
        return True
    return origin_matches(origin, connection.headers.get("host", ""))


async def refused_from_another_site(websocket: WebSocket) -> bool:
    """Refuse the handshake of a socket another site's page opens (close code 4403: the
    browser sees HTTP 403), before anything is read or accepted; whether it was refused.
    Every socket route starts with it (a page elsewhere would act with the visitor's
    cookie: cross-site WebSocket hijacking)."""
    if origin_allowed(websocket):
        return False
    await websocket.close(code=4403)
    return True
