# ruff: noqa: F811  (the fixtures of test_web_browser are imported and used by name)
"""Issue 32 item 9: bugs and rough edges a tester found, each checked at the size it was
seen, a 1280x800 desktop or a 390x844 phone (often both), by geometry and behaviour:
bounding boxes, what lies inside the viewport, which elements exist. Headless Debian
chromium through Playwright against a real ``hexgames serve`` (the fixtures of
tests/test_web_browser.py).

``tools/layout_shots.py`` takes the pictures of these pages in docs/images (fix-*.png).
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
    server,
    shot,
)

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1280, "height": 800}, "bypass_csp": True}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2, "bypass_csp": True}
SIZES = {"desktop": DESKTOP, "phone": PHONE}

#: A Dendria position whose final score has six rows: a forest of every size 1 to 5 for
#: Dark (and 1, 2, 3, 4, 4 for Light), then the largest forest. Both pass: game over.
SIX_ROWS = """Dendria v1: size=7 to-move=dark
dark trees: a1 b3 b4 d2 d3 d4 f3 f4 f5 f6 h2 h3 h4 h5 h6
light trees: a5 c7 c8 e8 e9 e10 g9 g10 g11 g12 i8 i9 i10 i11 k6
"""
#: A red king that is also cursed: the editor's engine refuses it.
CURSED_KING = ("king", "cursed")


@pytest.fixture(params=sorted(SIZES))
def sized(request: pytest.FixtureRequest, browser: Any) -> Iterator[tuple[str, Any]]:
    """A page at each size the tester used: ("desktop" | "phone", page)."""
    context = browser.new_context(**SIZES[request.param])
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield request.param, opened
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def post(server: str, path: str, **body: Any) -> Any:
    response = httpx.post(server + path, json=body, timeout=60)
    response.raise_for_status()
    return response.json()


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found, f"{selector} is not shown"
    return found


def viewport_of(page: Any) -> dict[str, float]:
    size = page.viewport_size
    return {"x": 0, "y": 0, "width": size["width"], "height": size["height"]}


def inside(inner: dict[str, float], outer: dict[str, float], slack: float = 0.5) -> bool:
    return (inner["x"] >= outer["x"] - slack and inner["y"] >= outer["y"] - slack
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def boxes(page: Any, selector: str) -> list[dict[str, float]]:
    """The boxes of every element the selector matches (as getBoundingClientRect)."""
    return page.eval_on_selector_all(selector, """nodes => nodes.map(node => {
        const r = node.getBoundingClientRect();
        return {x: r.x, y: r.y, width: r.width, height: r.height};
    })""")


def at_top(page: Any) -> None:
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_function("window.scrollY === 0")


def finished_six_row_game(server: str) -> dict[str, Any]:
    created = post(server, "/api/games", game="dendria", mode="hotseat", start=SIX_ROWS)
    for _ in range(2):
        post(server, f"/api/games/{created['id']}/actions", token=created["token"],
             action="pass")
    final = api_state(server, created["id"])
    assert final["is_over"] and len(final["final"]["breakdown"]) == 6
    return created


def open_game(page: Any, server: str, created: dict[str, Any], ready: str) -> None:
    page.goto(f"{server}/play/{created['id']}?token={created['token']}")
    page.wait_for_selector(ready)


# --------------------------------------------------------------- the game page
def test_a_six_row_final_score_leaves_the_board_its_room(sized: tuple[str, Any],
                                                         server: str) -> None:
    """Issue 39, row 14 (and issue 32 before it): at the end of a Dendria game the score
    banner above the board shrank it to 316 px (39.5% of a 1280x800 window), and on a
    phone pushed it to y=570, below the 844 px screen. The banner is now one line or
    two; the score's breakdown is in the side panel. Desktop: the board keeps at least
    60% of the window's height and every row of the score is on the screen; phone: the
    whole board is on the first screen, the score under it."""
    size, page = sized
    open_game(page, server, finished_six_row_game(server),
              "#banner:not([hidden]) .final-score")
    page.wait_for_selector("#final-breakdown:not([hidden]) #breakdown")
    assert page.locator("#breakdown tbody tr").count() == 6
    assert page.locator("#banner #breakdown").count() == 0
    at_top(page)
    board = box(page, "#board svg")
    view = viewport_of(page)
    assert inside(board, view), (board, view)
    assert inside(box(page, "#banner"), view)
    if size == "desktop":
        assert board["height"] >= 0.6 * view["height"], board
        assert all(inside(row, view) for row in boxes(page, "#breakdown tr"))
    else:  # one column: the banner, the board as wide as the screen allows, the score
        assert board["width"] >= 0.8 * view["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= view["width"]
        assert box(page, "#breakdown")["y"] >= board["y"] + board["height"]
        assert inside(box(page, "#breakdown"), {**view, "height": 10_000})
    shot(page, f"layout-dendria-end-{size}")


def test_the_side_panel_keeps_its_controls_inside_its_card(sized: tuple[str, Any],
                                                          server: str) -> None:
    """Desktop: a Dendria game's Analyse / Record / New game spilled out of the side
    card; every control now lies inside the card (and the window), while playing
    against the computer and at the end of a game."""
    size, page = sized
    playing = post(server, "/api/games", game="dendria", mode="ai", level=1)
    finished = finished_six_row_game(server)
    for created, ready in ((playing, ".status .headline.go"), (finished, "#banner:not([hidden])")):
        open_game(page, server, created, ready)
        page.wait_for_selector("#score:not([hidden])")
        at_top(page)
        card = box(page, ".side")
        shown = [b for b in boxes(page, ".side .controls > *") if b["width"] and b["height"]]
        assert len(shown) >= 4
        for control in shown:
            assert inside(control, card), (control, card)
        if size == "desktop":  # the whole panel is on the screen
            assert all(inside(control, viewport_of(page)) for control in shown)
    shot(page, f"layout-dendria-side-{size}")


def test_the_phone_shows_the_turn_and_what_it_allows_at_once(sized: tuple[str, Any],
                                                            server: str) -> None:
    """Phone: "Your turn" sat at the bottom edge and what the turn allows below the fold,
    and the line under the board said "Click". Now both status lines are on the first
    screen (on both sizes) and a touch screen is told to tap."""
    size, page = sized
    for game in ("benediction", "dendria"):
        created = post(server, "/api/games", game=game, mode="ai", level=1)
        open_game(page, server, created, "#allowed")
        at_top(page)
        view = viewport_of(page)
        assert page.inner_text("#status .headline") == "Your turn"
        assert inside(box(page, "#status .headline"), view)
        assert inside(box(page, "#allowed"), view)
        press = "Tap" if size == "phone" else "Click"
        assert page.inner_text("#hint").startswith(f"{press} a highlighted point")
    shot(page, f"layout-status-{size}")


def test_the_hint_pop_up_on_a_phone_covers_neither_the_board_nor_the_tools(
        browser: Any, server: str) -> None:
    """Phone: the hint's pop-up covered the board's bottom row and the tools for about
    four seconds. It now shows over the tool row above the board, inside the screen."""
    context = browser.new_context(**PHONE)
    try:
        page = context.new_page()
        created = post(server, "/api/games", game="benediction", mode="ai", level=1)
        open_game(page, server, created, "#hint-button:not([hidden]):not([disabled])")
        page.tap("#hint-button")
        page.wait_for_selector("#hint-button[data-action]")
        page.wait_for_selector("#toast.show")
        toast = box(page, "#toast")
        assert "Hint:" in page.inner_text("#toast")
        assert inside(toast, viewport_of(page))
        board = box(page, "#board svg")
        lower = [hit for hit in boxes(page, ".board svg .hit[data-point]")
                 if hit["y"] + hit["height"] / 2 > board["y"] + 0.75 * board["height"]]
        assert lower, "no points in the board's lower quarter"
        covered = lower + boxes(page, ".board svg .hit.hinted") + boxes(
            page, "#tools > *, #buttons > *, #choices > *")
        assert not [hit for hit in covered if overlap(toast, hit)], toast
        shot(page, "layout-hint-phone")
    finally:
        context.close()


def test_destination_tags_are_legible_at_both_sizes(sized: tuple[str, Any],
                                                    server: str) -> None:
    """Phone: the tags naming what each destination does were about 7 px tall. Each tag
    is now at least 14 px tall with a 10 px font, whatever the board's scale."""
    size, page = sized
    created = post(server, "/api/games", game="benediction", mode="hotseat")
    open_game(page, server, created, ".status .headline.go")
    legal = api_state(server, created["id"], created["token"])["legal"]
    origin = next(e["points"][0] for e in legal if len(e["points"]) == 2 and not e["tool"])
    hit = f'.board svg .hit[data-point="{origin}"]'
    page.tap(hit) if size == "phone" else page.click(hit)
    page.wait_for_selector(".board svg .target-tag")
    pills = boxes(page, ".board svg .target-tag-bg")
    texts = boxes(page, ".board svg .target-tag")
    assert pills and len(pills) == len(texts)
    assert min(pill["height"] for pill in pills) >= 13.5, pills
    assert min(text["height"] for text in texts) >= 9.5, texts
    shot(page, f"layout-tags-{size}")


