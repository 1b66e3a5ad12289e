"""The front end in a real browser: headless Debian chromium driven by Playwright against a
real ``hexgames serve`` process. A person's view of the site: start games from the home
page, play by clicking points and buttons, play online between two browsers, replay.

Screenshots go to ``test-artifacts/`` (git-ignored) for people to look at.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not Path(CHROMIUM).exists():
    pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)


def page_problems(page: Any) -> list[str]:
    """A list that fills with the page's CSP violations, console errors and uncaught
    exceptions (a page under the real CSP must leave it empty)."""
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text)
            if "Content Security Policy" in message.text or message.type == "error"
            else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    return problems


#: Everything each test server printed, by its base URL (for failure messages).
SERVER_OUTPUT: dict[str, list[str]] = {}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server on a free port (``--port 0``); yields its base URL."""
    data = tmp_path_factory.mktemp("web-data")
    process = subprocess.Popen(
        [sys.executable, "-m", "hexgames", "serve", "--port", "0", "--data-dir", str(data),
         "--ai-processes", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "DATABASE_URL": ""},
    )
    try:
        seen = []
        for line in process.stdout:  # warnings may come first (stderr is merged)
            seen.append(line)
            found = re.search(r"http://\S+?(?=/?\s)", line + " ")
            if found:
                break
        else:
            raise AssertionError(f"the server did not print its URL: {''.join(seen)!r}")
        # Keep reading its output so that a chatty server never blocks on a full pipe.
        threading.Thread(target=seen.extend, args=(process.stdout,), daemon=True).start()
        url = found.group(0).rstrip("/")
        SERVER_OUTPUT[url] = seen
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    # bypass_csp: Playwright's wait_for_function evaluates strings in the page, which the
    # site's CSP (script-src 'self', no eval) forbids; test_the_pages_obey_their_csp runs
    # the pages under the real policy.
    context = browser.new_context(viewport={"width": 1360, "height": 880}, bypass_csp=True)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), animations="disabled")


def token_in(page: Any, game_id: str) -> str:
    return json.loads(page.evaluate("localStorage.getItem('hexgames.tokens')"))[game_id]


def game_id_of(page: Any) -> str:
    return page.url.rstrip("/").split("/")[-1].split("?")[0]


def start_from_home(page: Any, server: str, game: str, mode: str, level: int = 1) -> str:
    page.goto(server + "/")
    page.click(f'.game-choice[data-game="{game}"]')
    page.click(f'.segmented label:has(input[value="{mode}"])')
    if mode == "ai":
        page.fill("#level", str(level))
    page.click("#start")
    page.wait_for_url(re.compile(r"/play/"))
    page.wait_for_selector(".board svg .hit[data-point]")
    return game_id_of(page)


def api_state(server: str, game_id: str, token: str | None = None) -> dict[str, Any]:
    params = {"token": token} if token else {}
    response = httpx.get(f"{server}/api/games/{game_id}", params=params, timeout=30)
    response.raise_for_status()
    return response.json()


def pick(legal: list[dict[str, Any]], index: int) -> dict[str, Any]:
    """A varied choice of action: clicks with a tool, with two points, or a button."""
    with_points = [entry for entry in legal if entry["points"]]
    pool = with_points or legal
    return pool[(index * 7) % len(pool)]


def enter(page: Any, entry: dict[str, Any]) -> None:
    """Enter one action the way a person does: tool, clicks, then a button if asked."""
    if not entry["points"]:
        page.click(f'.buttons button[data-action="{entry["action"]}"]')
        return
    tool = entry["tool"] or "default"
    if page.locator(".tools button").count():
        page.click(f'.tools button[data-tool="{tool}"]')
    for point in entry["points"]:
        page.click(f'.board svg .hit[data-point="{point}"]')
    choice = page.locator(f'.choices button[data-action="{entry["action"]}"]')
    if choice.count():
        choice.click()


