"""Every public entry point refuses bad input with ``ValueError`` (``IllegalAction`` is
one) and a message naming the problem, and leaves the position exactly as it was.

The hypothesis tests feed garbage of every kind (``None``, bytes, numbers, containers,
near-miss notation and board text, enormous numbers in text) to each entry point. They
are deterministic (``derandomize=True``, no example database), so CI sees the same
inputs every run.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hexgames import IllegalAction
from hexgames.benediction import Action, Position, Rules, read_record, write_record
from hexgames.benediction.encoding import action_from_id, action_to_id, observation
from hexgames.benediction.gestures import gesture

SETTINGS = settings(
    derandomize=True,
    database=None,
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

#: Characters of the notations and the board-text format, so that garbage comes close.
NEAR_MISS = "abcdefghijkBbXRW@+-=:|xlc0123456789 \n/"
HUGE = "9" * 5000

garbage = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.binary(max_size=20),
    st.text(max_size=30),
    st.text(alphabet=NEAR_MISS, max_size=40),
    st.lists(st.integers(), max_size=3),
    st.tuples(st.text(max_size=3), st.text(max_size=3)),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.just(HUGE),
    st.just(f"f4-{HUGE}-f5"),
    st.just(f"e{HUGE}"),
)


def midgame() -> Position:
    p = Position.initial()
    for action in ("e3e4", "e7e6", "d7d6", "Bc3"):
        p.play(action)
    return p


def snapshot(p: Position) -> tuple[Any, ...]:
    return (p.key, p.to_text(), list(p.history), p.ply, p.actions_left, p.outcome())


def refuses_cleanly(call: Any, *args: Any, **kwargs: Any) -> None:
    """``call`` either works or raises ``ValueError`` (never TypeError & co.)."""
    try:
        call(*args, **kwargs)
    except ValueError as error:
        assert str(error), "the message names the problem"


# ---------------------------------------------------------------- examples with messages
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda p: p.parse_action(None), "must be given as text"),
        (lambda p: p.parse_action(f"f4-{HUGE}-f5"), "split count too large"),
        (lambda p: p.play(f"f4-{HUGE}-f5"), "split count too large"),
        (lambda p: p.play(None), "not a Benediction action"),
        (lambda p: p.play(123), "not a Benediction action"),
        (lambda p: p.play(b"e3e4"), "not a Benediction action"),
        (lambda p: p.play(f"e{HUGE}e4"), "is not a point"),
        (lambda p: p.man_at("z9"), "'z9' is not a point of a side-5 board"),
        (lambda p: p.man_at(None), "point label"),
        (lambda p: p.reach("e3", steps_max="2"), "steps_max must be an integer"),
        (lambda p: p.reach_indices(-1, 2, 1), "point index"),
        (lambda p: p.reach_indices(3, 2, 7), "colour code"),
        (lambda p: p.zone("green"), "colour must be 'red' or 'blue'"),
        (lambda p: p.color_of_seat(1.0), "seat must be 0 or 1"),
        (lambda p: gesture(p, 5), "not a Benediction action"),
        (lambda p: action_to_id(p, None), "not a Benediction action"),
    ],
)
def test_bad_input_to_a_position_is_refused_with_a_message(call, message):
    p = midgame()
    before = snapshot(p)
    with pytest.raises(ValueError, match=message):
        call(p)
    assert snapshot(p) == before


def test_a_bad_point_label_is_an_illegal_action():
    with pytest.raises(IllegalAction, match="not a point"):
        Position.initial().man_at("k1")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "board text must be a string, got NoneType"),
        (b"Benediction v1: R-E2 B E8", "board text must be a string, got bytes"),
        (5, "board text must be a string, got int"),
    ],
)
def test_board_text_that_is_not_a_string_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        Position.from_text(text)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"side": "5"}, "Benediction has no option 'side'"),
        ({"bogus": 1}, "Benediction has no option 'bogus'"),
        ({"board_side": "5"}, "option board_side must be an integer from 4 to 7, got '5'"),
        ({"supply": 1.5}, "option supply must be"),
    ],
)
def test_bad_rules_options_are_value_errors(options, message):
    with pytest.raises(ValueError, match=message):
        Rules(**options)


def test_rules_that_are_not_rules_are_refused():
    with pytest.raises(ValueError, match="rules must be a Benediction Rules object"):
        Position.initial("side 5")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rules must be a Benediction Rules object"):
        Position.from_text("Benediction v1: R-E2 B E8\nR:E2k\nB:E8k", {"board_side": 5})


# ------------------------------------------------------------------- hypothesis: garbage
@SETTINGS
@given(value=garbage)
@example(value=f"f4-{HUGE}-f5")
@example(value="f4-99-f5")
@example(value="e3e4")
def test_garbage_actions_never_escape_as_anything_but_value_error(value):
    p = midgame()
    before = snapshot(p)
    refuses_cleanly(p.parse_action, value)
    assert snapshot(p) == before
    try:
        p.play(value)
    except ValueError:
        pass
    else:  # the garbage happened to be a legal action
        p.undo()
    assert snapshot(p) == before
    refuses_cleanly(Action.parse, value)
    refuses_cleanly(gesture, p, value)
    refuses_cleanly(action_to_id, p, value)
    refuses_cleanly(action_from_id, p, value)
    assert snapshot(p) == before


@SETTINGS
@given(value=garbage, other=garbage)
def test_garbage_queries_never_escape_as_anything_but_value_error(value, other):
    p = midgame()
    before = snapshot(p)
    for call in (p.man_at, p.zone, p.wall, p.supply_left, p.seat_of, p.color_of_seat):
        refuses_cleanly(call, value)
    refuses_cleanly(p.reach, value)
    refuses_cleanly(p.reach, "e4", value)
    refuses_cleanly(p.reach, "e4", 2, value)
    refuses_cleanly(p.reach_indices, value, 2, 1)
    refuses_cleanly(p.reach_indices, 3, value, 1)
    refuses_cleanly(p.reach_indices, 3, 2, value)
    refuses_cleanly(observation, p, value)
    refuses_cleanly(Action, "move", value, other)
    refuses_cleanly(Action, value, "e3", "e4")
    refuses_cleanly(Action, "split", "e3", "e4", value)
    assert snapshot(p) == before


@SETTINGS
@given(text=garbage, rules=st.one_of(st.none(), st.just(Rules()), garbage))
@example(text="Benediction v1: R-E2 B E8\nR:E2k\nB:E8k", rules=None)
@example(text=f"Benediction v1: R-E{HUGE} B E8", rules=None)
@example(text=f"Benediction v1: R-E2 B E8\nR:E{HUGE}", rules=Rules(board_side=6))
def test_garbage_board_text_is_a_value_error(text, rules):
    refuses_cleanly(Position.from_text, text, rules)


@SETTINGS
@given(
    text=st.one_of(
        garbage,
        st.builds(lambda body: "1. " + body, st.text(alphabet=NEAR_MISS, max_size=40)),
        st.builds(lambda tag: f'[{tag} "x"]\n\n', st.text(alphabet=NEAR_MISS, max_size=10)),
    )
)
@example(text=None)
@example(text=b"1. e3e4")
@example(text=f'[BoardSide "{HUGE}"]\n\n')
@example(text=f"1. f2-{HUGE}-f3")
def test_garbage_records_are_a_value_error(text):
    refuses_cleanly(read_record, text)


@SETTINGS
@given(tags=garbage)
def test_garbage_record_tags_are_a_value_error(tags):
    p = midgame()
    before = snapshot(p)
    refuses_cleanly(write_record, p, tags)
    assert snapshot(p) == before


@SETTINGS
@given(options=st.dictionaries(st.sampled_from(
    ["board_side", "first_turn_actions", "max_stack", "supply", "max_turns", "side", ""]
), garbage, max_size=3))
def test_garbage_rules_options_are_a_value_error(options):
    refuses_cleanly(lambda: Rules(**options))
