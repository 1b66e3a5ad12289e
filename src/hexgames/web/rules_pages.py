"""The rules page of each game: the rules for players, with boards drawn by the engine.

The text is the game package's player guide, ``guide.md`` next to its ``Game`` (the
developer material, notation, text formats and the Python API, is in ``docs/<game>.md``,
which is the fallback for a game without a guide). Any fenced block that the game can
read as a position (its board-text format) is drawn with ``render_svg`` instead of being
shown as text, so the diagrams can never disagree with the engine. A block may add
directive lines after the position: ``play: ACTIONS`` (played, and shown as the last
move), ``highlight: POINTS``, ``overlay: NAMES`` and ``caption: TEXT``. The page's title is
followed by the game's start position.
"""

from __future__ import annotations

import html
import math
import re
from functools import cache
from importlib import resources
from pathlib import Path

import hexgames
from hexgames.game import REGISTRY, Game, game_names, get_game
from hexgames.web.markdown import to_html
from hexgames.web.matches import render

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} rules · hexgames</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/css/site.css">
</head>
<body class="page-rules">
<header class="topbar">
  <a class="brand" href="/"><img src="/static/favicon.svg" alt=""> hexgames</a>
  <nav><a href="/">Play</a>{nav}</nav>
</header>
<main class="rules">
<article>
{body}
<h2 id="a-game-in-progress">A game in progress</h2>
<figure class="diagram">{sample}<figcaption>{sample_caption}</figcaption></figure>
{legend}
</article>
</main>
</body>
</html>
"""


NOT_FOUND = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not found · hexgames</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/css/site.css">
</head>
<body class="page-missing">
<header class="topbar">
  <a class="brand" href="/"><img src="/static/favicon.svg" alt=""> hexgames</a>
  <nav><a href="/">Play</a>{nav}</nav>
</header>
<main class="rules missing-page">
<article>
<h1>Page not found</h1>
<p>There is no page at <code>{path}</code> on this site.</p>
<p><a class="button primary" href="/">Start a game</a></p>
</article>
</main>
</body>
</html>
"""


def rules_nav(current: str | None = None) -> str:
    """Links to every game's rules (the top bar of the rules and other server pages)."""
    return "".join(
        f'<a href="/rules/{other.name}"{" aria-current=page" if other.name == current else ""}>'
        f"{html.escape(other.title)} rules</a>"
        for other in map(get_game, game_names())
    )


def not_found_page(path: str) -> str:
    """The HTML 404 page (a person's mistyped address; the API answers JSON instead)."""
    shown = path if len(path) <= 120 else path[:120] + "…"
    return NOT_FOUND.format(path=html.escape(shown), nav=rules_nav())


def docs_dir() -> Path | None:
    """The project's ``docs/`` folder (present in a checkout and an editable install)."""
    candidate = Path(hexgames.__file__).resolve().parents[2] / "docs"
    return candidate if candidate.is_dir() else None


def guide_text(game: Game) -> str | None:
    """The game's player guide (``guide.md`` in its package), ``None`` when it has none."""
    module = REGISTRY.get(game.name, "").split(":")[0]
    try:
        return resources.files(module).joinpath("guide.md").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, ValueError):
        return None


_DIRECTIVE = re.compile(r"^(play|highlight|overlay|caption):\s*(.*)$", re.IGNORECASE)


def _diagram(game: Game, text: str) -> str | None:
    """A fenced block drawn as a board when it holds a position (else ``None``)."""
    board_lines, directives = [], {}
    for line in text.splitlines():
        found = _DIRECTIVE.match(line.strip())
        if found:
            directives[found.group(1).lower()] = found.group(2).strip()
        else:
            board_lines.append(line)
    board_text = "\n".join(board_lines)
    try:
        position = game.position_from_text(board_text, None)
    except Exception:  # not a position: the caller shows the block as text
        return None
    played = []
    for action in directives.get("play", "").split():
        try:
            position.play(action)
        except ValueError:
            return None  # a diagram that does not replay is shown as text, and tested
        played.append(position.last_action)
    highlights = tuple(directives.get("highlight", "").split())
    overlays = tuple(directives.get("overlay", "").split())
    extra = {"overlays": overlays} if overlays else {}
    svg = game.render_svg(position, highlights, last_action=played or None, **extra)
    caption = directives.get("caption")
    if caption is None:
        return (f'<figure class="diagram">{svg}<pre class="caption">{html.escape(text)}'
                "</pre></figure>")
    return f'<figure class="diagram">{svg}<figcaption>{html.escape(caption)}</figcaption></figure>'


def rules_page(game: Game) -> str:
    """The full HTML page (cached: docs do not change while a server runs)."""
    return _rules_page(game.name)


