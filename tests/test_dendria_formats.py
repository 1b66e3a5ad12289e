"""Position text (rules section 5) and game records."""

import pytest

from hexgames import IllegalAction
from hexgames.dendria import Position, Rules, Termination, read_record, write_record
from hexgames.dendria.spec import GAME
from hexgames.game import outcome_from_tags, outcome_tags

EXAMPLE = """Dendria v1: size=7 to-move=light
dark seeds: c4 d5
dark trees: e5 e6
dark dendrids: f6
light seeds: a1
light trees: b2
light dendrids: g7
"""


def test_the_rules_example_reads_and_writes_back_exactly():
    p = Position.from_text(EXAMPLE)
    assert p.to_text() == EXAMPLE
    assert p.to_move == "light" and p.rules == Rules()
    assert str(p.piece_at("f6")) == "dark dendrid" and p.piece_at("g8") is None
    assert not p.pie_pending and p.quiet_turns == 0


def test_header_fields_round_trip():
    text = EXAMPLE.replace("to-move=light", "to-move=light pie=pending quiet=3 passes=1")
    p = Position.from_text(text)
    assert (p.pie_pending, p.quiet_turns, p.consecutive_passes) == (True, 3, 1)
    assert p.to_text() == text
    assert Position.from_text(p.to_text()).key == p.key