def wait_my_turn(page: Any, server: str, game_id: str, token: str) -> dict[str, Any]:
    """Wait until the computer has finished its turn (or the game ended) and the page shows it."""
    deadline = time.monotonic() + 60
    while True:
        current = api_state(server, game_id, token)
        if current["is_over"] or (
            current["your_turn"] and current["turn_start"] and not current["thinking"]
        ):
            break
        assert time.monotonic() < deadline, "the computer did not answer in time"
        time.sleep(0.1)
    page.wait_for_function(
        f"document.querySelectorAll('#moves .act').length === {len(current['history'])}")
    shown = "#banner:not([hidden])" if current["is_over"] else ".status .headline.go"
    page.wait_for_selector(shown)
    return current


def moves_shown(page: Any) -> list[str]:
    return page.locator("#moves .act").all_inner_texts()


def explain_a_dead_click(page: Any, current: dict[str, Any]) -> None:
    """An impossible click is explained (naming the tool to use, if any), never ignored."""
    starts = {e["points"][0] for e in current["legal"] if e["points"] and not e["tool"]}
    anywhere = {e["points"][0] for e in current["legal"] if e["points"]}
    labels = page.eval_on_selector_all(".board svg .hit[data-point]",
                                       "nodes => nodes.map(n => n.dataset.point)")
    for dead in (next(label for label in labels if label not in anywhere),
                 next((label for label in sorted(anywhere) if label not in starts), None)):
        if dead is None:
            continue  # this game has no points reached by another tool only
        page.click(f'.board svg .hit[data-point="{dead}"]')
        page.wait_for_selector(".toast.show")
        message = page.inner_text("#toast")
        assert f"no legal action starts at {dead}" in message
        assert ("tool" in message) == (dead in anywhere)
    page.keyboard.press("Escape")


@pytest.mark.parametrize("game", ["benediction", "dendria"])
def test_play_against_the_ai_by_clicking(page: Any, server: str, game: str) -> None:
    game_id = start_from_home(page, server, game, "ai", level=1)
    token = token_in(page, game_id)
    assert "token" not in page.url  # the seat's secret is not left in the address bar
    for turn in range(3):
        current = wait_my_turn(page, server, game_id, token)
        if current["is_over"]:
            break  # a quick win for either side (rare): the game is still fully checked below
        if turn == 1:  # pieces of both sides are on the board now
            explain_a_dead_click(page, current)
        before = len(current["history"])
        entry = pick(current["legal"], turn)
        enter(page, entry)
        page.wait_for_function(f"document.querySelectorAll('#moves .act').length > {before}")
        # Finish our turn if the game wants more actions, then wait for the computer.
        for _ in range(6):
            current = api_state(server, game_id, token)
            if not current["your_turn"] or current["is_over"]:
                break
            buttons = [e for e in current["legal"] if not e["points"]]
            if current["turn_start"]:
                break
            entry = buttons[0] if buttons else pick(current["legal"], turn)
            enter(page, entry)
            page.wait_for_function(
                f"document.querySelectorAll('#moves .act').length > {len(current['history'])}")
    final = wait_my_turn(page, server, game_id, token)
    assert moves_shown(page) == [ply["notation"] for ply in final["history"]]
    assert {ply["seat"] for ply in final["history"]} == {0, 1}
    toggles = page.locator("#overlays input[data-overlay]")
    if toggles.count():  # overlays the game offers redraw the board (and keep it clickable)
        plain = page.inner_html("#board")
        for index in range(toggles.count()):
            toggles.nth(index).check()
        page.wait_for_function("b => document.getElementById('board').innerHTML !== b", arg=plain)
        page.wait_for_selector(".board svg .hit[data-point]")
    # Select a piece: its possible destinations light up (the picture for the README).
    two_clicks = next((e for e in final["legal"] if len(e["points"]) == 2 and not e["tool"]), None)
    if two_clicks:
        page.click(f'.board svg .hit[data-point="{two_clicks["points"][0]}"]')
        page.wait_for_selector(f'.hit.selected[data-point="{two_clicks["points"][0]}"]')
        lit = page.eval_on_selector_all(".hit.highlighted",
                                        "nodes => nodes.map(n => n.dataset.point)")
        assert two_clicks["points"][1] in lit
    shot(page, f"web-{game}")
    if not final["is_over"]:  # undo (or U) takes back our last action and the reply to it
        page.keyboard.press("Escape")
        page.click("#undo")
        mine = [i for i, ply in enumerate(final["history"]) if ply["seat"] == 0]
        page.wait_for_function(
            f"document.querySelectorAll('#moves .act').length === {mine[-1]}")
        after = api_state(server, game_id, token)
        assert after["history"] == final["history"][:mine[-1]] and after["your_turn"]


