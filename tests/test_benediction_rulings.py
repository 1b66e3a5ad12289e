"""One test (at least) per ruling of the Benediction rules, sections 2-6.

Positions are written in the board-text format of section 8: ``R:``/``B:`` list men
(column letter, row, flags ``k`` king ``b`` blessed ``c`` cursed ``l`` locked, ``+`` per
extra checker), ``X:`` lists blocks; ``R-`` means Red acts with two actions left.
"""

from __future__ import annotations

import pytest

from hexgames import IllegalAction
from hexgames.benediction import Man, Position, Rules
from hexgames.benediction._tables import tables


def pos(*lines: str, header: str = "R-E2 B E8", **options: object) -> Position:
    """A position from text lines (after the header) and rules options."""
    return Position.from_text(
        "\n".join([f"Benediction v1: {header}", *lines]), Rules(**options)  # type: ignore[arg-type]
    )


def legal(p: Position) -> set[str]:
    return {str(a) for a in p.legal_actions()}


def refused(p: Position, action: str, reason: str) -> None:
    """The action is refused with a message naming ``reason``; nothing changes."""
    before = (p.to_text(), p.key, p.to_move, p.actions_left, len(p.history))
    assert action not in legal(p)
    with pytest.raises(IllegalAction, match=reason):
        p.play(action)
    assert (p.to_text(), p.key, p.to_move, p.actions_left, len(p.history)) == before


def man(p: Position, label: str) -> Man | None:
    return p.man_at(label)


# --------------------------------------------------------------- 2. pieces, start
def test_start_position_has_a_king_and_six_men_per_side_and_red_acts_first():
    p = Position.initial()
    assert p.man_at("e2") == Man("red", 1, king=True)
    assert p.man_at("e8") == Man("blue", 1, king=True)
    for label in ("d1", "d2", "e1", "e3", "f1", "f2"):
        assert p.man_at(label) == Man("red", 1)
    for label in ("d7", "d8", "e7", "e9", "f7", "f8"):
        assert p.man_at(label) == Man("blue", 1)
    assert len(p.men()) == 14 and p.blocks == set()
    assert p.to_move == "red" and p.current_seat == 0


def test_blocks_never_move_and_nothing_moves_onto_or_over_them():
    p = pos("R:C2+E2k", "B:E8k", "X:C3")
    refused(p, "c2c3", "holds a block")
    refused(p, "c2c4", "cannot reach c4")
    assert "c2c1" in legal(p)


def test_supply_unlimited_by_default():
    p = pos("R:A1E2k", "B:E8k")
    assert p.supply_left("red") is None
    p.play("@e3")
    assert man(p, "e3") == Man("red", 1, locked=True)
    p.play("@d1")
    assert p.to_move == "blue" and man(p, "d1") == Man("red", 1)


def test_supply_option_limits_drops_and_captures_return_checkers():
    # Red has 7 checkers on the board and supply=1: one in reserve.
    p = pos("R:A12345B1E2k", "B:B2E8k", supply=1)
    assert p.supply_left("red") == 1
    p.play("@e3")
    assert p.supply_left("red") == 0
    refused(p, "@d1", "no checker left in the supply")
    p.play("Bi3")
    p.play("b2a1")  # Blue captures a red man: its checker returns to Red's supply
    assert p.supply_left("red") == 1
    p.play("Bg3")
    p.play("@d1")
    assert p.man_at("d1") is not None


def test_largest_stack_default_8_blocks_bigger_merges():
    p = pos("R:C3b+++C4++++E2k", "B:E8k")  # 4 blessed + 5
    refused(p, "c3+c4", "largest allowed is 8")
    p = pos("R:C3b+++C4++++E2k", "B:E8k", max_stack=15)
    p.play("c3+c4")
    assert man(p, "c4") == Man("red", 9)


def test_largest_stack_option_applies_to_split_merges():
    p = pos("R:C3b++C4+E2k", "B:E8k", max_stack=3)
    refused(p, "c3-2-c4", "largest allowed is 3")
    p.play("c3-1-c4")
    assert man(p, "c4") == Man("red", 3)


