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
from hexgames.game import Game, game_names, get_game
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
<figure class="diagram start">{start}<figcaption>The start position.</figcaption></figure>
{body}
<h2 id="a-game-in-progress">A game in progress</h2>
<figure class="diagram">{sample}<figcaption>{sample_caption}</figcaption></figure>
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
    sample, caption = sample_game(game)
    nav = "".join(
        f'<a href="/rules/{other.name}"{" aria-current=page" if other.name == name else ""}>'
        f"{html.escape(other.title)} rules</a>"
        for other in map(get_game, game_names())
    )
    return PAGE.format(title=html.escape(game.title), start=start, body=body, nav=nav,
                       sample=sample, sample_caption=html.escape(caption))


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
