"""Every public entry point of the Dendria package refuses bad input with ``ValueError``
(``IllegalAction`` is one) naming the problem, and leaves the position as it was."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexgames import IllegalAction
from hexgames.dendria import GAME, Position, Rules, Step, read_record, write_record
from hexgames.dendria.encoding import action_from_id, action_to_id, observation
from hexgames.dendria.gestures import gesture
from hexgames.dendria.render import ascii_board, svg
from hexgames.dendria.steps import parse_steps

# Deterministic: the same garbage on every run (a failure found is pinned with @example).
GARBAGE_SETTINGS = settings(
    derandomize=True,
    database=None,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

notation_like = st.builds(
    lambda prefix, column, digits, suffix: f"{prefix}{column}{digits}{suffix}",
    st.sampled_from(["", "-", "^", "+", "=", "e5-", "a1-", " "]),
    st.sampled_from(["a", "e", "k", "z", "E", "", "é"]),
    st.one_of(st.integers(-10, 10**30).map(str), st.just("9" * 5000), st.just("")),
    st.sampled_from(["", "-e5", " end", "\n", "\x00", " pass"]),
)
garbage = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=True),
    st.text(max_size=30),
    notation_like,
    st.binary(max_size=20),
    st.lists(st.one_of(st.text(max_size=5), notation_like), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.tuples(st.integers(), st.text(max_size=3)),
)


def midgame() -> Position:
    p = Position.initial(Rules(board_side=5))
    for turn in ("e5", "a1", "e3", "i1", "c3"):
        p.play_turn(turn)
    p.play(p.plantable_cells()[0])  # mid-turn
    return p


def snapshot(p: Position):
    return p.key, p.to_text(), list(p.history), p.turn_steps(), p.ply


# name -> call(position, garbage). Each either works or raises ValueError.
ENTRY_POINTS = {
    "play": lambda p, g: p.play(g),
    "play_turn": lambda p, g: p.play_turn(g),
    "parse_action": lambda p, g: p.parse_action(g),
    "piece_at": lambda p, g: p.piece_at(g),
    "group": lambda p, g: p.group(g),
    "fertile_soils": lambda p, g: p.fertile_soils(g),
    "nourishers": lambda p, g: p.nourishers(g),
    "dendrid_destinations": lambda p, g: p.dendrid_destinations(g),
    "fertilized_cells": lambda p, g: p.fertilized_cells(g),
    "convertible_forests": lambda p, g: p.convertible_forests(g),
    "seat_of": lambda p, g: p.seat_of(g),
    "color_of_seat": lambda p, g: p.color_of_seat(g),
    "write_record tags": lambda p, g: write_record(p, g),
    "write_record tag value": lambda p, g: write_record(p, {"Event": g}),
    "action_to_id": lambda p, g: action_to_id(p, g),
    "action_from_id": lambda p, g: action_from_id(p, g),
    "observation": lambda p, g: observation(p, g),
    "gesture": lambda p, g: gesture(p, g),
    "svg position": lambda p, g: svg(g),
    "svg highlights": lambda p, g: svg(p, g),
    "svg selected": lambda p, g: svg(p, selected=g),
    "svg last_action": lambda p, g: svg(p, last_action=g),
    "svg overlays": lambda p, g: svg(p, overlays=g),
    "svg size": lambda p, g: svg(p, size=g),
    "ascii_board": lambda p, g: ascii_board(p, g),
    "from_text": lambda p, g: Position.from_text(g),
    "from_text rules": lambda p, g: Position.from_text(p.to_text(), g),
    "Position": lambda p, g: Position(g),
    "Step.parse": lambda p, g: Step.parse(g),
    "parse_steps": lambda p, g: parse_steps(g),
    "Rules board_side": lambda p, g: Rules(board_side=g),
    "Rules size": lambda p, g: Rules(size=g),
    "Rules pie": lambda p, g: Rules(pie=g),
    "Rules quiet_limit": lambda p, g: Rules(quiet_limit=g),
    "Rules option name": lambda p, g: Rules(**{str(g): 5}),
    "make_rules": lambda p, g: GAME.make_rules(board_side=g),
    "read_record": lambda p, g: read_record(g),
    "read_record text": lambda p, g: read_record(f'[Size "5"]\n\n1. {g}'),
}


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
@GARBAGE_SETTINGS
@given(value=garbage)
def test_garbage_is_refused_with_value_error_and_changes_nothing(name, value):
    p = midgame()
    before = snapshot(p)
    call = ENTRY_POINTS[name]
    try:
        call(p, value)
    except ValueError as error:
        assert str(error), f"{name}({value!r}) raised an empty {type(error).__name__}"
        assert snapshot(p) == before
    else:
        # Some "garbage" is valid input (text such as "pass"); take a played step back.
        while p.ply > before[-1]:
            p.undo()
        assert snapshot(p) == before


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        (lambda p: p.play_turn(None), IllegalAction, "a turn must be written as text"),
        (lambda p: p.play_turn(123), IllegalAction, "got int"),
        (lambda p: p.play(None), IllegalAction, "not a Dendria step: None"),
        (lambda p: p.play(123), IllegalAction, "not a Dendria step: 123"),
        (lambda p: p.parse_action(None), IllegalAction, "must be written as text, got None"),
        (lambda p: p.play("e" + "9" * 40), IllegalAction, "cannot read step 'e9999"),
        (lambda p: p.play("e99"), IllegalAction, "'e99' is not a cell of the side-5 board"),
        (lambda p: p.piece_at("z1"), IllegalAction, "'z1' is not a cell of the side-5 board"),
        (lambda p: p.piece_at(None), IllegalAction, "None is not a cell"),
        (lambda p: p.color_of_seat(1.0), ValueError, "seat must be 0 or 1, got 1.0"),
        (lambda p: Position.from_text(None), ValueError, "must be a string, got NoneType"),
        (lambda p: Position.from_text(b"Dendria v1: size=5 to-move=dark"), ValueError,
         "must be a string, got bytes"),
        (lambda p: Position.from_text("Dendria v1: size=99999999999999999999 to-move=dark"),
         ValueError, "size must be between 3 and 11"),
        (lambda p: Position.from_text(p.to_text(), "rules"), ValueError,
         "rules must be a dendria Rules object, got str"),
        (lambda p: Rules(size="5"), ValueError, "board_side must be an integer from 3 to 11"),
        (lambda p: Rules(bogus=1), ValueError, "no option 'bogus'"),
        (lambda p: write_record(p, ["Event"]), ValueError, "tags must be a mapping"),
        (lambda p: write_record(p, {1: "x"}), ValueError, "tag name 1 must be a word"),
        (lambda p: read_record(None), ValueError, "must be text \\(str\\), got NoneType"),
        (lambda p: read_record(f'[Size "5"]\n{"9" * 5000}. e5'), ValueError,
         "line 2: expected a tag or a numbered turn"),
    ],
)
def test_each_refusal_names_the_problem(call, error, fragment):
    p = midgame()
    before = snapshot(p)
    with pytest.raises(error, match=fragment):
        call(p)
    assert snapshot(p) == before


def test_str_of_a_position_is_its_text():
    p = midgame()
    assert str(p) == p.to_text() and re.match("Dendria v1: size=5", str(p))
