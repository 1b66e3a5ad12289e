"""A game's chat in a real browser (issue 42), at desktop (1280x800) and phone (390x844)
sizes, under the site's real Content-Security-Policy: two players talk in a rated online
game while a watcher talks in the spectators' room (the players do not see it), an
over-long message is refused with its reason, a mute hides the chat until unmuted, a
report is kept, a block hides the other's messages, and a guest reads only after asking.

A real ``hexgames serve`` (SQLite; the test writes a block beside it, as ``hexgames
moderate`` does) and headless Debian chromium through Playwright. Every wait is for an
element or a text, with a bound."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hexgames.web.chat.rules import MAX_TEXT
from hexgames.web.storage import open_storage
from server_support import start_serve, stop_serve
from test_web_browser import browser

pytestmark = pytest.mark.browser
__all__ = ["browser"]

WAIT = 30_000  # ms: generous, for a busy machine
SHOTS = Path("/tmp/shots")
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A real server and its data folder."""
    data = tmp_path_factory.mktemp("chat-web")
    process, url = start_serve(data)
    try:
        yield url, data
    finally:
        stop_serve(process)


class Visitor:
    """One browser (a context of its own: its own cookie, so its own identity)."""

    def __init__(self, browser: Any, url: str, viewport: dict[str, int],
                 name: str | None) -> None:
        self.url = url
        self.context = browser.new_context(viewport=viewport)  # the real CSP
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("console", lambda message: self.problems.append(message.text)
                     if "Content Security Policy" in message.text else None)
        self.page.on("pageerror", lambda error: self.problems.append(str(error)))
        self.page.goto(url + "/")
        if name is not None:
            answer = self.context.request.post(url + "/api/me/name", data={"name": name})
            assert answer.ok, answer.text()
        self.id = self.context.request.get(url + "/api/me").json()["id"]

    def open(self, game_id: str, token: str | None = None) -> Any:
        self.page.goto(f"{self.url}/play/{game_id}" + (f"?token={token}" if token else ""))
        self.page.wait_for_selector("#chat-body > *", timeout=WAIT)
        return self.page

    def say(self, text: str) -> None:
        self.page.fill(".chat-input", text)
        self.page.click(".chat-form button[type=submit]")

    def sees(self, text: str) -> None:
        self.page.wait_for_selector(f".chat-messages .chat-text:text-is('{text}')",
                                    timeout=WAIT)

    def texts(self) -> list[str]:
        return list(self.page.locator(".chat-messages .chat-text").all_text_contents())


@pytest.fixture
def visitors(browser: Any, site: tuple[str, Path]) -> Iterator[Any]:
    made: list[Visitor] = []

    def visitor(viewport: dict[str, int], name: str | None) -> Visitor:
        made.append(Visitor(browser, site[0], viewport, name))
        return made[-1]

    yield visitor
    problems = [problem for each in made for problem in each.problems]
    for each in made:
        each.context.close()
    assert not problems, problems


def rated_game(ann: Visitor, bob: Visitor) -> tuple[str, str]:
    """A rated online game of Ann (seat 0) and Bob, who claimed his seat in his page: its
    id and Ann's seat token."""
    made = ann.context.request.post(ann.url + "/api/games", data={
        "game": "benediction", "mode": "online", "rated": True}).json()
    bob.open(made["id"], made["tokens"][1])
    return made["id"], made["token"]


