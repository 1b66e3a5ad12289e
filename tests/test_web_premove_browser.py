# ruff: noqa: F811  (the fixtures of test_web_browser are imported and used by name)
"""Issue 32 item 6 in a real browser, at a 1280x800 desktop and a 390x844 phone: two
players (two browser contexts) against a real ``hexgames serve``.

* Premoves in a real-time game: while Red is to act, Blue clicks an action of its own;
  it is marked as queued, a click on the mark (or the cancel button) cancels it, and
  once queued again it is played the moment Red's turn ends, without Blue touching
  anything. A premove no longer legal when the turn comes is dropped with a note.
* Conditional moves in a correspondence game: Blue plans a line in the line editor (the
  turn it expects from Red, its reply), stores it, plans and removes a second one; when
  Red plays the expected turn, Blue's reply is on the board at once.

Actions are chosen from the server's legal lists (unique clicks, so no choice buttons);
every wait is bounded (``WAIT``) and nothing is timed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from hexgames.game import get_game
from test_web_browser import (  # noqa: F401  (fixtures are used by name)
    api_state,
    browser,
    server,
    shot,
    token_in,
)

pytestmark = pytest.mark.browser

WAIT = 60_000  # ms: generous, for a busy machine
DESKTOP = {"viewport": {"width": 1280, "height": 800}, "bypass_csp": True}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2, "bypass_csp": True}
SIZES = {"desktop": DESKTOP, "phone": PHONE}


@pytest.fixture(params=sorted(SIZES))
def players(request: pytest.FixtureRequest, browser: Any) -> Iterator[tuple[str, Any, Any]]:
    """Two visitors at one size: (size name, Red's page, Blue's page)."""
    contexts = [browser.new_context(**SIZES[request.param]) for _ in range(2)]
    pages = [context.new_page() for context in contexts]
    errors: list[str] = []
    for opened in pages:
        opened.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield request.param, pages[0], pages[1]
    finally:
        for context in contexts:
            context.close()
    assert not errors, f"JavaScript errors: {errors}"


def open_game(server: str, red: Any, blue: Any, control: dict[str, Any]) -> str:
    """A Benediction game between the two pages (each opens its seat's link)."""
    created = httpx.post(f"{server}/api/games", timeout=60, json={
        "game": "benediction", "mode": "online", "control": control}).json()
    for page, link in zip((red, blue), created["links"]["seats"], strict=True):
        page.goto(server + link)
        page.wait_for_selector(".board svg .hit[data-point]", timeout=WAIT)
    red.wait_for_selector('.player[data-seat="1"] .presence.on', timeout=WAIT)
    return str(created["id"])


def unique_clicks(legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Actions entered by the default tool whose clicks enter no other action."""
    clicks = [tuple(entry["points"]) for entry in legal if not entry["tool"]]
    return [entry for entry in legal if not entry["tool"] and len(entry["points"]) == 2
            and clicks.count(tuple(entry["points"])) == 1]


def click_points(page: Any, points: list[str], board: str = "#board") -> None:
    for point in points:
        page.click(f'{board} svg .hit[data-point="{point}"]')


def shown_moves(page: Any) -> list[str]:
    return [text.strip() for text in page.locator("#moves .act").all_inner_texts()]


def test_a_premove_is_queued_cancelled_and_played_when_the_turn_comes(
        server: str, players: tuple[str, Any, Any]) -> None:
    size, red, blue = players
    game_id = open_game(server, red, blue, {"kind": "realtime", "base_s": 600,
                                            "increment_s": 0})
    tokens = [token_in(red, game_id), token_in(blue, game_id)]
    first = api_state(server, game_id, tokens[0])
    assert first["your_turn"] and first["clock"]
    red_move = unique_clicks(first["legal"])[0]
    # Blue's own legal actions once Red has played (the test asks the engine; the page
    # knows no rules: it matches the clicks when the turn comes).
    game = get_game("benediction")
    after = game.new()
    after.play(after.parse_action(red_move["action"]))
    blue_legal = [{"action": str(action), "tool": game.gesture(after, action).tool,
                   "points": list(game.gesture(after, action).points)}
                  for action in after.legal_actions()]
    premove = unique_clicks(blue_legal)[0]
    points = premove["points"]

    # Blue queues it: both points marked, the chip names it.
    blue.wait_for_selector("#hint:has-text('premove')", timeout=WAIT)
    click_points(blue, points)
    blue.wait_for_selector("#premove", timeout=WAIT)
    assert " → ".join(points) in blue.inner_text("#premove")
    marked = blue.eval_on_selector_all("#board svg .hit.premove",
                                       "ns => ns.map(n => n.dataset.point)")
    assert sorted(marked) == sorted(points)
    shot(blue, f"web-premove-{size}")
    # A click on the mark cancels it; so does the cancel button.
    click_points(blue, points[-1:])
    blue.wait_for_selector("#premove", state="detached", timeout=WAIT)
    assert blue.locator("#board svg .hit.premove").count() == 0
    click_points(blue, points)
    blue.click("#premove-cancel")
    blue.wait_for_selector("#premove", state="detached", timeout=WAIT)
    click_points(blue, points)
    blue.wait_for_selector("#premove", timeout=WAIT)

    # Red plays on its page: Blue's premove follows at once, Blue touching nothing.
    click_points(red, red_move["points"])
    for page in (red, blue):
        page.wait_for_function("document.querySelectorAll('#moves .act').length >= 2",
                               timeout=WAIT)
    history = [entry["notation"] for entry in api_state(server, game_id)["history"]]
    assert history == [red_move["action"], premove["action"]]
    assert shown_moves(blue) == history
    assert blue.locator("#premove").count() == 0
    mine = api_state(server, game_id, tokens[1])
    # The premove was the first action of Blue's turn: the second is Blue's to enter.
    assert mine["your_turn"] and not mine["turn_start"]

    # Blue ends its turn by hand, as usual.
    second = unique_clicks(mine["legal"])[0]
    blue.wait_for_selector(".status .headline.go", timeout=WAIT)
    click_points(blue, second["points"])
    red.wait_for_function("document.querySelectorAll('#moves .act').length === 3",
                          timeout=WAIT)
    assert api_state(server, game_id)["history"][-1]["notation"] == second["action"]


def test_a_dropped_premove_is_explained_and_sends_nothing(
        server: str, players: tuple[str, Any, Any]) -> None:
    _, red, blue = players
    game_id = open_game(server, red, blue, {"kind": "realtime", "base_s": 600,
                                            "increment_s": 0})
    first = api_state(server, game_id, token_in(red, game_id))
    red_move = unique_clicks(first["legal"])[0]
    # Two empty points far from every man: no action of Blue's takes these clicks.
    labels = blue.eval_on_selector_all("#board svg .hit[data-point]",
                                       "ns => ns.map(n => n.dataset.point)")
    occupied = set(blue.eval_on_selector_all(
        "#board svg [data-point][data-color]:not(.hit)", "ns => ns.map(n => n.dataset.point)"))
    empty = [label for label in labels if label not in occupied]
    blue.wait_for_selector("#hint:has-text('premove')", timeout=WAIT)
    click_points(blue, [empty[0], empty[-1]])
    blue.wait_for_selector("#premove", timeout=WAIT)
    click_points(red, red_move["points"])
    blue.wait_for_selector(".toast.show:has-text('dropped')", timeout=WAIT)
    assert "not legal now" in blue.inner_text("#toast")
    blue.wait_for_selector(".status .headline.go", timeout=WAIT)
    history = [entry["notation"] for entry in api_state(server, game_id)["history"]]
    assert history == [red_move["action"]]  # Blue's turn is untouched
    assert blue.locator("#premove").count() == 0


def dialog_actions(page: Any) -> list[str]:
    return " ".join(page.locator("#cond-line .acts").all_inner_texts()).split()


def enter_in_editor(page: Any, line: list[dict[str, Any]]) -> None:
    """Enter actions in the line editor by clicking its board, waiting for each."""
    for entry in line:
        before = len(dialog_actions(page))
        click_points(page, entry["points"], board="#cond-board")
        page.wait_for_function(
            f"document.querySelectorAll('#cond-line .acts').length && "
            f"[...document.querySelectorAll('#cond-line .acts')].map(n => n.textContent)"
            f".join(' ').split(/\\s+/).filter(Boolean).length === {before + 1}",
            timeout=WAIT)
    assert dialog_actions(page)[-len(line):] == [entry["action"] for entry in line]


def plan(server: str, game_id: str, token: str, first: dict[str, Any]) -> list[dict[str, Any]]:
    """A line for Blue: Red's ``first``, then a reply of two actions with unique clicks."""
    line = [first]
    for _ in range(2):
        shown = httpx.post(f"{server}/api/games/{game_id}/conditional/preview", timeout=60,
                           json={"token": token, "line": [e["action"] for e in line]}).json()
        line.append(unique_clicks(shown["legal"])[0])
    return line


def test_a_conditional_line_is_planned_stored_and_played(
        server: str, players: tuple[str, Any, Any]) -> None:
    size, red, blue = players
    game_id = open_game(server, red, blue, {"kind": "correspondence", "days": 3})
    blue_token = token_in(blue, game_id)
    reds = unique_clicks(api_state(server, game_id, token_in(red, game_id))["legal"])
    kept, removed = plan(server, game_id, blue_token, reds[0]), \
        plan(server, game_id, blue_token, reds[1])
    red.wait_for_selector("#conditional-why", timeout=WAIT)  # Red is to act: no lines
    assert "your turn" in red.inner_text("#conditional-why")
    assert red.locator("#conditional-add").count() == 0

    for line in (kept, removed):
        blue.click("#conditional-add")
        blue.wait_for_selector("#conditional-editor[open] #cond-board svg .hit", timeout=WAIT)
        enter_in_editor(blue, line[:1])
        assert blue.locator("#cond-save").is_disabled()  # Red's turn alone is no line
        enter_in_editor(blue, line[1:])
        assert blue.locator("#cond-save").is_enabled()
        if line is kept:
            shot(blue, f"web-conditional-editor-{size}")
        blue.click("#cond-save")
        blue.wait_for_selector("#conditional-editor", state="hidden", timeout=WAIT)
    blue.wait_for_function("document.querySelectorAll('#conditional-lines .cond-line')"
                           ".length === 2", timeout=WAIT)
    stored = httpx.get(f"{server}/api/games/{game_id}/conditional", timeout=60,
                       params={"token": blue_token}).json()["lines"]
    gone = next(line["id"] for line in stored
                if line["turns"][0]["actions"] == [removed[0]["action"]])
    blue.click(f'.cond-line[data-line="{gone}"] button')
    blue.wait_for_function("document.querySelectorAll('#conditional-lines .cond-line')"
                           ".length === 1", timeout=WAIT)
    assert "Remove" in blue.inner_text("#conditional-lines")
    shot(blue, f"web-conditional-{size}")

    # Red plays the expected turn: Blue's reply is played by the server at once.
    click_points(red, kept[0]["points"])
    for page in (red, blue):
        page.wait_for_function("document.querySelectorAll('#moves .act').length === 3",
                               timeout=WAIT)
    history = [entry["notation"] for entry in api_state(server, game_id)["history"]]
    assert history == [entry["action"] for entry in kept]
    assert shown_moves(red) == history
    red.wait_for_selector(".status .headline.go", timeout=WAIT)  # Red's turn again
    # The line was followed to its end: Blue's panel lists none, and offers a new one.
    blue.wait_for_selector("#conditional-add", timeout=WAIT)
    assert blue.locator("#conditional-lines").count() == 0
