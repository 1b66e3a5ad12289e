# ruff: noqa: F811  (the fixtures of test_web_browser are imported and used by name)
"""Players in a real browser (Debian chromium, a real ``hexgames serve``): a desktop
player and a 390x844 phone player each pick a name on their player page, play a rated
online game against each other, see both names on the game page, the rating change in
the end banner, and the game and rating on the player page.

Screenshots go to ``test-artifacts/`` (git-ignored); docs/images/web-player.png is a copy.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from test_web_browser import (  # noqa: F401  (fixtures)
    api_state,
    browser,
    page_problems,
    server,
    shot,
    token_in,
)

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1360, "height": 880}, "bypass_csp": True}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2, "bypass_csp": True}


def set_name(page: Any, server: str, name: str) -> None:
    """From the home page, follow the top bar's link to one's own page and pick a name."""
    page.goto(server + "/")
    page.wait_for_function("document.getElementById('me-link').textContent.startsWith('Guest-')")
    page.click("#me-link")
    page.wait_for_selector("#identity:not([hidden])")
    page.fill("#name-input", name)
    page.click("#name-form button[type=submit]")
    page.wait_for_function(
        f"document.getElementById('identity-status').textContent.includes('{name}')")
    assert page.inner_text("#player-name") == name
    # The page says the name is saved only once the top bar shows it (no race here).
    assert page.inner_text("#me-link") == name
    assert page.url.endswith(f"/player/{name}")


def test_names_show_on_the_game_and_player_pages_with_the_rating_change(
        browser: Any, server: str) -> None:
    contexts = [browser.new_context(**DESKTOP), browser.new_context(**PHONE)]
    errors: list[str] = []
    try:
        desk, phone = (context.new_page() for context in contexts)
        for page in (desk, phone):
            page.on("pageerror", lambda error: errors.append(str(error)))
        set_name(desk, server, "Alice")
        set_name(phone, server, "Bob")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        # Alice starts a rated online game (as the lobby will), Bob opens the invitation.
        created = desk.evaluate("""async () => {
            const response = await fetch('/api/games', {method: 'POST',
              headers: {'Content-Type': 'application/json'},
              body: JSON.stringify({game: 'dendria', mode: 'online', rated: true})});
            return response.json();
        }""")
        game_id = created["id"]
        invite = created["links"]["seats"][1]
        # No token in Alice's address: her identity's seat comes back through claim.
        desk.goto(f"{server}/play/{game_id}")
        phone.goto(server + invite)
        for page in (desk, phone):
            page.wait_for_selector(".board svg .hit[data-point]")
            page.wait_for_function(
                "document.querySelectorAll('#players .player a.name').length === 2")
            names = page.locator("#players .player .name").all_inner_texts()
            assert names == ["Alice", "Bob"]
        assert desk.locator("#resign").is_visible()  # a seat, not a spectator
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        # A rated result needs an action from each side (issue 31): each plays one,
        # through the API with its page's seat credential; the pages follow by socket.
        tokens = [token_in(desk, game_id), token_in(phone, game_id)]
        acted: set[int] = set()
        while acted != {0, 1}:
            seat = api_state(server, game_id)["current_seat"]
            acted.add(seat)
            legal = api_state(server, game_id, tokens[seat])["legal"]
            answer = httpx.post(f"{server}/api/games/{game_id}/actions", timeout=30,
                                json={"token": tokens[seat], "action": legal[0]["action"]})
            answer.raise_for_status()
        # Alice resigns: both banners show the rating change.
        desk.click("#resign")
        desk.click("#confirm button[value=yes]")
        for page in (desk, phone):
            page.wait_for_selector("#rating-changes")
            text = page.inner_text("#rating-changes")
            assert "Alice 1500 →" in text and "Bob 1500 →" in text
            assert "(−" in text and "(+" in text
        shot(phone, "players-phone-rated-end")
        # Bob's page on Alice's browser: the finished game and his rating.
        desk.click("#players .player a.name >> text=Bob")
        desk.wait_for_selector("#ratings tbody tr")
        assert desk.inner_text("#player-name") == "Bob"
        assert "Dendria" in desk.inner_text("#ratings")
        assert desk.locator(f'#finished li[data-id="{game_id}"]').is_visible()
        assert desk.locator("#identity").is_hidden()  # not her own page
        desk.goto(f"{server}/player/alice")  # names ignore case
        desk.wait_for_selector(f'#finished li[data-id="{game_id}"]')
        assert desk.inner_text("#player-name") == "Alice"
        assert desk.locator("#identity").is_visible()
        shot(desk, "players-desktop-player-page")
        phone.goto(f"{server}/leaderboard")
        phone.wait_for_selector("#board tbody tr")
        rows = phone.locator("#board tbody tr").all_inner_texts()
        assert rows[0].split()[1] == "Bob" and rows[1].split()[1] == "Alice"
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        shot(phone, "players-phone-leaderboard")
    finally:
        for context in contexts:
            context.close()
    assert not errors, f"JavaScript errors: {errors}"


def test_the_player_pages_obey_the_csp(browser: Any, server: str) -> None:
    """Under the real Content-Security-Policy (no bypass) the player page and the
    leaderboard work, and a player's name change works from the page."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    try:
        page = context.new_page()
        problems = page_problems(page)
        page.goto(server + "/")
        page.wait_for_selector("#me-link[href^='/player/']")
        page.click("#me-link")
        page.wait_for_selector("#identity:not([hidden])")
        page.fill("#name-input", "Carol")
        page.click("#name-form button[type=submit]")
        page.wait_for_selector("#identity-status:has-text('Carol')")
        page.goto(f"{server}/leaderboard")
        page.wait_for_selector("#me-link:has-text('Carol')")
        assert not problems, problems
    finally:
        context.close()
