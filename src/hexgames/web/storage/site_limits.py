"""Rate limits that hold for the whole site, whatever the number of server processes.

``hexgames serve --workers 2`` runs several processes on one PostgreSQL: a limit kept in
each process's memory (:class:`~hexgames.web.http.rate_limit.RateLimiter`) would let a client
that lands on each process in turn have the limit once per process. A
:class:`SiteLimiter` counts in storage instead (``rate_limits``, through the storage
threads like every storage call: :meth:`~hexgames.web.storage.Storage.limit_hit`), so
all processes share one count per key. Each call takes what runs storage calls off the
event loop (:class:`StorageCaller`: the app's ``service``).

The window is fixed, starting with a key's first hit: ``attempts`` hits are allowed until
it ends, then a new window starts with the next hit. (A burst at the end of one window
and the start of the next may reach twice the limit within one window's length: the
price of one atomic statement per hit instead of a row per hit.)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from hexgames.web.storage import Storage

__all__ = ["SiteLimiter", "StorageCaller"]


class StorageCaller(Protocol):
    """What a limiter needs: the storage, and a way to call it off the event loop (the
    app's :class:`~hexgames.web.service.GameService`)."""

    @property
    def storage(self) -> Storage: ...

    async def call_storage(self, function: Callable[..., Any], *args: Any) -> Any: ...


def _now_ms() -> int:
    return int(time.time() * 1000)


class SiteLimiter:
    """At most ``attempts`` hits per key within ``window`` seconds, counted in storage
    (shared by every server process). ``name`` starts every key of this limit in the
    table (``login-ip``, ``new-identity``...); ``attempts`` may be changed (tests lower
    or raise it) and is read at each hit. ``clock`` gives ms since the epoch (tests)."""

    def __init__(self, name: str, attempts: int, window: float, clock: Any = None) -> None:
        self.name = name
        self.attempts = attempts
        self.window = window
        self.clock = clock or _now_ms

    def key(self, key: str) -> str:
        return f"{self.name}:{key}"[:300]

    async def hit(self, calls: StorageCaller, key: str) -> float | None:
        """Count a hit of ``key``: ``None`` when it is within the limit, else the
        seconds until the window ends (the hit is refused; it is still counted, which
        changes nothing: the window's end does not move)."""
        now = self.clock()
        hits, expires = await calls.call_storage(
            calls.storage.limit_hit, self.key(key), int(self.window * 1000), now)
        return None if hits <= self.attempts else _seconds(expires, now)

    async def spent(self, calls: StorageCaller, key: str) -> float | None:
        """Whether ``key`` has used its hits (the seconds until its window ends), or
        ``None``; counts nothing (a check before the counted event: a failed login)."""
        now = self.clock()
        hits, expires = await calls.call_storage(calls.storage.limit_count, self.key(key), now)
        return None if hits < self.attempts else _seconds(expires, now)

    async def count(self, calls: StorageCaller, key: str) -> None:
        """Count an event of ``key`` (a wrong password), whatever the limit."""
        await calls.call_storage(calls.storage.limit_hit, self.key(key), int(self.window * 1000),
                         self.clock())


def _seconds(expires: int, now: int) -> float:
    return max(0.0, (expires - now) / 1000)
