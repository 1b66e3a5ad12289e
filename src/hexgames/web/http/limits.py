"""ASGI middleware guarding the site: a request body limit, the browser security headers
and what one client address may hold (:class:`PerClient`: sockets and requests in
flight); uvicorn's HTTP protocol with a header timeout and bounded TCP connections
(:func:`guarded_http_protocol`); rate limits.

The middleware is plain ASGI (no Starlette ``BaseHTTPMiddleware``), so it costs one
function call per message and never buffers a body.

No bound here counts idle connections or open sockets against HTTP requests: one address
holding many sockets or connections gets its own refusals (1013, or connections closed at
once) while everybody else's requests are answered (docs/web.md, "Limits and hardening").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hexgames.phrases import N_, Phrase

#: Every page: scripts only from this site (no inline script, no eval), nothing from the
#: internet, no framing. Inline *styles* stay allowed: the board SVGs carry style
#: attributes. ``connect-src 'self'`` covers the same-origin WebSocket.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    # Seat tokens may be in a page's address: never send it to another site.
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class BodyLimit:
    """Refuse request bodies larger than ``limit`` bytes with 413.

    A ``Content-Length`` over the limit is answered at once, before any of the body is
    read; a chunked body is counted as it arrives and refused as soon as it passes the
    limit (the application never holds more than ``limit`` bytes of it).
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared < 0 or declared > self.limit:
                    await self._refuse(scope, send)
                    return
        seen = 0
        limit = self.limit

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    from fastapi import HTTPException as FastAPIHTTPException

                    raise FastAPIHTTPException(413, self.message())  # a phrase: translated
            return message

        await self.app(scope, counted, send)

    def message(self) -> Phrase:
        return Phrase("the request body is too large (at most {limit} bytes)",
                      limit=self.limit)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        body = json.dumps(refused(scope, self.message())).encode()
        await send({
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *SECURITY_HEADERS,
            ],
        })
        await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """Add :data:`SECURITY_HEADERS` to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", ())}
                extra: list[Any] = [h for h in SECURITY_HEADERS if h[0] not in present]
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


#: Seconds a client may take to send a request's headers (from connecting, or from the
#: first byte of a later request on a kept-alive connection); then it is disconnected.
HEADER_TIMEOUT = 10.0


# ----------------------------------------------------------- per-client bounds
#: WebSockets (game and lobby sockets together) one client address may hold open; past it
#: a socket is accepted, told why and closed with 1013 ("try again later").
MAX_SOCKETS_PER_ADDRESS = 32
#: HTTP requests one client address may have in flight at once (429 beyond).
MAX_REQUESTS_PER_ADDRESS = 32
#: HTTP requests in flight in the whole process (503 beyond): the bound that uvicorn's
#: ``limit_concurrency`` was, counting requests only (an idle connection or a socket is
#: no request, so it cannot make the site answer 503).
MAX_REQUESTS = 1000
#: TCP connections one peer address may hold open (HTTP and WebSocket alike; a trusted
#: proxy is exempt); past it a new connection is closed as soon as it is accepted.
MAX_CONNECTIONS_PER_ADDRESS = 64
#: TCP connections in the whole process (kept below the file-descriptor limit).
MAX_CONNECTIONS = 4096
#: Record uploads (``POST /api/records``) and hints one client address may have in flight.
MAX_UPLOADS_PER_ADDRESS = 2
MAX_HINTS_PER_ADDRESS = 2
#: Record uploads accepted per client address per ``UPLOAD_WINDOW`` seconds (429 with
#: ``Retry-After`` past them): each stores and replays a game of up to 50,000 actions.
UPLOADS_PER_WINDOW = 20
UPLOAD_WINDOW = 600.0
#: Seconds a refused client is told to wait (``Retry-After``).
RETRY_AFTER = 5


def guarded_http_protocol(trusted_proxies: Any = (),
                          max_per_address: int = MAX_CONNECTIONS_PER_ADDRESS,
                          max_connections: int = MAX_CONNECTIONS) -> type:
    """uvicorn's httptools protocol with a header timeout (uvicorn has none: a client
    sending half a request line would hold its connection open for ever) and bounded TCP
    connections: at most ``max_per_address`` per peer address (``trusted_proxies``, the
    addresses or networks of ``--trusted-proxy``, are exempt: each carries many clients)
    and ``max_connections`` in all; past either, a new connection is closed as soon as it
    is accepted. The count covers a connection for its whole life, after an upgrade to a
    WebSocket too (the upgraded protocol releases it when the connection is lost)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    networks = parse_proxies(trusted_proxies)
    #: peer address -> its open transports (not a trusted proxy's); every transport
    #: counted -> its peer's key (None: a trusted proxy).
    by_peer: dict[str, set[Any]] = {}
    counted: dict[Any, str | None] = {}

    def release(transport: Any) -> None:
        if transport in counted:
            key = counted.pop(transport)
            mine = by_peer.get(key) if key is not None else None
            if key is not None and mine is not None:
                mine.discard(transport)
                if not mine:
                    del by_peer[key]

    def prune(transports: list[Any]) -> None:
        """Forget transports already closed (a safety net: each is released when its
        connection is lost)."""
        for transport in transports:
            if transport.is_closing():
                release(transport)

    def admit(peer: str | None, transport: Any) -> bool:
        if len(counted) >= max_connections:
            prune(list(counted))
            if len(counted) >= max_connections:
                return False
        key = None if is_trusted(peer, networks) else (peer or "?")
        if key is not None:
            if len(by_peer.get(key, ())) >= max_per_address:
                prune(list(by_peer[key]))
                if len(by_peer.get(key, ())) >= max_per_address:
                    return False
            by_peer.setdefault(key, set()).add(transport)
        counted[transport] = key
        return True

    class GuardedHttpProtocol(HttpToolsProtocol):
        _header_timer: asyncio.TimerHandle | None = None
        _refused = False
        open_by_peer = by_peer  # (read by tests and for debugging)

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if not admit(self.client[0] if self.client else None, transport):
                self._refused = True
                transport.close()  # connection_lost follows: nothing else to undo
                return
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(HEADER_TIMEOUT, self._too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _too_slow(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self._refused:
                return  # too many connections: read nothing
            idle = self.cycle is None or self.cycle.response_complete
            if idle and self._header_timer is None:
                self._arm()  # a new request begins: its headers must arrive in time
            super().data_received(data)

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def handle_websocket_upgrade(self) -> None:
            transport = self.transport
            super().handle_websocket_upgrade()
            upgraded = transport.get_protocol()
            if upgraded is self:  # pragma: no cover - uvicorn did not switch protocols
                return
            lost = upgraded.connection_lost

            def connection_lost(exc: Exception | None) -> None:
                release(transport)
                lost(exc)

            upgraded.connection_lost = connection_lost  # type: ignore[method-assign]

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            release(self.transport)
            super().connection_lost(exc)

    return GuardedHttpProtocol


class RateLimiter:
    """At most ``attempts`` hits per key within ``window`` seconds (a sliding window,
    kept in this process's memory; ``clock`` is injectable for tests).

    Used for logins and password checks: :meth:`hit` records an attempt and returns
    ``None``, or, when the key is over its limit, the seconds until it may try again
    (the attempt is then not recorded). At most ``max_keys`` keys are remembered (the
    oldest are forgotten first), so a flood of keys cannot exhaust memory.
    """

    def __init__(self, attempts: int, window: float, max_keys: int = 10_000,
                 clock: Any = None) -> None:
        import time
        from collections import OrderedDict

        self.attempts = attempts
        self.window = window
        self.max_keys = max_keys
        self.clock = clock or time.monotonic
        self._hits: OrderedDict[str, list[float]] = OrderedDict()

    def hit(self, key: str) -> float | None:
        now = self.clock()
        hits = [t for t in self._hits.pop(key, []) if now - t < self.window]
        if len(hits) >= self.attempts:
            self._hits[key] = hits
            return max(0.0, self.window - (now - hits[0]))
        hits.append(now)
        self._hits[key] = hits
        while len(self._hits) > self.max_keys:
            self._hits.popitem(last=False)
        return None


def client_address(scope: Scope) -> str:
    """The address limits are counted by: the peer of the connection, or the client a
    trusted proxy names (``hexgames serve --trusted-proxy``: uvicorn rewrites
    ``scope["client"]`` only for the proxies it was told to trust)."""
    client = scope.get("client")
    return str(client[0]) if client else "?"


#: What :class:`ClientLimit` counts unless told (its refusal names them).
ANALYSES = N_("analyses")


class ClientLimit:
    """At most ``limit`` requests in flight per client address (429 with ``Retry-After``
    beyond); ``what`` names them in the refusal."""

    def __init__(self, limit: int, what: str = ANALYSES) -> None:
        from collections import Counter

        self.limit = limit
        self.what = what
        self.active: Counter[str] = Counter()

    @contextlib.contextmanager
    def hold(self, request: Any) -> Iterator[None]:
        from fastapi import HTTPException as FastAPIHTTPException

        client = request.client.host if request.client else "?"
        if self.active[client] >= self.limit:
            raise FastAPIHTTPException(
                429, Phrase("at most {limit} {what} at a time per client; wait for one to "
                            "end", limit=self.limit, what=Phrase(self.what)),
                headers={"Retry-After": "2"})
        self.active[client] += 1
        try:
            yield
        finally:
            self.active[client] -= 1
            if not self.active[client]:
                del self.active[client]


class ClientLimits:
    """The per-address counters of one app (``app.state.client_limits``; tests lower the
    bounds on it): open WebSockets and HTTP requests in flight per address and in total,
    and the in-flight caps of uploads and hints."""

    def __init__(self, sockets_per_address: int = MAX_SOCKETS_PER_ADDRESS,
                 requests_per_address: int = MAX_REQUESTS_PER_ADDRESS,
                 max_requests: int = MAX_REQUESTS) -> None:
        from collections import Counter

        from hexgames.web.storage.site_limits import SiteLimiter

        self.sockets_per_address = sockets_per_address
        self.requests_per_address = requests_per_address
        self.max_requests = max_requests
        self.sockets: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()
        self.total_requests = 0
        self.uploads = ClientLimit(MAX_UPLOADS_PER_ADDRESS, N_("uploads"))
        # Counted in storage, shared by every server process (hexgames.web.storage.site_limits).
        self.upload_rate = SiteLimiter("upload", UPLOADS_PER_WINDOW, UPLOAD_WINDOW)
        self.hints = ClientLimit(MAX_HINTS_PER_ADDRESS, N_("hints"))


def limits_of(app: Any) -> ClientLimits:
    """``app.state.client_limits`` (created if the app has none)."""
    limits = getattr(app.state, "client_limits", None)
    if limits is None:
        limits = app.state.client_limits = ClientLimits()
    return limits


class PerClient:
    """Bound what one client address holds: open WebSockets (refused with 1013 and a
    message past :attr:`ClientLimits.sockets_per_address`) and HTTP requests in flight
    (429 with ``Retry-After`` past :attr:`ClientLimits.requests_per_address`; 503 past
    :attr:`ClientLimits.max_requests` in total). The outermost middleware: a refusal
    costs no identity, no body and no storage call."""

    def __init__(self, app: ASGIApp, limits: ClientLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._socket(scope, receive, send)
        elif scope["type"] == "http":
            await self._request(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        limits = self.limits
        address = client_address(scope)
        if limits.sockets[address] >= limits.sockets_per_address:
            await refuse_socket(receive, send, Phrase(
                "at most {limit} open sockets per client address; close some pages, or try "
                "again later", limit=limits.sockets_per_address), scope)
            return
        limits.sockets[address] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            limits.sockets[address] -= 1
            if limits.sockets[address] <= 0:
                del limits.sockets[address]

    async def _request(self, scope: Scope, receive: Receive, send: Send) -> None:
        limits = self.limits
        address = client_address(scope)
        if limits.requests[address] >= limits.requests_per_address:
            await refuse_request(send, 429, Phrase(
                "at most {limit} requests at a time per client address; try again in a "
                "moment", limit=limits.requests_per_address), scope)
            return
        if limits.total_requests >= limits.max_requests:
            await refuse_request(send, 503, N_("the server is busy; try again in a moment"),
                                 scope)
            return
        limits.requests[address] += 1
        limits.total_requests += 1
        try:
            await self.app(scope, receive, send)
        finally:
            limits.total_requests -= 1
            limits.requests[address] -= 1
            if limits.requests[address] <= 0:
                del limits.requests[address]


def refused(scope: Scope | None, message: Phrase | str) -> dict[str, str]:
    """The error shape (``{"error": English, "message": the visitor's language}``) of a
    refusal made before the app (the language read from ``scope``, as the app does)."""
    english = str(message)
    if scope is None or scope.get("type") not in ("http", "websocket"):
        return {"error": english, "message": english}
    from starlette.requests import HTTPConnection

    from hexgames.web.http.language import request_translator

    return {"error": english, "message": request_translator(HTTPConnection(scope)).text(message)}


async def refuse_socket(receive: Receive, send: Send, message: Phrase | str,
                        scope: Scope | None = None) -> None:
    """Accept a WebSocket, send ``{"type": "error", "message"}`` (in the visitor's
    language) and close it with 1013 (try again later), as the hub's own refusals do."""
    with contextlib.suppress(Exception):  # a client gone meanwhile: nothing to tell
        if (await receive())["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send",
                    "text": json.dumps({"type": "error",
                                        "message": refused(scope, message)["message"]})})
        await send({"type": "websocket.close", "code": 1013, "reason": "try again later"})


async def refuse_request(send: Send, status: int, message: Phrase | str,
                         scope: Scope | None = None) -> None:
    body = json.dumps(refused(scope, message)).encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", str(RETRY_AFTER).encode()),
            (b"connection", b"close"),
            *SECURITY_HEADERS,
        ],
    })
    await send({"type": "http.response.body", "body": body})


# ------------------------------------------------------------ TCP connections
def parse_proxies(values: Any) -> list[Any]:
    """``--trusted-proxy`` values (addresses or networks) as networks; ``ValueError``
    names a bad one."""
    import ipaddress

    networks = []
    for value in values or ():
        try:
            networks.append(ipaddress.ip_network(str(value).strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an IP address or network: {str(value)[:60]!r}") from None
    return networks


def is_trusted(host: str | None, networks: list[Any]) -> bool:
    import ipaddress

    if not host or not networks:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(address in network for network in networks)


def raise_open_files(wanted: int = 65536) -> int:
    """Raise this process's soft limit of open files towards ``wanted`` (never above the
    hard limit); returns the soft limit now in force (``wanted`` where unknown)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Unix
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return wanted if soft == resource.RLIM_INFINITY else int(soft)
