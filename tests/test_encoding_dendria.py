"""Dendria's research encoding: step ids (distinct, stable, reversible) and observation
planes (right plane, right cell)."""

from __future__ import annotations

import numpy as np
import pytest

from hexgames import IllegalAction
from hexgames.dendria import GAME, Position, Rules, Step
from hexgames.dendria import encoding as enc
from protocol_support import positions_of_a_random_game


def test_ids_follow_the_documented_layout() -> None:
    rules = Rules(board_side=5)
    position = Position.initial(rules)
    geometry = position.board
    n = geometry.size
    width = 2 * rules.board_side - 1
    assert enc.num_distinct_actions(rules) == 3 + 5 * n + n * 3 * width
    assert [enc.action_to_id(position, word) for word in ("end", "pass", "swap")] == [0, 1, 2]
    e5 = geometry.index("e5")
    for block, prefix in enumerate(("", "-", "^", "+", "=")):
        assert enc.action_to_id(position, f"{prefix}e5") == 3 + block * n + e5
    # A leg from e5 north to e7: same column (axis 0), slot = y of e7.
    x, y = geometry.coords[geometry.index("e7")]
    assert x == geometry.coords[e5][0]
    assert enc.action_to_id(position, "e5-e7") == 3 + 5 * n + e5 * 3 * width + y
    # ... and south-east to f4 (same y: axis 1, slot = x), north-east to f5 (axis 2).
    fx, fy = geometry.coords[geometry.index("f4")]
    assert fy == geometry.coords[e5][1]
    assert enc.action_to_id(position, "e5-f4") == 3 + 5 * n + e5 * 3 * width + width + fx
    gx, _ = geometry.coords[geometry.index("f5")]
    assert enc.action_to_id(position, "e5-f5") == 3 + 5 * n + e5 * 3 * width + 2 * width + gx


def test_ids_do_not_depend_on_the_position() -> None:
    start = Position.initial(Rules(board_side=5))
    later = start.copy()
    later.play_turn("e5")
    for step in ("e5", "d3-d4", "^c3", "+c3", "=c3", "-c4", "end", "pass", "swap"):
        assert enc.action_to_id(start, step) == enc.action_to_id(later, step)


def test_leg_slots_that_name_no_other_cell_are_refused() -> None:
    position = Position.initial(Rules(board_side=3))
    geometry = position.board
    n, width = geometry.size, 5
    a1 = geometry.index("a1")  # (0, 0): column slot 0 is a1 itself, slot 4 is off the board
    base = 3 + 5 * n + a1 * 3 * width
    with pytest.raises(IllegalAction, match="not another cell"):
        enc.action_from_id(position, base + 0)
    with pytest.raises(IllegalAction, match="not another cell"):
        enc.action_from_id(position, base + 4)


def test_steps_without_an_id_are_refused() -> None:
    position = Position.initial(Rules(board_side=5))
    with pytest.raises(IllegalAction, match="not on one line"):
        enc.action_to_id(position, Step("leg", origin="a1", target="b3"))
    with pytest.raises(IllegalAction):
        enc.action_to_id(position, "z9")


def test_observation_puts_each_piece_in_its_plane_and_cell() -> None:
    text = (
        "Dendria v1: size=5 to-move=light quiet=3\n"
        "dark seeds: e5\ndark trees: a1\ndark dendrids: c3\n"
        "light seeds: i5\nlight trees: e1\nlight dendrids: e9\n"
    )
    position = GAME.position_from_text(text, Rules(board_side=5))
    planes = enc.observation(position, 0)
    assert planes.shape == enc.observation_shape(position.rules) == (len(enc.PLANES), 9, 9)
    assert planes.dtype == np.float32
    geometry = position.board
    expected = {
        "e5": "dark seed", "a1": "dark tree", "c3": "dark dendrid",
        "i5": "light seed", "e1": "light tree", "e9": "light dendrid",
    }
    for index in range(6):
        cells = {
            geometry.labels[geometry.index_at(int(x), int(y))]
            for x, y in np.argwhere(planes[index] == 1)
        }
        assert cells == {label for label, name in expected.items() if name == enc.PLANES[index]}
    on_board = planes[enc.PLANES.index("on board")]
    assert on_board.sum() == geometry.size
    assert planes[enc.PLANES.index("dark to move")].sum() == 0  # light to move
    quiet = planes[enc.PLANES.index("quiet turns / 2K")]
    assert np.allclose(quiet[on_board == 1], 3 / position.rules.quiet_turns)
    assert np.all(planes[:, on_board == 0] == 0), "off-board cells must stay empty"


def test_observation_follows_the_turn_and_the_seats() -> None:
    position = Position.initial(Rules(board_side=5))
    dark, light = enc.PLANES.index("observer plays dark"), enc.PLANES.index("swap available")
    in_turn = enc.PLANES.index("turn in progress")
    assert enc.observation(position, 0)[dark].any()
    assert not enc.observation(position, 1)[dark].any()
    position.play("e5")
    assert enc.observation(position, 0)[in_turn].any()
    position.play("end")
    planes = enc.observation(position, 1)
    assert not planes[in_turn].any()
    assert planes[light].any(), "Light may swap after Dark's first seed"
    position.play("swap")  # seat 1 now plays Dark
    assert enc.observation(position, 1)[dark].any()
    assert not enc.observation(position, 0)[dark].any()


def test_observation_marks_the_moving_dendrid_and_where_it_started() -> None:
    text = "Dendria v1: size=5 to-move=dark\ndark dendrids: e2\nlight seeds: a1\n"
    position = GAME.position_from_text(text, Rules(board_side=5))
    position.play("e2-e4")
    planes = enc.observation(position, 0)
    geometry = position.board
    for name, label in (("moving dendrid", "e4"), ("moving dendrid's start", "e2")):
        x, y = geometry.coords[geometry.index(label)]
        plane = planes[enc.PLANES.index(name)]
        assert plane[x, y] == 1 and plane.sum() == 1


@pytest.mark.parametrize("size", [3, 5])
def test_random_games_stay_within_the_length_bound(size: int) -> None:
    rules = Rules(board_side=size, quiet_limit=2)
    bound = enc.max_game_length(rules)
    for seed in range(3):
        *_, last = positions_of_a_random_game(GAME, rules, seed, limit=bound + 1)
        assert last.is_over
        assert len(last.history) <= bound