# ------------------------------------------------------------------ 3. turns
def test_12_star_red_first_turn_has_one_action():
    p = Position.initial()
    assert p.actions_left == 1 and p.is_turn_start()
    p.play("e3e4")
    assert (p.to_move, p.actions_left, p.turn_number) == ("blue", 2, 2)
    p.play("e7e6")
    assert (p.to_move, p.actions_left) == ("blue", 1)
    assert not p.is_turn_start()
    p.play("d7d6")
    assert (p.to_move, p.actions_left, p.turn_number) == ("red", 2, 3)


def test_first_turn_actions_2_gives_red_two_actions_at_once():
    p = Position.initial(Rules(first_turn_actions=2))
    assert p.actions_left == 2
    p.play("e3e4")
    assert p.to_move == "red"
    p.play("d2d3")
    assert p.to_move == "blue"
    assert Position.initial().key != Position.initial(Rules(first_turn_actions=2)).key


def test_a_position_read_from_text_gives_every_turn_two_actions():
    p = Position.from_text("Benediction v1: R-E2 B E8\nR:D12E12k3F12\nB:D78E78k9F78")
    assert p.actions_left == 2
    p.play("e3e4")
    assert p.to_move == "red"


def test_moved_man_is_locked_but_may_merge():
    p = pos("R:C24E2k", "B:E8k")
    p.play("c2c3")
    assert man(p, "c3") == Man("red", 1, locked=True)
    refused(p, "c3c2", "c3 is locked")
    p.play("c3+c4")
    assert man(p, "c4") == Man("red", 2)


def test_moved_man_may_split():
    p = pos("R:C2+E2k", "B:E8k")
    p.play("c2c3")
    refused(p, "c3c4", "locked")
    p.play("c3-1-c2")
    assert man(p, "c2") == Man("red", 1, cursed=True)


def test_dropped_man_is_locked():
    p = pos("R:D2E12k3F12", "B:E8k")
    p.play("@d1")
    refused(p, "d1c1", "d1 is locked")


def test_split_off_man_is_locked_but_the_part_left_is_not():
    p = pos("R:C3+E2k", "B:E8k")
    p.play("c3-1-c4")
    refused(p, "c4c5", "c4 is locked")
    p.play("c3c2")
    assert man(p, "c2") is not None


def test_merge_result_is_not_locked_even_onto_a_locked_man():
    p = pos("R:C34lE2k", "B:E8k")
    assert man(p, "c4") == Man("red", 1, locked=True)
    p.play("c3+c4")
    assert man(p, "c4") == Man("red", 2)
    p.play("c4c6")  # a merged stack may move in the same turn
    assert man(p, "c6") is not None


def test_locks_clear_at_the_end_of_the_turn():
    p = pos("R:C2E2k", "B:D7E8k")
    p.play("c2c3")
    p.play("Ba1")
    assert not man(p, "c3").locked  # type: ignore[union-attr]
    assert p.to_move == "blue"


# ------------------------------------------------------------------ 4. reach
def test_occupied_points_of_either_colour_are_jumped():
    p = pos("R:C2b++C3E2k", "B:C4E8k")
    assert {"c2c5", "c2+c3", "c2c4"} <= legal(p)
    refused(p, "c2c6", "cannot reach")
    p.play("c2c5")
    assert man(p, "c3") == Man("red", 1) and man(p, "c4") == Man("blue", 1)


def test_a_block_ends_the_line():
    p = pos("R:C2++E2k", "B:E8k", "X:C4")
    assert "c2c3" in legal(p)
    refused(p, "c2c5", "cannot reach c5")


def test_reach_is_exactly_k_steps_for_any_k_up_to_the_size():
    p = pos("R:A1++E2k", "B:E8k")
    assert {"a1a2", "a1a3", "a1a4"} <= legal(p)
    refused(p, "a1a5", "cannot reach")


def test_portal_move_passes_the_enemy_wall_and_blesses_the_man():
    p = pos("R:E2kF8", "B:E8k")
    p.play("f8a4")
    assert man(p, "a4") == Man("red", 1, blessed=True, locked=True)


def test_cursed_man_through_the_portal_stays_cursed():
    p = pos("R:E2kF8c", "B:E8k")
    p.play("f8a4")
    assert man(p, "a4") == Man("red", 1, cursed=True, locked=True)


def test_portal_works_only_forward_from_the_enemy_wall():
    p = pos("R:A3E2kE1", "B:E8k")
    assert not any(a.startswith("a3") and a[2:] in {"i1", "i2", "i3"} for a in legal(p))
    assert "e1e9" not in legal(p)


