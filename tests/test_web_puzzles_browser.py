# ruff: noqa: F811  (the fixtures of test_web_browser are imported and used by name)
"""Puzzles in headless Debian chromium, on a 1280x800 desktop and a 390x844 phone, against a
real ``hexgames serve``: a named player solves a puzzle by clicking and sees the rating
change, picks a theme, plays a streak to its first mistake (the best kept), and opens
the daily puzzle from the home page; a guest plays an unrated session.

Screenshots go to ``test-artifacts/`` (git-ignored); docs/images/web-puzzles*.png and
web-daily-puzzles*.png are copies.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from hexgames.game import get_game
from hexgames.tutorial import Puzzle, attempt, find_puzzle
from test_web_browser import (  # noqa: F401  (fixtures are used by name)
    ARTIFACTS,
    browser,
    enter,
    page_problems,
    server,
    shot,
)

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1280, "height": 800}, "bypass_csp": True}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2, "bypass_csp": True}


def full_shot(page: Any, name: str) -> None:
    """A phone's whole page (the side panel is below the board there)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), animations="disabled",
                    full_page=True)


def opened(browser: Any, settings: dict[str, Any]) -> Iterator[Any]:
    context = browser.new_context(**settings)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.fixture
def desk(browser: Any) -> Iterator[Any]:
    yield from opened(browser, DESKTOP)


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    yield from opened(browser, PHONE)


def name_me(page: Any, server: str, name: str) -> None:
    """This browser's identity picks ``name`` (the player page's form does the same)."""
    page.goto(server + "/")
    answer = page.evaluate("""async (name) => {
        await fetch('/api/me');
        const response = await fetch('/api/me/name', {method: 'POST',
          headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name})});
        return response.status;
    }""", name)
    assert answer == 200


def shown_puzzle(page: Any, game: str) -> Puzzle:
    page.wait_for_selector(".board svg .hit[data-point]")
    page.wait_for_function("document.body.dataset.puzzle")
    return find_puzzle(get_game(game), page.evaluate("document.body.dataset.puzzle"))


def play(page: Any, server: str, game: str, puzzle: Puzzle, actions: list[str]) -> None:
    """Enter a try by clicks, as a person does (the clicks of each action from the
    unrated learn API: the page's own tries are the only ones judged for the player)."""
    for number, action in enumerate(actions):
        lesson = puzzle.lesson.id
        answer = httpx.post(f"{server}/api/learn/{game}/{lesson}/try",
                            json={"actions": actions[:number]}, timeout=30).json()
        entry = next(e for e in answer["legal"] if e["action"] == action)
        enter(page, entry)
        if number + 1 < len(actions):
            page.wait_for_selector(f'#tried[data-count="{number + 1}"]')


def wrong_try(game: str, puzzle: Puzzle) -> list[str]:
    position = puzzle.lesson.start(get_game(game))
    for first in list(position.legal_actions()):
        position.play(first)
        seconds = [] if position.is_over else [str(a) for a in position.legal_actions()]
        position.undo()
        for second in seconds[:10]:
            if attempt(get_game(game), puzzle.lesson, [str(first), second]).status == "wrong":
                return [str(first), second]
    raise AssertionError("no wrong try")


def verdict(page: Any, status: str) -> str:
    page.wait_for_selector(f'#verdict[data-status="{status}"]:not([hidden])')
    return page.inner_text("#verdict")


