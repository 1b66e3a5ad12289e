"""Following and TV in a real browser (headless Debian chromium through Playwright,
against a real ``hexgames serve``), at desktop and phone sizes: Cy follows Ann from her
profile (the form) and the bell tells Cy's page, with a link to watch, when Ann starts a
game, and with a link to open it when she creates a tournament; TV shows the featured
game and switches to the next when it ends by resignation over the API.

The players other than the page's viewer are API clients (``httpx``, a cookie each).
Every game a test starts is ended before it finishes (TV shows whatever is being played).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from test_web_alerts_browser import inside
from test_web_browser import browser, server, shot
from test_web_layout_browser import name_player

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]

WAIT = 60_000  # ms: generous, for a busy machine
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
CORRESPONDENCE = {"kind": "correspondence", "days": 3}
SHOTS = Path("/tmp/shots")


class Person:
    """A player through the API: an identity (its cookie) with a name."""

    def __init__(self, server: str, name: str) -> None:
        self.http = httpx.Client(base_url=server, timeout=30)
        assert self.http.get("/api/me").status_code == 200
        answer = self.http.post("/api/me/name", json={"name": name})
        assert answer.status_code == 200, answer.text
        self.name = name

    def challenge(self, other: Person, rated: bool) -> tuple[str, str, str]:
        """A game between the two: its id, this player's token and the other's."""
        posted = self.http.post("/api/seeks", json={
            "game": "benediction", "control": CORRESPONDENCE, "rated": rated})
        assert posted.status_code == 201, posted.text
        taken = other.http.post(f"/api/seeks/{posted.json()['id']}/accept")
        assert taken.status_code == 201, taken.text
        return taken.json()["id"], posted.json()["token"], taken.json()["token"]

    def seek(self) -> tuple[str, str]:
        """An open challenge in the lobby: its id and the token that withdraws it."""
        posted = self.http.post("/api/seeks", json={
            "game": "dendria", "control": CORRESPONDENCE, "rated": False})
        assert posted.status_code == 201, posted.text
        return posted.json()["id"], posted.json()["token"]

    def tournament(self) -> str:
        """A Swiss this player creates (starting in ten minutes): its id."""
        made = self.http.post("/api/tournaments", json={
            "game": "dendria", "options": {"board_side": 5}, "kind": "swiss", "rounds": 3,
            "control": CORRESPONDENCE, "rated": False, "starts_in_s": 600})
        assert made.status_code == 201, made.text
        return str(made.json()["id"])

    def resign(self, game_id: str, token: str) -> None:
        answer = self.http.post(f"/api/games/{game_id}/resign", json={"token": token})
        assert answer.status_code == 200, answer.text


@pytest.fixture
def viewer(browser: Any, request: pytest.FixtureRequest) -> Iterator[tuple[Any, str]]:
    """A page at the test's viewport; its JavaScript errors fail the test."""
    size = request.param
    extra = {"is_mobile": True, "has_touch": True} if size == "phone" else {}
    context = browser.new_context(viewport=VIEWPORTS[size], bypass_csp=True, **extra)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page, size
    finally:
        context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.mark.parametrize("viewer", list(VIEWPORTS), indirect=True)
def test_following_from_the_profile_rings_the_bell_when_they_start_a_game(
        server: str, viewer: tuple[Any, str]) -> None:
    page, size = viewer
    ann, bob = Person(server, f"Ann{size}"), Person(server, f"Bob{size}")
    name_player(page, server, f"Cy{size}")
    page.goto(f"{server}/player/{ann.name}")
    inside(page, "#follow-button")
    inside(page, "#challenge-button")
    assert page.get_attribute("#challenge-button", "href") == f"/lobby?challenge={ann.name}"
    page.click("#follow-button")  # a plain form: posted, then back to the profile
    page.wait_for_selector("#follow-button:has-text('Unfollow')", timeout=WAIT)
    page.wait_for_function("window.hexgamesAlerts && window.hexgamesAlerts.listening",
                           timeout=WAIT)
    game_id, ann_token, _ = ann.challenge(bob, rated=False)
    try:
        page.wait_for_selector("#alerts-note-watch", timeout=WAIT)
        assert page.get_attribute("#alerts-note-watch", "href") == f"/play/{game_id}"
        assert ann.name in page.inner_text("#alerts-note")
        inside(page, "#alerts-note")
        assert page.get_attribute("#alerts-toggle", "data-news") == "1"
        page.click("#alerts-toggle")
        page.wait_for_selector(f"#alerts-news a[href='/play/{game_id}']", timeout=WAIT)
        assert page.get_attribute("#alerts-toggle", "data-news") == "0"  # seen: no dot
        page.click("#alerts-note-watch")
        page.wait_for_url(f"**/play/{game_id}", timeout=WAIT)
        page.wait_for_selector(".board svg", timeout=WAIT)
    finally:
        ann.resign(game_id, ann_token)
    # A tournament she creates rings the bell too, with a link to open it.
    page.wait_for_function("window.hexgamesAlerts && window.hexgamesAlerts.listening",
                           timeout=WAIT)
    tournament_id = ann.tournament()
    page.wait_for_selector(f"#alerts-note-watch[href='/tournament/{tournament_id}']",
                           timeout=WAIT)
    assert f"{ann.name} created a tournament of Dendria" in page.inner_text("#alerts-note")
    inside(page, "#alerts-note")
    page.click("#alerts-note-watch")
    page.wait_for_url(f"**/tournament/{tournament_id}", timeout=WAIT)
    # Challenge: the lobby's form, naming her.
    page.goto(f"{server}/player/{ann.name}")
    page.click("#challenge-button")
    page.wait_for_function(f"document.getElementById('seek-target').value === {ann.name!r}",
                           timeout=WAIT)
    SHOTS.mkdir(exist_ok=True)
    page.goto(f"{server}/player/{ann.name}")
    page.wait_for_selector("#relation", timeout=WAIT)
    page.wait_for_function("document.getElementById('player-name').textContent !== '…'",
                           timeout=WAIT)
    page.screenshot(path=str(SHOTS / f"follow-profile-{size}.png"), animations="disabled")


