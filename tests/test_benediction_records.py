"""Benediction game records: writing, reading, replaying, and their errors."""

import random

import pytest

from hexgames import IllegalAction
from hexgames.benediction import GAME, Position, Rules, Termination, read_record, write_record
from hexgames.game import outcome_from_tags, outcome_tags


def random_game(seed: int, rules: Rules, start: Position | None = None) -> Position:
    rng = random.Random(seed)
    p = start if start is not None else Position.initial(rules)
    while not p.is_over:
        p.play(rng.choice(p.legal_actions()))
    return p


def test_turns_are_numbered_and_hold_one_or_two_actions():
    p = Position.initial()
    for action in ("e3e4", "e7e6", "d7d6", "Bc3"):
        p.play(action)
    text = write_record(p, {"Red": "alice", "Blue": "bob", "Date": "2026.11.30"})
    assert text.splitlines()[-1] == "1. e3e4  2. e7e6 d7d6  3. Bc3"
    assert '[Game "Benediction"]' in text and '[Red "alice"]' in text
    assert '[Result "*"]' in text


def test_a_finished_game_round_trips_with_its_result_and_tags():
    p = random_game(7, Rules(max_turns=200))
    text = write_record(p, {"Red": 'Quote "q" and \\ backslash', "Blue": "b"})
    q, tags = read_record(text)
    assert (q.to_text(), q.key, q.history) == (p.to_text(), p.key, p.history)
    assert (q.winner, q.win_reason) == (p.winner, p.win_reason)
    assert tags["Red"] == 'Quote "q" and \\ backslash'
    assert tags["Result"] == {"red": "1-0", "blue": "0-1", "draw": "1/2-1/2"}[p.winner]
    assert tags["Termination"] == p.win_reason
    assert tags["MaxTurns"] == "200"


def test_non_default_options_are_tags_and_rebuild_the_rules():
    rules = Rules(board_side=6, first_turn_actions=2, max_stack=12, supply=3, max_turns=30)
    p = random_game(3, rules)
    text = write_record(p)
    for tag in ("BoardSide", "FirstTurnActions", "MaxStack", "Supply", "MaxTurns"):
        assert f"[{tag} " in text
    q, _ = read_record(text)
    assert q.rules == rules and q.key == p.key


def test_variant_tag_and_snake_case_option_tags_are_read():
    text = '[Game "Benediction"]\n[Variant "board_side=4 max_turns=10"]\n[max_stack "3"]\n\n'
    q, _ = read_record(text)
    assert q.rules == Rules(board_side=4, max_turns=10, max_stack=3)


def test_games_from_another_start_carry_it_in_a_start_tag():
    start = Position.from_text("Benediction v1: R E2 B=E8\nR:C3E2k\nB:E8kF6+")
    p = random_game(11, start.rules, start)
    text = write_record(p)
    assert '[Start "Benediction v1: R E2 B=E8 / R:C3E2k / B:E8kF6+"]' in text
    q, _ = read_record(text)
    assert (q.to_text(), q.key) == (p.to_text(), p.key)
    movetext = text.split("\n\n", 1)[1]
    assert movetext.startswith("1. ") and q.history == p.history


def test_standard_games_have_no_start_tag():
    assert "[Start" not in write_record(random_game(1, Rules(max_turns=20)))


def test_an_illegal_action_names_the_turn_and_the_action():
    with pytest.raises(IllegalAction, match=r"turn 2, action 'e4e5': e4 holds a red man"):
        read_record("1. e3e4  2. e4e5")


@pytest.mark.parametrize(
    "text,reason",
    [
        ("1. e3e4  3. e7e6", "turn 3 follows turn 1"),
        ("1. e3e4 e4e5", "turn 1, action 'e4e5': the turn already ended"),
        ("1. e3e4  2. e7e6  3. e4e5", "turn 2 ends after 1 action"),
        ("e3e4", "before turn number"),
        ('[Game "Dendria"]\n\n1. g7', "not a Benediction record"),
        ('[Result "blue"]\n[MaxTurns "1"]\n\n1. e3e4', "contradicts"),
        ('[MaxStack "99"]\n\n', "max_stack must be an integer from 2 to 15"),
        ('[Game "Benediction"\n', "malformed tag"),
        ('[Start "Benediction v1: R-Z2 B E8"]\n\n', r"\[Start\] tag"),
    ],
)
def test_malformed_records_are_refused_with_a_reason(text, reason):
    with pytest.raises(ValueError, match=reason):
        read_record(text)