def test_a_named_player_solves_a_puzzle_and_sees_the_rating_change(desk: Any,
                                                                   server: str) -> None:
    name_me(desk, server, "Puzzler")
    desk.goto(f"{server}/puzzles/benediction")
    puzzle = shown_puzzle(desk, "benediction")
    assert desk.url.endswith(f"/puzzles/benediction/{puzzle.id}")
    assert desk.inner_text("#rating-value") == "1500?"
    assert "to play" in desk.inner_text("#task")
    play(desk, server, "benediction", puzzle, list(puzzle.lesson.solution))
    assert "Solved" in verdict(desk, "solved")
    desk.wait_for_selector("#rating-change")
    assert desk.inner_text("#rating-change").startswith("+")
    assert int(desk.inner_text("#rating-value").rstrip("?")) > 1500
    shot(desk, "web-puzzles")
    # The next puzzle is another one; giving up shows the solution and costs rating.
    desk.click("#next")
    desk.wait_for_function(f"document.body.dataset.puzzle !== '{puzzle.id}'")
    second = shown_puzzle(desk, "benediction")
    before = int(desk.inner_text("#rating-value").rstrip("?"))
    desk.click("#give-up")
    assert " ".join(second.lesson.solution) in verdict(desk, "solution")
    desk.wait_for_function("parseInt(document.getElementById('rating-value').textContent)"
                           f" < {before}")
    assert desk.inner_text("#rating-change").startswith("−")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_theme_is_picked_from_the_games_list(size: str, desk: Any, phone: Any,
                                               server: str) -> None:
    desk = desk if size == "desktop" else phone
    desk.goto(f"{server}/puzzles/benediction")
    shown_puzzle(desk, "benediction")
    names = desk.eval_on_selector_all("#theme option", "nodes => nodes.map(n => n.value)")
    assert {"portal", "merge", "king-capture"} <= set(names)
    first = desk.evaluate("document.body.dataset.puzzle")
    desk.select_option("#theme", "portal")
    desk.wait_for_function(f"document.body.dataset.puzzle !== '{first}'")
    desk.wait_for_selector('#puzzle-meta .theme-tag[data-theme="portal"]')
    assert "portal" in find_puzzle(get_game("benediction"),
                                   desk.evaluate("document.body.dataset.puzzle")).themes
    assert "wall" in desk.inner_text("#theme-description")
    if size == "phone":
        assert desk.evaluate("document.documentElement.scrollWidth") <= 390
        full_shot(desk, "web-puzzles-theme-phone")
    else:
        shot(desk, "web-puzzles-theme")


def test_a_guest_plays_an_unrated_session(desk: Any, server: str) -> None:
    desk.goto(f"{server}/puzzles/dendria")
    puzzle = shown_puzzle(desk, "dendria")
    assert "unrated session" in desk.inner_text("#rating-box").lower()
    play(desk, server, "dendria", puzzle, list(puzzle.lesson.solution))
    assert "(unrated)" in verdict(desk, "solved")
    assert desk.inner_text("#session-count") == "1 solved · 0 missed"


def test_a_streak_on_a_phone_ends_at_the_first_mistake(phone: Any, server: str) -> None:
    name_me(phone, server, "Streaker")
    phone.goto(f"{server}/puzzles/benediction")
    shown_puzzle(phone, "benediction")
    phone.click('#mode-picker label:has(input[value="streak"])')
    phone.wait_for_selector("#streak-box:not([hidden])")
    phone.wait_for_function("document.getElementById('puzzle-title').textContent"
                            ".includes('streak')")
    first = shown_puzzle(phone, "benediction")
    play(phone, server, "benediction", first, list(first.lesson.solution))
    assert "1 in a row" in verdict(phone, "solved")
    assert phone.inner_text("#streak-count") == "1"
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.click("#next")
    phone.wait_for_function(f"document.body.dataset.puzzle !== '{first.id}'")
    second = shown_puzzle(phone, "benediction")
    assert second.rating >= first.rating  # harder (or as hard) one by one
    full_shot(phone, "web-puzzles-streak-phone")
    play(phone, server, "benediction", second, wrong_try("benediction", second))
    assert "streak ends at 1" in verdict(phone, "wrong")
    assert phone.inner_text("#streak-best") == "1"
    assert phone.locator("#streak-again").is_visible()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_daily_puzzle_on_the_home_page(size: str, desk: Any, phone: Any,
                                           server: str) -> None:
    page = desk if size == "desktop" else phone
    page.goto(server + "/")
    page.wait_for_selector("#daily-puzzles:not([hidden]) .daily-board svg")
    daily = httpx.get(f"{server}/api/puzzles/daily", timeout=30).json()
    links = page.eval_on_selector_all("#daily-list a", "nodes => nodes.map(n => "
                                      "n.getAttribute('href'))")
    assert links == [entry["url"] for entry in daily["puzzles"]] and len(links) == 2
    page.locator("#daily-puzzles").scroll_into_view_if_needed()
    shot(page, "web-daily-puzzles" + ("-phone" if size == "phone" else ""))
    if size == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    dendria = next(entry for entry in daily["puzzles"] if entry["game"] == "dendria")
    page.click('#daily-list li[data-game="dendria"] a')
    page.wait_for_url(f"**{dendria['url']}")
    assert shown_puzzle(page, "dendria").id == dendria["id"]


def test_the_puzzle_pages_obey_their_csp(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        problems = page_problems(page)
        for path in ("/puzzles/benediction", "/"):
            page.goto(server + path)
            page.wait_for_selector(".board svg .hit[data-point]" if path != "/"
                                   else "#daily-puzzles:not([hidden])")
        assert not problems, problems
    finally:
        context.close()