def test_blue_uses_the_portal_through_reds_wall():
    p = pos("R:E2k", "B:A1E8k", header="R E2 B-E8")
    p.play("a1i5")
    assert man(p, "i5") == Man("blue", 1, blessed=True, locked=True)


def test_destination_must_differ_from_origin():
    # a 9-stack going north from e9 passes the portal and comes back to e9 in 9 steps
    p = pos("R:E2kE9++++++++", "B:E8k", max_stack=15)
    assert not any(a.origin == a.target for a in p.legal_actions())
    refused(p, "e9e9", "must differ from the origin")
    assert "e9e8" in legal(p)


def test_same_origin_and_destination_with_and_without_portal_passes_the_wall():
    # designer example: a Blue 4-stack b3->b5 goes b2, b1, portal to b6, b5: blessed
    p = pos("R:E2k", "B:B3+++E8k", header="R E2 B-E8")
    assert [str(a) for a in p.legal_actions()].count("b3b5") == 1
    p.play("b3b5")
    assert man(p, "b5") == Man("blue", 4, blessed=True, locked=True)


# ---------------------------------------------------------------- 5. actions
def test_move_to_an_empty_point():
    p = pos("R:C3E2k", "B:E8k")
    p.play("c3c4")
    assert man(p, "c3") is None and man(p, "c4") == Man("red", 1, locked=True)


def test_move_captures_an_enemy_man_whatever_the_sizes():
    p = pos("R:C3E2k", "B:C4++++E8k")
    p.play("c3c4")
    assert man(p, "c4") == Man("red", 1, locked=True)
    assert p.winner is None


def test_move_onto_a_friendly_man_is_a_merge_not_a_move():
    p = pos("R:C34E2k", "B:E8k")
    refused(p, "c3c4", r"merge \(c3\+c4\)")


def test_drop_only_on_an_empty_point_of_the_own_zone():
    p = pos("R:E2kE3", "B:E8k")
    assert {"@d1", "@d2", "@e1", "@f1", "@f2"} == {a for a in legal(p) if a.startswith("@")}
    refused(p, "@e3", "not empty")
    refused(p, "@e7", "not in red's zone")
    refused(p, "@c3", "not in red's zone")


def test_drop_on_the_own_empty_starting_point_crowns_the_new_man():
    p = pos("R:E3", "B:E8k")
    p.play("@e2")
    assert man(p, "e2") == Man("red", 1, king=True, locked=True)


def test_block_on_an_empty_point():
    p = pos("R:E2k", "B:E8k")
    p.play("Bc2")
    assert p.blocks == {"c2"}


def test_block_not_on_a_starting_point_of_either_player():
    p = pos("R:E3", "B:E7")
    refused(p, "Be2", "is a starting point")
    refused(p, "Be8", "is a starting point")


def test_block_not_next_to_another_block():
    p = pos("R:E2k", "B:E8k", "X:C3")
    refused(p, "Bc4", "block-adjacent to the block on c3")
    refused(p, "Bd4", "block-adjacent")
    p.play("Bc5")
    assert p.blocks == {"c3", "c5"}


@pytest.mark.parametrize("first,second", [("a1", "a5"), ("a1", "e1"), ("a1", "i5"),
                                          ("h6", "a2"), ("a5", "i1"), ("i4", "b1")])
def test_block_not_at_the_other_end_of_a_grid_line(first, second):
    p = pos("R:E2k", "B:E8k", f"X:{first.upper()}")
    refused(p, f"B{second}", f"block-adjacent to the block on {first}")


def test_block_not_on_an_occupied_point():
    p = pos("R:C3E2k", "B:E8k")
    refused(p, "Bc3", "not empty")


# merge conditions 1-4: (source, target, legal?) with sizes and flags in text form
MERGE_TABLE = [
    ("C3", "4", True, "two plain singles make a plain 2"),
    ("C3k", "4k", False, "1. not both kings"),
    ("C3k", "4", True, "a king may merge with a plain man"),
    ("C3c", "4", False, "2. cursed source needs a blessed target"),
    ("C3c", "4b", True, "2. cursed source onto blessed target"),
    ("C3", "4c", False, "2. cursed target needs a blessed source"),
    ("C3b", "4c", True, "2. blessed source onto cursed target"),
    ("C3c", "4c", False, "2. two cursed men never merge"),
    ("C3+", "4", False, "3. a stack over 2 needs a blessing"),
    ("C3b+", "4", True, "3. blessed source"),
    ("C3+", "4b", True, "3. blessed target"),
    ("C3b+++", "4+++", True, "4. 8 is allowed"),
    ("C3b++++", "4+++", False, "4. 9 exceeds the largest stack"),
]


