"""A rate limit kept in this process's memory (:class:`RateLimiter`): for what is
per process by nature (a zip being written here). Limits that must hold for the whole
site count in storage instead (:class:`~hexgames.web.storage.site_limits.SiteLimiter`)."""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any


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
