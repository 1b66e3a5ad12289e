"""The rules page of each game: the rules for players, with boards drawn by the engine.

The text is the game package's player guide, ``guide.md`` next to its ``Game`` (the
developer material, notation, text formats and the Python API, is in ``docs/<game>.md``,
which is the fallback for a game without a guide). Any fenced block that the game can
read as a position (its board-text format) is drawn with ``render_svg`` instead of being
shown as text, so the diagrams can never disagree with the engine. A block may add
directive lines after the position: ``play: ACTIONS`` (played, and shown as the last
move), ``highlight: POINTS``, ``overlay: NAMES`` and ``caption: TEXT``. The page's title is
followed by the game's start position.

Pages speak the visitor's language: the guide's translation ``guide.<lang>.md`` beside
``guide.md`` when there is one (English otherwise), the page's own words through the
catalogs (templates ``rules.html`` and ``not_found.html``).
"""

from __future__ import annotations

import asyncio
import html
import math
import re
from functools import cache
from importlib import resources
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

import hexgames
from hexgames.game import REGISTRY, Game, game_names, get_game
from hexgames.i18n import (
    DEFAULT_LANGUAGE,
    Translator,
    guide_path,
    normalize,
    translator,
)
from hexgames.phrases import Phrase, nphrase
from hexgames.web.game.matches import color_word, render
from hexgames.web.http.language import chosen_language, remember, render_template
from hexgames.web.http.markdown import to_html
from hexgames.web.http.not_found import not_found_response

router = APIRouter(include_in_schema=False)


def docs_dir() -> Path | None:
    """The project's ``docs/`` folder (present in a checkout and an editable install)."""
    candidate = Path(hexgames.__file__).resolve().parents[2] / "docs"
    return candidate if candidate.is_dir() else None


def guide_text(game: Game, language: str = DEFAULT_LANGUAGE) -> str | None:
    """The game's player guide (``guide.md`` in its package, or its translation
    ``guide.<language>.md`` beside it when there is one), ``None`` when it has none."""
    module = REGISTRY.get(game.name, "").split(":")[0]
    try:
        english = resources.files(module).joinpath("guide.md")
        chosen = guide_path(english, language) if isinstance(english, Path) else english
        return chosen.read_text(encoding="utf-8")
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


def rules_page(game: Game, language: str = DEFAULT_LANGUAGE) -> str:
    """The full HTML page in ``language`` (the guide's translation when there is one,
    else the English guide in the translated page). Cached: docs do not change while a
    server runs."""
    return _rules_page(game.name, normalize(language) or DEFAULT_LANGUAGE)


@cache
def _rules_page(name: str, language: str = DEFAULT_LANGUAGE) -> str:
    game = get_game(name)
    words = translator(language)
    folder = docs_dir()
    source = folder / f"{game.name}.md" if folder else None
    guide = guide_text(game, language)
    if guide is not None:
        body = to_html(guide, lambda _, code: _diagram(game, code))
    elif source is not None and source.is_file():
        body = to_html(source.read_text(encoding="utf-8"), lambda _, code: _diagram(game, code))
    else:
        missing = words.gettext(
            "The rules document {path} is not installed with this copy of hexgames.")
        body = (f"<h1>{html.escape(words.gettext(game.title))}</h1><p>"
                + html.escape(missing).replace(
                    "{path}", f"<code>docs/{html.escape(game.name)}.md</code>")
                + "</p>")
    body = with_start_diagram(body, _start_drawing(name), words)
    sample, caption = _sample(name)
    return render_template("rules.html", language, title=words.gettext(game.title),
                   body=Markup(body),
                   game_name=name, sample=Markup(sample),
                   sample_caption=words.text(caption), legend=Markup(legend_html(game, words)))


@cache
def _start_drawing(name: str) -> str:
    game = get_game(name)
    return str(game.render_svg(game.new()))


@cache
def _sample(name: str) -> tuple[str, Phrase]:
    """:func:`sample_game` of a game, drawn once for every language."""
    return sample_game(get_game(name))


def with_start_diagram(body: str, start: str, words: Translator | None = None) -> str:
    """The body with the start position right after its title: on a phone, where the
    figure is not floated beside the text, the page opens with its title, not a board."""
    caption = (words or translator(DEFAULT_LANGUAGE)).gettext("The start position.")
    figure = (f'<figure class="diagram start">{start}'
              f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    end = body.find("</h1>")
    at = end + len("</h1>") if end >= 0 else 0
    return f"{body[:at]}\n{figure}\n{body[at:]}"


def sample_game(game: Game, actions: int = 120, seed: int = 2024) -> tuple[str, Phrase]:
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
    caption = nphrase(
        "After {n} action of a game between two beginner-level computer players; "
        "{color} to act. The last turn is highlighted.",
        "After {n} actions of a game between two beginner-level computer players; "
        "{color} to act. The last turn is highlighted.",
        len(shown.history), color=color_word(shown.to_move))
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


def legend_html(game: Game, words: Translator | None = None) -> str:
    """The legend section: one picture per marker, cut from one small drawn position
    (its words in the language of ``words``; English by default)."""
    words = words or translator(DEFAULT_LANGUAGE)
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
            f'<use href="#{board_id}"/></svg><span>{html.escape(words.gettext(text))}</span></li>'
        )
    return (
        f'<section class="legend" id="legend"><h2 id="legend-head">'
        f'{html.escape(words.gettext("Legend"))}</h2>'
        f'<svg class="legend-source" width="0" height="0" aria-hidden="true"><defs>{svg}'
        f'</defs></svg><ul class="legend-items">{"".join(items)}</ul></section>'
    )


@router.get("/rules/{game_name}")
async def rules(game_name: str, request: Request) -> HTMLResponse:
    """A game's rules page (404 page for an unknown game)."""
    if game_name not in game_names():
        return not_found_response(request, f"/rules/{game_name}")
    # The first request draws a sample game (AI moves): keep it off the event loop.
    language = chosen_language(request)
    response = HTMLResponse(await asyncio.to_thread(rules_page, get_game(game_name), language))
    remember(response, request)
    return response
