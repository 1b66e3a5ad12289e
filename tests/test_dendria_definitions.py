"""Rules section 2 (roots, nourishers, sprouting, fertilizing, growing, converting) and
the plant step, on boards of side 5, 7 and 9."""

import pytest

from hexgames import IllegalAction
from hexgames.dendria import Position, Rules
from hexgames.hexgrid import DIRECTION_NAMES, board

SIDES = (5, 7, 9)


def make(side, to_move="dark", **pieces):
    """A position from keyword groups such as ``dark_seeds=["a1", "a2"]``."""
    lines = [f"Dendria v1: size={side} to-move={to_move}"]
    for name, cells in pieces.items():
        color, kind = name.split("_")
        if cells:
            lines.append(f"{color} {kind}: {' '.join(cells)}")
    return Position.from_text("\n".join(lines), Rules(board_side=side))


def centre(side):
    b = board(side)
    return b.labels[b.center()]


def go(side, label, *directions):
    b = board(side)
    i = b.index(label)
    for name in directions:
        i = b.step[i][DIRECTION_NAMES.index(name)]
        assert i >= 0, f"{name} of {label} leaves the board"
    return b.labels[i]


def line_end(side, label, direction):
    b = board(side)
    return b.labels[b.line_end(b.index(label), DIRECTION_NAMES.index(direction))]


def assert_refused(position, step, fragment):
    before = (position.to_text(), position.key, position.history)
    with pytest.raises(IllegalAction, match=fragment):
        position.play(step)
    assert (position.to_text(), position.key, position.history) == before


# ------------------------------------------------------------- roots / plant
@pytest.mark.parametrize("side", SIDES)
def test_a_corner_has_three_roots_so_three_neighbours_block_planting(side):
    p = make(side, dark_seeds=["a2"], light_trees=["b2"], light_dendrids=["b1"])
    assert "a1" not in p.plantable_cells()
    assert_refused(p, "a1", "a seed needs at least one nutrientless root")
    # The same three pieces leave an interior cell with three nutrientless roots.
    q = make(side, dark_seeds=[go(side, "c3", "N")], light_trees=[go(side, "c3", "NE")],
             light_dendrids=[go(side, "c3", "SE")])
    assert "c3" in q.plantable_cells()


@pytest.mark.parametrize("side", SIDES)
def test_an_edge_cell_has_four_roots(side):
    roots = [go(side, "a3", d) for d in ("N", "NE", "SE", "S")]
    p = make(side, light_seeds=roots)
    assert "a3" not in p.plantable_cells()
    q = make(side, light_seeds=roots[:3])
    assert "a3" in q.plantable_cells()
    q.play("a3")
    assert q.piece_at("a3").kind == "seed" and q.piece_at("a3").color == "dark"


@pytest.mark.parametrize("side", SIDES)
def test_a_piece_at_the_far_end_of_a_root_is_a_nutrient(side):
    c = centre(side)
    ends = [line_end(side, c, d) for d in DIRECTION_NAMES]
    assert "a1" in ends
    p = make(side, dark_trees=ends)
    assert c not in p.plantable_cells()
    p = make(side, dark_trees=ends[:-1])
    assert c in p.plantable_cells()


@pytest.mark.parametrize("side", SIDES)
def test_on_an_empty_board_every_cell_is_plantable(side):
    p = Position.initial(Rules(board_side=side))
    assert p.plantable_cells() == list(board(side).labels)
    assert p.nourishers(centre(side)) == []


def test_planting_on_an_occupied_cell_is_refused():
    p = make(7, light_dendrids=["g7"])
    assert_refused(p, "g7", "g7 \\(light dendrid\\) is not empty")


# --------------------------------------------------------------- nourishers
@pytest.mark.parametrize("side", SIDES)
def test_nourisher_is_the_first_piece_on_each_root_whatever_it_is(side):
    c = centre(side)
    n2, n3 = go(side, c, "N", "N"), go(side, c, "N", "N", "N")
    ne1 = go(side, c, "NE")
    sw4 = go(side, c, "SW", "SW", "SW", "SW")
    p = make(side, dark_seeds=[c, n3], light_trees=[n2], light_dendrids=[ne1],
             dark_trees=[sw4])
    assert p.nourishers(c) == [n2, ne1, sw4]  # N, NE, SW; SE, S, NW are nutrientless


# ----------------------------------------------------------------- sprouting
def sprout_board(side, own, other, colour="dark", missing=None):
    """The centre holds a ``colour`` seed; its six roots' nourishers are ``own``
    pieces of its colour and ``other`` of the other colour, at varying distances and
    kinds; ``missing`` names a direction left nutrientless."""
    c = centre(side)
    opposite = "light" if colour == "dark" else "dark"
    pieces = {f"{colour}_seeds": [c]}
    kinds = ("seeds", "trees", "dendrids")
    for n, d in enumerate(DIRECTION_NAMES):
        if d == missing:
            continue
        owner = colour if n < own else opposite if n < own + other else None
        if owner is None:
            continue
        cell = go(side, c, *[d] * (1 + n % 3))
        pieces.setdefault(f"{owner}_{kinds[n % 3]}", []).append(cell)
    return make(side, **pieces), c


