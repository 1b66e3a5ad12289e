# ruff: noqa: F811  (the fixtures of test_web_browser are imported and used by name)
"""Issue 12, "the board a player enjoys": the game page on a desktop and on a 390x844
phone, in headless Debian chromium against a real ``hexgames serve`` (the fixtures of
tests/test_web_browser.py). Each test names the item of the issue it checks.

Screenshots go to ``test-artifacts/`` (git-ignored); docs/images has copies of some.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from test_web_browser import (  # noqa: F401  (fixtures are used by name)
    api_state,
    browser,
    enter,
    game_id_of,
    page,
    self_played_record,
    server,
    shot,
)

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2, "bypass_csp": True}


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(**PHONE)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def new_game(server: str, game: str, mode: str = "hotseat", seat: int = 0,
             options: dict[str, Any] | None = None) -> dict[str, Any]:
    response = httpx.post(f"{server}/api/games", json={
        "game": game, "mode": mode, "seat": seat, "level": 1, "options": options or {}},
        timeout=30)
    response.raise_for_status()
    return response.json()


def act(server: str, game_id: str, token: str, action: str) -> httpx.Response:
    return httpx.post(f"{server}/api/games/{game_id}/actions",
                      json={"token": token, "action": action}, timeout=30)


def open_game(page: Any, server: str, game_id: str, token: str) -> None:
    page.goto(f"{server}/play/{game_id}?token={token}")
    page.wait_for_selector(".board svg .hit[data-point]")


def wait_moves(page: Any, count: int) -> None:
    page.wait_for_function(f"document.querySelectorAll('#moves .act').length === {count}")


def dendria_midgame(server: str) -> tuple[str, str]:
    """A Dendria game in full swing (uploaded record, same-screen): its id and token."""
    created = httpx.post(f"{server}/api/records",
                         json={"text": self_played_record("dendria", 170)}, timeout=60).json()
    return created["id"], created["token"]


# --------------------------------------------------------------------------- bugs
def test_phone_pages_fit_the_screen_and_reach_the_rules(phone: Any, server: str) -> None:
    """Bugs: the home page and the rules table fit 390 px; the top bar keeps every link."""
    phone.goto(server + "/")
    phone.wait_for_selector(".game-choice")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    shot(phone, "ux-phone-home")
    for game in ("benediction", "dendria"):
        phone.goto(f"{server}/rules/{game}")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    created = new_game(server, "benediction")
    open_game(phone, server, created["id"], created["token"])
    rules = phone.locator("#rules-link")
    assert rules.is_visible() and rules.get_attribute("href") == "/rules/benediction"
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390


def test_phone_page_stays_put_while_moves_come_in(phone: Any, server: str) -> None:
    """Bugs: no scrolling after each move; "Esc" is not offered on a touch screen; the
    same-screen resign dialog names the side that resigns."""
    created = new_game(server, "dendria")
    game_id, token = created["id"], created["token"]
    open_game(phone, server, game_id, token)
    assert phone.evaluate("window.scrollY") == 0
    for number in range(6):
        legal = api_state(server, game_id, token)["legal"]
        entry = next(e for e in legal if e["label"] == "plant") if number % 2 == 0 else \
            next(e for e in legal if e["label"] == "End turn")
        assert act(server, game_id, token, entry["action"]).status_code == 200
        wait_moves(phone, number + 1)
        assert phone.evaluate("window.scrollY") == 0, f"the page scrolled after move {number}"
    # A two-click action started: the hint says how to cancel, by touch.
    legal = api_state(server, game_id, token)["legal"]
    dendrid = next((e for e in legal if e["label"] == "move"), None)
    if dendrid is None:  # no dendrid yet: select in a Benediction game instead
        bened = new_game(server, "benediction")
        open_game(phone, server, bened["id"], bened["token"])
        legal = api_state(server, bened["id"], bened["token"])["legal"]
        dendrid = next(e for e in legal if len(e["points"]) == 2 and not e["tool"])
    phone.locator(f'.board svg .hit[data-point="{dendrid["points"][0]}"]').tap()
    phone.wait_for_function("document.getElementById('hint').textContent.includes('cancel')")
    hint = phone.inner_text("#hint")
    assert "Esc" not in hint and "tap it again" in hint
    shot(phone, "ux-phone-game")
    phone.click("#resign")
    text = phone.inner_text("#confirm-text")
    mover = api_state(server, game_id_of(phone))["to_move"].capitalize()
    assert f"Resign for {mover}" in text
    assert phone.inner_text('#confirm button[value="yes"]') == f"Resign for {mover}"
    phone.click('#confirm button[value="no"]')


def test_the_board_keeps_its_size_when_the_turn_changes(page: Any, server: str) -> None:
    """Bugs: the tool bar keeps its room, so the board does not jump between turns."""
    created = new_game(server, "benediction", mode="online")
    game_id, host = created["id"], created["token"]
    friend = httpx.post(f"{server}/api/games/{game_id}/claim",
                        json={"token": created["tokens"][1]}, timeout=30).json()["token"]
    open_game(page, server, game_id, host)
    page.wait_for_selector(".status .headline.go")
    mine = page.locator("#board").bounding_box()
    first = api_state(server, game_id, host)["legal"]
    enter(page, next(e for e in first if e["points"] and not e["tool"]))
    wait_moves(page, 1)
    page.wait_for_function("!document.querySelector('.status .headline.go')")
    theirs = page.locator("#board").bounding_box()
    assert theirs == mine
    for entry in api_state(server, game_id, friend)["legal"][:1]:
        act(server, game_id, friend, entry["action"])
    wait_moves(page, 2)
    assert page.locator("#board").bounding_box() == mine


def test_markers_and_the_legend(page: Any, phone: Any, server: str) -> None:
    """Bugs and clarity: a possible click (dashed ring) differs from a blessing (rays),
    also without colour; the legend explains every marker, from the board."""
    created = new_game(server, "benediction")
    for viewer, name in ((page, "desktop"), (phone, "phone")):
        open_game(viewer, server, created["id"], created["token"])
        viewer.click("#legend-button")
        viewer.wait_for_selector("#legend .legend-item svg use")
        items = viewer.locator("#legend .legend-item")
        texts = " ".join(items.all_inner_texts()).lower()
        for word in ("king", "blessed", "cursed", "locked", "block", "click", "last turn",
                     "wall", "selected"):
            assert word in texts, word
        assert viewer.evaluate("document.documentElement.scrollWidth") <= (
            390 if name == "phone" else 1360)
        shot(viewer, f"ux-legend-{name}")
        viewer.click('#legend button[value="close"]')
    # A possible click is dashed; a blessed man carries rays (a shape, not only gold).
    dash = page.evaluate("getComputedStyle(document.querySelector("
                         "'#board .hit.highlighted')).strokeDasharray")
    assert dash not in ("", "none")
    assert page.locator("#legend .man.blessed .rays").count() == 1
    page.goto(f"{server}/rules/dendria")
    legend = " ".join(page.locator("#legend .legend-item").all_inner_texts()).lower()
    for word in ("seed", "tree", "dendrid", "fertilized", "click", "last turn"):
        assert word in legend, word


def test_not_found_pages_and_a_missing_game(page: Any, server: str) -> None:
    """Bugs: people get an HTML 404 page (the API keeps JSON); a missing game offers no
    Undo, Resign or Record."""
    for path in ("/rules/chess", "/no/such/page"):
        response = httpx.get(server + path, timeout=30)
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("text/html")
        assert "Page not found" in response.text
    for path in ("/api/nothing", "/api/games/no-such-game"):
        response = httpx.get(server + path, timeout=30)
        assert response.status_code == 404 and "error" in response.json()
    page.goto(server + "/rules/chess")
    assert page.locator("h1").inner_text() == "Page not found"
    page.goto(server + "/play/no-such-game")
    page.wait_for_selector(".missing")
    for control in ("#undo", "#resign", "#download", "#replay", "#flip"):
        assert page.locator(control).is_hidden(), control


@pytest.mark.parametrize("game", ["benediction", "dendria"])
def test_records_of_resigned_games_and_tag_spacing(server: str, game: str) -> None:
    """Bugs: a resigned game's record has its Result and Termination; a blank line
    separates the tags from the moves (Dendria too)."""
    created = new_game(server, game)
    game_id, token = created["id"], created["token"]
    legal = api_state(server, game_id, token)["legal"]
    assert act(server, game_id, token, next(e for e in legal if e["points"])["action"]) \
        .status_code == 200
    resigner = api_state(server, game_id)["current_seat"]
    httpx.post(f"{server}/api/games/{game_id}/resign", json={"token": token}, timeout=30)
    text = httpx.get(f"{server}/api/games/{game_id}/record", timeout=30).text
    result = "0-1" if resigner == 0 else "1-0"
    assert f'[Result "{result}"]' in text and '[Termination "resignation"]' in text
    tags, _, moves = text.partition("\n\n")
    assert all(line.startswith("[") for line in tags.splitlines())
    assert moves.strip() and not moves.startswith("\n")


# ------------------------------------------------------------------------ clarity
def test_each_player_sees_their_side_at_the_bottom_and_may_flip(
    page: Any, server: str
) -> None:
    """Clarity: Blue against the computer and Blue online see the board turned; Red does
    not; the Flip button turns it either way."""
    blue = new_game(server, "benediction", mode="ai", seat=1)
    open_game(page, server, blue["id"], blue["token"])
    page.wait_for_selector('.board svg[data-flipped="true"]')
    assert page.get_attribute("#flip", "aria-pressed") == "true"
    shot(page, "ux-flipped")
    page.click("#flip")
    page.wait_for_selector('#board[data-flipped="false"]')
    assert page.locator(".board svg[data-flipped]").count() == 0
    red = new_game(server, "dendria", mode="ai", seat=0)
    open_game(page, server, red["id"], red["token"])
    assert page.get_attribute("#flip", "aria-pressed") == "false"
    online = new_game(server, "dendria", mode="online")
    page.goto(f"{server}/play/{online['id']}?token={online['tokens'][1]}")  # the friend
    page.wait_for_selector('.board svg[data-flipped="true"] .hit[data-point]')


def test_benediction_destinations_say_what_they_would_be(page: Any, server: str) -> None:
    """Clarity: after selecting a man, each destination carries its label (move, merge,
    split 1..k) before the second click; the status says what the turn allows."""
    created = new_game(server, "benediction")
    game_id, token = created["id"], created["token"]
    open_game(page, server, game_id, token)
    legal = api_state(server, game_id, token)["legal"]
    assert "You may" in page.inner_text("#allowed")
    origin = next(e["points"][0] for e in legal if len(e["points"]) == 2 and not e["tool"])
    page.click(f'.board svg .hit[data-point="{origin}"]')
    page.wait_for_selector(".board svg g.target-tags text")
    expected: dict[str, set[str]] = {}
    for entry in legal:
        if len(entry["points"]) == 2 and entry["points"][0] == origin and not entry["tool"]:
            expected.setdefault(entry["points"][1], set()).add(
                re.sub(r"\s+\d+$", "", entry["label"]))
    tags = dict(page.eval_on_selector_all(
        ".board svg g.target-tags text", "nodes => nodes.map(n => [n.dataset.tag, n.textContent])"))
    assert set(tags) == set(expected)
    for point, kinds in expected.items():
        assert {re.sub(r"\s+[\d,-]+$", "", part) for part in tags[point].split(" / ")} == kinds
        assert page.get_attribute(f'.hit[data-point="{point}"]', "data-label") == tags[point]
    shot(page, "ux-destinations")


def test_dendria_turn_explained_and_final_score(page: Any, server: str) -> None:
    """Clarity: in a Dendria turn the status names what is still allowed and the cells
    that finish a step carry its label; the end banner shows the final score."""
    game_id, token = dendria_midgame(server)
    open_game(page, server, game_id, token)
    page.wait_for_selector("#allowed")
    assert "plant" in page.inner_text("#allowed")
    # A plant after which a follow-up is offered (found with the engine on the same game).
    from hexgames.game import get_game

    dendria = get_game("dendria")
    position, _ = dendria.read_record(httpx.get(f"{server}/api/games/{game_id}/record",
                                                timeout=30).text)
    plant = follow = None
    for action in position.legal_actions():
        if dendria.gesture(position, action).label != "plant":
            continue
        position.play(action)
        follow = next((b for b in position.legal_actions()
                       if dendria.gesture(position, b).label in ("sprout", "grow", "convert")),
                      None)
        if follow is not None:
            plant, label = str(action), dendria.gesture(position, follow).label
            point = dendria.gesture(position, follow).points[0]
            break
        position.undo()
    assert plant is not None, "no plant with a follow-up in this game"
    count = len(api_state(server, game_id)["history"])
    page.click(f'.board svg .hit[data-point="{plant}"]')
    wait_moves(page, count + 1)
    page.wait_for_selector(f'.hit.highlighted[data-point="{point}"][data-label]')
    assert label in page.get_attribute(f'.hit[data-point="{point}"]', "data-label")
    allowed = page.inner_text("#allowed")
    assert label in allowed and "end turn" in allowed
    if f"{label} at" in allowed:  # a few cells: named
        assert point in allowed
    tag = page.locator(f'.board svg g.target-tags text[data-tag="{point}"]')
    assert label in (tag.text_content() or "")
    shot(page, "ux-dendria-turn")
    # Both pass: the banner shows the engine's final score.
    for _ in range(3):
        current = api_state(server, game_id, token)
        if current["is_over"]:
            break
        button = next(e for e in current["legal"] if e["action"] in ("end", "pass"))
        act(server, game_id, token, button["action"])
    final = api_state(server, game_id)
    assert final["is_over"] and final["final"]["score"]
    page.wait_for_selector("#banner .final-score")
    for side, value in final["final"]["score"].items():
        shown = page.inner_text(f'#banner .final-side[data-side="{side}"] b')
        assert float(shown) == float(value)
    shot(page, "ux-final-score")


# ----------------------------------------------------------- entry and browsing
def test_actions_typed_in_notation(page: Any, server: str) -> None:
    """Keyboard entry: a legal action is played; an illegal one is explained in the
    engine's words (the same as the API gives)."""
    created = new_game(server, "benediction")
    game_id, token = created["id"], created["token"]
    open_game(page, server, game_id, token)
    legal = api_state(server, game_id, token)["legal"]
    page.fill("#notation", legal[0]["action"])
    page.press("#notation", "Enter")
    wait_moves(page, 1)
    assert api_state(server, game_id)["history"][0]["notation"] == legal[0]["action"]
    refused = act(server, game_id, token, "a1a9")
    assert refused.status_code >= 400
    page.fill("#notation", "a1a9")
    page.press("#notation", "Enter")
    page.wait_for_selector(".toast.show")
    assert page.inner_text("#toast") == refused.json()["error"]


