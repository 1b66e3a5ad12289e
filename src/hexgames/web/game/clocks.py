"""Game clocks kept by the server: real time (base + Fischer increment) and correspondence.

Pure and synchronous: every method takes the current time (milliseconds since the epoch,
from an injected clock, so tests never sleep) and nothing here knows about games, HTTP or
storage. The service calls :meth:`Clock.turn_ended` when the side to move changes (a
*turn*, however many actions the game's turn has: the protocol's ``is_turn_start``), and
persists :meth:`Clock.to_dict` with the game, so clocks survive reconnects and restarts.

Rules (documented in docs/web.md, "Clocks"):

- **Real time.** Each side has ``base`` ms; the running side's time goes down; when it
  ends its turn it gets ``increment`` ms (Fischer). The clock starts once each side has
  completed a turn (the first turn of each side is free, as on lichess; until then the
  game may be aborted). A side that has not made its first turn within
  :data:`FIRST_TURN_LIMIT_MS` has the game aborted by the server.
- **Lag.** The mover's elapsed time is reduced by the round trip it reports (measured by
  ping/pong), at most :data:`LAG_ALLOWANCE_MS` per turn and never below zero.
- **Correspondence.** ``days`` per turn: each turn starts with the full allowance (no
  banking), timeouts are adjudicated by the server.
- **Untimed**: no clock at all (``TimeControl.parse(None)``).
- **Rated real time** needs an expected length (:attr:`TimeControl.estimate_s`) of at
  least :data:`RATED_MIN_ESTIMATE_S` (:meth:`TimeControl.check_rated`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hexgames.phrases import N_, Phrase, nphrase

if TYPE_CHECKING:  # the clock helpers at the end only take a game's meta
    from hexgames.web.storage.meta import GameMeta

#: Most of a turn's elapsed time credited back for network lag (ms), as lichess does.
LAG_ALLOWANCE_MS = 500
DAY_MS = 86_400_000
#: A real-time game whose side to move has not made its first turn within this time
#: (ms) is aborted by the server (no result): an accepted challenge nobody plays.
FIRST_TURN_LIMIT_MS = 60_000
#: Bounds of what a time control may ask for.
MAX_BASE_S = 3 * 3600
MAX_INCREMENT_S = 600
MAX_DAYS = 14
#: A rated real-time game must be expected to last at least this long (s): a rating says
#: how well one plays, and a game of a few seconds measures the connection and the mouse.
#: The expected length is lichess's estimate, ``base_s + ESTIMATE_TURNS * increment_s``
#: (each side's time for a game of that many turns): 1 min + 0 s, 20 s + 1 s and the
#: quick pools (1+1 and up) are rated; 0.05 min + 0 s (3 s) is casual only.
RATED_MIN_ESTIMATE_S = 60
ESTIMATE_TURNS = 40

KINDS = ("untimed", "realtime", "correspondence")


def wall_ms() -> float:
    """The real clock (ms since the epoch): what the server uses outside tests."""
    return time.time() * 1000.0


Now = Callable[[], float]


@dataclass(frozen=True)
class TimeControl:
    """How much time a game gives: ``kind`` is ``untimed``, ``realtime`` (``base_s`` +
    ``increment_s`` per turn) or ``correspondence`` (``days`` per turn)."""

    kind: str = "untimed"
    base_s: float = 0.0
    increment_s: float = 0.0
    days: int = 0

    @classmethod
    def parse(cls, raw: Any) -> TimeControl:
        """A time control from client JSON (``None``: untimed); ``ValueError`` explains."""
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            raise ValueError(N_("a time control is an object with a kind"))
        kind = raw.get("kind", "untimed")
        if kind not in KINDS:
            raise ValueError(Phrase("unknown time control kind {kind}; expected one of "
                                    "{kinds}", kind=repr(str(kind)[:30]),
                                    kinds=", ".join(KINDS)))
        if kind == "untimed":
            return cls()
        if kind == "realtime":
            base, inc = _seconds(raw, "base_s", None), _seconds(raw, "increment_s", 0)
            if not 1 <= base <= MAX_BASE_S:
                raise ValueError(Phrase("base_s must be 1 to {limit} seconds", limit=MAX_BASE_S))
            if not 0 <= inc <= MAX_INCREMENT_S:
                raise ValueError(Phrase("increment_s must be 0 to {limit} seconds",
                                        limit=MAX_INCREMENT_S))
            return cls("realtime", float(base), float(inc))
        days = raw.get("days")
        if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_DAYS:
            raise ValueError(Phrase("days must be a whole number from 1 to {limit}",
                                    limit=MAX_DAYS))
        return cls("correspondence", days=days)

    @property
    def timed(self) -> bool:
        return self.kind != "untimed"

    @property
    def estimate_s(self) -> float:
        """The expected time of one side for a game (s), as lichess estimates it."""
        return self.base_s + ESTIMATE_TURNS * self.increment_s

    def check_rated(self) -> None:
        """Refuse a real-time control too short for a rated game (``ValueError`` naming
        the fields); untimed and correspondence games may always be rated."""
        if self.kind == "realtime" and self.estimate_s < RATED_MIN_ESTIMATE_S:
            seconds = format(self.estimate_s, "g")
            raise ValueError(Phrase(
                "base_s + {turns} × increment_s must be at least {limit} seconds for a rated "
                "real-time game (this control gives {seconds} s); play it casual or give "
                "more time", turns=ESTIMATE_TURNS, limit=RATED_MIN_ESTIMATE_S,
                seconds=seconds))

    def to_dict(self) -> dict[str, Any]:
        if self.kind == "realtime":
            return {"kind": self.kind, "base_s": self.base_s, "increment_s": self.increment_s}
        if self.kind == "correspondence":
            return {"kind": self.kind, "days": self.days}
        return {"kind": "untimed"}

    def describe(self) -> str:
        """The control in English words (``"5 min + 3 s"``, ``"3 days per turn"``)."""
        return str(self.phrase())

    def phrase(self) -> Phrase:
        """:meth:`describe` as a phrase a page translates."""
        if self.kind == "realtime":
            def num(x: float) -> str:
                return f"{x:g}"
            increment = num(self.increment_s)
            if self.base_s >= 60:
                return Phrase("{minutes} min + {increment} s", minutes=num(self.base_s / 60),
                              increment=increment)
            return Phrase("{seconds} s + {increment} s", seconds=num(self.base_s),
                          increment=increment)
        if self.kind == "correspondence":
            return nphrase("{n} day per turn", "{n} days per turn", self.days)
        return Phrase("untimed")


def _seconds(raw: dict[str, Any], name: str, default: float | None) -> float:
    value = raw.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(Phrase("{name} must be a number of seconds", name=name))
    return float(value)


@dataclass
class Clock:
    """The two sides' clocks of one game (seats 0 and 1).

    ``remaining`` is each side's time left in ms *at the start of its current turn*;
    ``running`` is the seat whose time goes down (``None`` before the clock starts and
    after the game ends) and ``since`` the wall time its turn began. ``turns`` counts the
    turns each seat has completed (the clock starts when both have one).
    """

    control: TimeControl
    remaining: list[float] = field(default_factory=lambda: [0.0, 0.0])
    running: int | None = None
    since: float | None = None
    turns: list[int] = field(default_factory=lambda: [0, 0])
    #: Real time, before the clock starts: when the game is aborted if the side to move
    #: has not made its first turn (``None``: no such limit now).
    abort_at: float | None = None
    #: Storage outages up to this moment were credited already (:meth:`credit`).
    credited_to: float | None = None

    @classmethod
    def new(cls, control: TimeControl) -> Clock:
        start = control.base_s * 1000.0 if control.kind == "realtime" else control.days * DAY_MS
        return cls(control, [start, start])

    # -------------------------------------------------------------- changes
    def started(self) -> bool:
        """True once each side has completed a turn (before that: free, abortable); a
        correspondence clock runs from the first turn."""
        return self.control.kind == "correspondence" or min(self.turns) >= 1

    def turn_ended(self, seat: int, next_seat: int | None, now: float, lag_ms: float = 0) -> None:
        """``seat`` finished its turn at ``now`` (``next_seat``: who moves next, ``None``
        when the game ended). Charges the elapsed time less the lag credit, adds the
        increment, and starts ``next_seat``'s clock once both sides have moved."""
        if self.running == seat and self.since is not None:
            elapsed = max(0.0, now - self.since)
            credit = min(max(0.0, float(lag_ms)), LAG_ALLOWANCE_MS, elapsed)
            if self.control.kind == "realtime":
                left = self.remaining[seat] - (elapsed - credit)
                self.remaining[seat] = max(0.0, left) + self.control.increment_s * 1000.0
        self.turns[seat] += 1
        self.running, self.since = None, None
        if next_seat is not None and self.started():
            self.start_turn(next_seat, now)
        self._limit_first_turn(next_seat, now)

    def _limit_first_turn(self, seat: int | None, now: float) -> None:
        waiting = (seat is not None and self.control.kind == "realtime"
                   and not self.started())
        self.abort_at = now + FIRST_TURN_LIMIT_MS if waiting else None

    def start_turn(self, seat: int, now: float) -> None:
        """``seat``'s time starts going down (correspondence: with a full allowance)."""
        if self.control.kind == "correspondence":
            self.remaining[seat] = self.control.days * DAY_MS
        self.running, self.since = seat, now

    def resume(self, seat: int | None, now: float) -> None:
        """After a takeback: the seat to move now runs from ``now`` (time already spent
        stays spent); ``None`` stops the clock."""
        if self.running is not None and self.since is not None and self.control.kind == "realtime":
            spent = max(0.0, now - self.since)
            self.remaining[self.running] = max(0.0, self.remaining[self.running] - spent)
        self.running, self.since = None, None
        if seat is not None and self.started():
            self.start_turn(seat, now)
        self._limit_first_turn(seat, now)

    def stop(self, now: float) -> None:
        """The game ended: charge the running side up to ``now`` and stop."""
        self.resume(None, now)

    def credit(self, outages: Sequence[tuple[float, float]], now: float) -> float:
        """Give the side to move back the time of ``outages`` (spans, ms, in which the
        storage could take no move) since its turn, or its first-turn limit, began:
        its clock stands still while it cannot move (issue 39, row 7). Each moment is
        credited once (``credited_to``), whichever process credits it. Returns the ms
        credited."""
        if self.running is not None and self.since is not None:
            start = self.since
        elif self.abort_at is not None:
            start = self.abort_at - FIRST_TURN_LIMIT_MS
        else:
            return 0.0
        if self.credited_to is not None:
            start = max(start, self.credited_to)
        gap = sum(max(0.0, min(end, now) - max(begin, start)) for begin, end in outages)
        if gap <= 0:
            return 0.0
        if self.running is not None and self.since is not None:
            self.since += gap
        if self.abort_at is not None:
            self.abort_at += gap
        self.credited_to = now
        return gap

    # -------------------------------------------------------------- reading
    def left(self, seat: int, now: float) -> float:
        """Time ``seat`` has left at ``now`` (ms, never negative)."""
        if self.running == seat and self.since is not None:
            return max(0.0, self.remaining[seat] - (now - self.since))
        return max(0.0, self.remaining[seat])

    def deadline(self) -> float | None:
        """Wall time (ms) at which the running side's flag falls, or before the clock
        starts the first-turn limit (``None``: nothing to watch)."""
        if self.running is None or self.since is None:
            return self.abort_at
        return self.since + self.remaining[self.running]

    def abandoned(self, now: float) -> bool:
        """True when a first turn was not made in time (the game is to be aborted)."""
        return self.abort_at is not None and now >= self.abort_at

    def flagged(self, now: float, lag_ms: float = 0) -> int | None:
        """The seat whose time ran out by ``now`` (its lag credit included), else None."""
        if self.running is None or self.since is None:
            return None
        deadline = self.since + self.remaining[self.running]
        credit = min(max(0.0, float(lag_ms)), LAG_ALLOWANCE_MS)
        return self.running if now - credit >= deadline else None

    def view(self, now: float) -> dict[str, Any]:
        """What clients get: ms left per seat at ``now``, who is running, the control."""
        return {
            "control": self.control.to_dict(),
            "describe": self.control.describe(),
            "left_ms": [round(self.left(seat, now)) for seat in (0, 1)],
            "running": self.running,
            "started": self.started(),
            # Before the clock starts (real time): ms left to make the first turn.
            "abort_in_ms": None if self.abort_at is None
            else max(0, round(self.abort_at - now)),
        }

    # ---------------------------------------------------------- persistence
    def to_dict(self) -> dict[str, Any]:
        stored = {
            "control": self.control.to_dict(),
            "remaining": list(self.remaining),
            "running": self.running,
            "since": self.since,
            "turns": list(self.turns),
            "abort_at": self.abort_at,
        }
        if self.credited_to is not None:
            stored["credited_to"] = self.credited_to
        return stored

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Clock:
        return cls(
            TimeControl.parse(raw.get("control")),
            [float(x) for x in raw.get("remaining", [0.0, 0.0])],
            raw.get("running"),
            raw.get("since"),
            [int(x) for x in raw.get("turns", [0, 0])],
            raw.get("abort_at"),
            raw.get("credited_to"),
        )


def clock_in(meta: GameMeta) -> Clock | None:
    """The clock kept in a game's meta (``None``: untimed)."""
    return Clock.from_dict(meta.clock) if meta.clock else None


def put_clock(meta: GameMeta, clock: Clock) -> None:
    """Keep ``clock`` in a game's meta with its flag-fall deadline (stored and indexed)."""
    meta.clock = clock.to_dict()
    deadline = clock.deadline()
    meta.deadline = None if deadline is None else int(deadline)
