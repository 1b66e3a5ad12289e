"""Pie rule, both end conditions, scoring and results."""

import pytest

from hexgames import IllegalAction
from hexgames.dendria import Position, Rules, Step, Termination
from hexgames.dendria._scoring import scores
from hexgames.game import CommonTermination, Outcome


def make(side=7, to_move="dark", header="", rules=None, **pieces):
    lines = [f"Dendria v1: size={side} to-move={to_move} {header}".strip()]
    for name, cells in pieces.items():
        color, kind = name.split("_")
        lines.append(f"{color} {kind}: {' '.join(cells)}")
    return Position.from_text("\n".join(lines), rules or Rules(board_side=side))


def assert_refused(position, step, fragment):
    before = (position.to_text(), position.key, position.history)
    with pytest.raises(IllegalAction, match=fragment):
        position.play(step)
    assert (position.to_text(), position.key, position.history) == before


# -------------------------------------------------------------------- pie
def test_swap_exchanges_seats_and_light_moves_again_on_the_same_board():
    p = Position.initial()
    assert (p.seat_of("dark"), p.seat_of("light"), p.color_of_seat(0)) == (0, 1, "dark")
    p.play_turn("g7")
    assert p.pie_pending and Step("swap") in p.legal_actions()
    board_before = p.to_text().splitlines()[1:]
    p.play("swap")
    assert p.to_text().splitlines()[1:] == board_before
    assert p.to_move == "light" and p.is_turn_start()
    assert (p.seat_of("dark"), p.seat_of("light")) == (1, 0)
    assert (p.color_of_seat(0), p.color_of_seat(1)) == ("light", "dark")
    assert p.current_seat == 0  # the first player, who placed the seed, now plays Light
    assert not p.pie_pending and Step("swap") not in p.legal_actions()
    assert p.quiet_turns == 1 and p.consecutive_passes == 0
    p.play_turn("a1")
    assert p.to_move == "dark" and p.current_seat == 1
    assert_refused(p, "swap", "only as Light's first turn")


def test_swap_is_only_offered_on_lights_first_turn_after_a_plant():
    p = Position.initial()
    assert Step("swap") not in p.legal_actions()
    assert_refused(p, "swap", "only as Light's first turn")
    p.play_turn("pass")  # Dark placed no seed: nothing to swap for
    assert Step("swap") not in p.legal_actions()
    q = Position.initial(Rules(pie=False))
    q.play_turn("g7")
    assert Step("swap") not in q.legal_actions()
    assert_refused(q, "swap", "and it is off")
    r = Position.initial()
    r.play_turn("g7")
    r.play_turn("a1")
    assert Step("swap") not in r.legal_actions() and not r.pie_pending


def test_swap_is_undone_with_its_seats():
    p = Position.initial()
    p.play_turn("g7")
    key = p.key
    p.play("swap")
    assert p.key != key
    p.undo()
    assert p.key == key and p.seat_of("dark") == 0 and p.pie_pending


def test_scores_and_returns_are_reported_per_seat_after_a_swap():
    p = make(to_move="light", header="pie=pending", light_trees=["a1", "a2"], dark_trees=["m7"])
    p.play_turn("swap")
    p.play_turn("pass")
    p.play_turn("pass")
    assert p.is_over and p.winner == "light"
    assert p.score() == {"dark": 1 + 1, "light": 2 + 1 + 0.5}
    assert p.seat_scores() == (3.5, 2.0)  # seat 0 holds Light after the swap
    assert p.returns() == (1.0, -1.0)


# --------------------------------------------------------------------- end
def test_two_consecutive_passes_end_the_game():
    p = Position.initial()
    p.play_turn("g7")
    p.play_turn("pass")
    assert not p.is_over and p.consecutive_passes == 1
    p.play_turn("a1")
    assert p.consecutive_passes == 0
    p.play_turn("pass")
    p.play_turn("pass")
    assert p.is_over and p.end_reason == "both passed"
    assert p.legal_actions() == [] and p.winner == "draw" and p.returns() == (0.0, 0.0)
    assert_refused(p, "a2", "the game is over \\(both passed\\)")
    p.undo()
    assert not p.is_over and p.end_reason is None


@pytest.mark.parametrize("k", [1, 2, 3])
def test_2k_turns_without_a_plant_end_the_game(k):
    p = make(to_move="light", rules=Rules(quiet_limit=k), dark_dendrids=["a1"],
             light_dendrids=["m7"])
    moves = ["m7-m6", "a1-a2", "m6-m7", "a2-a3", "m7-m6", "a3-a4"]
    for n, turn in enumerate(moves[: 2 * k], start=1):
        assert not p.is_over, f"over after {n - 1} turns with K={k}"
        p.play_turn(turn)
        assert p.quiet_turns == n
    assert p.is_over and p.end_reason == "quiet limit"


def test_a_plant_resets_the_quiet_count():
    p = make(to_move="light", rules=Rules(quiet_limit=1), dark_dendrids=["a1"],
             light_dendrids=["m7"])
    p.play_turn("m7-m6")
    p.play_turn("g7")
    assert p.quiet_turns == 0 and not p.is_over
    p.play_turn("pass")
    assert p.quiet_turns == 1 and not p.is_over


