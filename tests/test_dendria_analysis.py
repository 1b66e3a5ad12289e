"""The public analysis an engine or the AI builds on: ``Position.analysis()``,
``Position.cells`` and ``Position.tables``, agreeing with the label-level queries; and no
module of the package but the engine reads a position's private names."""

import ast
import pathlib
import random

import pytest

import hexgames.dendria
from hexgames.dendria import Analysis, Group, Position, Rules
from hexgames.dendria._scoring import scores
from hexgames.dendria.board_analysis import (
    COLOR_OF,
    DARK,
    DENDRID,
    KIND_OF,
    LIGHT,
    SEED,
    TREE,
    cells_of_mask,
    code,
)
from hexgames.game import HistoryView


def random_position(seed: int, side: int = 5, steps: int = 60) -> Position:
    rng = random.Random(seed)
    p = Position.initial(Rules(board_side=side))
    for _ in range(steps):
        if p.is_over:
            break
        p.play(rng.choice(p.legal_actions()))
    return p


def labels(p, cells):
    return [p.board.labels[i] for i in cells]


@pytest.mark.parametrize("seed", range(12))
def test_the_analysis_agrees_with_the_label_queries(seed):
    p = random_position(seed)
    a = p.analysis()
    assert isinstance(a, Analysis) and p.analysis() is a  # cached while the board stands
    t = p.tables
    assert labels(p, cells_of_mask(a.plantable, t)) == p.plantable_cells()
    assert labels(p, a.sproutable) == p.sproutable_seeds()
    for color, name in ((DARK, "dark"), (LIGHT, "light")):
        assert labels(p, cells_of_mask(a.fertilized(color), t)) == p.fertilized_cells(name)
        assert labels(p, (g.cells[0] for g in a.convertible(color))) == \
            p.convertible_forests(name)
    assert labels(p, (g.cells[0] for g in a.growable())) == p.growable_seedbeds()
    for group in a.seedbeds + a.forests:
        assert isinstance(group, Group)
        assert group.kind == (SEED if group in a.seedbeds else TREE)
        first = p.board.labels[group.cells[0]]
        assert p.group(first) == labels(p, group.cells)
        assert p.fertile_soils(first) == labels(p, cells_of_mask(group.fertile, t))
        assert p.piece_at(first).color == ("dark", "light")[group.color]
    score = p.score()
    assert scores(a.forest_sizes(DARK), a.forest_sizes(LIGHT)) == (
        score["dark"], score["light"]
    )
    assert sorted(a.forest_sizes(DARK) + a.forest_sizes(LIGHT)) == sorted(
        len(g.cells) for g in a.forests
    )
    # Read-only: what it hands out cannot be changed by the caller.
    assert isinstance(a.seedbeds, tuple) and isinstance(a.forests, tuple)
    assert isinstance(a.sproutable, tuple) and isinstance(a.first_piece(DARK), tuple)
    for name in ("masks", "empty", "occupied", "t", "plantable"):
        with pytest.raises(AttributeError):
            setattr(a, name, 0)


@pytest.mark.parametrize("seed", range(6))
def test_cells_is_a_live_read_only_view_of_piece_codes(seed):
    p = random_position(seed, steps=30)
    cells = p.cells
    assert isinstance(cells, HistoryView) and len(cells) == p.board.size
    for i, v in enumerate(cells):
        piece = p.piece_at(p.board.labels[i])
        if v == 0:
            assert piece is None
        else:
            assert (("dark", "light")[COLOR_OF[v]], ("seed", "tree", "dendrid")[KIND_OF[v]]) \
                == (piece.color, piece.kind)
            assert p.analysis().masks[v] & p.tables.bit[i]
    for color in (DARK, LIGHT):
        dendrids = sum(1 for v in cells if v == code(color, DENDRID))
        assert p.analysis().pieces(color, DENDRID).bit_count() == dendrids
    with pytest.raises(TypeError):
        cells[0] = 1  # type: ignore[index]
    if not p.is_over:
        before = list(cells)
        p.play(p.legal_actions()[0])
        p.undo()
        assert list(cells) == before


def test_no_module_but_the_engine_reads_private_names_of_a_position():
    package = pathlib.Path(hexgames.dendria.__file__).parent
    offenders = []
    for path in sorted(package.glob("*.py")):
        if path.name == "position.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                offenders.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert offenders == []
