"""Which host names the site answers to, and which page origins may act on it.

Two checks, as an ASGI middleware (:class:`HostGuard`) before every route and socket:

- **Host**: with an allowed set (``hexgames serve``: :func:`allowed_hosts`), a request
  whose ``Host`` header names another host is refused (HTTP 400; a WebSocket's handshake
  is refused). This stops DNS rebinding: a page of ``evil.org`` whose name was re-pointed
  at this server sends ``Host: evil.org`` (and ``Origin: http://evil.org``, which the
  origin checks alone accept, since both name the same host).
- **Scheme**: a browser page's ``Origin`` on a state-changing request (``POST``... under
  ``/api/``) or a WebSocket must use the scheme the request came with (``http`` on an
  http site; a trusted proxy's ``X-Forwarded-Proto`` is honoured, as uvicorn applies it
  to the request for ``--trusted-proxy`` only). ``https://site`` acting on
  ``http://site`` is another origin (403).

``create_app`` without an allowed set (tests, scripts) checks only the scheme.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from hexgames.phrases import N_, Phrase
from hexgames.web.http.refusals import refused, send_error
from hexgames.web.http.security_headers import SECURITY_HEADERS

__all__ = ["LOOPBACK_NAMES", "HostGuard", "allowed_hosts", "host_allowed", "split_host"]

#: Names of this machine that only a local client can use (with any port).
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
WILDCARDS = ("0.0.0.0", "::", "")


def split_host(value: str) -> tuple[str, int | None]:
    """``"Example.org:8000"`` -> ``("example.org", 8000)``; ``"[::1]:80"`` ->
    ``("::1", 80)``; a port that is not a number -> ``(name, -1)``."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif value.count(":") == 1:
        name, _, port_text = value.partition(":")
    else:
        name, port_text = value, ""
    if not port_text:
        return name.rstrip("."), None
    return name.rstrip("."), int(port_text) if port_text.isdigit() else -1


def is_loopback(name: str) -> bool:
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def allowed_hosts(bind: str, port: int, named: Iterable[str] = (),
                  site_url: str | None = None) -> frozenset[str] | None:
    """The hosts ``hexgames serve`` answers to: each ``--allowed-host`` (``name`` or
    ``name:port``), the host of ``--site-url``, the bind address with its port, and the
    loopback names with any port (``localhost``, ``127.0.0.1``...: only this machine
    uses them, so no other site's name can be re-pointed to them). ``None`` (no check)
    for a wildcard bind (``0.0.0.0``) when nothing was named: the site is then reached
    by addresses and names the server cannot know (``hexgames serve`` warns)."""
    hosts = {value.strip().lower() for value in named if value.strip()}
    if site_url:
        netloc = urlsplit(site_url).netloc.lower()
        if netloc:
            hosts.add(netloc)
    bind = bind.strip().lower()
    if bind in WILDCARDS and not hosts:
        return None
    if bind not in WILDCARDS:
        hosts.add(f"[{bind}]:{port}" if ":" in bind else f"{bind}:{port}")
    hosts.add("loopback")
    return frozenset(hosts)


def host_allowed(host: str | None, allowed: frozenset[str]) -> bool:
    """Whether a ``Host`` header names one of ``allowed`` (:func:`allowed_hosts`)."""
    if not host:
        return False
    name, port = split_host(host)
    if port == -1 or not name:
        return False
    if "loopback" in allowed and is_loopback(name):
        return True
    for entry in allowed:
        if entry == "loopback":
            continue
        allowed_name, allowed_port = split_host(entry)
        if allowed_name == name and (allowed_port is None or allowed_port == port):
            return True
    return False


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def origin_scheme_wrong(scope: Scope) -> bool:
    """A page's ``Origin`` on a request that acts (a state-changing ``/api/`` request or
    a WebSocket) names this host but another scheme than the request's (``https://`` on
    http). An ``Origin`` of another host is left to the origin checks (``cross_site``,
    ``same_origin``, ``origin_allowed``), which refuse it in their own words."""
    kind = scope["type"]
    if kind == "http" and not (scope.get("method") in UNSAFE_METHODS
                               and str(scope.get("path", "")).startswith("/api/")):
        return False
    origin = _header(scope, b"origin")
    if origin is None or origin.strip() == "null":
        return False  # no Origin: not a browser page; "null": the origin checks refuse it
    parsed = urlsplit(origin.strip())
    if parsed.netloc.lower() != (_header(scope, b"host") or "").strip().lower():
        return False
    scheme = str(scope.get("scheme", "http"))
    wanted = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    return parsed.scheme.lower() != wanted


class HostGuard:
    """Refuse requests to another host name (``allowed``: :func:`allowed_hosts`, ``None``
    for no Host check) and acting requests from a page of another scheme (see the
    module's doc)."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str] | None = None) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if self.allowed is not None and not host_allowed(_header(scope, b"host"),
                                                         self.allowed):
            await self._refuse(scope, receive, send, 400, N_(
                "this site does not answer to that host name; open it by its own address"))
            return
        if origin_scheme_wrong(scope):
            await self._refuse(scope, receive, send, 403, N_(
                "cross-site request refused: the page's address has another scheme "
                "(https or http) than this site's"))
            return
        await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, status: int,
                      message: Phrase | str) -> None:
        if scope["type"] == "websocket":
            # Closing before accepting refuses the handshake (HTTP 403).
            if (await receive())["type"] == "websocket.connect":
                await send({"type": "websocket.close", "code": 4403})
            return
        await send_error(send, status, refused(scope, message), SECURITY_HEADERS)