def test_a_swap_counts_as_a_turn_without_a_plant():
    p = Position.initial(Rules(quiet_limit=1))
    p.play_turn("g7")
    p.play_turn("swap")
    assert p.quiet_turns == 1 and not p.is_over
    p.play_turn("pass")
    assert p.is_over and p.end_reason == "quiet limit" and p.consecutive_passes == 1


def test_a_text_position_may_be_over_already():
    with pytest.raises(ValueError, match="cannot exceed quiet"):
        make(header="passes=2", dark_trees=["a1"])
    with pytest.raises(ValueError, match="beyond the end of the game"):
        make(header="quiet=21", dark_trees=["a1"])
    p = make(header="quiet=1 passes=1", dark_trees=["a1"])
    assert not p.is_over and p.consecutive_passes == 1
    q = make(header="quiet=2 passes=2", dark_trees=["a1"])
    assert q.is_over and q.end_reason == "both passed" and q.winner == "dark"
    assert q.legal_actions() == []


# ------------------------------------------------------------------ scoring
@pytest.mark.parametrize(
    ("dark", "light", "expected"),
    [
        ([3, 3, 2], [], (3 + 2 + 1 + 1 + 0.5, 0.0)),  # distinct sizes only
        ([3, 3, 2], [3, 2, 2], (5 + 1 + 0, 5 + 1 + 0)),  # more 3s vs more 2s, equal largest
        ([4], [1, 1, 1], (4 + 1 + 0.5, 1 + 1)),
        ([2, 1], [2, 1], (3.0, 3.0)),  # same forests: no bonus at all
        ([], [], (0.0, 0.0)),
        ([5, 1, 1], [5, 1], (6 + 1, 6.0)),  # largest equal: no half point
    ],
)
def test_score_terms(dark, light, expected):
    assert scores(dark, light) == expected
    assert scores(light, dark) == expected[::-1]


def position_with_forests():
    # Dark forests: {a1,a2,a3} and {c1,c2,c3} (size 3 twice) and {e1,e2} (size 2);
    # Light forests: {m7,m6,m5,m4} (size 4) and {k1} (size 1).
    return make(
        header="quiet=1 passes=1",
        dark_trees=["a1", "a2", "a3", "c1", "c2", "c3", "e1", "e2"],
        light_trees=["m4", "m5", "m6", "m7", "k1"],
    )


def test_score_of_a_board_and_winner_at_the_end():
    p = position_with_forests()
    # Dark: 3 + 2 = 5, +1 (size 3), +1 (size 2) = 7. Light: 4 + 1 = 5, +1, +1, +0.5 = 7.5
    assert p.score() == {"dark": 7.0, "light": 7.5}
    assert p.winner is None and p.returns() == (0.0, 0.0)
    p.play_turn("pass")
    assert p.is_over and p.winner == "light" and p.returns() == (-1.0, 1.0)


def test_equal_scores_are_a_draw():
    p = make(header="quiet=1 passes=1", dark_trees=["a1", "a2"], light_trees=["m7", "m6"])
    assert p.score() == {"dark": 2.0, "light": 2.0}
    p.play_turn("pass")
    assert p.winner == "draw" and p.returns() == (0.0, 0.0)


# ----------------------------------------------------------------- outcome
def test_termination_names_every_way_a_game_ends():
    assert {t.name: t.value for t in Termination} == {
        "BOTH_PASSED": "both passed", "QUIET_LIMIT": "quiet limit",
        "RESIGNATION": "resignation", "TIMEOUT": "timeout", "OPPONENT_LEFT": "opponent left",
    }
    for common in CommonTermination:
        assert Termination(common.value).name == common.name


def test_outcome_after_a_swap_names_the_winning_colour_seat_and_score():
    p = make(to_move="light", header="pie=pending", light_trees=["a1", "a2"], dark_trees=["m7"])
    p.play_turn("swap")
    p.play_turn("pass")
    assert p.outcome() is None
    p.play_turn("pass")
    outcome = p.outcome()
    assert outcome == Outcome(
        termination=Termination.BOTH_PASSED, winner="light", winner_seat=0,
        score={"dark": 2.0, "light": 3.5},
    )
    assert outcome.returns() == p.returns() and outcome.result() == "1-0"
    assert outcome.describe() == "Light wins (both passed)"
    assert p.end_reason is Termination.BOTH_PASSED and p.end_reason == "both passed"
    p.undo()
    assert p.outcome() is None and p.end_reason is None


def test_outcome_of_a_draw_and_of_the_quiet_limit():
    p = make(header="quiet=1 passes=1", dark_trees=["a1", "a2"], light_trees=["m7", "m6"])
    p.play_turn("pass")
    assert p.outcome() == Outcome(Termination.BOTH_PASSED, None, None,
                                  {"dark": 2.0, "light": 2.0})
    q = Position.initial(Rules(board_side=5, quiet_limit=1))
    q.play_turn("e5")
    q.play_turn("swap")
    q.play_turn("pass")
    assert q.outcome().termination is Termination.QUIET_LIMIT
    assert q.outcome().is_draw and q.outcome().describe() == "draw (quiet limit)"
