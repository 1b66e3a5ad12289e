"""Benediction action notation (rules section 7) and rules options."""

import pickle

import pytest

from hexgames import IllegalAction
from hexgames.benediction import Action, Position, Rules
from hexgames.benediction.rules import OPTIONS


@pytest.mark.parametrize(
    "text,kind,origin,target,count",
    [
        ("e3e4", "move", "e3", "e4", 0),
        ("@e3", "drop", None, "e3", 0),
        ("Bc2", "block", None, "c2", 0),
        ("f8+f7", "merge", "f8", "f7", 0),
        ("f4-1-f5", "split", "f4", "f5", 1),
        ("b1b2", "move", "b1", "b2", 0),
        ("g12-3-g2", "split", "g12", "g2", 3),
    ],
)
def test_notation_round_trips(text, kind, origin, target, count):
    action = Action.parse(text)
    assert (action.kind, action.origin, action.target, action.count) == (
        kind, origin, target, count,
    )
    assert str(action) == text
    assert Action.parse(str(action)) == action


@pytest.mark.parametrize(
    "text,expected", [("E3E4", "e3e4"), (" bC2 ", "Bc2"), ("F4-2-F6", "f4-2-f6")]
)
def test_notation_input_is_case_insensitive(text, expected):
    assert str(Action.parse(text)) == expected


@pytest.mark.parametrize(
    "text,reason",
    [("pass", "not an action"), ("e3", "not an action"), ("f4-0-f5", "at least 1"),
     ("e0e1", "not a point label"), ("", "not an action"), ("e3-e4", "not an action")],
)
def test_malformed_notation_is_refused_with_a_reason(text, reason):
    with pytest.raises(IllegalAction, match=reason):
        Action.parse(text)


def test_actions_are_immutable_hashable_values():
    a = Action("move", "e3", "e4")
    assert a == Action.parse("e3e4") and hash(a) == hash(Action.parse("E3E4"))
    assert a != Action("merge", "e3", "e4")
    with pytest.raises(AttributeError):
        a.kind = "merge"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(a)) == a
    assert len({a, Action.parse("e3e4"), Action.parse("@e4")}) == 2


def test_action_constructor_checks_its_arguments():
    with pytest.raises(IllegalAction, match="no origin"):
        Action("drop", "e3", "e4")
    with pytest.raises(IllegalAction, match="only a split"):
        Action("move", "e3", "e4", 2)
    with pytest.raises(IllegalAction, match="unknown action kind"):
        Action("jump", "e3", "e4")


def test_position_parse_action_refuses_points_off_the_board():
    p = Position.initial()
    with pytest.raises(IllegalAction, match="j1 is not a point of a side-5 board"):
        p.parse_action("@j1")
    before = (p.to_text(), p.key)
    with pytest.raises(IllegalAction, match="a6 is not a point"):
        p.play("a5a6")
    assert (p.to_text(), p.key) == before


def test_passing_is_not_an_action():
    p = Position.initial()
    with pytest.raises(IllegalAction):
        p.play("pass")


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"board_side": 3}, "option board_side must be an integer from 4 to 7, got 3"),
        ({"board_side": 8}, "board_side must be an integer from 4 to 7"),
        ({"first_turn_actions": 3}, "first_turn_actions must be an integer from 1 to 2"),
        ({"max_stack": 1}, "max_stack must be an integer from 2 to 15"),
        ({"max_stack": 16}, "max_stack must be an integer from 2 to 15"),
        ({"supply": 0}, "supply must be an integer from 1 to 2000"),
        ({"max_turns": 0}, "max_turns must be an integer from 1 to 10000"),
        ({"max_stack": "8"}, "must be an integer"),
        ({"board_side": True}, "must be an integer"),
        ({"side": 5}, "Benediction has no option 'side'; options: board_side, "),
        ({"bogus": 1}, "no option 'bogus'"),
    ],
)
def test_rules_validation_names_the_option(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Rules(**kwargs)


def test_rules_as_dict_rebuilds_the_rules_and_options_describe_them():
    r = Rules(board_side=6, first_turn_actions=2, max_stack=15, supply=4, max_turns=100)
    assert Rules(**r.as_dict()) == r
    assert [o.name for o in OPTIONS] == list(Rules().as_dict())
    for option in OPTIONS:
        assert option.default == Rules().as_dict()[option.name]
        assert option.kind == "int"
        assert option.nullable == (option.default is None)
        Rules(**{option.name: option.minimum})
        if option.maximum is not None:
            Rules(**{option.name: option.maximum})
            with pytest.raises(ValueError):
                Rules(**{option.name: option.maximum + 1})
