"""Benediction board geometry: walls, zones, the wall portal and block adjacency
(rules sections 1 and 4, and the block-adjacency ruling of section 5)."""

import pytest

from hexgames.benediction import Position, Rules
from hexgames.benediction._tables import BLUE, RED, portal_ray, tables
from hexgames.hexgrid import DIRECTION_NAMES, board


def _dir(name: str) -> int:
    return DIRECTION_NAMES.index(name)


def test_red_wall_is_the_bottom_sides_and_blue_wall_the_top_sides():
    p = Position.initial()
    assert set(p.wall("red")) == {"a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "i1"}
    assert set(p.wall("blue")) == {"a5", "b6", "c7", "d8", "e9", "f8", "g7", "h6", "i5"}


def test_starting_points_and_zones_on_side_5():
    p = Position.initial()
    assert p.starting_points == ("e2", "e8")
    assert set(p.zone("red")) == {"e2", "d1", "d2", "e1", "e3", "f1", "f2"}
    assert set(p.zone("blue")) == {"e8", "d7", "d8", "e7", "e9", "f7", "f8"}


@pytest.mark.parametrize("side,red,blue", [(4, "d2", "d6"), (6, "f2", "f10"), (7, "g2", "g12")])
def test_starting_points_are_one_step_in_from_the_bottom_and_top_corners(side, red, blue):
    p = Position.initial(Rules(board_side=side))
    assert p.starting_points == (red, blue)
    assert len(p.men()) == 14


@pytest.mark.parametrize(
    "origin,direction,landing",
    [("i5", "NE", "a1"), ("h6", "NE", "a2"), ("e9", "N", "e1"), ("e9", "NW", "i5"),
     ("a5", "NW", "i1"), ("f8", "NE", "a4")],
)
def test_portal_examples_for_red(origin, direction, landing):
    b = board(5)
    points, portal_at = portal_ray(b, RED, b.index(origin), _dir(direction))
    assert portal_at == 0, "the very first step goes through the portal"
    assert b.labels[points[0]] == landing


@pytest.mark.parametrize(
    "origin,direction,landing",
    [("a1", "SW", "i5"), ("e1", "S", "e9"), ("i1", "SE", "a5"), ("b1", "S", "b6")],
)
def test_blue_portal_is_the_mirror_through_reds_wall(origin, direction, landing):
    b = board(5)
    points, portal_at = portal_ray(b, BLUE, b.index(origin), _dir(direction))
    assert portal_at == 0
    assert b.labels[points[0]] == landing


@pytest.mark.parametrize(
    "color,origin,direction",
    [
        (RED, "e1", "S"),    # through the own wall
        (RED, "a3", "NW"),   # through a neutral side, not from the enemy wall
        (RED, "a5", "SW"),   # from the enemy wall but not forward
        (RED, "i5", "SE"),   # from the enemy wall but not forward
        (BLUE, "e9", "N"),   # Blue through its own wall
        (BLUE, "i3", "SE"),  # neutral side
    ],
)
def test_leaving_the_board_any_other_way_ends_the_line(color, origin, direction):
    b = board(5)
    points, _ = portal_ray(b, color, b.index(origin), _dir(direction))
    assert points == ()


def test_after_the_portal_the_line_continues_in_the_same_direction():
    b = board(5)
    points, portal_at = portal_ray(b, RED, b.index("e9"), _dir("N"))
    assert [b.labels[j] for j in points[:4]] == ["e1", "e2", "e3", "e4"]
    assert portal_at == 0
    points, portal_at = portal_ray(b, RED, b.index("e7"), _dir("N"))
    assert [b.labels[j] for j in points[:4]] == ["e8", "e9", "e1", "e2"]
    assert portal_at == 2, "steps from the landing point on have passed the wall"


def test_reach_reports_passing_the_wall_for_portal_paths_only():
    p = Position.from_text("Benediction v1: R-E2 B E8\nR:E2kF8\nB:E8k")
    reach = {p.board.labels[j]: passed for j, passed in p.reach("f8")}
    assert reach["a4"] is True
    assert reach["f7"] is False
    assert reach["e9"] is False
    assert reach["e8"] is False, "occupied points are reachable (captures, merges)"


@pytest.mark.parametrize(
    "a,b", [("a1", "a5"), ("a1", "e1"), ("a1", "i5"), ("h6", "a2"), ("a5", "i1"), ("i4", "b1")]
)
def test_block_adjacency_joins_the_two_ends_of_every_grid_line(a, b):
    t = tables(5)
    ia, ib = t.board.index(a), t.board.index(b)
    assert ib in t.block_adjacent[ia]
    assert ia in t.block_adjacent[ib]


def test_block_adjacency_includes_ordinary_neighbours_only_for_interior_points():
    t = tables(5)
    e5 = t.board.index("e5")
    assert set(t.block_adjacent[e5]) == set(t.board.neighbours[e5])


def test_a2_and_h6_cannot_both_hold_blocks_designer_example():
    p = Position.from_text("Benediction v1: R-E2 B E8\nR:E2k\nB:E8k\nX:A2")
    before = (p.to_text(), p.key)
    assert "Bh6" not in {str(a) for a in p.legal_actions()}
    with pytest.raises(ValueError, match="block-adjacent to the block on a2"):
        p.play("Bh6")
    assert (p.to_text(), p.key) == before
