"""Tournaments run by two real ``hexgames serve`` processes on one PostgreSQL (issue 42:
"exactly one process pairs a round or a wave, tested with two processes"). Both
processes tick every second; the players join and play through either of them. Each
arena wave must give every waiting player exactly one game, once, whichever process
won the wave's claim. No timing is asserted: each wait is bounded and polls.

Here the two processes' ticks race as they do on a real site; the race itself (two
directors reading the same step at once, one claim winning) is forced in
``test_web_tournament_director.py::test_two_directors_on_one_postgres_pair_each_*``."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import httpx

from test_web_scale import two_servers  # noqa: F401 - a fixture
from test_web_storage import postgres_cluster, postgres_url  # noqa: F401 - fixtures

REALTIME = {"kind": "realtime", "base_s": 180, "increment_s": 2}
WAIT_S = 60.0


class Player:
    """A named player's browser (its identity cookie), talking to either process."""

    def __init__(self, urls: list[str], name: str) -> None:
        self.urls = urls
        self.http = httpx.Client(timeout=30)
        answer = self.http.post(f"{urls[0]}/api/me/name", json={"name": name})
        assert answer.status_code == 200, answer.text
        self.id = str(answer.json()["id"])

    def post(self, process: int, path: str, body: Any = None) -> httpx.Response:
        return self.http.post(f"{self.urls[process]}{path}", json=body)

    def get(self, process: int, path: str) -> Any:
        answer = self.http.get(f"{self.urls[process]}{path}")
        assert answer.status_code == 200, answer.text
        return answer.json()


def live(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [game for game in view["games"] if game["result"] is None and game["second"]]


def wait_for_live(player: Player, tournament_id: str, count: int,
                  played: int) -> dict[str, Any]:
    """The tournament once it has ``count`` live games, each with its game created, and
    ``played`` games in all, read from each process in turn (bounded)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        for process in (0, 1):
            view = player.get(process, f"/api/tournaments/{tournament_id}")
            games = live(view)
            if (len(games) == count and len(view["games"]) == played
                    and all(game["game_id"] for game in games)):  # created and attached
                return dict(view)
        assert time.monotonic() < deadline, (count, played, view["games"])
        time.sleep(0.2)


def test_two_processes_pair_each_arena_wave_exactly_once(
        two_servers: tuple[list[str], list[Any]]) -> None:  # noqa: F811
    two_urls, _ = two_servers
    players = [Player(two_urls, f"Proc{n}") for n in range(6)]
    made = players[0].post(0, "/api/tournaments", {
        "game": "dendria", "options": {"board_side": 5}, "kind": "arena", "minutes": 30,
        "control": REALTIME, "rated": False, "starts_in_s": 0})
    assert made.status_code == 201, made.text
    tournament_id = made.json()["id"]
    for number, player in enumerate(players):  # half join through each process
        joined = player.post(number % 2, f"/api/tournaments/{tournament_id}/join")
        assert joined.status_code == 200, joined.text
    by_id = {player.id: player for player in players}
    played = 0
    for wave in range(2):
        played += 3
        view = wait_for_live(players[0], tournament_id, 3, played)
        pairings = live(view)
        seated = Counter(game[seat] for game in pairings for seat in ("first", "second"))
        assert seated == Counter(list(by_id)), f"wave {wave}: {pairings}"  # everyone, once
        assert len({game["game_id"] for game in pairings}) == 3
        time.sleep(2.5)  # two more ticks on each process: a second claim would pair again
        again = players[1].get(1, f"/api/tournaments/{tournament_id}")
        assert len(again["games"]) == played and live(again) == pairings
        for number, game in enumerate(pairings):  # the second player of each resigns
            loser = by_id[game["second"]]
            process = number % 2
            opened = loser.get(process, f"/api/games/{game['game_id']}")
            assert opened["mode"] == "online" and not opened["is_over"]
            # The loser's browser opens the game (gets the seat's credential), resigns.
            claimed = loser.post(process, f"/api/games/{game['game_id']}/claim", {}).json()
            assert claimed["role"] == "player", claimed
            resigned = loser.post(process, f"/api/games/{game['game_id']}/resign",
                                  {"token": claimed["token"]})
            assert resigned.status_code == 200, resigned.text
    final = wait_for_live(players[0], tournament_id, 3, played + 3)
    results = [game["result"] for game in final["games"] if game["result"] is not None]
    assert results == ["first"] * 6