@pytest.mark.parametrize("side", SIDES)
def test_a_seed_sprouts_with_a_majority_of_its_colour_among_its_nourishers(side):
    p, c = sprout_board(side, own=4, other=2)
    assert c in p.sproutable_seeds()
    p.play_turn(f"b1 ^{c}")
    assert p.piece_at(c).kind == "dendrid" and p.piece_at(c).color == "dark"


@pytest.mark.parametrize("side", SIDES)
def test_a_tie_among_the_nourishers_does_not_sprout(side):
    p, c = sprout_board(side, own=3, other=3)
    assert c not in p.sproutable_seeds()
    p.play("b1")
    assert_refused(p, f"^{c}", "3 of its nourishers have its colour and 3 the other")


@pytest.mark.parametrize("side", SIDES)
def test_a_seed_with_a_nutrientless_root_does_not_sprout(side):
    p, c = sprout_board(side, own=5, other=0, missing="NW")
    assert c not in p.sproutable_seeds()
    p.play("b1")
    assert_refused(p, f"^{c}", "not nourished: its root towards NW is nutrientless")


@pytest.mark.parametrize("side", SIDES)
def test_the_mover_may_sprout_an_enemy_seed(side):
    p, c = sprout_board(side, own=4, other=2, colour="light")
    assert p.to_move == "dark" and c in p.sproutable_seeds()
    p.play_turn(f"b1 ^{c}")
    assert str(p.piece_at(c)) == "light dendrid"


@pytest.mark.parametrize("side", SIDES)
def test_an_edge_seed_needs_only_its_fewer_roots(side):
    p = make(side, dark_seeds=["a1", "a2"], dark_trees=["b2"], light_trees=["b1"])
    assert "a1" in p.sproutable_seeds()  # roots N, NE, SE: 2 dark, 1 light
    q = make(side, dark_seeds=["a1"], dark_trees=["b2"], light_trees=["b1"])
    assert "a1" not in q.sproutable_seeds()  # the N root is nutrientless


def test_sprouting_is_a_follow_up_not_a_turn():
    p, c = sprout_board(7, own=4, other=2)
    assert_refused(p, f"^{c}", "a turn starts with a plant, a dendrid move or pass")


# --------------------------------------------------------------- fertilizing
@pytest.mark.parametrize("side", SIDES)
def test_a_dendrid_fertilizes_empty_cells_up_to_the_first_piece(side):
    b = board(side)
    c = centre(side)
    blocker = go(side, c, "N", "N")
    p = make(side, dark_dendrids=[c], light_seeds=[blocker])
    expected = {go(side, c, "N")}
    for d in range(1, 6):  # every direction but N sees to the edge
        expected.update(b.labels[j] for j in b.rays[b.index(c)][d])
    assert set(p.fertilized_cells("dark")) == expected
    assert p.fertilized_cells("light") == []
    assert blocker not in expected and go(side, blocker, "N") not in expected


# ------------------------------------------------------------------ growing
def corner_bed(side, bed="dark", helpers="dark"):
    """A two-seed seedbed a1 a2 with fertile soils a3 and b1 (b2, b3 hold enemy trees);
    ``helpers``-coloured dendrids on a5 and d1 fertilize a3 and b1."""
    enemy = "light" if bed == "dark" else "dark"
    pieces = {f"{bed}_seeds": ["a1", "a2"], f"{enemy}_trees": ["b2", "b3"]}
    pieces.setdefault(f"{helpers}_dendrids", []).extend(["a5", "d1"])
    return make(side, **pieces)


NEUTRAL = {5: "i5", 7: "m7", 9: "q9"}  # top-right corner, far from the corner bed


@pytest.mark.parametrize("side", SIDES)
def test_a_seedbed_whose_fertile_soils_are_all_fertilized_grows(side):
    p = corner_bed(side)
    assert p.fertile_soils("a2") == ["a3", "b1"]
    assert p.growable_seedbeds() == ["a1"]
    p.play_turn(f"{NEUTRAL[side]} +a2")
    assert str(p.piece_at("a1")) == str(p.piece_at("a2")) == "dark tree"
    assert p.history[-2].target == "a1"  # recorded under the seedbed's first cell


