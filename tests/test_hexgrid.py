"""Geometry shared by both games: coordinates, labels, directions, rays."""

import pytest

from hexgames.hexgrid import DIRECTIONS, NE, NW, SE, SW, N, S, board, opposite


def test_cell_counts_follow_3n_n_minus_1_plus_1():
    for side in range(2, 12):
        assert board(side).size == 3 * side * (side - 1) + 1


def test_axial_examples_from_the_rules():
    b = board(5)
    assert b.coords[b.index("a1")] == (0, 0)
    assert b.coords[b.index("e5")] == (4, 4)
    assert b.coords[b.index("i5")] == (8, 8)
    assert b.coords[b.index("e9")] == (4, 8)
    assert b.coords[b.index("i1")] == (8, 4)


def test_column_lengths_of_side_5():
    b = board(5)
    lengths = {}
    for label in b.labels:
        lengths[label[0]] = lengths.get(label[0], 0) + 1
    assert lengths == dict(a=5, b=6, c=7, d=8, e=9, f=8, g=7, h=6, i=5)


def test_labels_are_case_insensitive_and_unknown_labels_are_named():
    b = board(5)
    assert b.index("E5") == b.index("e5")
    with pytest.raises(ValueError, match="j1"):
        b.index("j1")
    with pytest.raises(ValueError, match="a6"):
        b.index("a6")


def test_neighbours_of_e5():
    b = board(5)
    got = {b.label(j) for j in b.neighbours[b.index("e5")]}
    assert got == {"e4", "e6", "d4", "d5", "f4", "f5"}


def test_direction_vectors_and_opposites():
    assert DIRECTIONS[N] == (0, 1) and DIRECTIONS[S] == (0, -1)
    assert DIRECTIONS[NE] == (1, 1) and DIRECTIONS[SW] == (-1, -1)
    assert DIRECTIONS[SE] == (1, 0) and DIRECTIONS[NW] == (-1, 0)
    for d in range(6):
        dx, dy = DIRECTIONS[d]
        assert DIRECTIONS[opposite(d)] == (-dx, -dy)


def test_rays_run_to_the_edge():
    b = board(5)
    ray = [b.label(j) for j in b.rays[b.index("e5")][N]]
    assert ray == ["e6", "e7", "e8", "e9"]
    assert b.rays[b.index("e9")][N] == ()
    assert b.line_end(b.index("a1"), NE) == b.index("i5")


def test_sides():
    b = board(5)
    assert {b.label(i) for i in b.side_cells("bottom-left")} == {"a1", "b1", "c1", "d1", "e1"}
    assert {b.label(i) for i in b.side_cells("top-right")} == {"e9", "f8", "g7", "h6", "i5"}


def test_distance():
    b = board(5)
    assert b.distance(b.index("a1"), b.index("i5")) == 8
    assert b.distance(b.index("e5"), b.index("e5")) == 0
    assert b.distance(b.index("a5"), b.index("i1")) == 8


def test_bad_sides_rejected():
    with pytest.raises(ValueError):
        board(1)
    with pytest.raises(ValueError):
        board(99)


@pytest.mark.parametrize("side", [3, 5, 7])
def test_line_slots_number_every_cell_on_a_shared_grid_line_once(side):
    b = board(side)
    for origin in range(b.size):
        on_lines = {j for d in range(6) for j in b.rays[origin][d]}
        slots = {}
        for target in range(b.size):
            slot = b.line_slot(origin, target)
            if target in on_lines:
                assert 0 <= slot < b.line_slots
                assert b.from_line_slot(origin, slot) == target
                slots[slot] = target
            else:
                assert slot == -1
        assert len(slots) == len(on_lines)
        assert b.from_line_slot(origin, -1) == -1
        assert b.from_line_slot(origin, b.line_slots) == -1
