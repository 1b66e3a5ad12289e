"""Dendrid moves, continuations, follow-up order, whole turns and no repetition."""

import pytest

from hexgames import IllegalAction
from hexgames.dendria import Position, Rules, Step
from hexgames.hexgrid import DIRECTION_NAMES, board

SIDES = (5, 7, 9)


def make(side, to_move="dark", **pieces):
    lines = [f"Dendria v1: size={side} to-move={to_move}"]
    for name, cells in pieces.items():
        color, kind = name.split("_")
        if cells:
            lines.append(f"{color} {kind}: {' '.join(cells)}")
    return Position.from_text("\n".join(lines), Rules(board_side=side))


def centre(side):
    b = board(side)
    return b.labels[b.center()]


def ray(side, label, direction):
    b = board(side)
    return [b.labels[j] for j in b.rays[b.index(label)][DIRECTION_NAMES.index(direction)]]


def snapshot(p):
    return p.to_text(), p.key, p.history, p.turn_steps()


def assert_refused(position, step, fragment):
    before = snapshot(position)
    with pytest.raises(IllegalAction, match=fragment):
        position.play(step)
    assert snapshot(position) == before


# ------------------------------------------------------------- dendrid legs
def crowded(side):
    """Dark dendrid in the centre. North: light seed, dark dendrid, empty, light tree.
    North-east: empty, light dendrid, empty. South-east: a dark tree next to it."""
    c = centre(side)
    north, north_east, south_east = ray(side, c, "N"), ray(side, c, "NE"), ray(side, c, "SE")
    p = make(side, dark_dendrids=[c, north[1]], light_seeds=[north[0]],
             light_trees=[north[3]], light_dendrids=[north_east[1]], dark_trees=[south_east[0]])
    return p, c, north, north_east, south_east


@pytest.mark.parametrize("side", SIDES)
def test_a_dendrid_passes_seeds_friends_and_empty_cells_and_stops_only_on_empty(side):
    p, c, north, north_east, _ = crowded(side)
    expected = {north[2], north_east[0]}
    for d in ("S", "SW", "NW"):
        expected.update(ray(side, c, d))
    assert set(p.dendrid_destinations(c)) == expected
    legs = {str(s) for s in p.legal_actions() if s.kind == "leg" and s.origin == c}
    assert legs == {f"{c}-{x}" for x in expected}
    p.play(f"{c}-{north[2]}")
    assert str(p.piece_at(north[2])) == "dark dendrid" and p.piece_at(c) is None


@pytest.mark.parametrize("side", SIDES)
def test_a_dendrid_may_not_pass_or_stop_on_trees_and_enemy_dendrids(side):
    p, c, north, north_east, south_east = crowded(side)
    assert_refused(p, f"{c}-{north[0]}", "stops only on an empty cell, not on .*light seed")
    assert_refused(p, f"{c}-{north[3]}", "stops only on an empty cell, not on .*light tree")
    assert_refused(p, f"{c}-{north_east[2]}", f"may not pass {north_east[1]} .light dendrid")
    assert_refused(p, f"{c}-{south_east[1]}", f"may not pass {south_east[0]} .dark tree")
    if len(north) > 4:
        assert_refused(p, f"{c}-{north[4]}", "may not pass .*light tree")


def test_only_own_dendrids_move_and_only_along_a_line():
    p, _, north, *_ = crowded(7)
    assert_refused(p, "a1-a2", "a1 \\(empty\\) is not a dark dendrid")
    assert_refused(p, f"{north[0]}-a1", "is not a dark dendrid")
    assert_refused(p, "g7-h9", "g7 and h9 are not on one line")
    q = make(7, to_move="light", dark_dendrids=["g7"])
    assert_refused(q, "g7-g8", "g7 \\(dark dendrid\\) is not a light dendrid")