def test_reading_is_lenient_about_case_order_and_blank_lines():
    text = "\n  DENDRIA v1:  to-move=Light size=7 \nlight dendrids: G7\n\ndark seeds: d5 c4\n"
    p = Position.from_text(text)
    assert p.to_text() == "Dendria v1: size=7 to-move=light\ndark seeds: c4 d5\n" \
        "light dendrids: g7\n"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("Dendria v2: size=7 to-move=dark", "starts with 'Dendria v1:'"),
        ("Dendria v1: to-move=dark", "must give the board size"),
        ("Dendria v1: size=7", "to-move must be dark or light"),
        ("Dendria v1: size=7 to-move=red", "to-move must be dark or light"),
        ("Dendria v1: size=7 to-move=dark colour=x", "unknown header field"),
        ("Dendria v1: size=7 to-move=dark size=5", "given twice"),
        ("Dendria v1: size=7 to-move=dark quiet=-1", "quiet must be a non-negative integer"),
        ("Dendria v1: size=7 to-move=dark pie=maybe", "only pie field is pie=pending"),
        ("Dendria v1: size=7 to-move=dark pie=pending", "needs Light to move"),
        ("Dendria v1: size=7 to-move=dark\ndark seed: a1", "write the kind in the plural"),
        ("Dendria v1: size=7 to-move=dark\ndark bushes: a1", "cannot read line"),
        ("Dendria v1: size=7 to-move=dark\ndark seeds: a1 n1", "'n1' .* not a cell"),
        ("Dendria v1: size=7 to-move=dark\ndark seeds: a1\nlight trees: A1", "a1 is given twice"),
        ("Dendria v1: size=12 to-move=dark", "size must be between 3 and 11"),
        ("Dendria v1: size=7 to-move=light seats=swapped pie=pending", "contradict"),
        ("Dendria v1: size=7 to-move=dark seats=swapped", "the swap comes after a seed"),
    ],
)
def test_malformed_texts_are_refused_naming_the_problem(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        Position.from_text(text)


def test_rules_must_agree_with_the_text():
    with pytest.raises(ValueError, match="side-7 board but the rules say board_side=5"):
        Position.from_text(EXAMPLE, Rules(board_side=5))
    with pytest.raises(ValueError, match="pie rule is off"):
        Position.from_text("Dendria v1: size=5 to-move=light pie=pending", Rules(5, pie=False))
    with pytest.raises(ValueError, match="seats=swapped but the pie rule is off"):
        Position.from_text(EXAMPLE.replace("light\n", "light seats=swapped\n", 1),
                           Rules(pie=False))
    p = Position.from_text(EXAMPLE, Rules(quiet_limit=2))
    assert p.rules.quiet_limit == 2


def test_an_empty_board_with_dark_to_move_is_the_start_of_a_game():
    p = Position.from_text("Dendria v1: size=5 to-move=dark")
    assert p.to_text() == Position.initial(Rules(board_side=5)).to_text()
    p.play_turn("e5")
    assert p.pie_pending


def test_swapped_seats_survive_the_text_format():
    p = Position.initial()
    p.play_turn("g7")
    p.play_turn("swap")
    assert "seats=swapped" in p.to_text()
    q = Position.from_text(p.to_text())
    assert q.seat_of("dark") == 1 and q.key == p.key


def test_the_game_description_builds_positions():
    p = GAME.new(board_side=5)
    assert p.rules == Rules(board_side=5)
    assert GAME.rules_options(p.rules) == Rules(board_side=5).as_dict()
    assert GAME.termination is Termination
    assert GAME.position_from_text(EXAMPLE, None).to_text() == EXAMPLE


# ------------------------------------------------------------------ records
def played_game():
    p = Position.initial(Rules(board_side=5, quiet_limit=2))
    for turn in ("e5", "swap", "a1", "c3", "b1", "d4", "pass", "pass"):
        p.play_turn(turn)
    return p


def test_a_record_lists_tags_and_one_numbered_line_per_turn():
    p = played_game()
    text = write_record(p, {"Dark": "Ann", "Light": "Bob", "Date": "2026.11.30"})
    assert text.splitlines() == [
        '[Game "Dendria"]', '[Size "5"]', '[Pie "on"]', '[QuietLimit "2"]',
        '[Dark "Ann"]', '[Light "Bob"]', '[Date "2026.11.30"]',
        f'[Result "{p.outcome().result()}"]', '[Termination "both passed"]',
        "",
        "1. e5 end", "2. swap", "3. a1 end", "4. c3 end", "5. b1 end", "6. d4 end",
        "7. pass", "8. pass",
    ]
    q, tags = read_record(text)
    assert q.to_text() == p.to_text() and q.history == p.history and q.key == p.key
    assert tags["Dark"] == "Ann" and tags["Result"] == p.outcome().result()
    assert tags["Termination"] == Termination.BOTH_PASSED


def test_a_record_has_a_blank_line_after_its_tags():
    p = Position.initial(Rules(board_side=5))
    assert write_record(p, {"Date": "x"}).endswith('[Result "*"]\n\n')
    p.play_turn("e5")
    lines = write_record(p, {"Date": "x"}).splitlines()
    assert lines[lines.index('[Result "*"]') + 1:] == ["", "1. e5 end"]


@pytest.mark.parametrize(("seats", "result"), [("", "1-0"), (" seats=swapped", "0-1")])
def test_the_result_is_in_seat_order_from_outcome_tags(seats, result):
    p = Position.from_text(f"Dendria v1: size=5 to-move=dark{seats}\ndark trees: a1 a2\n")
    p.play_turn("pass")
    p.play_turn("pass")
    outcome = p.outcome()
    assert (outcome.winner, outcome.result(), outcome.score) == (
        "dark", result, {"dark": 3.5, "light": 0.0}  # 2, +1 more 2s, +0.5 largest
    )
    text = write_record(p, {"Date": "x"})
    for name, value in outcome_tags(outcome).items():
        assert f'[{name} "{value}"]' in text
    assert read_record(text)[0].outcome() == outcome


def test_records_of_older_versions_with_a_colour_result_still_read():
    p = played_game()
    text = write_record(p).replace(f'[Result "{p.outcome().result()}"]', f'[Result "{p.winner}"]')
    q, tags = read_record(text)
    assert q.key == p.key and tags["Result"] == p.winner


def test_a_resignation_is_written_from_the_callers_tags_and_reads_back():
    p = Position.initial(Rules(board_side=5))
    p.play_turn("e5")
    text = write_record(p, {"Result": "0-1", "Termination": "resignation"})
    assert '[Result "0-1"]' in text and '[Termination "resignation"]' in text
    q, tags = read_record(text)
    assert q.outcome() is None and q.key == p.key
    outcome = outcome_from_tags(GAME, q, tags)
    assert outcome.termination is Termination.RESIGNATION and outcome.winner == "light"


@pytest.mark.parametrize(
    "tags",
    [
        {"Result": "1-0"},
        {"Result": "1-0", "Termination": "both passed"},
        {"Result": "dark", "Termination": "resignation"},
        {"Result": "*", "Termination": "timeout"},
        {"Termination": "made up"},
    ],
)
def test_an_outcome_the_rules_did_not_reach_must_be_a_resignation_or_timeout(tags):
    p = Position.initial(Rules(board_side=5))
    with pytest.raises(ValueError, match="does not fit a game the rules have not ended"):
        write_record(p, tags)
    forged = "".join(f'[{k} "{v}"]\n' for k, v in tags.items()) + "\n1. e5\n"
    with pytest.raises(ValueError, match="not over"):
        read_record(forged)


def test_a_termination_tag_contradicting_the_replay_is_refused():
    text = write_record(played_game()).replace("both passed", "quiet limit")
    with pytest.raises(ValueError, match="Termination tag says 'quiet limit'"):
        read_record(text)


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (None, "must be text \\(str\\), got NoneType"),
        (b'[Size "5"]\n1. e5', "not bytes"),
        (42, "got int"),
        (['[Size "5"]'], "got list"),
    ],
)
def test_read_record_refuses_what_is_not_text(value, fragment):
    with pytest.raises(ValueError, match=fragment):
        read_record(value)


