"""Dendria rules options and step notation."""

import re

import pytest

from hexgames import IllegalAction
from hexgames.dendria import GAME, Rules, Step
from hexgames.dendria.rules import OPTIONS
from hexgames.dendria.steps import KINDS, parse_steps
from hexgames.game import parse_option_value


def test_rules_defaults_follow_the_rules_document():
    assert Rules() == Rules(board_side=7, pie=True, quiet_limit=10)
    assert Rules().quiet_turns == 20
    assert Rules(**Rules(board_side=5, pie=False, quiet_limit=3).as_dict()) == Rules(5, False, 3)


def test_size_is_an_alias_of_board_side():
    assert Rules(size=5) == Rules(board_side=5) and Rules(size=5).size == 5
    assert Rules(size=5).as_dict() == {"board_side": 5, "pie": True, "quiet_limit": 10}
    assert GAME.make_rules(size=9) == GAME.make_rules(board_side=9)
    with pytest.raises(AttributeError):
        Rules().size = 5  # type: ignore[misc]
    with pytest.raises(ValueError, match="board_side is given twice"):
        Rules(board_side=5, size=5)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"board_side": 2}, "board_side must be an integer from 3 to 11, got 2"),
        ({"board_side": 12}, "board_side must be an integer from 3 to 11, got 12"),
        ({"size": 12}, "board_side must be an integer from 3 to 11, got 12"),
        ({"size": "5"}, "board_side must be an integer from 3 to 11, got '5'"),
        ({"board_side": True}, "board_side must be an integer"),
        ({"board_side": 7.0}, "board_side must be an integer"),
        ({"board_side": 10**100}, "board_side must be an integer from 3 to 11"),
        ({"quiet_limit": 0}, "quiet_limit must be an integer from 1 to 1000"),
        ({"quiet_limit": "3"}, "quiet_limit must be an integer"),
        ({"pie": 1}, "pie must be true or false"),
        ({"pie": None}, "pie must be true or false, got None"),
        ({"bogus": 1}, "no option 'bogus'; options: board_side, pie, quiet_limit"),
    ],
)
def test_rules_refuse_bad_options_naming_them(kwargs, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        Rules(**kwargs)


def test_options_describe_every_rules_field_with_defaults_and_bounds():
    by_name = {option.name: option for option in OPTIONS}
    assert set(by_name) == set(Rules().as_dict())
    assert {name: option.default for name, option in by_name.items()} == Rules().as_dict()
    side = by_name["board_side"]
    assert (side.kind, side.minimum, side.maximum, side.aliases) == ("int", 3, 11, ("size",))
    assert by_name["pie"].kind == "bool"
    assert (by_name["quiet_limit"].kind, by_name["quiet_limit"].minimum) == ("int", 1)
    assert all(option.help for option in OPTIONS)
    assert parse_option_value(by_name["pie"], "off") is False
    assert GAME.options is OPTIONS


def test_rules_validate_each_option_through_its_declaration():
    # The messages are Option.validate's own: one declaration decides what is valid.
    for option in OPTIONS:
        bad = "x"
        with pytest.raises(ValueError) as error:
            option.validate(bad)
        with pytest.raises(ValueError) as ours:
            Rules(**{option.name: bad})
        assert str(ours.value) == str(error.value)


@pytest.mark.parametrize(
    ("text", "kind", "origin", "target"),
    [
        ("e5", "plant", None, "e5"),
        ("D2-D6", "leg", "d2", "d6"),
        ("-d8", "continue", None, "d8"),
        ("^e5", "sprout", None, "e5"),
        ("+E6", "grow", None, "e6"),
        ("=f6", "convert", None, "f6"),
        (" end ", "end", None, None),
        ("PASS", "pass", None, None),
        ("swap", "swap", None, None),
        ("k11", "plant", None, "k11"),
    ],
)
def test_every_step_kind_parses_case_insensitively_and_prints_back(text, kind, origin, target):
    step = Step.parse(text)
    assert (step.kind, step.origin, step.target) == (kind, origin, target)
    assert str(step) == text.strip().lower()
    assert Step.parse(str(step)) == step
    assert hash(step) == hash(Step.parse(str(step)))


def test_step_kinds_cover_the_notation_table():
    assert set(KINDS) == {
        "plant", "leg", "continue", "sprout", "grow", "convert", "end", "pass", "swap",
    }


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty step"),
        ("e", "expected a cell"),
        ("5e", "expected a cell"),
        ("e0", "expected a cell"),
        ("d2-", "target ''"),
        ("-d2-d4", "cell 'd2-d4'"),
        ("d2-d2", "must leave its cell"),
        ("^", "cell ''"),
        ("+e5x", "cell 'e5x'"),
        ("finish", "expected a cell"),
        ("e123", "expected a cell"),
    ],
)
def test_malformed_steps_are_refused_naming_the_problem(text, fragment):
    with pytest.raises(IllegalAction, match=fragment):
        Step.parse(text)


def test_step_constructor_validates_its_fields():
    with pytest.raises(IllegalAction, match="unknown step kind"):
        Step("jump", target="e5")
    with pytest.raises(IllegalAction, match="takes no cell"):
        Step("end", target="e5")
    with pytest.raises(IllegalAction, match="no origin cell"):
        Step("plant", origin="d2", target="e5")
    assert Step("leg", origin="D2", target="d6").origin == "d2"


def test_steps_are_frozen_hashable_values():
    step = Step.parse("d2-d6")
    with pytest.raises(AttributeError):
        step.target = "d7"  # type: ignore[misc]
    assert {step, Step.parse("d2-d6")} == {step}
    assert parse_steps("d2-d6 +e5 -d8 end") == [
        Step("leg", "d2", "d6"), Step("grow", target="e5"), Step("continue", target="d8"),
        Step("end"),
    ]
