"""TCP connections: uvicorn's HTTP protocol with a header timeout and bounded connections
per peer address and in all (:func:`guarded_http_protocol`, a subclass of uvicorn's
``HttpToolsProtocol``: the one place the site leans on uvicorn's internals), and the
process's open-files limit raised to hold them (:func:`raise_open_files`).

No bound here counts idle connections against HTTP requests: one address holding many
connections gets its own refusals (connections closed at once) while everybody else's
requests are answered (docs/web.md, "Limits and hardening").
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from hexgames.web.http.addresses import is_trusted, parse_proxies

#: Seconds a client may take to send a request's headers (from connecting, or from the
#: first byte of a later request on a kept-alive connection); then it is disconnected.
HEADER_TIMEOUT = 10.0

#: TCP connections one peer address may hold open (HTTP and WebSocket alike; a trusted
#: proxy is exempt); past it a new connection is closed as soon as it is accepted.
MAX_CONNECTIONS_PER_ADDRESS = 64
#: TCP connections in the whole process (kept below the file-descriptor limit).
MAX_CONNECTIONS = 4096


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
