"""The typed parts of a stored game: its :class:`Mode`, its :class:`GameMeta` and its
seats (:class:`SeatPlayer`).

A game's ``meta`` column holds, as JSON, what the site keeps beside the actions (the time
control, the clock, offers, the seat to move...). The rest of the app reads and writes it
as a :class:`GameMeta` with typed fields; only the storage turns it into JSON and back
(:meth:`GameMeta.to_dict`, :meth:`GameMeta.from_dict`), so the stored shape is written
in one place and the JSON stays what it was (the same keys and values: rows written before
the type existed load as they are).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypedDict

__all__ = ["GameMeta", "Mode", "SeatPlayer"]


class Mode(StrEnum):
    """How a game is played: against the computer, at one screen, or online. Stored and
    sent as its value (a ``str``: equal to ``"online"``, JSON ``"online"``)."""

    AI = "ai"
    HOTSEAT = "hotseat"
    ONLINE = "online"


class SeatPlayer(TypedDict, total=False):
    """One seat of a game as stored (``players``, one per seat, in JSON): a typed dict,
    so the stored objects and the protocol that shows them stay exactly what they were.
    Every seat has ``kind`` and ``level``; the other keys only when they apply."""

    #: ``"human"`` or ``"ai"``.
    kind: str
    #: The computer's level (1-5) for an ``ai`` seat; ``None`` for a human one.
    level: int | None
    #: The identity holding the seat (hexgames.web.http.identity), once it is held.
    player_id: str
    #: ``"open"`` while the seat's invitation link has not been opened.
    invite: str
    #: A name shown for the seat (rows of older servers; ``matches.seat_name`` reads it).
    name: str


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _dict(value: Any) -> dict[str, Any] | None:
    return dict(value) if isinstance(value, dict) and value else None


@dataclass
class GameMeta:
    """What the site keeps beside a game's actions (the ``meta`` column).

    Every field is optional: a game has only those its mode and history gave it. The
    clock and the time control stay in their stored form (``Clock.to_dict()``,
    ``TimeControl.to_dict()``): their classes live above the storage, in
    :mod:`hexgames.web.game.clocks`, which reads them (``clock_in``, ``put_clock``).

    Keys this class does not know (written by a newer server, or by hand) are kept in
    ``extra`` and written back unchanged, so reading and writing a row never loses one.
    """

    #: The seek (lobby challenge) the game came from.
    seek: str | None = None
    #: The quick-pairing pool it came from.
    pool: str | None = None
    #: The tournament it is a game of (its id).
    tournament: str | None = None
    #: The game this one is the rematch of.
    rematch_of: str | None = None
    #: The time control (``TimeControl.to_dict()``; ``None``: an old game, untimed).
    control: dict[str, Any] | None = None
    #: The seat to move in an online game under way (``None``: over, or not online).
    turn: int | None = None
    #: The clock (``Clock.to_dict()``; ``None``: untimed).
    clock: dict[str, Any] | None = None
    #: When the running side's flag falls (ms since the epoch; also a column of its own,
    #: indexed, so running clocks are found without reading every meta).
    deadline: int | None = None
    #: Pending offers: ``takeback`` (the asking seat...), ``rematch`` (seats asking).
    offers: dict[str, Any] = field(default_factory=dict)
    #: The id of the rematch created from this game.
    rematch: str | None = None
    #: How the game ended besides the rules (``timeout``, ``resignation``, ``aborted``...).
    termination: str | None = None
    #: Keys this version does not know, kept as read.
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None) -> GameMeta:
        """The meta of a stored row (the JSON object as parsed; ``None`` or ``{}``: a
        game with none). Tolerant of old rows: a missing key is ``None`` (or no
        offers), an explicit ``null`` the same."""
        raw = dict(raw or {})
        meta = cls(
            seek=_str(raw.pop("seek", None)),
            pool=_str(raw.pop("pool", None)),
            tournament=_str(raw.pop("tournament", None)),
            rematch_of=_str(raw.pop("rematch_of", None)),
            control=_dict(raw.pop("control", None)),
            turn=_int(raw.pop("turn", None)),
            clock=_dict(raw.pop("clock", None)),
            deadline=_int(raw.pop("deadline", None)),
            offers=dict(raw.pop("offers", None) or {}),
            rematch=_str(raw.pop("rematch", None)),
            termination=_str(raw.pop("termination", None)),
        )
        meta.extra = raw
        return meta

    def to_dict(self) -> dict[str, Any]:
        """The JSON object stored: the fields set, under the keys they always had
        (``None`` fields and empty offers are left out: every reader, old or new,
        reads a missing key as ``None`` or no offers), then the unknown keys kept."""
        stored: dict[str, Any] = {}
        for name in ("seek", "pool", "tournament", "rematch_of", "control", "turn", "clock",
                     "deadline"):
            value = getattr(self, name)
            if value is not None:
                stored[name] = value
        if self.offers:
            stored["offers"] = self.offers
        for name in ("rematch", "termination"):
            value = getattr(self, name)
            if value is not None:
                stored[name] = value
        for key, value in self.extra.items():
            stored.setdefault(key, value)
        return copy.deepcopy(stored)

    def copy(self) -> GameMeta:
        """A deep copy (a change applied to it leaves this one as it is)."""
        return copy.deepcopy(self)

    @property
    def control_kind(self) -> str:
        """The time control's kind as stored (``"untimed"`` when there is none)."""
        return str((self.control or {}).get("kind", "untimed"))

    @property
    def clock_running(self) -> bool:
        """Whether the stored clock runs for a side (``False``: stopped, or none)."""
        return (self.clock or {}).get("running") is not None