def test_browsing_past_positions_during_a_live_game(page: Any, server: str) -> None:
    """Browsing: a click on a past action shows that position; the board does not take
    clicks meanwhile; "Back to the game" (or Esc) returns to the live board."""
    created = new_game(server, "dendria")
    game_id, token = created["id"], created["token"]
    for _ in range(2):
        legal = api_state(server, game_id, token)["legal"]
        act(server, game_id, token, next(e for e in legal if e["label"] == "plant")["action"])
        act(server, game_id, token, "end")
    open_game(page, server, game_id, token)
    wait_moves(page, 4)
    live = page.inner_html("#board")
    page.locator("#moves .act").nth(0).click()
    page.wait_for_selector('#board[data-ply="1"]')
    assert not page.locator("#browse").is_hidden()
    assert "After action 1 of 4" in page.inner_text("#browse")
    assert page.inner_html("#board") != live
    assert page.locator(".hit.highlighted").count() == 0
    page.locator(".board svg .hit[data-point]").first.click()
    page.wait_for_function("document.getElementById('toast').textContent.includes('earlier')")
    shot(page, "ux-browsing")
    page.click("#browse-back")
    page.wait_for_selector("#browse", state="hidden")
    page.wait_for_selector(".board svg .hit.highlighted")
    page.locator("#moves .act").nth(1).click()
    page.wait_for_selector('#board[data-ply="2"]')
    page.keyboard.press("Escape")
    page.wait_for_selector("#browse", state="hidden")
    page.keyboard.press("ArrowLeft")  # the arrows step back and forth
    page.wait_for_selector('#board[data-ply="3"]')
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector('#board[data-ply="2"]')
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#board[data-ply="3"]')
    page.keyboard.press("ArrowRight")  # past the last one: back to the game
    page.wait_for_selector("#browse", state="hidden")


