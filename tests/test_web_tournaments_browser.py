"""Tournaments in a real browser (issue 42), at desktop and phone sizes: an arena created
from its form and joined from its page, whose pairing opens each player's game by
itself; a Swiss of three players (one bye a round) followed live by a spectator to its
podium. A real ``hexgames serve`` (its director ticking every second) and headless
Debian chromium through Playwright; the games' results are real resignations.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from test_web_browser import browser, server, shot  # the real server and browser
from test_web_layout_browser import name_player

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]

WAIT = 90_000  # ms: generous, for a busy machine
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture
def people(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """``people(n)``: n browser contexts (visitors) of the size under test, each with a
    page; JavaScript errors fail the test."""
    contexts: list[Any] = []
    errors: list[str] = []
    size = SIZES[request.param]

    def make(count: int) -> list[Any]:
        pages = []
        for _ in range(count):
            context = browser.new_context(viewport=size, bypass_csp=True)
            contexts.append(context)
            page = context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            pages.append(page)
        return pages

    make.size = request.param  # type: ignore[attr-defined]
    try:
        yield make
    finally:
        for context in contexts:
            context.close()
    assert not errors, f"JavaScript errors: {errors}"


def call(page: Any, path: str, body: dict[str, Any] | None = None) -> Any:
    """A JSON POST from the page (its visitor's identity); the answer's JSON."""
    return page.evaluate("""async ([path, body]) => (await fetch(path, {method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify(body || {})})).json()""", [path, body])


def resign_from(page: Any, game_id: str) -> None:
    """The page's visitor opens its seat of the game and resigns it."""
    claimed = call(page, f"/api/games/{game_id}/claim")
    assert claimed["role"] == "player", claimed
    assert call(page, f"/api/games/{game_id}/resign", {"token": claimed["token"]})["is_over"]


@pytest.mark.parametrize("people", ["desktop", "phone"], indirect=True)
def test_an_arena_from_its_form_pairs_and_opens_each_players_game(
        server: str, people: Any) -> None:
    ann, bob, carol = people(3)
    tag = people.size[0].upper()  # one server for both sizes: names of their own
    for page, name in ((ann, "Ann" + tag), (bob, "Bob" + tag)):
        name_player(page, server, name)
    ann.goto(server + "/tournaments")
    ann.select_option("select[name=game]", "benediction")
    ann.select_option("select[name=kind]", "arena")
    ann.fill("input[name=minutes]", "10")
    ann.fill("input[name=starts_in_min]", "0")
    ann.uncheck("input[name=rated]")
    ann.click("#tournament-form button[type=submit]")
    ann.wait_for_url(re.compile(r"/tournament/"), timeout=WAIT)
    url = ann.url
    ann.click("#join")
    ann.wait_for_selector("#leave", timeout=WAIT)
    carol.goto(url)  # a guest watching: asked for a name, never sent to a game
    carol.wait_for_selector("text=Choose a name on your profile")
    bob.goto(url)
    bob.click("#join")
    # Paired within a second: each player's page opens the game by itself.
    for page in (ann, bob):
        page.wait_for_url(re.compile(r"/play/"), timeout=WAIT)
    game_id = ann.url.rsplit("/", 1)[1]
    assert bob.url.rsplit("/", 1)[1] == game_id
    ann.wait_for_selector("#tournament-link:not([hidden])", timeout=WAIT)
    resign_from(bob, game_id)
    ann.wait_for_selector("#banner:not([hidden])", timeout=WAIT)  # the game is over
    carol.wait_for_selector(f"#standings tr:has-text('Ann{tag}') td:nth-child(3):has-text('2')",
                            timeout=WAIT)
    ended = carol.locator(f"#tournament-games a[href='/play/{game_id}']")
    carol.wait_for_selector(f"#tournament-games a[href='/play/{game_id}']"
                            ":not(:has-text('playing'))", timeout=WAIT)
    assert re.search("1–0|0–1", ended.inner_text())
    shot(carol, f"tournament-arena-{people.size}")
    # A tournament of later counts down on the list and on its page.
    later = call(ann, "/api/tournaments", {
        "game": "dendria", "kind": "arena", "minutes": 30, "rated": False,
        "control": {"kind": "realtime", "base_s": 180, "increment_s": 2},
        "starts_in_s": 3600})
    carol.goto(server + "/tournaments")
    carol.wait_for_selector(f"a[href='/tournament/{later['id']}'] .countdown", timeout=WAIT)
    assert re.search(r"starts in (59|60):\d\d", carol.locator(
        f"a[href='/tournament/{later['id']}'] .countdown").inner_text())
    shot(carol, f"tournaments-{people.size}")


@pytest.mark.parametrize("people", ["desktop", "phone"], indirect=True)
def test_a_swiss_of_three_with_a_bye_each_round_followed_live_to_its_podium(
        server: str, people: Any) -> None:
    ann, bob, cyd, watcher = people(4)
    tag = people.size[0].upper()  # one server for both sizes: names of their own
    players = {"Sann" + tag: ann, "Sbob" + tag: bob, "Scyd" + tag: cyd}
    ids = {}
    for name, page in players.items():
        name_player(page, server, name)
        ids[page.evaluate("async () => (await (await fetch('/api/me')).json()).id")] = page
    made = call(ann, "/api/tournaments", {
        "game": "dendria", "options": {"board_side": 5}, "kind": "swiss", "rounds": 3,
        "control": {"kind": "correspondence", "days": 3}, "rated": False,
        "starts_in_s": 0})
    tournament_id = made["id"]
    for page in players.values():
        joined = call(page, f"/api/tournaments/{tournament_id}/join")
        assert joined.get("you", {}).get("joined"), joined
    watcher.goto(f"{server}/tournament/{tournament_id}")
    byes = set()
    for round_number in (1, 2, 3):
        watcher.wait_for_selector(
            f"#tournament-status:has-text('Round {round_number} of 3')", timeout=WAIT)
        # The round's game is created just after its pairing is stored: wait for its
        # id (bounded), as a busy machine may show the pairing first.
        for _ in range(120):
            view = ann.evaluate(
                "async (id) => (await fetch('/api/tournaments/' + id)).json()", tournament_id)
            current = [g for g in view["games"] if g["round"] == round_number]
            if all(g["game_id"] for g in current if g["second"]):
                break
            ann.wait_for_timeout(250)
        assert len(current) == 2, current  # one game and one bye
        bye = next(g for g in current if not g["second"])
        game = next(g for g in current if g["second"])
        byes.add(bye["first"])
        watcher.wait_for_selector(f"#tournament-games a[href='/play/{game['game_id']}']",
                                  timeout=WAIT)
        resign_from(ids[game["second"]], game["game_id"])  # the first player wins
    assert len(byes) == 3  # never two byes to one player
    watcher.wait_for_selector("#tournament-status:has-text('Finished')", timeout=WAIT)
    watcher.wait_for_selector("#podium:not([hidden]) li", timeout=WAIT)
    assert watcher.locator("#podium li").count() == 3  # ranks may be shared
    assert watcher.locator("#standings tbody tr").count() == 3
    assert watcher.locator("#standings th:has-text('Buchholz')").count() == 1
    shot(watcher, f"tournament-swiss-{people.size}")