@pytest.mark.parametrize("source,target,ok,why", MERGE_TABLE, ids=[r[3] for r in MERGE_TABLE])
def test_merge_conditions(source, target, ok, why):
    p = pos(f"R:{source}{target}E2k", "B:E8k")
    if ok:
        p.play("c3+c4")
        assert man(p, "c3") is None
    else:
        refused(p, "c3+c4", "cannot merge c3 onto c4")


def test_merge_result_is_king_if_either_was_and_loses_blessing_and_curse():
    p = pos("R:C3bC4kE2k", "B:E8k")
    p.play("c3+c4")
    assert man(p, "c4") == Man("red", 2, king=True)
    p = pos("R:C3cC4bE2k", "B:E8k")
    p.play("c3+c4")
    assert man(p, "c4") == Man("red", 2)


def test_source_gaining_a_blessing_on_the_way_satisfies_merge_conditions():
    # f8 -> a4 goes through the portal: the source gains a blessing on the way
    p = pos("R:A4cE2kF8+", "B:E8k")
    p.play("f8+a4")
    assert man(p, "a4") == Man("red", 3)
    p = pos("R:A3A4cE2k", "B:E8k")
    refused(p, "a3+a4", "cursed man")


def test_cursed_source_gains_no_blessing_through_the_portal():
    p = pos("R:A4E2kF8c", "B:E8k")
    refused(p, "f8+a4", "cursed man may only merge onto a blessed man")


def test_king_source_passing_the_wall_makes_a_blessed_king_and_wins():
    p = pos("R:E1E9k", "B:E8k")
    p.play("e9+e1")
    assert man(p, "e1") == Man("red", 2, king=True, blessed=True)
    assert (p.winner, p.win_reason) == ("red", "blessed king")


def test_plain_source_passing_the_wall_onto_a_king_does_not_bless_it():
    p = pos("R:A4kF8", "B:E8k")
    p.play("f8+a4")
    assert man(p, "a4") == Man("red", 2, king=True)
    assert p.winner is None


SPLIT_TABLE = [
    # (men, action, expected sub-stack at target, expected part left at origin)
    ("C3++", "c3-1-c4", Man("red", 1, cursed=True, locked=True), Man("red", 2, cursed=True)),
    ("C3k++", "c3-1-c4", Man("red", 1, king=True, locked=True), Man("red", 2, king=True)),
    ("C3b+", "c3-1-c4", Man("red", 1, cursed=True, locked=True), Man("red", 1, cursed=True)),
    ("C3c+", "c3-1-c4", Man("red", 1, cursed=True, locked=True), Man("red", 1, cursed=True)),
    ("C3l+", "c3-1-c4", Man("red", 1, cursed=True, locked=True),
     Man("red", 1, cursed=True, locked=True)),
    ("F8+", "f8-1-a4", Man("red", 1, blessed=True, locked=True), Man("red", 1, cursed=True)),
    ("F8c+", "f8-1-a4", Man("red", 1, cursed=True, locked=True), Man("red", 1, cursed=True)),
]


@pytest.mark.parametrize("men,action,sub,left", SPLIT_TABLE)
def test_split_to_an_empty_point_flag_table(men, action, sub, left):
    p = pos(f"R:{men}E2k", "B:E8k")
    p.play(action)
    origin, target = action.split("-")[0], action.split("-")[2]
    assert man(p, target) == sub
    assert man(p, origin) == left


def test_split_capturing_an_enemy_curses_like_a_split_to_an_empty_point():
    p = pos("R:C3+E2k", "B:C4+++E8k")
    p.play("c3-1-c4")
    assert man(p, "c4") == Man("red", 1, cursed=True, locked=True)
    assert man(p, "c3") == Man("red", 1, cursed=True)


def test_king_split_passing_the_wall_is_a_blessed_king_and_wins():
    p = pos("R:F8k+", "B:E8k")
    p.play("f8-1-a4")
    assert man(p, "a4") == Man("red", 1, king=True, blessed=True, locked=True)
    assert (p.winner, p.win_reason) == ("red", "blessed king")


