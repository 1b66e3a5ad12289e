"""Benediction's text and SVG boards show exactly what is on the board."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hexgames.benediction as package
from hexgames.benediction import GAME, Position, Rules
from hexgames.benediction.render import ascii_board, svg
from protocol_support import SVG_NS, board_part, find_class, parse_svg, svg_classes

#: Red to act (second action), with every flag, two blocks and a king off its start.
MIDGAME = """\
Benediction v1: R=E2 B E8
R:C3+E2k+3lF2b+4+c
B:D7+8kE6+b9G4c+
X:D4H3
"""


@pytest.fixture
def midgame() -> Position:
    return Position.from_text(MIDGAME)


# --------------------------------------------------------------------------- text


def test_text_board_shows_each_man_with_colour_size_and_flags(midgame):
    drawing = board_part(ascii_board(midgame))
    tokens = re.findall(r"[RB]\d+[k*~']*", drawing)
    expected = sorted(
        f"{m.color[0].upper()}{m.size}{'k' if m.king else ''}{'*' if m.blessed else ''}"
        f"{'~' if m.cursed else ''}{chr(39) if m.locked else ''}"
        for m in midgame.men().values()
    )
    assert sorted(tokens) == expected
    assert {"R2k", "R1'", "R2*", "R2~", "B2*", "B2~", "B1k"} <= set(tokens)
    assert drawing.count("##") == len(midgame.blocks) == 2


def test_text_board_marks_empty_walls_zones_and_starting_points(midgame):
    drawing = board_part(ascii_board(midgame))
    # e2 holds Red's king; Blue's starting point e8 is empty: one '@'.
    assert drawing.count("@") == 1
    empty_red_wall = [w for w in midgame.wall("red") if midgame.man_at(w) is None]
    empty_blue_wall = [w for w in midgame.wall("blue") if midgame.man_at(w) is None]
    lines = drawing.splitlines()
    middle = len(lines) // 2
    bottom, top = "\n".join(lines[middle:]), "\n".join(lines[:middle])
    assert bottom.count("=") == len(empty_red_wall) == 9
    assert top.count("=") == len(empty_blue_wall) == 7
    empty_zone = [
        z
        for color in ("red", "blue")
        for z in midgame.zone(color)
        if midgame.man_at(z) is None and z not in midgame.wall(color)
        and z not in midgame.starting_points
    ]
    assert drawing.count(":") == len(empty_zone) == 3


def locate(position: Position, label: str) -> tuple[int, int]:
    """(line, column) of a point in the text board, found by highlighting it."""
    lines = board_part(ascii_board(position, [label])).splitlines()
    spots = [(n, line.index("[")) for n, line in enumerate(lines) if "[" in line]
    assert len(spots) == 1
    return spots[0]


def test_text_board_geometry_keeps_columns_vertical_and_blue_on_top():
    position = Position.initial()
    e1, e5, e9 = (locate(position, label) for label in ("e1", "e5", "e9"))
    assert e1[1] == e5[1] == e9[1]
    assert e9[0] < e5[0] < e1[0]
    a1, i1 = locate(position, "a1"), locate(position, "i1")
    assert a1[1] < e5[1] < i1[1]
    assert a1[0] == i1[0]  # the two bottom sides are mirror images
    # Neighbours along a column are two lines apart; a neighbouring column is offset by one.
    e4, f4 = locate(position, "e4"), locate(position, "f4")
    assert e5[0] - e4[0] == -2
    assert abs(f4[0] - e4[0]) == 1


def test_text_board_has_column_letters_row_numbers_and_status(midgame):
    text = ascii_board(midgame)
    drawing = board_part(text)
    words = set(drawing.split())
    assert set("abcdefghi") <= words
    assert {str(n) for n in range(1, 10)} <= words
    assert "Red to move, 1 action left this turn." in text


def test_text_board_highlights_and_rejects_unknown_labels(midgame):
    drawing = board_part(ascii_board(midgame, ["e2", "e5"]))
    assert "[R2k]" in drawing and "[.]" in drawing
    with pytest.raises(ValueError, match="z9"):
        ascii_board(midgame, ["z9"])


def finished_game(seed: int) -> Position:
    rng = random.Random(seed)
    position = Position.initial(Rules(max_turns=60))
    while not position.is_over:
        position.play(rng.choice(position.legal_actions()))
    return position


def test_text_board_announces_the_result():
    results = {}
    for seed in range(6):
        position = finished_game(seed)
        results[position.winner] = ascii_board(position).splitlines()[-1]
        if position.winner != "draw":
            expected = f"{position.winner.capitalize()} wins ({position.win_reason})."
            assert results[position.winner] == expected
    assert results.get("draw") == "The game is drawn (turn limit reached)."
    assert set(results) - {"draw"}, "no decisive game among the seeds"


# --------------------------------------------------------------------------- SVG


def test_svg_draws_every_man_with_its_flags_and_size(midgame):
    root = parse_svg(svg(midgame))
    men = {g.get("data-point"): g for g in find_class(root, "man")}
    assert set(men) == set(midgame.men())
    for label, man in midgame.men().items():
        drawn = men[label]
        assert man.color in svg_classes(drawn)
        assert drawn.get("data-size") == str(man.size)
        for flag in ("king", "blessed", "cursed", "locked"):
            assert (flag in svg_classes(drawn)) == getattr(man, flag), (label, flag)
        sizes = [t.text for t in drawn.iter(f"{SVG_NS}text")]
        assert sizes == [str(man.size)]
        # The marks that make the flags visible, not just classes.
        assert bool(find_class(drawn, "crown")) == man.king
        assert bool(find_class(drawn, "blessing")) == man.blessed
        assert bool(find_class(drawn, "curse")) == man.cursed
        assert bool(find_class(drawn, "lock")) == man.locked


def test_svg_draws_blocks_walls_zones_and_starting_points(midgame):
    root = parse_svg(svg(midgame))
    assert {b.get("data-point") for b in find_class(root, "block")} == midgame.blocks
    assert {w.get("data-color") for w in find_class(root, "wall")} == {"red", "blue"}
    assert {z.get("data-color") for z in find_class(root, "zone")} == {"red", "blue"}
    starts = {p.get("data-point") for p in find_class(root, "start")}
    assert starts == set(midgame.starting_points)
    points = [e for e in find_class(root, "point")]
    assert len(points) == 61
    wall_red = {p.get("data-point") for p in points if "wall-red" in svg_classes(p)}
    assert wall_red == set(midgame.wall("red"))
    zone_blue = {p.get("data-point") for p in points if "zone-blue" in svg_classes(p)}
    assert zone_blue == set(midgame.zone("blue"))


def test_svg_draws_the_last_actions(midgame):
    root = parse_svg(svg(midgame, last_action=["e3e4", "@d2"]))
    marks = find_class(root, "last-action")
    assert [(m.get("data-origin"), m.get("data-point")) for m in marks] == [
        ("e3", "e4"),
        (None, "d2"),
    ]
    assert "last-move" in svg_classes(marks[0]) and "last-drop" in svg_classes(marks[1])
    assert len(list(marks[0].iter(f"{SVG_NS}line"))) == 1  # the arrow
    assert not list(marks[1].iter(f"{SVG_NS}line"))
    position = Position.initial()
    position.play("e3e4")
    single = parse_svg(svg(position, last_action=position.history[-1]))
    assert len(find_class(single, "last-action")) == 1


def test_svg_is_deterministic_and_reached_through_the_game_description(midgame):
    assert svg(midgame) == svg(midgame.copy())
    assert GAME.render_svg(midgame, ("e5",)) == svg(midgame, ("e5",))
    assert GAME.render_text(midgame) == ascii_board(midgame)
    # The package re-exports both drawings under these names.
    assert package.svg is svg and package.ascii_board is ascii_board


def test_the_documentation_examples_render_to_png(tmp_path):
    script = Path(__file__).resolve().parents[1] / "tools" / "render_examples.py"
    result = subprocess.run(
        [sys.executable, str(script), "--out", str(tmp_path), "--width", "240"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    for name in ("benediction-board.png", "dendria-board.png"):
        data = (tmp_path / name).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        width = int.from_bytes(data[16:20], "big")
        assert width == 240
