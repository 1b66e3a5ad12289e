"""Whether a browser's ``Origin`` is this site's own page: the same host and port as
the ``Host`` it connected to, over http or https. The cross-site guard, the sockets'
handshake and the identity-changing routes all ask it."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

__all__ = ["origin_allowed", "origin_matches"]


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
