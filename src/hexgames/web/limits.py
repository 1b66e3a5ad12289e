"""ASGI middleware guarding the site: a request body limit and the browser security headers.

Both are plain ASGI (no Starlette ``BaseHTTPMiddleware``), so they cost one function call
per message and never buffer a body.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
                    await self._refuse(send)
                    return
        seen = 0
        limit = self.limit

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise HTTPException(413, self.message())
            return message

        await self.app(scope, counted, send)

    def message(self) -> str:
        return f"the request body is too large (at most {self.limit} bytes)"

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"error": self.message()}).encode()
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


def guarded_http_protocol() -> type:
    """uvicorn's httptools protocol with a header timeout (uvicorn has none: a client
    sending half a request line would hold its connection open for ever)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class GuardedHttpProtocol(HttpToolsProtocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
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
            idle = self.cycle is None or self.cycle.response_complete
            if idle and self._header_timer is None:
                self._arm()  # a new request begins: its headers must arrive in time
            super().data_received(data)

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
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
