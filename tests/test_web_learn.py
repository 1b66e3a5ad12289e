# ruff: noqa: F811  (the fixtures of test_web_browser are imported and used by name)
"""Issue 12, "learn to play", in headless Debian chromium (desktop and a 390x844 phone):
a lesson (a wrong try explained, the engine's reason for an illegal one, then solved), a
puzzle, the Swap explanation and the final score's breakdown on the game page.

Screenshots go to ``test-artifacts/`` (git-ignored); docs/images has copies of some.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from test_web_browser import (  # noqa: F401  (fixtures are used by name)
    api_state,
    browser,
    enter,
    page,
    page_problems,
    server,
    shot,
)
from test_web_ux import act, dendria_midgame, new_game, open_game, phone  # noqa: F401

pytestmark = pytest.mark.browser


def open_lesson(page: Any, server: str, game: str, lesson: str) -> None:
    page.goto(f"{server}/learn/{game}#{lesson}")
    page.wait_for_selector(f'[data-lesson="{lesson}"][aria-current]')
    page.wait_for_selector(".board svg .hit[data-point]")


def verdict(page: Any, status: str) -> str:
    page.wait_for_selector(f'#verdict[data-status="{status}"]:not([hidden])')
    return page.inner_text("#verdict")


def play_line(page: Any, server: str, game: str, lesson: str, actions: list[str]) -> None:
    """Enter actions by clicking, as a person does (gestures from the learn API)."""
    for number, action in enumerate(actions):
        answer = httpx.post(f"{server}/api/learn/{game}/{lesson}/try",
                            json={"actions": actions[:number]}, timeout=30).json()
        if number == 0:
            answer = httpx.get(f"{server}/api/learn/{game}/{lesson}", timeout=30).json()
        entry = next(e for e in answer["legal"] if e["action"] == action)
        enter(page, entry)
        if number + 1 < len(actions):
            page.wait_for_selector(f'#tried[data-count="{number + 1}"]')


def test_a_lesson_explains_wrong_tries_then_is_solved(page: Any, server: str) -> None:
    open_lesson(page, server, "benediction", "move")
    assert "Capture the blue king" in page.inner_text("#task")
    assert "jumping" in page.inner_text("#rule")
    page.click("#show-hint")
    assert "2 steps" in page.inner_text("#hint")
    # A legal but wrong try: the lesson's explanation.
    play_line(page, server, "benediction", "move", ["e3e4"])
    text = verdict(page, "wrong")
    assert "did not take the king" in text and "e3e4" in text
    shot(page, "learn-wrong")
    page.click("#verdict button")  # try again
    page.wait_for_selector("#verdict", state="hidden")
    # Clicks that match no legal action: the engine's reason for the action they mean.
    page.click('.board svg .hit[data-point="e3"]')
    page.click('.board svg .hit[data-point="e6"]')
    assert "cannot reach e6" in verdict(page, "illegal")
    play_line(page, server, "benediction", "move", ["e3e5"])
    assert "Red wins" in verdict(page, "solved")
    page.wait_for_selector('[data-lesson="move"].done')
    page.click("#next")
    page.wait_for_selector('[data-lesson="portal"][aria-current]')
    # Typed notation the engine refuses: its own reason.
    page.fill("#notation", "g6g9")
    page.press("#notation", "Enter")
    assert "g6g9" in verdict(page, "illegal")


def test_a_lesson_on_a_phone(phone: Any, server: str) -> None:
    open_lesson(phone, server, "dendria", "plant")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    # A cell that may not be planted: the engine says why.
    phone.click('.board svg .hit[data-point="d5"]')
    assert "nutrientless root" in verdict(phone, "illegal")
    phone.click('.board svg .hit[data-point="e6"]')
    assert "gap" in verdict(phone, "solved")
    shot(phone, "learn-phone-solved")


def test_a_two_step_lesson_and_a_puzzle(page: Any, server: str) -> None:
    open_lesson(page, server, "dendria", "grow")
    assert "Dark 0" in page.inner_text("#learn-score")
    play_line(page, server, "dendria", "grow", ["e5-b2", "+a1"])
    verdict(page, "solved")
    page.wait_for_selector('#learn-score [data-side="dark"]:has-text("Dark 2.5")')
    shot(page, "learn-dendria-grow")
    puzzle = httpx.get(f"{server}/api/learn/benediction/puzzle-1", timeout=30).json()
    assert puzzle["kind"] == "puzzle"
    from hexgames.game import get_game
    from hexgames.tutorial import find_lesson

    solution = list(find_lesson(get_game("benediction"), "puzzle-1").solution)
    open_lesson(page, server, "benediction", "puzzle-1")
    assert "Win the game" in page.inner_text("#task")
    play_line(page, server, "benediction", "puzzle-1", solution)
    assert verdict(page, "solved").endswith("That wins the game.")
    shot(page, "learn-puzzle")


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_swap_is_explained_when_offered(viewport: str, page: Any, phone: Any,
                                        server: str) -> None:
    view = page if viewport == "desktop" else phone
    created = new_game(server, "dendria", options={"board_side": 5})
    game_id, token = created["id"], created["token"]
    for action in ("e5", "end"):
        assert act(server, game_id, token, action).status_code == 200
    open_game(view, server, game_id, token)
    view.wait_for_selector('.buttons button[data-action="swap"]')
    text = view.inner_text('.buttons .explain[data-explains="swap"]')
    assert "colour" in text and "Swap" in text
    box = view.locator('.buttons .explain[data-explains="swap"]').bounding_box()
    assert box is not None and box["x"] + box["width"] <= view.viewport_size["width"]
    shot(view, f"swap-explained-{viewport}")


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_final_score_breakdown(viewport: str, page: Any, phone: Any, server: str) -> None:
    view = page if viewport == "desktop" else phone
    game_id, token = dendria_midgame(server)
    for _ in range(4):
        current = api_state(server, game_id, token)
        if current["is_over"]:
            break
        button = next(e for e in current["legal"] if e["action"] in ("end", "pass"))
        act(server, game_id, token, button["action"])
    final = api_state(server, game_id)
    assert final["is_over"]
    lines = final["final"]["breakdown"]
    open_game(view, server, game_id, token)
    # Beside the board (under it on a phone) since issue 39 row 14, not in the banner.
    view.wait_for_selector("#final-breakdown #breakdown")
    rows = view.locator("#breakdown tbody tr")
    assert rows.count() == len(lines)
    for index, line in enumerate(lines):
        row = rows.nth(index)
        assert line["label"] in row.inner_text() and line["detail"] in row.inner_text()
    for color, total in final["final"]["score"].items():
        assert sum(line["points"][color] for line in lines) == total
    assert "ended" in view.inner_text("#banner")
    assert view.evaluate("document.documentElement.scrollWidth") <= (
        390 if viewport == "phone" else 1360)
    shot(view, f"score-breakdown-{viewport}")


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_rules_pages_are_for_players(viewport: str, page: Any, phone: Any,
                                     server: str) -> None:
    view = page if viewport == "desktop" else phone
    for game in ("benediction", "dendria"):
        view.goto(f"{server}/rules/{game}")
        figures = view.locator("figure.diagram figcaption")
        assert figures.count() >= 7
        assert view.locator("figure.diagram svg .hit[data-point]").count() > 100
        assert "Using the engine" not in view.inner_text("main")
        assert view.locator(f'a[href="/learn/{game}"]').count() >= 1
        if viewport == "phone":
            assert view.evaluate("document.documentElement.scrollWidth") <= 390
    view.locator("figure.diagram").nth(2).scroll_into_view_if_needed()
    shot(view, f"rules-guide-{viewport}")


def test_the_learn_page_obeys_its_csp(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    try:
        opened = context.new_page()
        problems = page_problems(opened)
        opened.goto(f"{server}/learn/dendria#grow")
        opened.wait_for_selector(".board svg .hit[data-point]")
        opened.click('.board svg .hit[data-point="e5"]')
        opened.click('.board svg .hit[data-point="b2"]')
        opened.wait_for_selector('#tried[data-count="1"]')
        assert not problems, problems
    finally:
        context.close()


def test_a_puzzle_on_a_phone(phone: Any, server: str) -> None:
    from hexgames.game import get_game
    from hexgames.tutorial import find_lesson

    solution = list(find_lesson(get_game("dendria"), "puzzle-1").solution)
    open_lesson(phone, server, "dendria", "puzzle-1")
    assert "Win the game" in phone.inner_text("#task")
    phone.wait_for_selector("#learn-score:not([hidden])")
    play_line(phone, server, "dendria", "puzzle-1", solution)
    assert verdict(phone, "solved").endswith("That wins the game.")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    shot(phone, "learn-puzzle-phone")