# ---------------------------------------------------------------- other pages
def test_the_editor_shows_a_refused_placement_next_to_the_board(sized: tuple[str, Any],
                                                                server: str) -> None:
    """Desktop: the editor's board was 850x972 px, its bottom and the message line under
    it below the fold, so an invalid placement seemed to do nothing. The board now fits
    the window, and the engine's refusal is on the screen right after the click."""
    size, page = sized
    page.goto(f"{server}/editor?game=benediction")
    page.wait_for_selector("#verdict[data-valid='true']")
    view = viewport_of(page)
    if size == "desktop":
        at_top(page)
        assert inside(box(page, "#board svg"), view)
        assert inside(box(page, "#verdict"), view)
    page.click('.palette button[data-kind="red"]')
    for flag in CURSED_KING:
        page.check(f"#f-{flag}")
    hit = '.board svg .hit[data-point="c1"]'
    page.tap(hit) if size == "phone" else page.click(hit)
    page.wait_for_selector("#verdict[data-valid='false']")
    assert "cannot be cursed" in page.inner_text("#verdict")
    assert inside(box(page, "#verdict"), view)
    assert page.is_disabled("#play-ai")
    shot(page, f"layout-editor-{size}")


def test_the_rules_pages_open_with_their_title(sized: tuple[str, Any], server: str) -> None:
    """Phone: the rules pages began with an (empty, for Dendria) start board above the
    title. The title now comes first, on the first screen; the start board follows."""
    size, page = sized
    for game in ("benediction", "dendria"):
        page.goto(f"{server}/rules/{game}")
        title = box(page, "article h1")
        start = box(page, "article .diagram.start")
        assert title["y"] + title["height"] <= start["y"] + 0.5, (title, start)
        assert inside(title, viewport_of(page))
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport_of(page)["width"]
    shot(page, f"layout-rules-{size}")


