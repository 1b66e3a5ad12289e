"""The game page without its socket (issue 39, row 1), in headless chromium: a player
whose socket is down or refused still sees the board and moves, over HTTP."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest

import test_web_browser
from test_web_browser import api_state, enter, pick

pytestmark = pytest.mark.browser

server = test_web_browser.server
browser = test_web_browser.browser
page = test_web_browser.page


@pytest.mark.parametrize("game", ["benediction", "dendria"])
def test_a_player_moves_over_http_while_the_socket_is_down(page: Any, server: str,
                                                           game: str) -> None:
    made = httpx.post(f"{server}/api/games", json={"game": game, "mode": "hotseat"},
                      timeout=30).json()
    game_id, token = made["id"], made["token"]
    closed: list[str] = []

    def refuse(socket: Any) -> None:  # every game socket closes at once, never reaching
        closed.append(socket.url)      # the server: a network that drops WebSockets
        socket.close()

    page.route_web_socket(re.compile(r"/ws/games/"), refuse)
    page.goto(server + "/")
    page.evaluate("([id, token]) => localStorage.setItem('hexgames.tokens', "
                  "JSON.stringify({[id]: token}))", [game_id, token])
    page.goto(f"{server}/play/{game_id}")
    page.wait_for_selector(".board svg .hit[data-point]")
    for number in range(2):
        current = api_state(server, game_id, token)
        entry = pick(current["legal"], number)
        enter(page, entry)
        deadline = time.monotonic() + 30
        while api_state(server, game_id, token)["ply"] == number:
            assert time.monotonic() < deadline, "the move never reached the server"
            time.sleep(0.1)
        page.wait_for_function(
            f"document.querySelectorAll('#moves .act').length === {number + 1}")
    assert closed, "the page never tried its socket"