def test_variant_options_from_the_form_reach_the_game(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.click('.game-choice[data-game="dendria"]')
    page.click('.segmented label:has(input[value="hotseat"])')
    page.click("details.options summary")
    page.fill('[data-option="board_side"]', "5")
    page.uncheck('[data-option="pie"]')
    page.click("#start")
    page.wait_for_selector('.board svg[data-side="5"] .hit[data-point]')
    created = api_state(server, game_id_of(page))
    assert created["options"]["board_side"] == 5 and created["options"]["pie"] is False
    assert page.locator(".board svg .hit[data-point]").count() == 3 * 5 * 4 + 1


def test_tools_and_choices_between_actions_entered_by_the_same_clicks(
    page: Any, server: str
) -> None:
    game_id = start_from_home(page, server, "benediction", "hotseat")
    token = token_in(page, game_id)
    # A tool other than the default: select it, click its point.
    current = api_state(server, game_id, token)
    tooled = next(e for e in current["legal"] if e["tool"] and e["points"])
    page.click(f'.tools button[data-tool="{tooled["tool"]}"]')
    assert page.get_attribute(f'.tools button[data-tool="{tooled["tool"]}"]',
                              "aria-pressed") == "true"
    for point in tooled["points"]:
        page.click(f'.board svg .hit[data-point="{point}"]')
    page.wait_for_function("document.querySelectorAll('#moves .act').length === 1")
    assert api_state(server, game_id)["history"][0]["notation"] == tooled["action"]

    # Play on (first legal actions) until some clicks complete more than one action.
    for _ in range(12):
        current = api_state(server, game_id, token)
        groups: dict[tuple, list[dict[str, Any]]] = {}
        for entry in current["legal"]:
            groups.setdefault((entry["tool"], tuple(entry["points"])), []).append(entry)
        shared = next((g for g in groups.values() if len(g) > 1 and g[0]["points"]), None)
        if shared:
            break
        count = len(current["history"])
        enter(page, current["legal"][0])
        page.wait_for_function(f"document.querySelectorAll('#moves .act').length > {count}")
    assert shared, "no position with a shared click sequence was reached"
    if shared[0]["tool"]:
        page.click(f'.tools button[data-tool="{shared[0]["tool"]}"]')
    for point in shared[0]["points"]:
        page.click(f'.board svg .hit[data-point="{point}"]')
    buttons = page.locator(".choices button")
    buttons.first.wait_for()
    labels = [page.inner_text(f'.choices button[data-action="{e["action"]}"] strong')
              for e in shared]
    assert buttons.count() == len(shared)
    assert labels == [e["label"][0].upper() + e["label"][1:] for e in shared]
    shot(page, "web-choices")
    count = len(current["history"])
    page.click(f'.choices button[data-action="{shared[-1]["action"]}"]')
    page.wait_for_function(f"document.querySelectorAll('#moves .act').length > {count}")
    assert api_state(server, game_id)["history"][-1]["notation"] == shared[-1]["action"]


def test_an_online_game_between_two_browsers(browser: Any, server: str, page: Any) -> None:
    game_id = start_from_home(page, server, "benediction", "online")
    page.wait_for_selector("#invite input")
    shot(page, "web-online-host")
    invite = page.locator("#invite input").first.input_value()
    spectate = page.locator("#invite input").nth(1).input_value()
    assert invite.startswith(server) and "token=" in invite and "token=" not in spectate

    friend_context = browser.new_context(viewport={"width": 1200, "height": 820},
                                         bypass_csp=True)
    watcher_context = browser.new_context(viewport={"width": 1000, "height": 760},
                                          bypass_csp=True)
    try:
        assert page.locator('.player[data-seat="1"] .presence.off').count() == 1
        friend = friend_context.new_page()
        friend.goto(invite)
        friend.wait_for_selector(".board svg .hit[data-point]")
        page.wait_for_selector('.player[data-seat="1"] .presence.on')  # the host sees it
        watcher = watcher_context.new_page()
        watcher.goto(spectate)
        watcher.wait_for_selector(".board svg .hit[data-point]")
        assert "watching" in watcher.inner_text("#status")

        tokens = [token_in(page, game_id), token_in(friend, game_id)]
        players = [page, friend]
        for number in range(3):
            current = api_state(server, game_id)
            seat = current["current_seat"]
            mine = api_state(server, game_id, tokens[seat])
            enter(players[seat], pick(mine["legal"], number))
            for viewer in (page, friend, watcher):
                viewer.wait_for_function(
                    f"document.querySelectorAll('#moves .act').length > {number}")
        history = [p["notation"] for p in api_state(server, game_id)["history"]]
        for viewer in (page, friend, watcher):
            assert moves_shown(viewer) == history
        assert watcher.locator(".tools button, .buttons button").count() == 0
        assert watcher.locator("#resign").is_hidden() and watcher.locator("#undo").is_hidden()
        shot(friend, "web-online-friend")
        # The friend resigns (after confirming): everybody sees the result.
        friend.click("#resign")
        friend.click('#confirm button[value="yes"]')
        for viewer in (page, friend, watcher):
            viewer.wait_for_selector("#banner:not([hidden])")
        assert "You lose" in friend.inner_text("#banner")
        assert "You win" in page.inner_text("#banner")
        assert "Red wins" in watcher.inner_text("#banner")
        assert "resigned" in watcher.inner_text("#banner")
    finally:
        friend_context.close()
        watcher_context.close()


def self_played_record(name: str, steps: int) -> str:
    """A game record of two beginner AIs playing ``steps`` actions (stopping at a turn start)."""
    from hexgames.ai import player
    from hexgames.game import get_game

    game = get_game(name)
    position = game.new()
    bots = [player(game, 1, seed=11), player(game, 1, seed=12)]
    while not position.is_over and (len(position.history) < steps
                                    or not position.is_turn_start()):
        position.play(bots[position.current_seat].choose(position))
    return game.write_record(position, {})


def test_replay_a_finished_game(page: Any, server: str) -> None:
    # A game in full swing, uploaded as a record: it continues as a same-screen game.
    created = httpx.post(f"{server}/api/records",
                         json={"text": self_played_record("dendria", 170)}, timeout=60).json()
    game_id, token = created["id"], created["token"]
    page.goto(f"{server}/play/{game_id}?token={token}")
    page.wait_for_selector(".board svg .hit[data-point]")
    page.wait_for_selector(".status .headline.go")
    toggles = page.locator("#overlays input[data-overlay]")
    for index in range(toggles.count()):
        if "fertilized" in (toggles.nth(index).get_attribute("data-overlay") or ""):
            toggles.nth(index).check()
    page.wait_for_timeout(300)
    shot(page, "web-dendria-midgame")

    # Both players pass: the game is over. Then step through it.
    for _ in range(2):
        shown = page.locator("#moves .act").count()
        page.click('.buttons button[data-action="pass"]')
        page.wait_for_function("n => document.querySelectorAll('#moves .act').length > n",
                               arg=shown)
    page.wait_for_selector("#banner:not([hidden])")
    final = api_state(server, game_id)
    assert final["is_over"]
    total = len(final["history"])
    shot(page, "web-game-over")
    # "Play again" starts a fresh game with the same settings.
    page.click("#again")
    page.wait_for_url(lambda url: "/play/" in url and game_id not in url)
    page.wait_for_selector(".board svg .hit[data-point]")
    again = api_state(server, game_id_of(page))
    assert again["history"] == [] and again["options"] == final["options"]
    assert again["mode"] == "hotseat"

    page.goto(f"{server}/replay/{game_id}")
    page.wait_for_selector(f'#board[data-ply="{total}"]')
    assert page.inner_text("#counter") == f"{total} / {total}"
    assert not page.locator("#banner").is_hidden()
    end_board = page.inner_html("#board")
    page.keyboard.press("Home")
    page.wait_for_selector('#board[data-ply="0"]')
    assert page.inner_text("#counter") == f"0 / {total}"
    assert page.inner_html("#board") != end_board
    assert "Start position" in page.inner_text("#status")
    page.click("#next")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#board[data-ply="2"]')
    assert page.locator("#moves .act.current").inner_text() == final["history"][1]["notation"]
    page.locator("#moves .act").nth(total - 3).click()
    page.wait_for_selector(f'#board[data-ply="{total - 2}"]')
    assert page.inner_text("#counter") == f"{total - 2} / {total}"
    shot(page, "web-replay")


def test_rules_pages_draw_boards(page: Any, server: str) -> None:
    for game in ("benediction", "dendria"):
        page.goto(f"{server}/rules/{game}")
        assert page.locator(".diagram svg").count() >= 2  # start and a game in progress
        assert page.locator("h2").count() >= 3
    shot(page, "web-rules")


def test_the_pages_obey_their_csp(browser: Any, server: str) -> None:
    """Under the site's real Content-Security-Policy (no bypass) every page works and
    the browser reports no violation: no inline script, nothing from elsewhere."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    try:
        page = context.new_page()
        problems = page_problems(page)
        game_id = start_from_home(page, server, "dendria", "hotseat")
        page.locator(".board svg .hit[data-point]").first.click()
        page.click("#legend-button")  # the legend, fetched from the rules page
        page.wait_for_selector("#legend .legend-item svg use")
        page.click('#legend button[value="close"]')
        page.click("#flip")
        page.wait_for_selector('.board svg[data-flipped="true"]')
        page.goto(f"{server}/replay/{game_id}")
        page.wait_for_selector(".board svg")
        page.goto(f"{server}/rules/benediction")
        page.wait_for_selector("svg")
        assert not problems, problems
    finally:
        context.close()


def test_an_invitation_opened_twice_seats_only_the_first(browser: Any, server: str,
                                                         page: Any) -> None:
    game_id = start_from_home(page, server, "benediction", "online")
    page.wait_for_selector("#invite input")
    invite = page.locator("#invite input").first.input_value()
    mine = token_in(page, game_id)
    page.goto(invite)  # the creator opens the opponent's link: told so, keeps the seat
    page.wait_for_selector(".board svg .hit[data-point]")
    page.wait_for_function("document.querySelector('#toast').textContent.includes('opponent')")
    assert token_in(page, game_id) == mine
    contexts = [browser.new_context(bypass_csp=True) for _ in range(2)]
    try:
        friend, stranger = (context.new_page() for context in contexts)
        friend.goto(invite)
        friend.wait_for_selector(".board svg .hit[data-point]")
        assert "token=" not in friend.url  # moved out of the address bar
        assert api_state(server, game_id, token_in(friend, game_id))["your_seats"] == [1]
        stranger.goto(invite)
        stranger.wait_for_function(
            "document.querySelector('#toast').textContent.includes('already been taken')")
        # The toast comes from the claim, the status from the first state (may be later).
        stranger.wait_for_function(
            "document.getElementById('status').textContent.includes('watching')")
        assert api_state(server, game_id, mine)["your_seats"] == [0]
    finally:
        for context in contexts:
            context.close()
