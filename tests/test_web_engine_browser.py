"""A fresh install in a browser: ``hexgames serve`` on an empty numba cache. The home page
shows at once with "Preparing the engine…" and its progress; a game started meanwhile
waits for the engine and then opens; once the engine is ready the notice goes away and
the start positions appear. Headless Debian chromium through Playwright."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from engine_support import COMPILE_BOUND_S, Server, clean_stop

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
WAIT_MS = COMPILE_BOUND_S * 1000

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not Path(CHROMIUM).exists():
    pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)


def watch(page: Any) -> list[str]:
    """The page's uncaught errors and CSP violations (a refused request's console line,
    the 503 the engine's wait is made of, is expected)."""
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: problems.append(message.text)
            if "Content Security Policy" in message.text else None)
    return problems


def test_the_page_shows_the_engine_being_prepared_and_then_goes_on(tmp_path: Path) -> None:
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    server = Server(tmp_path / "data", cache)
    try:
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            context = browser.new_context(viewport={"width": 1360, "height": 880})
            home, starter = context.new_page(), context.new_page()
            problems = watch(home) + watch(starter)
            home.goto(server.url + "/")
            notice = home.wait_for_selector("#engine-notice", state="visible")
            assert "Preparing the engine" in notice.inner_text()
            assert home.locator("#engine-notice progress").count() == 1
            home.wait_for_selector(".game-choice[data-game=dendria]")  # the form is there
            ARTIFACTS.mkdir(exist_ok=True)
            home.screenshot(path=str(ARTIFACTS / "web-engine-preparing.png"))
            # The same notice on a phone (a picture only: the engines may be ready first).
            phone = browser.new_context(viewport={"width": 390, "height": 844},
                                        is_mobile=True, has_touch=True)
            small = phone.new_page()
            problems += watch(small)
            small.goto(server.url + "/")
            try:
                small.wait_for_selector("#engine-notice", state="visible", timeout=15_000)
                small.screenshot(path=str(ARTIFACTS / "web-engine-preparing-phone.png"))
            except sync_api.TimeoutError:
                pass
            phone.close()
            # A game started now waits for the engine (the notice stays), then opens.
            starter.goto(server.url + "/")
            starter.wait_for_selector("#engine-notice", state="visible")
            starter.click('.game-choice[data-game="dendria"]')
            starter.click('.segmented label:has(input[value="hotseat"])')
            starter.click("#start")
            starter.wait_for_url(re.compile(r"/play/"), timeout=WAIT_MS)
            starter.wait_for_selector(".board svg .hit[data-point]")
            assert starter.locator("#engine-notice").count() == 0
            # The page left open: the notice goes away, the start positions appear.
            home.wait_for_selector("#engine-notice", state="detached", timeout=WAIT_MS)
            home.wait_for_selector(".game-choice[data-game=dendria] .preview svg")
            home.wait_for_selector(".game-choice[data-game=benediction] .preview svg")
            assert not problems, problems
            context.close()
            browser.close()
    finally:
        code = server.stop()
    clean_stop(server, code)
