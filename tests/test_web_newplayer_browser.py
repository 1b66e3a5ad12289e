# ruff: noqa: F811  (the fixtures of test_web_browser are imported and used by name)
"""Issue 39, "found as a new player would": what a first visit meets on the home page,
a first Dendria turn and the Korean pages, in headless Debian chromium against a real
``hexgames serve`` (the fixtures of tests/test_web_browser.py). Rows 14 and 20 are in
tests/test_web_layout_browser.py and tests/test_web_analysis_browser.py.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from hexgames.i18n import Translator
from test_web_browser import (  # noqa: F401  (fixtures are used by name)
    browser,
    page,
    server,
    shot,
)

pytestmark = pytest.mark.browser

KO = Translator("ko")


def post(server: str, path: str, **body: Any) -> Any:
    response = httpx.post(server + path, json=body, timeout=60)
    response.raise_for_status()
    return response.json()


def test_an_aborted_game_on_the_home_page_names_no_winner(page: Any, server: str) -> None:
    """Row 12: "Recent games" said "Bruno vs Ana won · Game aborted" (no winner) and
    kept "Game aborted" English on a Korean page. It now says only why it ended, in the
    page's language."""
    created = post(server, "/api/games", game="benediction", mode="online")
    post(server, f"/api/games/{created['id']}/abort", token=created["token"])
    row = f".game-row[data-id='{created['id']}'] .what small"
    for query, said in (("lang=en", "Game aborted"), ("lang=ko", KO.text("Game aborted"))):
        page.goto(f"{server}/?{query}")
        page.wait_for_selector(row)
        assert page.inner_text(row) == said
        assert "won" not in page.inner_text(row) and "승리" not in page.inner_text(row)
    assert said != "Game aborted"


def test_korean_pages_name_the_games_in_korean(page: Any, server: str) -> None:
    """Row 18: the games' names stayed English in the top bar and the cards ("Benediction
    규칙") while the rules heading said "베네딕션"; the font list named no CJK font."""
    names = {"benediction": KO.text("Benediction"), "dendria": KO.text("Dendria")}
    assert names == {"benediction": "베네딕션", "dendria": "덴드리아"}
    page.goto(f"{server}/?lang=ko")
    page.wait_for_selector(".game-choice .title")
    for game, name in names.items():
        assert page.inner_text(f".game-choice[data-game='{game}'] .title").startswith(name)
    assert "<strong>베네딕션</strong>" in page.inner_html(".hero p")
    created = post(server, "/api/games", game="dendria", mode="hotseat")
    page.goto(f"{server}/play/{created['id']}?token={created['token']}")
    page.wait_for_selector(".board svg .hit[data-point]")
    page.wait_for_function("document.querySelector('#rules-link').textContent.includes('덴드리아')")
    assert page.inner_text("#rules-link") == "덴드리아 규칙"
    assert page.title().startswith("덴드리아")
    page.goto(f"{server}/rules/benediction")  # the remembered language
    assert page.inner_text("h1").startswith("베네딕션")
    assert page.title().startswith("베네딕션 규칙")
    assert "덴드리아 규칙" in page.inner_text("header.topbar")
    family = page.evaluate("getComputedStyle(document.body).fontFamily")
    assert "Noto Sans CJK KR" in family and "Malgun Gothic" in family
    shot(page, "newplayer-rules-ko")


def test_the_first_dendria_turn_rings_the_points_it_says_to_click(page: Any,
                                                                 server: str) -> None:
    """Row 19: "Click a highlighted point" on an empty Dendria board where no point
    looked highlighted (every point may be planted: rings at .45 opacity, 1.5 wide).
    The rings of many possible clicks are now drawn to be seen."""
    created = post(server, "/api/games", game="dendria", mode="ai", level=1)
    page.goto(f"{server}/play/{created['id']}?token={created['token']}")
    page.wait_for_selector("#board svg.many .hit.highlighted")
    assert page.inner_text("#hint").startswith("Click a highlighted point")
    style = page.eval_on_selector("#board svg .hit.highlighted", """node => {
        const s = getComputedStyle(node);
        return {stroke: s.stroke, opacity: Number(s.strokeOpacity),
                width: parseFloat(s.strokeWidth)};
    }""")
    assert style["stroke"] not in ("none", "")
    assert style["opacity"] >= 0.8 and style["width"] >= 2, style
    shot(page, "newplayer-dendria-first-turn")
