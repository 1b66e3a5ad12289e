"""Turn alerts in a real browser (headless Debian chromium through Playwright, against a
real ``hexgames serve``), at desktop and phone sizes: Ann waits on the home page while Bob
moves in their correspondence game from another browser context; Ann's page plays the
sound and shows a notification, and nothing was asked of the browser before she clicked.
On the game's own page (focused) the same kind of turn is not announced.

``window.Notification`` and ``HTMLMediaElement.play`` are replaced by an init script that
records their calls (the context is granted the notifications permission too; the
recorder starts at "default" so that the page's asking can be seen).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from test_web_browser import browser, server, shot

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]

WAIT = 60_000  # ms: generous, for a busy machine
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

RECORDER = """
(() => {
  const calls = { notifications: [], requests: 0, sounds: [] };
  window.__alertCalls = calls;
  class RecordedNotification {
    constructor(title, options = {}) {
      calls.notifications.push({ title, body: options.body, tag: options.tag });
    }
    close() {}
    static get permission() { return sessionStorage.getItem("test-permission") || "default"; }
    static requestPermission() {
      calls.requests += 1;
      sessionStorage.setItem("test-permission", "granted");
      return Promise.resolve("granted");
    }
  }
  window.Notification = RecordedNotification;
  HTMLMediaElement.prototype.play = function () {
    calls.sounds.push(this.src);
    return Promise.resolve();
  };
})();
"""


@pytest.fixture
def people(browser: Any, request: pytest.FixtureRequest) -> Iterator[tuple[Any, Any, str]]:
    """Ann's page (recorded, notifications granted) and Bob's, at the test's viewport."""
    size = request.param
    extra = {"is_mobile": True, "has_touch": True} if size == "phone" else {}
    contexts = [browser.new_context(viewport=VIEWPORTS[size], bypass_csp=True,
                                    permissions=["notifications"] if who == "ann" else [],
                                    **extra) for who in ("ann", "bob")]
    contexts[0].add_init_script(RECORDER)
    pages = [context.new_page() for context in contexts]
    errors: list[str] = []
    for opened in pages:
        opened.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield pages[0], pages[1], size
    finally:
        for context in contexts:
            context.close()
    assert not errors, f"JavaScript errors: {errors}"


