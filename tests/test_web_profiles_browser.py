# ruff: noqa: F811  (the fixtures of test_web_browser are imported and used by name)
"""A player's profile in a real browser (Debian chromium, a real ``hexgames serve``), on
a 1280x800 desktop and a 390x844 phone: the rating graphs (SVG, a point per rated game,
its rating on hover), the statistics by colour, the game search (by opponent and
result) and the export link; nothing wider than the screen; no CSP violation.

Screenshots go to ``test-artifacts/``; docs/images/web-profile-desktop.png and
web-profile-phone.png are copies.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from profile_support import name_client, play_to_the_end
from test_web_browser import browser, page_problems, server, shot  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}


@pytest.fixture(scope="module")
def games(server: str) -> Iterator[dict[str, Any]]:
    """Alice's games: five rated Dendria games (one where Bob swaps colours), a rated
    Benediction draw (a variant), and a casual loss to Carol."""
    clients = [httpx.Client(base_url=server, timeout=60) for _ in range(3)]
    try:
        alice, bob, carol = (name_client(client, name)
                             for client, name in zip(clients, ("Alice", "Bob", "Carol"),
                                                     strict=True))
        dendria = [play_to_the_end(alice, bob, loser=1),
                   play_to_the_end(alice, bob, loser=1, prefer="swap"),
                   play_to_the_end(bob, alice, loser=1),
                   play_to_the_end(alice, bob, loser=1),
                   play_to_the_end(bob, alice, loser=0)]
        draw = play_to_the_end(alice, bob, game="benediction", options={"max_turns": 2},
                               loser=None)
        lost = play_to_the_end(carol, alice, loser=1, rated=False)
        yield {"dendria": dendria, "draw": draw, "lost": lost}
    finally:
        for client in clients:
            client.close()


def open_profile(page: Any, server: str, width: int) -> None:
    page.goto(f"{server}/player/alice")
    page.wait_for_selector("#history-card:not([hidden]) .rating-graph .dot")
    page.wait_for_selector("#stats table.stats")
    page.wait_for_selector("#search-results li[data-id]")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_the_profile_shows_graphs_statistics_and_a_searchable_list(
        browser: Any, server: str, games: dict[str, Any], device: str) -> None:
    settings = DESKTOP if device == "desktop" else PHONE
    width = 1280 if device == "desktop" else 390
    # The real Content-Security-Policy: the page must work under it (no bypass).
    context = browser.new_context(**settings)
    try:
        page = context.new_page()
        problems = page_problems(page)
        open_profile(page, server, width)
        # A graph per game and variant, a point per rated game, in the card's width.
        figures = page.locator("#history-graphs figure")
        assert figures.count() == 2
        dendria = page.locator('figure[data-pool="dendria"]')
        assert dendria.locator(".dot").count() == 5
        assert dendria.locator(".line").count() == 1
        labels = dendria.locator("text.axis.y").all_text_contents()
        assert len(labels) >= 2 and all(label.isdigit() for label in labels)
        box = dendria.locator("svg").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
        # Hovering (or tapping) a point shows its rating and date.
        first = dendria.locator(".dot").first
        rating = round(float(first.get_attribute("data-rating")))
        if device == "desktop":
            first.hover()
        else:
            first.tap()
        readout = dendria.locator(".readout").inner_text()
        assert readout.startswith(f"{rating} ±") and "rated game 1" in readout
        assert first.locator("title").text_content().startswith(f"{rating} on ")
        # Statistics by colour: Alice played light in two games (a swap and as seat 1).
        table = page.locator('table.stats[data-game="dendria"]')
        cells = table.locator('tr[data-row="color-light"] td').all_inner_texts()
        assert cells[:4] == ["4", "2", "0", "2"]  # games, won, drawn, lost
        assert table.locator('tr[data-row="seat-0"]').count() == 1  # seats differ from colours
        assert "Bob" in page.locator("#opponents").inner_text()
        # The search: everything, then Carol's games, then Alice's losses.
        rows = page.locator("#search-results li[data-id]")
        expect(rows).to_have_count(7)
        page.fill("#search-opponent", "carol")
        page.click("#search-form button[type=submit]")
        expect(rows).to_have_count(1)
        assert rows.get_attribute("data-id") == games["lost"]
        assert "Lost vs Carol" in rows.inner_text()
        page.fill("#search-opponent", "")
        page.select_option("#search-form select[name=result]", "draw")
        page.wait_for_selector(f'#search-results li[data-id="{games["draw"]}"]')
        expect(rows).to_have_count(1)
        assert "1 game" in page.inner_text("#search-status")
        page.click("#search-form button[type=reset]")
        expect(rows).to_have_count(7)
        assert page.get_attribute("#export-link", "href") == "/api/players/alice/export"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for card, name in (("history-card", f"profile-{device}"),
                           ("search-card", f"profile-{device}-search")):
            page.evaluate("(id) => window.scrollTo(0, document.getElementById(id)"
                          ".getBoundingClientRect().top + window.scrollY"
                          " - document.querySelector('.topbar').offsetHeight - 10)", card)
            shot(page, name)
        assert not problems, problems
    finally:
        context.close()


def test_the_export_link_downloads_the_zip(browser: Any, server: str,
                                           games: dict[str, Any]) -> None:
    context = browser.new_context(**DESKTOP, accept_downloads=True)
    try:
        page = context.new_page()
        open_profile(page, server, 1280)
        with page.expect_download() as download:
            page.click("#export-link")
        assert download.value.suggested_filename == "hexgames-Alice.zip"
        with zipfile.ZipFile(download.value.path()) as archive:
            names = archive.namelist()
        assert len(names) == 7 and f"dendria-{games['lost']}.txt" in names
        assert f"benediction-{games['draw']}.txt" in names
    finally:
        context.close()