def test_a_moved_piece_glides_to_its_new_point(page: Any, server: str) -> None:
    """Move animation: the page finds the piece that left one point and arrived at
    another (from the drawings alone, for any game) and animates it."""
    created = new_game(server, "benediction")
    game_id, token = created["id"], created["token"]
    open_game(page, server, game_id, token)
    legal = api_state(server, game_id, token)["legal"]
    move = next(e for e in legal if e["label"] == "move")
    enter(page, move)
    wait_moves(page, 1)
    page.wait_for_selector(f'#board[data-animated="{move["points"][0]}-{move["points"][1]}"]')


def test_the_replay_can_be_flipped(page: Any, server: str) -> None:
    """Flip in the replay viewer: Blue's own replay starts turned; the button turns it."""
    created = new_game(server, "benediction", mode="ai", seat=1)
    game_id = created["id"]
    open_game(page, server, game_id, created["token"])  # remembers the seat's token
    page.goto(f"{server}/replay/{game_id}")
    page.wait_for_selector('#board[data-flipped="true"] svg[data-flipped="true"]')
    page.click("#flip")
    page.wait_for_selector('#board[data-flipped="false"]')
    assert page.locator(".board svg[data-flipped]").count() == 0


def test_drag_and_drop_enters_a_two_click_action(page: Any, server: str) -> None:
    """Drag and drop with the mouse: press on a man, release on its destination."""
    created = new_game(server, "benediction")
    game_id, token = created["id"], created["token"]
    open_game(page, server, game_id, token)
    legal = api_state(server, game_id, token)["legal"]
    move = next(e for e in legal if e["label"] == "move")
    boxes = [page.locator(f'.board svg .hit[data-point="{point}"]').bounding_box()
             for point in move["points"]]
    centres = [(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2) for box in boxes]
    page.mouse.move(*centres[0])
    page.mouse.down()
    page.mouse.move(*centres[1], steps=5)
    page.mouse.up()
    wait_moves(page, 1)
    assert api_state(server, game_id)["history"][0]["notation"] == move["action"]