@pytest.mark.parametrize("side", SIDES)
def test_a_fertile_soil_fertilized_only_by_the_enemy_blocks_growth(side):
    p = make(side, dark_seeds=["a1", "a2"], light_trees=["b2", "b3"], dark_dendrids=["a5"],
             light_dendrids=["d1"])
    assert p.growable_seedbeds() == []
    p.play(NEUTRAL[side])
    assert_refused(p, "+a1", "fertile soil b1 of the dark seedbed is fertilized by no dark")


@pytest.mark.parametrize("side", SIDES)
def test_a_seedbed_without_fertile_soil_does_not_grow(side):
    p = make(side, dark_seeds=["a1", "a2"], light_trees=["b2", "b3"],
             light_seeds=["a3", "b1"], dark_dendrids=["a5", "d1"])
    assert p.fertile_soils("a1") == []
    p.play(NEUTRAL[side])
    assert_refused(p, "+a1", "has no fertile soil")


@pytest.mark.parametrize("side", SIDES)
def test_the_mover_may_grow_an_enemy_seedbed(side):
    p = corner_bed(side, bed="light", helpers="light")
    assert p.to_move == "dark" and p.growable_seedbeds() == ["a1"]
    p.play_turn(f"{NEUTRAL[side]} +a1")
    assert str(p.piece_at("a2")) == "light tree"


def test_growth_joins_an_adjacent_forest_of_the_same_colour():
    p = make(7, dark_seeds=["a1", "a2"], dark_trees=["b2"], light_trees=["b3"],
             dark_dendrids=["a5", "d1"])
    p.play_turn("m7 +a1")
    assert p.group("a1") == ["a1", "a2", "b2"]
    assert p.score() == {"dark": 3 + 1 + 0.5, "light": 1 + 1}


def test_grow_names_a_seed():
    p = corner_bed(7)
    p.play("m7")
    assert_refused(p, "+b2", "b2 \\(light tree\\) is not a seed")


# --------------------------------------------------------------- converting
def corner_forest(side, light_dendrids=()):
    """A light forest a1 a2 with fertile soils a3 and b1, fertilized by dark dendrids
    on a5 and d1."""
    return make(side, light_trees=["a1", "a2"], dark_seeds=["b2", "b3"],
                dark_dendrids=["a5", "d1"], light_dendrids=list(light_dendrids))


@pytest.mark.parametrize("side", SIDES)
def test_an_enemy_forest_fertilized_by_the_mover_converts(side):
    p = corner_forest(side)
    assert p.convertible_forests() == ["a1"]
    assert p.convertible_forests("light") == []
    p.play_turn(f"{NEUTRAL[side]} =a2")
    assert str(p.piece_at("a1")) == str(p.piece_at("a2")) == "dark tree"


@pytest.mark.parametrize("side", SIDES)
def test_one_soil_unfertilized_by_the_owner_suffices_to_convert(side):
    p = corner_forest(side, light_dendrids=["c5"])  # c5 fertilizes a3 for Light
    assert "a3" in p.fertilized_cells("light") and "b1" not in p.fertilized_cells("light")
    assert p.convertible_forests() == ["a1"]


@pytest.mark.parametrize("side", SIDES)
def test_a_forest_whose_soils_the_owner_also_fertilizes_does_not_convert(side):
    p = corner_forest(side, light_dendrids=["c5", "d3"])
    assert {"a3", "b1"} <= set(p.fertilized_cells("light"))
    assert p.convertible_forests() == []
    p.play(NEUTRAL[side])
    assert_refused(p, "=a1", "every fertile soil of the forest is also fertilized by a light")


def test_a_forest_needs_every_soil_fertilized_by_the_mover_to_convert():
    p = make(7, light_trees=["a1", "a2"], dark_seeds=["b2", "b3"], dark_dendrids=["a5"])
    p.play("m7")
    assert_refused(p, "=a1", "fertile soil b1 of the forest is fertilized by no dark dendrid")


def test_own_forests_and_soilless_forests_do_not_convert():
    p = make(7, dark_trees=["a1"], light_trees=["g7"], dark_seeds=["a2", "b2"],
             light_seeds=["b1"], dark_dendrids=["m7"])
    p.play("m1")
    assert_refused(p, "=a1", "already dark")
    q = make(7, light_trees=["a1"], dark_seeds=["a2", "b2", "b1"], dark_dendrids=["m7"])
    q.play("m1")
    assert_refused(q, "=a1", "has no fertile soil")


@pytest.mark.parametrize("side", range(3, 12))
def test_the_bit_layout_moves_every_cell_to_its_neighbour(side):
    from hexgames.dendria._tables import tables

    t = tables(side)
    b = board(side)
    for d, offset in enumerate(t.offsets):
        for i in range(b.size):
            moved = (t.bit[i] << offset if offset > 0 else t.bit[i] >> -offset) & t.valid
            j = b.step[i][d]
            assert moved == (t.bit[j] if j >= 0 else 0)
            assert bool(t.edge[d] & t.bit[i]) == (j < 0)