@pytest.mark.parametrize("side", SIDES)
def test_a_dendrid_continues_straight_on_as_often_as_it_likes(side):
    c = centre(side)
    south = ray(side, c, "S")  # empty to the edge
    p = make(side, dark_dendrids=[c], light_seeds=[south[1]])
    p.play(f"{c}-{south[0]}")
    assert p.dendrid_destinations(south[0]) == south[2:]
    assert_refused(p, f"-{south[1]}", "stops only on an empty cell")
    assert_refused(p, f"-{ray(side, south[0], 'SW')[0]}", "moves S this turn")
    assert_refused(p, f"-{c}", "moves S this turn")
    p.play(f"-{south[2]}")
    p.play(f"-{south[3]}")
    assert p.turn_steps() == [Step.parse(f"{c}-{south[0]}"), Step.parse(f"-{south[2]}"),
                              Step.parse(f"-{south[3]}")]
    p.play("end")
    assert str(p.piece_at(south[3])) == "dark dendrid"
    assert [p.piece_at(x) for x in (c, south[0], south[2])] == [None, None, None]


def test_only_the_dendrid_that_moved_continues():
    # Two dark dendrids side by side; after g7 moves north, a cell straight north of the
    # other dendrid is not a continuation of the first.
    p = make(7, dark_dendrids=["g7", "h7"])
    p.play("g7-g9")
    assert_refused(p, "-h9", "moves N this turn; a continuation goes straight on")
    assert p.dendrid_destinations("h7") == []
    assert_refused(p, "h7-h9", "a leg starts a turn")


def test_a_continuation_needs_a_dendrid_move_this_turn():
    p = make(7, dark_dendrids=["g7"])
    assert_refused(p, "-g9", "a turn starts with a plant, a dendrid move or pass")
    p.play("a1")
    assert_refused(p, "-g9", "only a dendrid that moved this turn may continue")
    assert_refused(p, "g7-g9", "a leg starts a turn, but this turn already began with a1")
    assert_refused(p, "b1", "a plant starts a turn")
    assert_refused(p, "pass", "a pass starts a turn")


def test_follow_ups_come_after_each_stop_and_the_dendrid_continues_afterwards():
    # The dark seedbed a1 a2 (fertile soils a3, b1) is fertilized on a3 by the dendrid
    # on a5, and on b1 once the dendrid from c5 stops on c2; then it goes on to c1.
    p = make(7, dark_seeds=["a1", "a2"], light_trees=["b2", "b3"], dark_dendrids=["a5", "c5"])
    assert p.growable_seedbeds() == []
    p.play_turn("c5-c2 +a1 -c1")
    assert str(p.piece_at("a1")) == "dark tree" and str(p.piece_at("c1")) == "dark dendrid"
    assert [str(s) for s in p.history] == ["c5-c2", "+a1", "-c1", "end"]


def test_end_and_follow_ups_need_a_started_turn():
    p = make(7, dark_seeds=["a1"])
    assert_refused(p, "end", "a turn starts with a plant, a dendrid move or pass, not a end")
    assert_refused(p, "+a1", "not a grow")


# ----------------------------------------------------------------- turns
def test_play_turn_appends_end_and_is_all_or_nothing():
    p = Position.initial()
    p.play_turn("g7")
    assert [str(s) for s in p.history] == ["g7", "end"] and p.to_move == "light"
    before = snapshot(p)
    with pytest.raises(IllegalAction, match=r"step 2 \(\^g7\) refused: .*not nourished"):
        p.play_turn("a1 ^g7")
    assert snapshot(p) == before
    with pytest.raises(IllegalAction, match="step 2 \\(a2\\) comes after the turn ended"):
        p.play_turn("pass a2")
    assert snapshot(p) == before
    with pytest.raises(IllegalAction, match="at least one step"):
        p.play_turn("")
    p.play_turn(["a1", Step("end")])
    assert p.to_move == "dark" and p.turn_number == 3


def test_undo_takes_back_one_step_at_a_time_and_stops_at_the_start():
    p = Position.initial()
    start = snapshot(p)
    p.play_turn("g7")
    after_first = snapshot(p)
    p.play("a1")
    p.undo()
    assert snapshot(p) == after_first
    p.undo()
    p.undo()
    assert snapshot(p) == start
    with pytest.raises(IndexError, match="nothing to undo"):
        p.undo()


def test_the_game_protocol_is_satisfied():
    from hexgames.game import GameState

    p = Position.initial()
    assert isinstance(p, GameState)
    assert p.current_seat == 0 and p.is_turn_start()
    p.play("g7")
    assert not p.is_turn_start() and p.parse_action("END") == Step("end")
    with pytest.raises(IllegalAction, match="not a cell of the side-7 board"):
        p.parse_action("n1")
    q = p.copy()
    q.play("end")
    assert p.turn_steps() == [Step.parse("g7")] and q.to_move == "light"
    q.undo()
    q.undo()
    assert p.history == (Step.parse("g7"),) and q.history == ()


