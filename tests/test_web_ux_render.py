"""Issue 12 without a browser: the renderers' ``flip`` option, the legend drawn by the
engine, and the ``final`` field of a state."""

from __future__ import annotations

import re

import pytest

from hexgames.ai import player
from hexgames.game import get_game
from hexgames.web.routes.rules import _point_centres, legend_html

GAMES = ["benediction", "dendria"]


def viewbox(svg: str) -> tuple[float, float]:
    found = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    assert found
    return float(found.group(1)), float(found.group(2))


@pytest.mark.parametrize("name", GAMES)
def test_flip_turns_every_point_half_a_turn(name: str) -> None:
    game = get_game(name)
    position = game.new()
    plain, turned = game.render_svg(position), game.render_svg(position, flip=True)
    assert "data-flipped" not in plain and 'data-flipped="true"' in turned
    assert viewbox(plain) == viewbox(turned)
    width, height = viewbox(plain)
    before, after = _point_centres(plain), _point_centres(turned)
    assert before.keys() == after.keys() and len(before) > 30
    for point, (x, y) in before.items():
        fx, fy = after[point]
        assert fx == pytest.approx(width - x, abs=0.02)
        assert fy == pytest.approx(height - y, abs=0.02)
    assert "rotate(" not in turned  # text stays upright: only positions change


def test_flip_puts_the_second_player_at_the_bottom() -> None:
    game = get_game("benediction")
    position = game.new()
    centres = _point_centres(game.render_svg(position, flip=True))
    red_king = next(label for label in centres if label.lower() == "e2")
    blue_king = next(label for label in centres if label.lower() == "e8")
    assert centres[blue_king][1] > centres[red_king][1]  # larger y: lower on the page


@pytest.mark.parametrize("name", GAMES)
def test_the_legend_shows_each_marker_from_one_drawn_position(name: str) -> None:
    game = get_game(name)
    legend = get_game(name).legend
    assert legend is not None
    text = legend_html(game)
    assert text.count('class="legend-item"') == len(legend.items)
    assert text.count(f'<use href="#legend-{name}"/>') == len(legend.items)
    assert f'id="legend-{name}"' in text
    position = game.position_from_text(legend.text)  # a position the engine accepts
    labels = {label.lower() for label in position.board.labels}
    assert all(point.lower() in labels for point, _ in legend.items)


def test_the_blessing_has_rays_and_a_possible_click_is_dashed() -> None:
    game = get_game("benediction")
    svg = game.render_svg(game.position_from_text(get_game("benediction").legend.text), ["F4"])
    assert re.search(r'<g class="man red blessed[^"]*"', svg)
    assert 'class="rays"' in svg
    assert re.search(r"\.hit\.highlighted \{[^}]*stroke-dasharray", svg)


def test_a_state_carries_the_final_score_of_the_engine() -> None:
    from hexgames.web.game.matches import _final

    game = get_game("dendria")
    position = game.new()
    assert _final(position) is None
    bots = [player(game, 1, seed=3), player(game, 1, seed=4)]
    while not position.is_over:
        position.play(bots[position.current_seat].choose(position))
    final = _final(position)
    outcome = position.outcome()
    assert final == {"termination": str(outcome.termination), "winner": outcome.winner,
                     "score": dict(outcome.score)}
