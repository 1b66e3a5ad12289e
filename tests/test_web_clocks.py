"""Clocks (issue 11): pure unit tests with an injected time, no sleeping."""

from __future__ import annotations

import pytest

from hexgames.web.game.clocks import (
    DAY_MS,
    FIRST_TURN_LIMIT_MS,
    LAG_ALLOWANCE_MS,
    Clock,
    TimeControl,
)


def realtime(base: float = 60, inc: float = 2) -> Clock:
    return Clock.new(TimeControl.parse({"kind": "realtime", "base_s": base, "increment_s": inc}))


def test_the_first_turn_of_each_side_is_free_then_the_clock_runs() -> None:
    clock = realtime()
    clock.resume(0, 0.0)  # the game starts: not running yet
    assert clock.running is None
    clock.turn_ended(0, 1, now=5_000)
    assert clock.running is None and not clock.started()
    clock.turn_ended(1, 0, now=9_000)
    assert clock.started() and clock.running == 0 and clock.since == 9_000
    assert clock.left(0, 10_000) == 59_000
    assert clock.left(1, 10_000) == 60_000


def test_fischer_increment_is_added_when_a_turn_ends() -> None:
    clock = realtime(60, 2)
    clock.turn_ended(0, 1, 0)
    clock.turn_ended(1, 0, 0)
    clock.turn_ended(0, 1, now=10_000)  # 10 s spent, 2 s back
    assert clock.remaining[0] == 52_000
    assert clock.running == 1 and clock.since == 10_000
    assert clock.deadline() == 70_000


def test_lag_is_credited_within_the_allowance_only() -> None:
    clock = realtime(60, 0)
    clock.turn_ended(0, 1, 0)
    clock.turn_ended(1, 0, 0)
    clock.turn_ended(0, 1, now=10_000, lag_ms=200)
    assert clock.remaining[0] == 50_200
    clock.turn_ended(1, 0, now=20_000, lag_ms=5_000)  # a client claiming 5 s of lag
    assert clock.remaining[1] == 50_000 + LAG_ALLOWANCE_MS
    clock.turn_ended(0, 1, now=20_100, lag_ms=400)  # never more than the time spent
    assert clock.remaining[0] == 50_200


def test_the_flag_falls_at_the_deadline() -> None:
    clock = realtime(3, 0)
    clock.turn_ended(0, 1, 0)
    clock.turn_ended(1, 0, 1_000)
    assert clock.deadline() == 4_000
    assert clock.flagged(3_999) is None
    assert clock.flagged(4_000) == 0
    assert clock.flagged(4_300, lag_ms=400) is None  # the mover's lag, within allowance
    assert clock.left(0, 5_000) == 0


def test_a_clock_survives_being_stored() -> None:
    clock = realtime(60, 1)
    clock.turn_ended(0, 1, 0)
    clock.turn_ended(1, 0, 500)
    again = Clock.from_dict(clock.to_dict())
    assert again == clock
    assert again.left(0, 10_500) == clock.left(0, 10_500) == 50_000


def test_takeback_keeps_spent_time_spent_and_stop_freezes() -> None:
    clock = realtime(60, 0)
    clock.turn_ended(0, 1, 0)
    clock.turn_ended(1, 0, 0)
    clock.turn_ended(0, 1, 10_000)
    clock.resume(0, 12_000)  # seat 1 spent 2 s, then a takeback gives the turn to 0
    assert clock.remaining[1] == 58_000 and clock.running == 0 and clock.since == 12_000
    clock.stop(13_000)
    assert clock.running is None and clock.remaining[0] == 49_000
    assert clock.flagged(10**9) is None


def test_correspondence_gives_each_turn_its_days_from_the_first() -> None:
    clock = Clock.new(TimeControl.parse({"kind": "correspondence", "days": 2}))
    clock.resume(0, 0.0)
    assert clock.running == 0 and clock.deadline() == 2 * DAY_MS
    clock.turn_ended(0, 1, now=DAY_MS + 5)
    assert clock.running == 1 and clock.deadline() == 3 * DAY_MS + 5
    assert clock.flagged(3 * DAY_MS + 5) == 1


@pytest.mark.parametrize("raw", [
    {"kind": "bullet"}, {"kind": "realtime"}, {"kind": "realtime", "base_s": 0},
    {"kind": "realtime", "base_s": True}, {"kind": "realtime", "base_s": 60, "increment_s": -1},
    {"kind": "correspondence", "days": 0}, {"kind": "correspondence", "days": 1.5}, "fast",
])
def test_bad_time_controls_are_refused(raw: object) -> None:
    with pytest.raises(ValueError):
        TimeControl.parse(raw)


def test_time_controls_describe_themselves() -> None:
    assert TimeControl.parse(None).describe() == "untimed"
    assert TimeControl.parse({"kind": "realtime", "base_s": 300, "increment_s": 3}).describe() \
        == "5 min + 3 s"
    assert TimeControl.parse({"kind": "correspondence", "days": 3}).describe() \
        == "3 days per turn"


def test_a_first_turn_has_a_time_limit_in_real_time_only() -> None:
    clock = realtime()
    clock.resume(0, 1_000)
    assert clock.deadline() == 1_000 + FIRST_TURN_LIMIT_MS and clock.flagged(10**9) is None
    assert not clock.abandoned(FIRST_TURN_LIMIT_MS) and clock.abandoned(FIRST_TURN_LIMIT_MS + 1_000)
    clock.turn_ended(0, 1, now=5_000)
    assert clock.abort_at == 5_000 + FIRST_TURN_LIMIT_MS
    clock.turn_ended(1, 0, now=6_000)  # the clock starts: no limit any more
    assert clock.abort_at is None and clock.deadline() == 66_000
    assert Clock.from_dict(clock.to_dict()) == clock
    post = Clock.new(TimeControl.parse({"kind": "correspondence", "days": 1}))
    post.resume(0, 0)
    assert post.abort_at is None
