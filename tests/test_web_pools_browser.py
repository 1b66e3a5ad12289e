# ruff: noqa: F811  (the fixtures of test_web_browser are imported and used by name)
"""Issue 32 in a real browser (Debian chromium, a real ``hexgames serve`` whose absence
limit for real-time games is shortened to 3 s by ``HEXGAMES_ABSENCE_REALTIME_S``): two
visitors click the same quick-pairing pool and land in the same game; after both have
moved, one closes the page and the other, after the countdown, claims the game (victory
on a 1280x800 desktop, a draw on a 390x844 phone, where the lobby lists the open
challenges above the form).

No timing is asserted: every wait is bounded and generous (the machine may be slow).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_support import start_serve, stop_serve
from test_web_browser import (  # noqa: F401  (fixtures)
    api_state,
    browser,
    enter,
    game_id_of,
    pick,
    shot,
    token_in,
)

pytestmark = pytest.mark.browser

WAIT = 90_000  # ms
DESKTOP = {"viewport": {"width": 1280, "height": 800}, "bypass_csp": True}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2, "bypass_csp": True}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {**os.environ, "DATABASE_URL": "", "HEXGAMES_ABSENCE_REALTIME_S": "3"}
    process, url = start_serve(Path(tmp_path_factory.mktemp("pools-data")), env=env)
    try:
        yield url
    finally:
        stop_serve(process)


@pytest.fixture
def visitors(browser: Any, request: pytest.FixtureRequest) -> Iterator[tuple[Any, Any]]:
    """Two visitors (browser contexts) of the kind the test names (``desktop``/``phone``)."""
    options = PHONE if request.param == "phone" else DESKTOP
    contexts = [browser.new_context(**options) for _ in range(2)]
    pages = [context.new_page() for context in contexts]
    errors: list[str] = []
    for opened in pages:
        opened.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield pages[0], pages[1]
    finally:
        for context in contexts:
            context.close()
    assert not errors, f"JavaScript errors: {errors}"


def pair_through_the_pool(server: str, pages: tuple[Any, Any], pool: str) -> str:
    """Both visitors click ``pool`` in the lobby; returns the game both land in."""
    for page in pages:
        page.goto(server + "/lobby")
        page.wait_for_selector(f'#pools button[data-pool="{pool}"]', timeout=WAIT)
    first, second = pages
    first.click(f'#pools button[data-pool="{pool}"]')
    first.wait_for_selector(f'#pools button[data-pool="{pool}"][aria-pressed="true"]',
                            timeout=WAIT)
    assert "Looking for an opponent" in first.inner_text("#pool-status")
    shot(first, f"web-quick-pairing-{pool}")
    second.click(f'#pools button[data-pool="{pool}"]')
    for page in pages:
        page.wait_for_url(re.compile(r"/play/"), timeout=WAIT)
        page.wait_for_selector(".board svg .hit[data-point]", timeout=WAIT)
    game_id = game_id_of(first)
    assert game_id_of(second) == game_id
    return game_id


def both_move(server: str, game_id: str, pages: tuple[Any, Any]) -> list[Any]:
    """Click actions until each side has moved (then no abort, a claim is possible);
    returns the pages by seat."""
    tokens = {}
    for page in pages:
        token = token_in(page, game_id)
        tokens[api_state(server, game_id, token)["your_seats"][0]] = (page, token)
    assert set(tokens) == {0, 1}
    for number in range(12):
        current = api_state(server, game_id)
        if {entry["seat"] for entry in current["history"]} == {0, 1}:
            return [tokens[0][0], tokens[1][0]]
        page, token = tokens[current["current_seat"]]
        enter(page, pick(api_state(server, game_id, token)["legal"], number))
        page.wait_for_function(
            f"document.querySelectorAll('#moves .act').length > {current['ply']}",
            timeout=WAIT)
    raise AssertionError("the players did not both move")


def leave_and_claim(server: str, game_id: str, by_seat: list[Any], claim: str) -> Any:
    """The seat-1 player closes the page; the other claims once offered. Returns the
    page that stayed."""
    stays, goes = by_seat
    goes.close()
    stays.wait_for_selector("#online .absence", timeout=WAIT)
    assert "left the game" in stays.inner_text("#online .absence")
    button = f'#online .absence button[data-claim="{claim}"]'
    stays.wait_for_selector(button, timeout=WAIT)  # after the (shortened) countdown
    stays.locator("#online .absence").scroll_into_view_if_needed()
    shot(stays, f"web-absent-offer-{claim}")
    stays.click(button)
    stays.wait_for_selector("#banner:not([hidden])", timeout=WAIT)
    assert "left the game" in stays.inner_text("#banner")
    return stays


@pytest.mark.parametrize("visitors", ["desktop"], indirect=True)
def test_a_pool_pairs_two_visitors_and_an_absent_one_loses(
        server: str, visitors: tuple[Any, Any]) -> None:
    game_id = pair_through_the_pool(server, visitors, "benediction-1+1")
    view = api_state(server, game_id)
    assert view["control"] == {"kind": "realtime", "base_s": 60.0, "increment_s": 1.0}
    assert not view["rated"]  # guests play casual games
    by_seat = both_move(server, game_id, visitors)
    shot(by_seat[0], "web-pool-game")
    stays = leave_and_claim(server, game_id, by_seat, "victory")
    shot(stays, "web-absent-claimed")
    final = api_state(server, game_id)
    winner = final["players"][0]["color"]
    assert final["winner"] == winner
    assert final["result"].endswith("left the game)")


@pytest.mark.parametrize("visitors", ["phone"], indirect=True)
def test_on_a_phone_challenges_come_before_the_form_and_a_draw_is_called(
        server: str, visitors: tuple[Any, Any]) -> None:
    ann, _ = visitors
    ann.goto(server + "/lobby")
    ann.wait_for_selector("#pools button[data-pool]", timeout=WAIT)
    boxes = {name: ann.locator(selector).bounding_box() for name, selector in (
        ("pools", "#quick-pairing"), ("challenges", "#open-challenges"),
        ("form", "#seek-form"))}
    assert boxes["pools"]["y"] < boxes["challenges"]["y"] < boxes["form"]["y"]
    assert ann.evaluate("document.documentElement.scrollWidth") <= 390
    shot(ann, "web-lobby-phone")
    game_id = pair_through_the_pool(server, visitors, "dendria-1+1")
    by_seat = both_move(server, game_id, visitors)
    stays = leave_and_claim(server, game_id, by_seat, "draw")
    assert stays.evaluate("document.documentElement.scrollWidth") <= 390
    shot(stays, "web-absent-draw-phone")
    final = api_state(server, game_id)
    assert final["winner"] == "draw" and final["result"].startswith("draw (")