def test_records_of_text_starts_and_unfinished_turns_round_trip():
    start = "Dendria v1: size=5 to-move=dark quiet=1\ndark dendrids: a1\nlight seeds: e5\n"
    p = Position.from_text(start, Rules(board_side=5))
    p.play_turn("a1-a3")
    p.play("e1")
    text = write_record(p, {"Event": 'say "hi"'})
    assert '[Start "Dendria v1: size=5 to-move=dark quiet=1 / dark dendrids: a1 / light ' \
        'seeds: e5"]' in text
    assert "2. e1 ..." in text and '[Event "say \\"hi\\""]' in text
    q, tags = read_record(text)
    assert q.start_text == start and q.history == p.history and q.key == p.key
    assert tags["Event"] == 'say "hi"' and tags["Result"] == "*"


def test_reading_accepts_turns_without_end():
    q, _ = read_record('[Game "Dendria"]\n[Size "5"]\n1. e5\n2. swap\n3. a1\n')
    assert q.turn_number == 4 and q.to_move == "dark" and q.seat_of("dark") == 1


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('[Game "Benediction"]\n1. e5', "not a Dendria record"),
        ('[Size "5"]\n1. e5\n3. a1', "turn 3 where turn 2 belongs"),
        ('[Size "5"]\n1. e5\n2. e5', "turn 2 \\(e5\\): step 1 \\(e5\\) refused: .* not empty"),
        ('[Size "5"]\n1. e5 ...\n2. a1', "only the last turn may be unfinished"),
        ('[Size "5"]\n1. e5\n[Date "x"]', "tag Date after the moves"),
        ('[Size "5"]\nhello', "line 2: expected a tag or a numbered turn"),
        ('[Size "5"]\n[Pie "maybe"]', "Pie must be on or off"),
        ('[Size "five"]', "Size must be an integer"),
        ('[Size "5"]\n[Result "dark"]\n1. e5', "Result tag says 'dark' but replaying"),
        ('[Size "5"]\n1. pass\n2. pass\n3. e5', "turn 3: the game was already over"),
    ],
)
def test_bad_records_are_refused_naming_the_turn(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        read_record(text)


def test_refused_record_steps_are_illegal_actions():
    with pytest.raises(IllegalAction):
        read_record('[Size "5"]\n1. e5\n2. z9')


def test_derived_tags_cannot_be_overridden():
    p = played_game()
    text = write_record(p, {"Result": "dark" if p.winner != "dark" else "light", "Size": "9"})
    assert f'[Result "{p.outcome().result()}"]' in text and '[Size "5"]' in text
    with pytest.raises(ValueError, match="tag name"):
        write_record(p, {"bad name": "x"})
