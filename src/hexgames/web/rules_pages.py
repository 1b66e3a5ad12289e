"""The rules page of each game: its docs rendered as HTML, with boards drawn by the engine.

The text comes from ``docs/<game>.md`` (written by each engine's authors). Any fenced
block in it that the game can read as a position (its board-text format) is drawn with
``render_svg`` instead of being shown as text, so the diagrams can never disagree with the
engine. The page starts with the game's start position.
"""

from __future__ import annotations

import html
from functools import cache
from pathlib import Path

import hexgames
from hexgames.game import Game, get_game
from hexgames.web.markdown import to_html

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
  <nav><a href="/">Play</a><a href="/rules/benediction">Benediction rules</a>
  <a href="/rules/dendria">Dendria rules</a></nav>
</header>
<main class="rules">
<article>
<figure class="diagram start">{start}<figcaption>The start position.</figcaption></figure>
{body}
</article>
</main>
</body>
</html>
"""


def docs_dir() -> Path | None:
    """The project's ``docs/`` folder (present in a checkout and an editable install)."""
    candidate = Path(hexgames.__file__).resolve().parents[2] / "docs"
    return candidate if candidate.is_dir() else None


def _diagram(game: Game, text: str) -> str | None:
    try:
        position = game.position_from_text(text)
    except Exception:  # not a position: the caller shows the block as text
        return None
    svg = game.render_svg(position)
    return f'<figure class="diagram">{svg}<pre class="caption">{html.escape(text)}</pre></figure>'


def rules_page(game: Game) -> str:
    """The full HTML page (cached: docs do not change while a server runs)."""
    return _rules_page(game.name)


@cache
def _rules_page(name: str) -> str:
    game = get_game(name)
    folder = docs_dir()
    source = folder / f"{game.name}.md" if folder else None
    if source is not None and source.is_file():
        body = to_html(source.read_text(encoding="utf-8"), lambda _, code: _diagram(game, code))
    else:
        body = (
            f"<h1>{html.escape(game.title)}</h1><p>The rules document "
            f"<code>docs/{game.name}.md</code> is not installed with this copy of hexgames.</p>"
        )
    start = game.render_svg(game.new())
    return PAGE.format(title=html.escape(game.title), start=start, body=body)
