"""Benediction's research encoding: action ids (distinct, stable, reversible) and
observation planes (right plane, right cell)."""

from __future__ import annotations

import numpy as np
import pytest

from hexgames import IllegalAction
from hexgames.benediction import GAME, Action, Position, Rules
from hexgames.benediction import encoding as enc
from protocol_support import positions_of_a_random_game


def test_ids_follow_the_documented_layout() -> None:
    rules = Rules()
    position = Position.initial(rules)
    geometry = position.board
    n = geometry.size
    width = 2 * rules.board_side - 1
    line = 3 * width
    assert enc.num_distinct_actions(rules) == 2 * n + n * line * rules.max_stack
    e3 = geometry.index("e3")
    assert enc.action_to_id(position, "@e3") == e3
    assert enc.action_to_id(position, "Bc2") == n + geometry.index("c2")
    # e3 -> e4: same column (axis 0), slot = y of e4.
    y = geometry.coords[geometry.index("e4")][1]
    assert enc.action_to_id(position, "e3e4") == 2 * n + e3 * line + y
    # e3 + d2: d2 = (3, 1), e3 = (4, 2): same x - y (axis 2), slot = x of d2.
    assert enc.action_to_id(position, "e3+d2") == 2 * n + e3 * line + 2 * width + 3
    # A split of 2 from e3 to f2 (same y, axis 1, slot = x of f2) lives in block 2.
    fx = geometry.coords[geometry.index("f2")][0]
    assert geometry.coords[geometry.index("f2")][1] == geometry.coords[e3][1]
    assert enc.action_to_id(position, "e3-2-f2") == 2 * n + 2 * n * line + e3 * line + width + fx


def test_move_and_merge_share_an_id_and_the_occupant_decides() -> None:
    position = Position.initial(Rules())
    merge_id = enc.action_to_id(position, "e3+d2")  # d2 holds a red man
    assert enc.action_to_id(position, "e3d2") == merge_id
    assert enc.action_from_id(position, merge_id) == Action.parse("e3+d2")
    move_id = enc.action_to_id(position, "e3e4")  # e4 is empty
    assert enc.action_from_id(position, move_id) == Action.parse("e3e4")


def test_a_move_through_the_wall_portal_keeps_its_line() -> None:
    text = "Benediction v1: R-E2 B E8\nR:E2kI5\nB:E8k\n"
    position = Position.from_text(text, Rules())
    portal = Action.parse("i5a1")  # Red, NE from i5 through Blue's wall to a1
    assert portal in position.legal_actions()
    action_id = enc.action_to_id(position, portal)
    assert enc.action_from_id(position, action_id) == portal
    geometry = position.board
    width, line = 9, 27
    assert action_id == 2 * geometry.size + geometry.index("i5") * line + 2 * width + 0


def test_slots_that_name_no_other_point_are_refused() -> None:
    position = Position.initial(Rules())
    geometry = position.board
    a1 = geometry.index("a1")  # (0, 0): slot 0 of its column is a1 itself
    base = 2 * geometry.size + a1 * 27
    with pytest.raises(IllegalAction, match="not another point"):
        enc.action_from_id(position, base + 0)
    with pytest.raises(IllegalAction, match="not another point"):
        enc.action_from_id(position, base + 8)  # (0, 8) is off the board


def test_actions_without_an_id_are_refused() -> None:
    position = Position.initial(Rules(max_stack=4))
    with pytest.raises(IllegalAction, match="not on one grid line"):
        enc.action_to_id(position, "a1b3")
    with pytest.raises(IllegalAction, match="splits take 1 to 3"):
        enc.action_to_id(position, "e3-4-e4")
    with pytest.raises(IllegalAction):
        enc.action_to_id(position, "@z9")


def test_observation_puts_a_man_in_its_planes_and_cell() -> None:
    text = "Benediction v1: R-E2 B E8\nR:E2k5bl+\nB:E8kF7c\nX:C3\n"
    position = Position.from_text(text, Rules())
    planes = enc.observation(position, 0)
    assert planes.shape == enc.observation_shape(position.rules) == (len(enc.PLANES), 9, 9)
    assert planes.dtype == np.float32
    geometry = position.board

    def cells(name: str) -> set[str]:
        plane = planes[enc.PLANES.index(name)]
        return {
            geometry.labels[geometry.index_at(int(x), int(y))]
            for x, y in np.argwhere(plane != 0)
        }

    assert cells("red man") == {"e2", "e5"}
    assert cells("blue man") == {"e8", "f7"}
    assert cells("king") == {"e2", "e8"}
    assert cells("blessed") == {"e5"}
    assert cells("cursed") == {"f7"}
    assert cells("locked") == {"e5"}
    assert cells("block") == {"c3"}
    assert cells("red starting point") == {"e2"}
    assert cells("blue starting point") == {"e8"}
    x, y = geometry.coords[geometry.index("e5")]
    assert (x, y) == (4, 4)
    assert planes[enc.PLANES.index("stack size / max_stack"), x, y] == pytest.approx(2 / 8)
    on_board = planes[enc.PLANES.index("on board")]
    assert on_board.sum() == geometry.size
    assert np.all(planes[:, on_board == 0] == 0), "off-board cells must stay empty"
    assert planes.min() >= 0 and planes.max() <= 1


def test_observation_follows_the_turn_the_observer_and_the_supply() -> None:
    position = Position.initial(Rules(supply=3, max_turns=10))
    red_to_act = enc.PLANES.index("red to act")
    observer = enc.PLANES.index("observer plays red")
    one_left = enc.PLANES.index("one action left")
    in_turn = enc.PLANES.index("turn in progress")
    planes = enc.observation(position, 0)
    assert planes[red_to_act].any() and planes[observer].any()
    assert planes[one_left].any(), "the 12* opening turn has one action"
    assert not planes[in_turn].any()
    assert not enc.observation(position, 1)[observer].any()
    position.play("e3e4")  # Red's single opening action; Blue has two
    planes = enc.observation(position, 1)
    assert not planes[red_to_act].any() and not planes[one_left].any()
    assert planes[enc.PLANES.index("turns played / turn cap")].max() == pytest.approx(1 / 10)
    position.play("e7e6")
    planes = enc.observation(position, 1)
    assert planes[in_turn].any() and planes[one_left].any()
    red_supply = planes[enc.PLANES.index("red supply left")].max()
    assert red_supply == pytest.approx(position.supply_left("red") / (3 + 7))


def test_engine_turn_limit_matches_the_length_bound() -> None:
    for first_turn_actions in (1, 2):
        rules = Rules(board_side=4, max_turns=6, first_turn_actions=first_turn_actions)
        bound = enc.max_game_length(rules)
        for seed in range(4):
            *_, last = positions_of_a_random_game(GAME, rules, seed, limit=bound + 1)
            assert last.is_over
            assert len(last.history) <= bound
            if last.winner == "draw":
                assert len(last.history) == bound


def test_without_max_turns_the_bound_is_the_research_cap() -> None:
    assert enc.max_game_length(Rules()) == 2 * enc.RESEARCH_TURN_CAP - 1
    assert enc.max_game_length(Rules(first_turn_actions=2)) == 2 * enc.RESEARCH_TURN_CAP