# ----------------------------------------------------------- no repetition
def shuffle(side=5):
    """Dark's dendrid on a1, Light's on i5; Dark to move."""
    return make(side, dark_dendrids=["a1"], light_dendrids=["i5"])


def test_a_dendrid_stop_whose_turn_cannot_end_is_not_offered():
    p = shuffle()
    for turn in ("a1-a2", "i5-i4", "a2-a1"):
        p.play_turn(turn)
    # i4-i5 would recreate the start position; nothing can follow it (i5 is the edge).
    assert Step.parse("i4-i5") not in p.legal_actions()
    destinations = p.dendrid_destinations("i4")
    assert "i5" not in destinations and {"i3", "h4"} <= set(destinations)
    assert_refused(p, "i4-i5", "could not end without repeating an earlier position")
    with pytest.raises(IllegalAction, match="step 1 \\(i4-i5\\) refused"):
        p.play_turn("i4-i5")


def test_end_is_refused_in_a_repeated_position_but_the_dendrid_may_go_on():
    p = make(5, dark_dendrids=["a1"], light_dendrids=["i4"])
    for turn in ("a1-a2", "i4-i3", "a2-a1"):
        p.play_turn(turn)
    assert Step.parse("i3-i4") in p.legal_actions()  # offered: it can continue to i5
    p.play("i3-i4")
    assert p.legal_actions() == [Step.parse("-i5")]
    assert_refused(p, "end", "the position that existed at the start \\(no repetition\\)")
    p.undo()
    with pytest.raises(IllegalAction, match="cannot end the turn: end: the turn would end"):
        p.play_turn("i3-i4")
    p.play_turn("i3-i4 -i5")
    assert p.to_move == "dark"


def test_a_repetition_of_the_end_of_an_earlier_turn_is_refused_too():
    p = shuffle()
    for turn in ("a1-a2", "i5-i4", "a2-a3", "i4-i5"):
        p.play_turn(turn)
    # Stopping on a2 would recreate the position after turn 1 (a2, i5, Light to move);
    # the stop is offered because the dendrid may go on to a1.
    p.play("a3-a2")
    assert_refused(p, "end", "the position that existed after turn 1 \\(no repetition\\)")
    assert p.legal_actions() == [Step.parse("-a1")]
    p.play_turn("-a1")
    assert str(p.piece_at("a1")) == "dark dendrid"


def test_pass_is_legal_even_when_it_repeats_a_position():
    p = shuffle()
    p.play_turn("a1-a2")
    p.play_turn("pass")
    p.play_turn("a2-a1")
    assert Step("pass") in p.legal_actions()
    p.play("pass")  # recreates the start position (a1, i5, Dark to move)
    assert not p.is_over and p.consecutive_passes == 1


def test_a_text_position_has_no_history_but_counts_as_the_start():
    p = make(5, dark_dendrids=["a2"], light_dendrids=["i5"])
    p.play_turn("a2-a1")
    p.play_turn("i5-i4")
    p.play_turn("a1-a2")
    assert_refused(p, "i4-i5", "could not end")  # back to the text's position


def test_equal_positions_reached_in_different_orders_have_equal_keys():
    a = Position.initial()
    for turn in ("g7", "a1", "m7"):
        a.play_turn(turn)
    b = Position.initial()
    for turn in ("m7", "a1", "g7"):
        b.play_turn(turn)
    assert a.to_text() == b.to_text() and a.key == b.key
    # Mid-turn state is part of the key: same board, but one dendrid may still continue.
    c = make(7, dark_dendrids=["g7"])
    d = make(7, dark_dendrids=["g9"])
    c.play("g7-g9")
    assert c.to_text() == d.to_text() and c.key != d.key
    c.play("end")
    d.play_turn("pass")
    assert c.to_text().splitlines()[1:] == d.to_text().splitlines()[1:]
    assert c.key != d.key  # one pass is on the clock in d


def test_copies_are_independent():
    p = make(7, dark_dendrids=["g7"])
    q = p.copy()
    q.play_turn("g7-g9")
    assert str(p.piece_at("g7")) == "dark dendrid" and p.history == ()
    assert p.legal_actions() != q.legal_actions()
