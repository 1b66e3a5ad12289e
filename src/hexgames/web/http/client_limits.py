"""What one client address may hold at once (:class:`PerClient`, the outermost
middleware: open sockets and HTTP requests in flight, per address and in all) and the
in-flight caps of costly requests (:class:`ClientLimit`: uploads, hints, analyses).

No bound here counts open sockets against HTTP requests: one address holding many
sockets gets its own refusals (1013) while everybody else's requests are answered
(docs/web.md, "Limits and hardening").
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Iterator
from typing import Any

from fastapi import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from hexgames.phrases import N_, Phrase
from hexgames.web.http.addresses import client_address
from hexgames.web.http.refusals import refuse_request, refuse_socket
from hexgames.web.storage.site_limits import SiteLimiter

#: WebSockets (game and lobby sockets together) one client address may hold open; past it
#: a socket is accepted, told why and closed with 1013 ("try again later").
MAX_SOCKETS_PER_ADDRESS = 32
#: HTTP requests one client address may have in flight at once (429 beyond).
MAX_REQUESTS_PER_ADDRESS = 32
#: HTTP requests in flight in the whole process (503 beyond): the bound that uvicorn's
#: ``limit_concurrency`` was, counting requests only (an idle connection or a socket is
#: no request, so it cannot make the site answer 503).
MAX_REQUESTS = 1000
#: Record uploads (``POST /api/records``) and hints one client address may have in flight.
MAX_UPLOADS_PER_ADDRESS = 2
MAX_HINTS_PER_ADDRESS = 2
#: Analysis requests (``/api/analysis/...``) one client address may have in flight.
MAX_ANALYSES_PER_ADDRESS = 2
#: Record uploads accepted per client address per ``UPLOAD_WINDOW`` seconds (429 with
#: ``Retry-After`` past them): each stores and replays a game of up to 50,000 actions.
UPLOADS_PER_WINDOW = 20
UPLOAD_WINDOW = 600.0

#: What :class:`ClientLimit` counts unless told (its refusal names them).
ANALYSES = N_("analyses")


class ClientLimit:
    """At most ``limit`` requests in flight per client address (429 with ``Retry-After``
    beyond); ``what`` names them in the refusal."""

    def __init__(self, limit: int, what: str = ANALYSES) -> None:
        self.limit = limit
        self.what = what
        self.active: Counter[str] = Counter()

    @contextlib.contextmanager
    def hold(self, request: Any) -> Iterator[None]:
        client = request.client.host if request.client else "?"
        if self.active[client] >= self.limit:
            raise HTTPException(
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


class Exports:
    """The game exports (zips) this process is writing (``active``: a zip is written
    by the process that answers), each client address's recent ones (``rate``: counted
    in storage, for the whole site, so that a client spreading its requests over the
    server processes gets no more) and the filing of finished games before one
    (``filing``: one at a time, replays are CPU work)."""

    def __init__(self, per_window: int, window: float) -> None:
        self.active = 0
        self.rate = SiteLimiter("export", per_window, window)
        self.filing = asyncio.Lock()


class ClientLimits:
    """The per-address counters of one app (``AppState.client_limits``; tests lower the
    bounds on it): open WebSockets and HTTP requests in flight per address and in total,
    and the in-flight caps of uploads and hints."""

    def __init__(self, sockets_per_address: int = MAX_SOCKETS_PER_ADDRESS,
                 requests_per_address: int = MAX_REQUESTS_PER_ADDRESS,
                 max_requests: int = MAX_REQUESTS) -> None:
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
        self.analyses = ClientLimit(MAX_ANALYSES_PER_ADDRESS)


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