@pytest.mark.parametrize("viewer", list(VIEWPORTS), indirect=True)
def test_a_blocked_players_challenge_has_no_accept_button_in_the_lobby(
        server: str, viewer: tuple[Any, str]) -> None:
    """Accepting it would be refused (409: one of the two blocked the other): the lobby
    says "blocked" instead, until the block is lifted from the profile."""
    page, size = viewer
    fay = Person(server, f"Fay{size}")
    name_player(page, server, f"Gus{size}")
    page.goto(f"{server}/player/{fay.name}")
    page.click("#block-button")  # a plain form: posted, then back to the profile
    page.wait_for_selector("#block-button:has-text('Unblock')", timeout=WAIT)
    seek_id, token = fay.seek()
    row = f'#seek-list .seek[data-seek="{seek_id}"]'
    try:
        page.goto(f"{server}/lobby")
        page.wait_for_selector(f"{row} .kept-apart", timeout=WAIT)
        assert page.locator(f"{row} button").count() == 0
        assert page.inner_text(f"{row} .kept-apart") == "blocked"
        inside(page, f"{row} .kept-apart")
        page.goto(f"{server}/player/{fay.name}")
        page.click("#block-button")
        page.wait_for_selector("#block-button:has-text('Block')", timeout=WAIT)
        page.goto(f"{server}/lobby")
        page.wait_for_selector(f"{row} button:has-text('Accept')", timeout=WAIT)
        assert page.locator(f"{row} .kept-apart").count() == 0
    finally:
        fay.http.post(f"/api/seeks/{seek_id}/cancel", json={"token": token})


@pytest.mark.parametrize("viewer", list(VIEWPORTS), indirect=True)
def test_tv_shows_the_featured_game_and_switches_when_it_ends(
        server: str, viewer: tuple[Any, str]) -> None:
    page, size = viewer
    dee, eli = Person(server, f"Dee{size}"), Person(server, f"Eli{size}")
    page.goto(f"{server}/tv/benediction")
    page.wait_for_selector("#tv-empty:not([hidden])", timeout=WAIT)
    casual, casual_token, _ = dee.challenge(eli, rated=False)
    rated, rated_token, _ = dee.challenge(eli, rated=True)  # rated: featured first
    try:
        page.wait_for_function(f"window.hexgamesTv.game === {rated!r}", timeout=WAIT)
        page.wait_for_selector(".board svg", timeout=WAIT)
        page.wait_for_selector(".player[data-seat='0'] .clock", timeout=WAIT)
        match = page.inner_text("#tv-match")
        assert dee.name in match and eli.name in match and "1500" in match
        inside(page, "#tv-match")
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / f"tv-{size}.png"), animations="disabled")
        shot(page, f"tv-{size}")
        dee.resign(rated, rated_token)
        page.wait_for_function(f"window.hexgamesTv.game === {casual!r}", timeout=WAIT)
        page.wait_for_selector(".board svg", timeout=WAIT)
        assert page.evaluate("window.hexgamesTv.shown") == 2
    finally:
        for game_id, token in ((rated, rated_token), (casual, casual_token)):
            dee.http.post(f"/api/games/{game_id}/resign", json={"token": token})
    page.wait_for_selector("#tv-empty:not([hidden])", timeout=WAIT)