def post(page: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = page.evaluate("""async ([path, body]) => {
        const response = await fetch(path, {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
        return {status: response.status, data: await response.json()};
    }""", [path, body])
    assert answer["status"] in (200, 201), answer
    return dict(answer["data"])


def play_turn(server: str, game_id: str, token: str) -> int:
    """Play the seat's whole turn through the API; returns the ply it ends at."""
    while True:
        view = httpx.get(f"{server}/api/games/{game_id}", params={"token": token},
                         timeout=30).json()
        if not view["your_turn"]:
            return int(view["ply"])
        answer = httpx.post(f"{server}/api/games/{game_id}/actions", timeout=30, json={
            "token": token, "action": view["legal"][0]["action"], "ply": view["ply"]})
        assert answer.status_code == 200, answer.text


def calls(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("window.__alertCalls"))


def listening(page: Any) -> None:
    page.wait_for_function("window.hexgamesAlerts && window.hexgamesAlerts.listening",
                           timeout=WAIT)


def inside(page: Any, selector: str) -> None:
    """The element is shown entirely within the viewport's width."""
    box = page.locator(selector).bounding_box()
    width = page.viewport_size["width"]
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box


@pytest.mark.parametrize("people", list(VIEWPORTS), indirect=True)
def test_a_turn_elsewhere_plays_a_sound_and_notifies_after_a_polite_ask(
        server: str, people: tuple[Any, Any, str]) -> None:
    ann, bob, size = people
    ann_name, bob_name = f"Ann{size}", f"Bob{size}"
    for page, name in ((ann, ann_name), (bob, bob_name)):
        page.goto(server + "/")
        post(page, "/api/me/name", {"name": name})
    # Ann posts a correspondence challenge as blue; Bob (red) accepts and moves first.
    seek = post(ann, "/api/seeks", {"game": "benediction", "color": "blue",
                                    "control": {"kind": "correspondence", "days": 3}})
    game = post(bob, f"/api/seeks/{seek['id']}/accept", {})
    game_id, bob_token, ann_token = game["id"], game["token"], seek["token"]

    ann.goto(server + "/")
    listening(ann)
    assert calls(ann) == {"notifications": [], "requests": 0, "sounds": []}  # nothing asked
    inside(ann, "#alerts-toggle")
    ann.click("#alerts-toggle")
    ann.wait_for_selector("#alerts-panel:not([hidden]) #alerts-notify-ask")
    inside(ann, "#alerts-panel")
    assert calls(ann)["requests"] == 0  # the panel explains; the button asks
    shot(ann, f"web-alerts-panel-{size}")
    ann.click("#alerts-notify-ask")
    ann.wait_for_selector("#alerts-notify:checked")
    assert calls(ann)["requests"] == 1
    assert json.loads(ann.evaluate("localStorage.getItem('hexgames.alerts')")) == {
        "sound": True, "notify": True}
    ann.keyboard.press("Escape")
    ann.wait_for_selector("#alerts-panel", state="hidden")

    ply = play_turn(server, game_id, bob_token)
    ann.wait_for_function("window.hexgamesAlerts.log.length > 0", timeout=WAIT)
    assert ann.evaluate("window.hexgamesAlerts.log") == [
        {"key": f"{game_id}:{ply}", "what": "sound+notification"}]
    recorded = calls(ann)
    (notification,) = recorded["notifications"]
    assert notification["title"] == "Your turn · Benediction"
    assert notification["body"].startswith(f"{bob_name} played ")
    assert "3 days per turn" in notification["body"]
    assert notification["tag"] == f"hexgames-turn-{game_id}"
    assert [sound.endswith("/static/move.wav") for sound in recorded["sounds"]] == [True]
    ann.wait_for_selector(f"#your-turn li[data-game='{game_id}']", timeout=WAIT)
    shot(ann, f"web-alerts-home-{size}")

    # On the game's own page, which has the focus, the next turn is not announced.
    play_turn(server, game_id, ann_token)
    ann.goto(f"{server}/play/{game_id}")
    ann.wait_for_selector(".board svg", timeout=WAIT)
    listening(ann)
    assert calls(ann)["requests"] == 0  # remembered: not asked again
    ply = play_turn(server, game_id, bob_token)
    ann.wait_for_function("window.hexgamesAlerts.log.length > 0", timeout=WAIT)
    assert ann.evaluate("window.hexgamesAlerts.log") == [
        {"key": f"{game_id}:{ply}", "what": "watching"}]
    assert calls(ann)["notifications"] == [] and calls(ann)["sounds"] == []
    ann.click("#alerts-toggle")
    ann.wait_for_selector("#alerts-panel:not([hidden]) #alerts-notify:checked")


def test_turn_emails_are_set_up_from_the_panel_of_a_server_with_smtp_options(
        browser: Any, tmp_path: Any) -> None:
    """``hexgames serve --smtp-host ...`` against a real SMTP server (aiosmtpd): Ann gives
    her address in the bell's panel, confirms it from the email, opts in, and Bob's move
    in their correspondence game reaches her inbox. The password (environment only) is
    never printed."""
    import os
    import re

    from mail_support import MailServer, wait_until
    from server_support import start_serve, stop_serve

    site = "https://games.example.org"
    with MailServer() as smtp:
        process, url = start_serve(
            tmp_path, "--smtp-host", "127.0.0.1", "--smtp-port", str(smtp.port),
            "--smtp-tls", "none", "--smtp-from", "games@example.org", "--site-url", site,
            env={**os.environ, "DATABASE_URL": "", "HEXGAMES_SMTP_PASSWORD": "pw-4f2a9"})
        contexts = [browser.new_context(viewport=VIEWPORTS["desktop"], bypass_csp=True)
                    for _ in range(2)]
        try:
            ann, bob = (context.new_page() for context in contexts)
            for page, name in ((ann, "AnnMail"), (bob, "BobMail")):
                page.goto(url + "/")
                post(page, "/api/me/name", {"name": name})
            seek = post(ann, "/api/seeks", {"game": "benediction", "color": "blue",
                                            "control": {"kind": "correspondence", "days": 3}})
            game = post(bob, f"/api/seeks/{seek['id']}/accept", {})

            ann.goto(url + "/")
            ann.click("#alerts-toggle")
            ann.fill("#alerts-email", "ann@example.org")
            ann.click(".alerts-email-form button[type=submit]")
            ann.wait_for_selector("#alerts-email-status:has-text('Not confirmed yet')")
            ann.check("#alerts-email-on")
            ann.wait_for_function("document.querySelector('#alerts-email-on').checked")
            shot(ann, "web-alerts-email")
            wait_until(lambda: smtp.received, "the verification email")
            (to, message), = smtp.received
            assert to == ["ann@example.org"]
            found = re.search(re.escape(site) + r"(/alerts/verify\?token=\S+)",
                              message.get_content())
            assert found, message.get_content()
            ann.goto(url + found.group(1))
            assert "confirmed" in ann.inner_text("h1")

            play_turn(url, game["id"], game["token"])  # Bob's turn ends: Ann's email
            wait_until(lambda: len(smtp.received) == 2, "the turn email")
            to, email = smtp.received[1]
            assert to == ["ann@example.org"]
            assert email["Subject"] == "Your turn: Benediction against BobMail"
            assert f"{site}/play/{game['id']}" in email.get_content()
            ann.goto(url + "/")
            ann.click("#alerts-toggle")
            ann.wait_for_selector("#alerts-email-status:has-text('Confirmed: ann@example.org')")
        finally:
            for context in contexts:
                context.close()
            stop_serve(process)
        printed = "".join(process.output)  # type: ignore[attr-defined]
        assert f"turn emails go through smtp://127.0.0.1:{smtp.port} (none)" in printed
        assert "pw-4f2a9" not in printed


def test_the_bell_and_its_panel_obey_the_csp(browser: Any, server: str) -> None:
    """Under the site's real Content-Security-Policy (no bypass): the bell, its style
    sheet and its panel work on the home page and a game page, with no violation."""
    from test_web_browser import page_problems

    context = browser.new_context(viewport=VIEWPORTS["phone"])
    try:
        page = context.new_page()
        problems = page_problems(page)
        page.goto(server + "/")
        page.click("#alerts-toggle")
        page.wait_for_selector("#alerts-panel:not([hidden]) #alerts-sound:checked")
        page.uncheck("#alerts-sound")
        assert page.evaluate("JSON.parse(localStorage.getItem('hexgames.alerts')).sound") \
            is False
        page.goto(server + "/lobby")
        page.click("#alerts-toggle")
        page.wait_for_selector("#alerts-panel:not([hidden]) #alerts-sound:not(:checked)")
        box = page.locator("#alerts-toggle").bounding_box()
        brand = page.locator(".topbar .brand").bounding_box()
        assert box is not None and brand is not None
        assert box["y"] < brand["y"] + brand["height"]  # in the brand's row on a phone
        assert not problems, problems
    finally:
        context.close()