def name_player(page: Any, server: str, name: str) -> None:
    page.goto(server + "/lobby")
    status = page.evaluate("""async (name) => (await fetch('/api/me/name', {
        method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({name})})).status""", name)
    assert status == 200


def test_a_direct_challenge_offers_accept_to_its_player_only(browser: Any, server: str) -> None:
    """A challenge to one player showed an Accept button to everyone (the server then
    refused them: 403). A third party (desktop and phone) now sees whom it is for, the
    named player sees Accept, and accepting starts the game."""
    contexts = {name: browser.new_context(**size) for name, size in (
        ("Ann", DESKTOP), ("Cyd", DESKTOP), ("Dee", PHONE), ("Bob", PHONE))}
    errors: list[str] = []
    try:
        pages = {name: context.new_page() for name, context in contexts.items()}
        for name, page in pages.items():
            page.on("pageerror", lambda error: errors.append(str(error)))
            name_player(page, server, name)
        ann = pages["Ann"]
        ann.goto(server + "/lobby")
        ann.wait_for_selector("#me-link:has-text('Ann')")
        ann.select_option("#seek-game", "dendria")
        ann.select_option("#seek-kind", "untimed")
        ann.fill("#seek-target", "bob")  # any case: names compare case folded
        ann.click("#seek-submit")
        ann.wait_for_selector("#seek-list .seek button:has-text('Withdraw')")
        seek = ann.get_attribute("#seek-list .seek", "data-seek")
        row = f'#seek-list .seek[data-seek="{seek}"]'
        for name in ("Cyd", "Dee"):  # third parties: told whom it is for, no button
            page = pages[name]
            page.goto(server + "/lobby")
            page.wait_for_selector(f"{row} .for-other")
            page.wait_for_selector(f"#me-link:has-text('{name}')")
            assert page.locator(f"{row} button").count() == 0
            assert page.inner_text(f"{row} .for-other") == "for bob only"
            assert inside(box(page, f"{row} .for-other"), {**viewport_of(page), "height": 10_000})
            shot(page, f"layout-lobby-{'desktop' if name == 'Cyd' else 'phone'}")
        bob = pages["Bob"]
        bob.goto(server + "/lobby")
        bob.wait_for_selector(f"{row} button:has-text('Accept')")
        assert bob.locator(f"{row} .for-other").count() == 0
        bob.tap(f"{row} button:has-text('Accept')")
        for page in (bob, ann):
            page.wait_for_url(re.compile(r"/play/"), timeout=60_000)
    finally:
        for context in contexts.values():
            context.close()
    assert not errors, f"JavaScript errors: {errors}"


