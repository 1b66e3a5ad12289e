# ruff: noqa: F811  (the fixtures of test_web_browser are imported and used by name)
"""Issue 32, item 2, in headless Debian chromium: a lesson played in Korean from a
``?lang=ko`` link (page words, the lesson's texts, the wrong try's explanation and the
engine's refusal all in Korean; notation unchanged), the language remembered and switched
in the top bar, and a Portuguese browser served in Portuguese by its ``Accept-Language``.

Screenshots go to ``test-artifacts/`` (``learn-ko*.png``; copies in docs/images).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from hexgames.game import get_game
from hexgames.i18n import translator
from hexgames.tutorial import attempt, find_lesson
from test_web_browser import (  # noqa: F401  (fixtures are used by name)
    browser,
    page_problems,
    server,
    shot,
)
from test_web_learn import open_lesson, play_line, verdict

pytestmark = pytest.mark.browser

HANGUL = re.compile("[\uac00-\ud7a3]")
KOREAN = translator("ko")
SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
              "device_scale_factor": 2},
}


@pytest.fixture(params=sorted(SIZES))
def korean_page(request: pytest.FixtureRequest, browser: Any) -> Iterator[tuple[str, Any]]:
    """A Korean-speaking visitor's page (its browser asks for English: the link decides)."""
    context = browser.new_context(locale="en-US", bypass_csp=True, **SIZES[request.param])
    page = context.new_page()
    problems = page_problems(page)
    yield request.param, page
    context.close()
    assert not problems, f"JavaScript errors or CSP violations: {problems}"


def test_a_lesson_played_in_korean(korean_page: tuple[str, Any], server: str) -> None:
    size, page = korean_page
    game = get_game("benediction")
    lesson = find_lesson(game, "move")
    page.goto(f"{server}/learn/benediction?lang=ko#move")
    page.wait_for_selector('[data-lesson="move"][aria-current]')
    page.wait_for_selector(".board svg .hit[data-point]")
    assert page.get_attribute("html", "lang") == "ko"
    assert page.input_value("#language-switch") == "ko"
    # The page's own words (template and script) and the lesson's texts, in Korean.
    start_again = page.inner_text("#restart")
    assert HANGUL.search(start_again) and "Start again" not in start_again
    task = page.inner_text("#task")
    assert task == KOREAN.text(lesson.task) and task != str(lesson.task)
    assert HANGUL.search(task)
    # A legal but wrong try: the lesson's explanation in Korean, the notation as it is.
    play_line(page, server, "benediction", "move", ["e3e4"])
    wrong = verdict(page, "wrong")
    explained = attempt(game, lesson, ["e3e4"]).message
    assert KOREAN.text(explained) in wrong and str(explained) not in wrong
    assert "e3e4" in wrong and HANGUL.search(wrong)
    page.click("#verdict button")
    page.wait_for_selector("#verdict", state="hidden")
    # Clicks the engine refuses: its reason, in Korean, naming the point as written.
    page.click('.board svg .hit[data-point="e3"]')
    page.click('.board svg .hit[data-point="e6"]')
    refused = verdict(page, "illegal")
    assert "e6" in refused and HANGUL.search(refused) and "cannot reach" not in refused
    play_line(page, server, "benediction", "move", ["e3e5"])
    solved = verdict(page, "solved")
    assert HANGUL.search(solved) and "Red wins" not in solved
    shot(page, f"learn-ko-{size}")


def test_the_language_is_remembered_and_switched(browser: Any, server: str) -> None:
    context = browser.new_context(locale="en-US", bypass_csp=True)
    page = context.new_page()
    problems = page_problems(page)
    lesson = find_lesson(get_game("dendria"), "plant")
    page.goto(f"{server}/learn/dendria?lang=ko")
    page.wait_for_selector(".board svg .hit[data-point]")
    # Remembered: the next page, without ?lang=, is Korean too.
    open_lesson(page, server, "dendria", "plant")
    assert page.get_attribute("html", "lang") == "ko"
    assert page.inner_text("#task") == KOREAN.text(lesson.task)
    # The switch in the top bar: English, kept on the same lesson.
    page.select_option("#language-switch", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")
    page.wait_for_selector('[data-lesson="plant"][aria-current]')
    assert page.inner_text("#task") == str(lesson.task)
    page.goto(f"{server}/")
    assert page.get_attribute("html", "lang") == "en"
    context.close()
    assert not problems, problems


def test_a_portuguese_browser_is_answered_in_portuguese(browser: Any, server: str) -> None:
    context = browser.new_context(locale="pt-BR", bypass_csp=True)
    page = context.new_page()
    problems = page_problems(page)
    page.goto(f"{server}/learn/dendria#plant")
    page.wait_for_selector('[data-lesson="plant"][aria-current]')
    assert page.get_attribute("html", "lang") == "pt"
    lesson = find_lesson(get_game("dendria"), "plant")
    task = page.inner_text("#task")
    assert task == translator("pt").text(lesson.task) and task != str(lesson.task)
    context.close()
    assert not problems, problems