def test_the_final_result_token_is_accepted():
    q, _ = read_record('[MaxTurns "1"]\n\n1. e3e4 draw')
    assert q.winner == "draw"


# ------------------------------------------------------- Result and Termination tags
def test_result_and_termination_tags_state_the_outcome():
    p = Position.from_text("Benediction v1: R-E2 B E8\nR:E2kE7\nB:E8k")
    p.play("e7e8")
    text = write_record(p, {"Red": "alice"})
    assert outcome_tags(p.outcome()) == {"Result": "1-0", "Termination": "king captured"}
    assert '[Result "1-0"]\n[Termination "king captured"]\n\n1. e7e8\n' in text
    q, tags = read_record(text)
    assert q.outcome() == p.outcome()
    assert outcome_from_tags(GAME, q, tags) == p.outcome()


def test_a_draw_by_the_cap_is_written_as_half_points():
    p = random_game(1, Rules(max_turns=3))
    assert p.winner == "draw"
    text = write_record(p)
    assert '[Result "1/2-1/2"]' in text and '[Termination "turn limit"]' in text
    assert read_record(text)[0].outcome() == p.outcome()


def test_an_unfinished_game_has_result_star_and_no_termination():
    p = Position.initial()
    p.play("e3e4")
    text = write_record(p)
    assert '[Result "*"]' in text and "Termination" not in text


def test_a_resignation_supplied_by_the_caller_is_written_and_read_back():
    p = Position.initial()
    p.play("e3e4")
    resigned = {"Result": "0-1", "Termination": str(Termination.RESIGNATION)}
    text = write_record(p, {"Red": "alice", **resigned})
    assert '[Result "0-1"]\n[Termination "resignation"]\n\n1. e3e4\n' in text
    q, tags = read_record(text)
    assert q.outcome() is None  # the engine does not know about resignations
    outcome = outcome_from_tags(GAME, q, tags)
    assert outcome is not None
    assert (outcome.termination, outcome.winner, outcome.winner_seat) == (
        Termination.RESIGNATION, "blue", 1,
    )


def test_a_supplied_result_contradicting_a_decided_game_is_refused():
    p = Position.from_text("Benediction v1: R-E2 B E8\nR:E2kE7\nB:E8k")
    p.play("e7e8")
    with pytest.raises(ValueError, match="contradicts the game"):
        write_record(p, {"Result": "0-1"})
    with pytest.raises(ValueError, match="expected one of"):
        write_record(Position.initial(), {"Result": "Blue wins"})


def test_the_tag_block_ends_with_a_blank_line_even_without_actions():
    text = write_record(Position.initial(), {"Event": "x"})
    assert text.endswith('[Result "*"]\n\n')
    assert read_record(text)[0].ply == 0


def test_the_older_colour_form_of_the_result_is_still_read():
    # with MaxTurns 1, Red's single opening action ends the game as a draw by the cap
    for result in ("draw", "1/2-1/2"):
        q, _ = read_record(f'[Result "{result}"]\n[MaxTurns "1"]\n\n1. e3e4')
        assert q.winner == "draw"
    for result in ("red", "1-0"):
        with pytest.raises(ValueError, match="contradicts"):
            read_record(f'[Result "{result}"]\n[MaxTurns "1"]\n\n1. e3e4')


@pytest.mark.parametrize("bad", [None, b"1. e3e4", 123, ["1. e3e4"]])
def test_a_record_that_is_not_text_is_refused_with_a_value_error(bad):
    with pytest.raises(ValueError, match="must be text"):
        read_record(bad)


@pytest.mark.parametrize("tags", [{"bad name": "x"}, {"": "x"}, ["Red"], "Red"])
def test_malformed_caller_tags_are_refused(tags):
    with pytest.raises(ValueError, match="tag"):
        write_record(Position.initial(), tags)