@cache
def _rules_page(name: str) -> str:
    game = get_game(name)
    folder = docs_dir()
    source = folder / f"{game.name}.md" if folder else None
    guide = guide_text(game)
    if guide is not None:
        body = to_html(guide, lambda _, code: _diagram(game, code))
    elif source is not None and source.is_file():
        body = to_html(source.read_text(encoding="utf-8"), lambda _, code: _diagram(game, code))
    else:
        body = (
            f"<h1>{html.escape(game.title)}</h1><p>The rules document "
            f"<code>docs/{game.name}.md</code> is not installed with this copy of hexgames.</p>"
        )
    body = with_start_diagram(body, game.render_svg(game.new()))
    sample, caption = sample_game(game)
    nav = rules_nav(name)
    return PAGE.format(title=html.escape(game.title), body=body, nav=nav,
                       sample=sample, sample_caption=html.escape(caption),
                       legend=legend_html(game))


def with_start_diagram(body: str, start: str) -> str:
    """The body with the start position right after its title: on a phone, where the
    figure is not floated beside the text, the page opens with its title, not a board."""
    figure = (f'<figure class="diagram start">{start}'
              "<figcaption>The start position.</figcaption></figure>")
    end = body.find("</h1>")
    at = end + len("</h1>") if end >= 0 else 0
    return f"{body[:at]}\n{figure}\n{body[at:]}"


def sample_game(game: Game, actions: int = 120, seed: int = 2024) -> tuple[str, str]:
    """A mid-game board: two beginner AIs play from the start (deterministically).

    The docs may contain no position at all; a real game in progress shows what the
    pieces look like in play, and it is drawn for any game without knowing it. The
    position kept is the last one at a turn start before the game would end.
    """
    from hexgames.ai import player

    position = game.new()
    bots = [player(game, 1, seed=seed), player(game, 1, seed=seed + 1)]
    shown = position.copy()
    while not position.is_over and len(position.history) < actions:
        position.play(bots[position.current_seat].choose(position))
        if position.is_turn_start() and not position.is_over:
            shown = position.copy()
    svg = render(game, shown)
    caption = (f"After {len(shown.history)} actions of a game between two beginner-level "
               f"computer players; {shown.to_move} to act. The last turn is highlighted.")
    return svg, caption


# ---------------------------------------------------------------------------- legend
_HIT = re.compile(r'<(?:circle|polygon)\s[^>]*class="hit[^"]*"[^>]*>')


def _point_centres(svg: str) -> dict[str, tuple[float, float]]:
    """Paper position of every point's hit target in a board SVG."""
    centres = {}
    for tag in _HIT.findall(svg):
        label = re.search(r'data-point="([^"]+)"', tag)
        if label is None:
            continue
        circle = re.search(r'cx="([-\d.]+)"\s+cy="([-\d.]+)"', tag)
        if circle:
            centres[label.group(1)] = (float(circle.group(1)), float(circle.group(2)))
            continue
        points = re.search(r'points="([^"]+)"', tag)
        if points:
            xy = [tuple(map(float, pair.split(","))) for pair in points.group(1).split()]
            centres[label.group(1)] = (sum(p[0] for p in xy) / len(xy),
                                       sum(p[1] for p in xy) / len(xy))
    return centres


def legend_html(game: Game) -> str:
    """The legend section: one picture per marker, cut from one small drawn position."""
    legend = game.legend
    if legend is None:
        return ""
    board_id = f"legend-{game.name}"
    position = game.position_from_text(legend.text, None)
    extra: dict[str, object] = {"overlays": legend.overlays} if legend.overlays else {}
    svg = str(game.render_svg(position, legend.highlights, selected=legend.selected,
                              last_action=list(legend.last_action) or None,
                              board_id=board_id, size=600, **extra))
    view = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    assert view is not None
    scale = 600 / float(view.group(1))
    centres = _point_centres(svg)
    spots = list(centres.values())
    unit = min(math.dist(spots[0], other) for other in spots[1:])  # neighbour distance
    half = unit * 0.7 * scale
    items = []
    for point, text in legend.items:
        label = next(name for name in centres if name.lower() == point.lower())
        x, y = (value * scale for value in centres[label])
        box = f"{x - half:.1f} {y - half:.1f} {2 * half:.1f} {2 * half:.1f}"
        items.append(
            f'<li class="legend-item" data-point="{html.escape(point)}">'
            f'<svg class="legend-icon" viewBox="{box}" width="56" height="56" aria-hidden="true">'
            f'<use href="#{board_id}"/></svg><span>{html.escape(text)}</span></li>'
        )
    return (
        f'<section class="legend" id="legend"><h2 id="legend-head">Legend</h2>'
        f'<svg class="legend-source" width="0" height="0" aria-hidden="true"><defs>{svg}'
        f'</defs></svg><ul class="legend-items">{"".join(items)}</ul></section>'
    )
