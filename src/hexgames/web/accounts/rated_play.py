"""Who may start a rated game now: guests (the name the site gave) do not play rated
games, and an identity starts at most :data:`RATED_PER_HOUR` rated games an hour
(:data:`NEW_RATED_PER_HOUR` in its first day). See docs/web.md, "Ratings".

An accounts rule, so it raises domain exceptions (:class:`NamedPlayersOnly`,
:class:`TooManyRatedGames`) that the HTTP edge's error table answers with 403 and 429.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Protocol

from hexgames.phrases import N_, Phrase
from hexgames.web.storage.site_limits import SiteLimiter, StorageCaller

__all__ = [
    "NEW_IDENTITY_SECONDS",
    "NEW_RATED_PER_HOUR",
    "RATED_PER_HOUR",
    "NamedPlayersOnly",
    "RatedPlay",
    "TooManyRatedGames",
]

#: Rated games an identity may start per hour, and in its first day.
RATED_PER_HOUR = 60
NEW_RATED_PER_HOUR = 10
NEW_IDENTITY_SECONDS = 24 * 3600.0
RATED_WINDOW = 3600.0


class RatedPlayer(Protocol):
    """What the rule reads of an identity (``web/http/identity.py``'s ``Player``)."""

    @property
    def id(self) -> str: ...

    @property
    def created_at(self) -> str: ...

    @property
    def guest(self) -> bool: ...


class NamedPlayersOnly(PermissionError):
    """A guest asked for a rated game (403)."""


class TooManyRatedGames(Exception):
    """Too many rated games started this hour (429); ``retry_after``: seconds to wait."""

    def __init__(self, phrase: Phrase, retry_after: int) -> None:
        super().__init__(phrase)
        self.phrase = phrase
        self.retry_after = retry_after


def _age_seconds(player: RatedPlayer, now: datetime) -> float:
    try:
        created = datetime.fromisoformat(player.created_at)
    except (TypeError, ValueError):
        return 0.0  # unknown: treated as new
    if created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    return (now - created).total_seconds()


class RatedPlay:
    """Who may start a rated game now (a guest never; others within the hourly limit).

    :meth:`check` is called where an identity enters a rated game: creating one,
    posting or accepting a rated challenge, claiming a rated game's invitation. Counted
    in storage (``calls``), shared by every server process; ``clock`` (ms since the
    epoch) and ``wall`` are injectable."""

    def __init__(self, calls: StorageCaller, clock: Any = None, wall: Any = None) -> None:
        self.calls = calls
        self.everyone = SiteLimiter("rated", RATED_PER_HOUR, RATED_WINDOW, clock=clock)
        self.new = SiteLimiter("rated-new", NEW_RATED_PER_HOUR, RATED_WINDOW, clock=clock)
        self.wall = wall or (lambda: datetime.now(UTC))

    async def check(self, player: RatedPlayer | None) -> None:
        """Raise :class:`NamedPlayersOnly` (a guest: 403) or :class:`TooManyRatedGames`
        (429 with ``Retry-After``); else count one rated game for ``player``. ``None``
        (a client without a cookie) is let through: a seat without an identity is never
        rated."""
        if player is None:
            return
        if player.guest:
            raise NamedPlayersOnly(N_("rated games are for named players: pick a name on "
                                      "your player page (it takes a second), then try "
                                      "again"))
        young = _age_seconds(player, self.wall()) < NEW_IDENTITY_SECONDS
        limiter, limit = ((self.new, NEW_RATED_PER_HOUR) if young
                          else (self.everyone, RATED_PER_HOUR))
        wait = await limiter.hit(self.calls, player.id)
        if wait is not None:
            minutes = int(wait) // 60 + 1
            refusal = (Phrase("at most {limit} rated games an hour in a player's first day; "
                              "try again in {minutes} min (casual games are not limited)",
                              limit=limit, minutes=minutes) if young
                       else Phrase("at most {limit} rated games an hour; try again in "
                                   "{minutes} min (casual games are not limited)",
                                   limit=limit, minutes=minutes))
            raise TooManyRatedGames(refusal, retry_after=int(wait) + 1)