def test_player_pages_say_who_is_to_move(browser: Any, server: str) -> None:
    """A game on a player page said "vs Bob9843 · to move" (who?). It now says "your
    move" on one's own page and names the player to move on any other."""
    contexts = [browser.new_context(**DESKTOP), browser.new_context(**PHONE)]
    errors: list[str] = []
    try:
        alice, bob = (context.new_page() for context in contexts)
        for page, name in ((alice, "Alicia"), (bob, "Bobby")):
            page.on("pageerror", lambda error: errors.append(str(error)))
            name_player(page, server, name)
        created = alice.evaluate("""async () => (await fetch('/api/games', {method: 'POST',
            headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({game: 'benediction', mode: 'online'})})).json()""")
        game_id = created["id"]
        bob.goto(server + created["links"]["seats"][1])  # Bobby takes the second seat
        bob.wait_for_selector(".board svg .hit[data-point]")
        assert api_state(server, game_id)["current_seat"] == 0  # Alicia (red) to move

        def line(page: Any, owner: str) -> str:
            page.goto(f"{server}/player/{owner}")
            selector = f'#playing li[data-id="{game_id}"] .what small'
            page.wait_for_selector(selector)
            assert inside(box(page, selector), {**viewport_of(page), "height": 10_000})
            return page.inner_text(selector)

        assert line(alice, "Alicia") == "your move"
        assert line(bob, "Alicia") == "Alicia to move"
        assert line(bob, "Bobby") == "Alicia to move"
        shot(alice, "layout-player-desktop")
        token = created["token"]  # Alicia's seat
        entry = api_state(server, game_id, token)["legal"][0]
        post(server, f"/api/games/{game_id}/actions", token=token, action=entry["action"])
        assert api_state(server, game_id)["current_seat"] == 1
        assert line(alice, "Alicia") == "Bobby to move"
        assert line(bob, "Bobby") == "your move"
        shot(bob, "layout-player-phone")
    finally:
        for context in contexts:
            context.close()
    assert not errors, f"JavaScript errors: {errors}"
