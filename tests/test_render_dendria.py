"""Dendria's text and SVG boards show exactly what is on the board."""

from __future__ import annotations

import re
from collections import Counter

import pytest

import hexgames.dendria as package
from hexgames.dendria import GAME, Position, Rules
from hexgames.dendria.render import ascii_board, svg
from protocol_support import SVG_NS, board_part, find_class, parse_svg, svg_classes

MIDGAME = """\
Dendria v1: size=7 to-move=light
dark seeds: c4 d5 d6
dark trees: e5 e6 f6
dark dendrids: b2 j5
light seeds: g9 h9
light trees: k7
light dendrids: g3 a1 m4
"""


@pytest.fixture
def midgame() -> Position:
    return Position.from_text(MIDGAME)


def pieces_of(position: Position) -> dict[str, tuple[str, str]]:
    found = {}
    for label in position.board.labels:
        piece = position.piece_at(label)
        if piece is not None:
            found[label] = (piece.color, piece.kind)
    return found


# --------------------------------------------------------------------------- text


def test_text_board_shows_every_piece_by_colour_and_kind(midgame):
    drawing = board_part(ascii_board(midgame))
    tokens = Counter(re.findall(r"<[XO]>|(?<!<)[xXoO](?!>)", drawing))
    expected = Counter(pieces_of(midgame).values())
    assert tokens == {
        "x": expected["dark", "seed"],
        "X": expected["dark", "tree"],
        "<X>": expected["dark", "dendrid"],
        "o": expected["light", "seed"],
        "O": expected["light", "tree"],
        "<O>": expected["light", "dendrid"],
    }
    assert drawing.count(".") == midgame.board.size - sum(expected.values())


def locate(position: Position, label: str) -> tuple[int, int]:
    lines = board_part(ascii_board(position, [label])).splitlines()
    spots = [(n, line.index("[")) for n, line in enumerate(lines) if "[" in line]
    assert len(spots) == 1
    return spots[0]


def test_text_board_puts_each_piece_at_its_cell(midgame):
    for label, (color, kind) in pieces_of(midgame).items():
        line, column = locate(midgame, label)
        drawn = board_part(ascii_board(midgame, [label])).splitlines()[line]
        token = drawn[column:].split("]")[0] + "]"
        letter = "X" if color == "dark" else "O"
        expected = {"seed": letter.lower(), "tree": letter, "dendrid": f"<{letter}>"}[kind]
        assert token == f"[{expected}]", label


def test_text_board_has_labels_legend_and_status(midgame):
    text = ascii_board(midgame)
    words = set(board_part(text).split())
    assert set("abcdefghijklm") <= words
    assert {str(n) for n in range(1, 14)} <= words
    assert "Dark: x seed  X tree  <X> dendrid" in text
    score = midgame.score()
    assert text.splitlines()[-1] == (
        f"Light to move. Score: Dark {score['dark']:g}, Light {score['light']:g}."
    )


def test_text_board_status_follows_the_turn_the_pie_rule_and_the_end():
    position = Position.initial(Rules(board_side=5))
    position.play("e5")
    assert "Dark to move (turn under way" in ascii_board(position)
    position.play("end")
    assert "Light to move, and may swap colours (pie rule)." in ascii_board(position)
    position.play("pass")
    position.play("pass")
    assert position.is_over
    assert ascii_board(position).splitlines()[-1] == (
        "The game is drawn (both passed). Score: Dark 0, Light 0."
    )

# --------------------------------------------------------------------------- SVG


@pytest.mark.parametrize("size", [3, 5, 7, 9])
def test_svg_has_one_hit_target_and_one_soil_per_cell(size):
    position = Position.initial(Rules(board_side=size))
    root = parse_svg(svg(position))
    labels = list(position.board.labels)
    assert [h.get("data-point") for h in find_class(root, "hit")] == labels
    assert [c.get("data-point") for c in find_class(root, "cell")] == labels
    assert root.get("data-side") == str(size)


def test_svg_draws_each_piece_with_its_kind_and_colour(midgame):
    root = parse_svg(svg(midgame))
    drawn = {
        g.get("data-point"): (g.get("data-color"), g.get("data-kind"))
        for g in find_class(root, "piece")
    }
    assert drawn == pieces_of(midgame)
    for g in find_class(root, "piece"):
        assert {g.get("data-color"), g.get("data-kind")} <= svg_classes(g)
    # Each kind has its own glyph: seeds are ellipses, dendrids discs, trees hexagons.
    for kind, tag in (("seed", "ellipse"), ("dendrid", "circle"), ("tree", "polygon")):
        for g in find_class(root, kind):
            assert list(g.iter(f"{SVG_NS}{tag}")), kind


def test_svg_overlays_mark_the_engine_queries(midgame):
    root = parse_svg(svg(midgame, overlays=("fertilized-dark", "fertilized-light", "plantable")))
    for name, cells in (
        ("fertilized-dark", midgame.fertilized_cells("dark")),
        ("fertilized-light", midgame.fertilized_cells("light")),
        ("plantable", midgame.plantable_cells()),
    ):
        assert cells, name
        marks = {m.get("data-point") for m in find_class(root, "overlay") if name in svg_classes(m)}
        assert marks == set(cells), name
        soils = {c.get("data-point") for c in find_class(root, "cell") if name in svg_classes(c)}
        assert soils == set(cells), name
    assert not find_class(parse_svg(svg(midgame)), "overlay")
    with pytest.raises(ValueError, match="fertile"):
        svg(midgame, overlays=("fertile",))


def test_svg_draws_the_last_steps_with_continuations_from_the_last_stop():
    position = Position.from_text("Dendria v1: size=5 to-move=dark\ndark dendrids: a1\n")
    root = parse_svg(svg(position, last_action=["a1-a3", "-a5", "^c3", "end"]))
    marks = find_class(root, "last-action")
    assert [(m.get("data-origin"), m.get("data-point")) for m in marks] == [
        ("a1", "a3"),
        ("a3", "a5"),
        (None, "c3"),
    ]
    assert [len(list(m.iter(f"{SVG_NS}line"))) for m in marks] == [1, 1, 0]
    assert not find_class(parse_svg(svg(position, last_action="pass")), "last-action")


def test_svg_labels_can_be_hidden_and_output_is_deterministic(midgame):
    texts = {t.text for t in find_class(parse_svg(svg(midgame)), "edge-label")}
    assert texts == set("abcdefghijklm") | {str(n) for n in range(1, 14)}
    assert not find_class(parse_svg(svg(midgame, show_labels=False)), "edge-label")
    assert svg(midgame) == svg(midgame.copy())
    assert GAME.render_svg(midgame, ("g7",)) == svg(midgame, ("g7",))
    assert GAME.render_text(midgame) == ascii_board(midgame)
    # The package re-exports both drawings under these names.
    assert package.svg is svg and package.ascii_board is ascii_board