def test_players_and_watchers_chat_with_bounds_mute_report_and_block(
        visitors: Any, site: tuple[str, Path]) -> None:
    ann, bob, cat = (visitors(DESKTOP, who) for who in ("Ann", "Bob", "Cat"))
    game_id, ann_token = rated_game(ann, bob)
    ann.open(game_id, ann_token)
    cat.open(game_id)
    # a rated game: each reads one room, the players theirs, the watchers theirs
    for who, room in ((ann, "players"), (bob, "players"), (cat, "spectators")):
        tabs = who.page.locator(".chat-tab")
        assert tabs.count() == 1 and tabs.first.get_attribute("data-room") == room
    ann.say("good luck, <b>Bob</b> https://example.com")
    bob.sees("good luck, <b>Bob</b> https://example.com")  # text, never HTML; no link
    assert bob.page.locator(".chat-messages b, .chat-messages a").count() == 0
    cat.say("nice opening")
    cat.sees("nice opening")
    bob.say("thanks Ann")
    ann.sees("thanks Ann")
    assert "nice opening" not in ann.texts() + bob.texts()
    assert "thanks Ann" not in cat.texts()

    # an over-long message: the counter says so, and the server's reason is shown
    ann.page.fill(".chat-input", "x" * (MAX_TEXT + 1))
    ann.page.wait_for_selector(f".chat-counter.over:text-is('{MAX_TEXT + 1}/{MAX_TEXT}')",
                               timeout=WAIT)
    ann.page.click(".chat-form button[type=submit]")
    ann.page.wait_for_selector(f".chat-notice:has-text('{MAX_TEXT}')", timeout=WAIT)
    assert len(ann.texts()) == 2
    SHOTS.mkdir(exist_ok=True)
    ann.page.fill(".chat-input", "")
    assert bob.page.input_value(".chat-input") == ""  # what he sent is cleared
    bob.page.locator("#chat").scroll_into_view_if_needed()
    bob.page.screenshot(path=str(SHOTS / "chat-desktop.png"), animations="disabled")

    # a report of the other's message is kept for the moderators
    bob.page.click(".chat-message:not(.mine) .chat-report")
    bob.page.wait_for_selector(".chat-message:not(.mine) .chat-report:text-is('Reported')",
                               timeout=WAIT)
    assert bob.page.locator(".chat-message.mine .chat-report").count() == 0
    storage: Any = open_storage(data_dir=site[1], beside_server=True)
    try:
        [report] = [r for r in storage.chat_reports() if r.game_id == game_id]
        assert report.reporter_id == bob.id and report.reported_id == ann.id

        # mute: nothing shown, and it says so; unmute brings the messages back
        bob.page.click(".chat-mute")
        bob.page.wait_for_selector(".chat-muted", timeout=WAIT)
        assert bob.page.locator(".chat-messages").count() == 0
        ann.say("while you were away")
        ann.sees("while you were away")
        assert bob.page.locator(".chat-message").count() == 0  # pushed, not shown
        bob.page.click(".chat-mute")
        bob.sees("while you were away")

        # a block: Bob sees none of Ann's messages, and neither may write to the other
        storage.set_relation(bob.id, ann.id, "block", True, 0)
    finally:
        storage.close()
    bob.open(game_id)
    bob.sees("thanks Ann")
    assert bob.texts() == ["thanks Ann"]
    bob.page.wait_for_selector(".chat-refusal:has-text('blocked')", timeout=WAIT)
    ann.open(game_id, ann_token)
    ann.page.wait_for_selector(".chat-refusal:has-text('blocked')", timeout=WAIT)


def test_a_guest_reads_after_asking_and_chat_is_off_against_the_computer(
        visitors: Any) -> None:
    ann, bob, cat = (visitors(DESKTOP, who) for who in ("Ann2", "Bob2", "Cat2"))
    game_id, ann_token = rated_game(ann, bob)
    cat.open(game_id)
    cat.say("hello watchers")
    cat.sees("hello watchers")
    guest = visitors(DESKTOP, None)
    page = guest.open(game_id)
    page.wait_for_selector(".chat-show", timeout=WAIT)
    assert page.locator(".chat-messages").count() == 0  # off for guests by default
    page.click(".chat-show")
    guest.sees("hello watchers")
    page.wait_for_selector(".chat-refusal:has-text('guests do not write')", timeout=WAIT)
    assert page.locator(".chat-input").count() == 0
    # once the game is over its players read the watchers' room too (without a reload)
    assert bob.page.locator(".chat-tab").count() == 1
    ended = ann.context.request.post(f"{ann.url}/api/games/{game_id}/resign",
                                     data={"token": ann_token})
    assert ended.ok, ended.text()
    bob.page.click(".chat-tab[data-room=spectators]", timeout=WAIT)
    bob.sees("hello watchers")
    # against the computer: no rooms at all
    made = ann.context.request.post(ann.url + "/api/games", data={
        "game": "benediction", "mode": "ai", "level": 1}).json()
    ann.open(made["id"], made["token"])
    ann.page.wait_for_selector(".chat-off:has-text('against the computer')", timeout=WAIT)


def test_the_chat_at_phone_size(visitors: Any) -> None:
    ann, bob = (visitors(PHONE, who) for who in ("Ann3", "Bob3"))
    game_id, ann_token = rated_game(ann, bob)
    ann.open(game_id, ann_token)
    ann.say("ready?")
    bob.sees("ready?")
    bob.say("always")
    ann.sees("always")
    for who in (ann, bob):  # the panel fits the phone's width: nothing scrolls sideways
        width = who.page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], width
        box = who.page.locator("#chat").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    bob.page.locator("#chat").scroll_into_view_if_needed()
    SHOTS.mkdir(exist_ok=True)
    bob.page.screenshot(path=str(SHOTS / "chat-phone.png"), animations="disabled",
                        full_page=False)