def test_split_sub_stack_travels_at_most_its_own_size():
    p = pos("R:C2++E2k", "B:E8k")
    refused(p, "c2-1-c4", "cannot reach c4")
    p.play("c2-2-c4")
    assert man(p, "c4") == Man("red", 2, cursed=True, locked=True)


def test_split_takes_fewer_checkers_than_the_stack_has():
    p = pos("R:C3++E2k", "B:E8k")
    refused(p, "c3-3-c4", "split takes 1 to 2")
    p = pos("R:C3E2k", "B:E8k")
    refused(p, "c3-1-c4", "single checker cannot be split")


SPLIT_MERGE_TABLE = [
    # (men, action, ok, target after, origin after)
    ("C3b++C4", "c3-2-c4", True, Man("red", 3), Man("red", 1)),
    ("C3++C4", "c3-2-c4", False, None, None),
    ("C3c+C4b", "c3-1-c4", True, Man("red", 2), Man("red", 1)),
    ("C3c+C4", "c3-1-c4", False, None, None),
    ("C3k+C4k", "c3-1-c4", False, None, None),
    ("C3k+C4", "c3-1-c4", True, Man("red", 2, king=True), Man("red", 1, king=True)),
    ("C3l+C4", "c3-1-c4", True, Man("red", 2), Man("red", 1, locked=True)),
]


@pytest.mark.parametrize("men,action,ok,target,origin", SPLIT_MERGE_TABLE)
def test_split_onto_a_friendly_man_uses_the_merge_tests_and_curses_nobody(
    men, action, ok, target, origin
):
    p = pos(f"R:{men}E2k", "B:E8k")
    if not ok:
        refused(p, action, "cannot merge c3 onto c4")
        return
    p.play(action)
    assert man(p, "c4") == target
    assert man(p, "c3") == origin


def test_split_merge_of_a_king_through_the_wall_wins():
    p = pos("R:A4F8k+", "B:E8k")
    p.play("f8-1-a4")
    assert man(p, "a4") == Man("red", 2, king=True, blessed=True)
    assert p.winner == "red"


# --------------------------------------------------------- 6. after an action
def test_capturing_a_king_wins():
    p = pos("R:E2kE7", "B:E8k")
    p.play("e7e8")
    assert (p.winner, p.win_reason) == ("red", "king captured")
    assert p.is_over and p.legal_actions() == [] and p.returns() == (1.0, -1.0)
    assert (p.to_move, p.actions_left) == ("blue", 0)
    refused(p, "e2e3", "the game is over")


def test_king_capture_comes_before_the_blessed_king():
    # the red king passes the wall and captures: the reason is the capture
    p = pos("R:E2F8k", "B:A4kE8k")
    p.play("f8a4")
    assert (p.winner, p.win_reason) == ("red", "king captured")


def test_king_capture_beats_the_opponents_simultaneous_blessed_king():
    # Blue's a1-a5 chain is a bridge holding a king; it is only evaluated after an action
    p = pos("R:E2kE7", "B:A12k345E8k")
    p.play("e7e8")
    assert (p.winner, p.win_reason) == ("red", "king captured")


def test_the_opponent_wins_when_the_actors_action_leaves_him_a_blessed_king():
    p = pos("R:E2kE7", "B:A12k345E8k")
    p.play("Bc3")
    assert (p.winner, p.win_reason) == ("blue", "blessed king")


def test_if_both_players_win_at_once_the_actor_wins():
    p = pos("R:E1E9k", "B:A12k345E8k")
    p.play("e9+e1")
    assert (p.winner, p.win_reason) == ("red", "blessed king")


def test_crowning_on_the_own_starting_point():
    p = pos("R:E3b", "B:E8k")
    p.play("e3e2")
    assert man(p, "e2") == Man("red", 1, king=True, locked=True)


def test_crowning_on_the_enemy_starting_point():
    p = pos("R:E2kE7c", "B:E9k")
    p.play("e7e8")
    assert man(p, "e8") == Man("red", 1, king=True, locked=True)
    assert p.winner is None


def test_a_blessed_man_landing_on_a_starting_point_loses_the_blessing_and_does_not_win():
    # e7 north: e8 is jumped? no, e8 is empty: e7 reaches e8, e9, portal e1, e2 (4 steps)
    p = pos("R:E1E7+++", "B:E9k")
    p.play("e7e2")  # through the portal: blessed, then crowned on Red's starting point
    assert man(p, "e2") == Man("red", 4, king=True, locked=True)
    assert p.winner is None


