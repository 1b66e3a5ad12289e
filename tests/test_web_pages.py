"""Rules pages: the Markdown subset converter and boards drawn from position texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from hexgames.game import get_game
from hexgames.web.http.markdown import to_html
from hexgames.web.routes import rules as rules_pages


def test_markdown_blocks_and_inline_markup() -> None:
    html = to_html(
        "# Title One\n\nSome *soft* and **strong** text with `e3e4` and [a link](/rules/x).\n"
        "continued line\n\n- one\n- two\n  wrapped\n\n1. first\n2. second\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n"
    )
    assert '<h1 id="title-one">Title One</h1>' in html
    assert ("<p>Some <em>soft</em> and <strong>strong</strong> text with <code>e3e4</code> "
            'and <a href="/rules/x">a link</a>. continued line</p>') in html
    assert "<ul><li>\none\n</li><li>\ntwo wrapped\n</li></ul>" in html
    assert "<ol><li>\nfirst\n</li><li>\nsecond\n</li></ol>" in html
    assert "<th>a</th><th>b</th>" in html and "<td>1</td><td>2</td>" in html
    assert "<blockquote>quoted</blockquote>" in html


def test_markdown_markup_around_code_across_lines_and_escaped() -> None:
    """Issue 12: the rules page showed literal ``**`` (bold around a code span, bold over
    a wrapped list item, a backslash-escaped star)."""
    html = to_html("1. **`max_turns` counts turns** (one\n   **wrapped bold** here)\n\n"
                   "the 12\\* protocol and a \\*literal\\* star\n")
    assert "<strong><code>max_turns</code> counts turns</strong>" in html
    assert "<strong>wrapped bold</strong>" in html
    assert "the 12* protocol and a *literal* star" in html
    assert "**" not in html and "\\" not in html


def test_markdown_escapes_everything_it_does_not_understand() -> None:
    html = to_html("<script>alert(1)</script> and `<b>` and [x](javascript:alert(1))\n\n"
                   "```\n<svg onload=x>\n```\n")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<code>&lt;b&gt;</code>" in html
    assert 'href="#"' in html and "javascript:" not in html.split('href="')[1].split('"')[0]
    assert "<pre>&lt;svg onload=x&gt;</pre>" in html


def test_code_blocks_can_be_replaced_by_the_caller() -> None:
    html = to_html("```text\nBOARD\n```\n\n```\nplain\n```\n",
                   lambda language, body: "<figure>drawn</figure>" if body == "BOARD" else None)
    assert "<figure>drawn</figure>" in html and "<pre>plain</pre>" in html


@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_position_texts_in_the_docs_become_board_diagrams(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = get_game(name)
    position = game.new()
    position.play(position.legal_actions()[0])
    (tmp_path / f"{name}.md").write_text(
        f"# {game.title} rules\n\nA diagram:\n\n```\n{position.to_text()}\n```\n\n"
        "Notation, not a board:\n\n```\nnot a position\n```\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(rules_pages, "docs_dir", lambda: tmp_path)
    # docs/ as the fallback
    monkeypatch.setattr(rules_pages, "guide_text", lambda game, language="en": None)
    rules_pages._rules_page.cache_clear()
    try:
        page = rules_pages.rules_page(game)
    finally:
        rules_pages._rules_page.cache_clear()
    assert f"<h1 id=\"{name}-rules\">{game.title} rules</h1>" in page
    # The start position, the block, and a sample game in progress.
    assert page.count('<figure class="diagram') == 3
    assert game.render_svg(game.position_from_text(position.to_text())) in page
    assert "<pre>not a position</pre>" in page


def test_a_missing_rules_document_still_gives_a_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rules_pages, "docs_dir", lambda: tmp_path)
    monkeypatch.setattr(rules_pages, "guide_text", lambda game, language="en": None)
    rules_pages._rules_page.cache_clear()
    try:
        page = rules_pages.rules_page(get_game("dendria"))
    finally:
        rules_pages._rules_page.cache_clear()
    assert "docs/dendria.md" in page and "data-point" in page
    assert "A game in progress" in page


@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_the_sample_game_is_a_real_game_in_progress(name: str) -> None:
    game = get_game(name)
    svg, caption = rules_pages.sample_game(game, actions=12)
    assert svg.lstrip().startswith("<svg") and "data-point" in svg
    assert svg != game.render_svg(game.new())  # pieces have moved
    played = int(str(caption).split()[1])
    assert 0 < played <= 12  # the last turn start within the first 12 actions


@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_the_rules_page_is_the_players_guide_with_diagrams(name: str) -> None:
    """Issue 12: the rules pages are for players: the game's guide, its diagrams drawn
    by the engine (every diagram replays its actions), no developer material."""
    game = get_game(name)
    guide = rules_pages.guide_text(game)
    assert guide is not None
    blocks = guide.count("```diagram")
    assert blocks >= 5
    rules_pages._rules_page.cache_clear()
    page = rules_pages.rules_page(game)
    # Start position + every diagram (drawn, with its caption) + the game in progress.
    assert page.count('<figure class="diagram') == blocks + 2
    assert page.count("<figcaption>") >= blocks + 2
    assert "```" not in page and "caption:" not in page and "play:" not in page
    assert "Using the engine" not in page and "import hexgames" not in page
    assert f'href="/learn/{name}"' in page
    # Issue 32: the title first (on a phone the start board came above it), then the start.
    article = page[page.index("<article>"):]
    start = article.index('<figure class="diagram start">')
    assert article.index("<h1") < start < article.index("<h2")


def test_the_start_position_follows_the_title_or_opens_a_page_without_one() -> None:
    figure = ('<figure class="diagram start"><svg/>'
              "<figcaption>The start position.</figcaption></figure>")
    assert rules_pages.with_start_diagram("<h1>T</h1><p>x</p>", "<svg/>") == (
        f"<h1>T</h1>\n{figure}\n<p>x</p>")
    assert rules_pages.with_start_diagram("<p>x</p>", "<svg/>") == f"\n{figure}\n<p>x</p>"


def test_a_diagram_plays_its_actions_and_shows_them() -> None:
    game = get_game("benediction")
    figure = rules_pages._diagram(game, "Benediction v1: R=E2 B E8\nR:E2k3+\nB:E45k8\n"
                                  "play: e3e5\nhighlight: e4\ncaption: Red <wins>")
    assert figure is not None and "<figcaption>Red &lt;wins&gt;</figcaption>" in figure
    position = game.position_from_text("Benediction v1: R=E2 B E8\nR:E2k3+\nB:E45k8", None)
    position.play("e3e5")
    assert str(game.render_svg(position, ("e4",), last_action=[position.last_action])) in figure
    assert rules_pages._diagram(game, "Benediction v1: R=E2 B E8\nR:E2k3+\nplay: e3e9") is None