def test_crowning_removes_a_pending_split_curse():
    p = pos("R:E3+", "B:E8k")
    p.play("e3-1-e2")
    assert man(p, "e2") == Man("red", 1, king=True, locked=True)
    assert man(p, "e3") == Man("red", 1, cursed=True)


def test_bridge_blesses_its_non_cursed_members():
    p = pos("R:A12c34B5E2k", "B:E8k")
    p.play("b5a5")
    assert man(p, "a5") == Man("red", 1, blessed=True, locked=True)
    assert man(p, "a1") == Man("red", 1, blessed=True)
    assert man(p, "a2") == Man("red", 1, cursed=True)  # a cursed member stays cursed
    assert man(p, "a3") == Man("red", 1, blessed=True)
    assert man(p, "e2") == Man("red", 1, king=True)  # not in the group


def test_bridge_cancels_the_curse_of_the_split_that_forms_it():
    p = pos("R:A1234+E2k", "B:E8k")
    p.play("a4-1-a5")
    assert man(p, "a5") == Man("red", 1, blessed=True, locked=True)
    assert man(p, "a4") == Man("red", 1, blessed=True)


def test_bridge_with_a_king_is_a_blessed_king_and_wins():
    p = pos("R:A12k34B5E2k", "B:E8k")
    p.play("b5a5")
    assert (p.winner, p.win_reason) == ("red", "blessed king")


def test_bridge_connects_by_ordinary_adjacency_not_through_the_portal():
    p = pos("R:E1E9E2k", "B:D8kC7")
    p.play("Ba3")
    assert man(p, "e1") == Man("red", 1) and man(p, "e9") == Man("red", 1)


def test_blue_bridge_from_the_top_to_the_bottom_wall():
    p = pos("R:E2k", "B:H2I2345E8k", header="R E2 B-E8")
    p.play("h2i1")
    assert all(man(p, f"i{r}").blessed for r in range(1, 6))  # type: ignore[union-attr]


def test_player_without_any_legal_action_loses():
    # Side 4. Blue has no men and Red fills Blue's zone, so Blue can neither move nor
    # drop; blocks cover the board so that only one block can still be placed.
    rules = Rules(board_side=4)
    men = "R:C56D57k6E56"
    t = tables(4)
    taken = {t.board.index(x) for x in ("c5", "c6", "d5", "d7", "d6", "e5", "e6", "d2")}
    chosen: list[int] = []
    for i in range(len(t.board.labels)):
        if i not in taken and not any(j in chosen for j in t.block_adjacent[i]):
            chosen.append(i)
    last = t.board.labels[chosen.pop()]
    x_line = "X:" + "".join(t.board.labels[i].upper() for i in chosen)
    p = Position.from_text(f"Benediction v1: R=D2 B D6\n{men}\nB:\n{x_line}", rules)
    assert [a for a in legal(p) if a.startswith("B")] == [f"B{last}"]
    p.play(f"B{last}")
    assert (p.winner, p.win_reason) == ("red", "no legal action")
    assert p.legal_actions() == []


def test_max_turns_cap_scores_a_draw():
    p = Position.initial(Rules(max_turns=2))
    p.play("e3e4")
    assert not p.is_over
    p.play("e7e6")
    p.play("d7d6")
    assert (p.winner, p.win_reason) == ("draw", "turn limit")
    assert p.returns() == (0.0, 0.0) and p.legal_actions() == []


def test_no_draw_without_the_cap():
    p = Position.initial()
    assert p.rules.max_turns is None
    for _ in range(3):
        p.play(p.legal_actions()[0])
    assert p.winner is None


def test_other_starting_points_move_zones_crowning_and_the_block_ban():
    p = pos("R:C2", "B:G6k", header="R-C3 B G6")
    assert set(p.zone("red")) == {"c3", "b2", "b3", "c2", "c4", "d3", "d4"}
    refused(p, "@e1", "not in red's zone")
    refused(p, "Bc3", "starting point")
    p.play("c2c3")
    assert man(p, "c3") == Man("red", 1, king=True, locked=True)
    p.play("Be2")  # e2 is an ordinary point here
    assert p.blocks == {"e2"}
