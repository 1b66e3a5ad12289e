"""Absent opponents (issue 32, item 4): the documented limits, claims accepted only when
the opponent has really been gone long enough (sockets and actions, in this process and,
through storage, in others), the results and ratings they record, and refusals.

Time is injected and the presence beat is run by the tests, so nothing sleeps; the only
waits are bounded waits for a closed socket's handler to run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import test_web_storage
from hexgames.web.game.clocks import DAY_MS, TimeControl
from hexgames.web.play.absence import PRESENCE_BEAT, AbsenceLimits, claim_after_ms
from hexgames.web.storage import open_storage
from test_web_housekeeping import wait_for
from test_web_lobby import FakeTime, play_turn, state, visitor
from test_web_pools import quiet_app

backend = test_web_storage.backend
postgres_cluster = test_web_storage.postgres_cluster
postgres_url = test_web_storage.postgres_url

REALTIME = {"kind": "realtime", "base_s": 180, "increment_s": 2}  # 3+2: 26 s


@pytest.fixture
def time_() -> FakeTime:
    return FakeTime()


@pytest.fixture
def client(tmp_path: Path, time_: FakeTime) -> Iterator[TestClient]:
    with TestClient(quiet_app(time_, data_dir=tmp_path)) as test_client:
        yield test_client


def rated_game(client: TestClient, control: dict[str, Any] | None) -> tuple[str, str, str]:
    """A rated game between Ann (red, seat 0) and Bob: its id and both tokens."""
    for who in ("Ann", "Bob"):
        with visitor(client, who):
            client.post("/api/me/name", json={"name": who})
    with visitor(client, "Ann"):
        posted = client.post("/api/seeks", json={"game": "benediction", "color": "red",
                                                 "rated": True, "control": control}).json()
    with visitor(client, "Bob"):
        taken = client.post(f"/api/seeks/{posted['id']}/accept").json()
    return taken["id"], posted["token"], taken["token"]


def claim(client: TestClient, game_id: str, token: str | None, what: str = "victory") -> Any:
    return client.post(f"/api/games/{game_id}/absence-claim",
                       json={"token": token, "claim": what})


def held(client: TestClient, game_id: str) -> Any:
    return client.app.state.site.service.games.matches[game_id]


# ------------------------------------------------------------------ the limits
def test_the_documented_limits() -> None:
    def realtime(base: float, increment: float) -> float | None:
        return claim_after_ms(TimeControl("realtime", base, increment))

    assert realtime(60, 1) == 10_000          # 1+1: (60 + 40) / 10 s
    assert realtime(180, 2) == 26_000         # 3+2
    assert realtime(300, 3) == realtime(600, 5) == 30_000  # at most 30 s
    assert realtime(6, 0) == 10_000           # at least 10 s
    assert claim_after_ms(TimeControl()) == 3 * DAY_MS  # untimed: three days
    assert claim_after_ms(TimeControl("correspondence", days=2)) is None  # the deadline
    short = AbsenceLimits(realtime_s=2, untimed_s=60)
    assert claim_after_ms(TimeControl("realtime", 600, 5), short) == 2_000
    assert claim_after_ms(TimeControl(), short) == 60_000
    # Several processes: never below three presence beats.
    assert claim_after_ms(TimeControl("realtime", 600, 5), short, shared=True) == \
        3 * PRESENCE_BEAT * 1000
    assert AbsenceLimits.from_environ({"HEXGAMES_ABSENCE_REALTIME_S": "3",
                                       "HEXGAMES_ABSENCE_UNTIMED_S": "90"}) == \
        AbsenceLimits(3.0, 90.0)
    assert AbsenceLimits.from_environ({"HEXGAMES_ABSENCE_REALTIME_S": "soon",
                                       "HEXGAMES_ABSENCE_UNTIMED_S": "-1"}) == AbsenceLimits()


# -------------------------------------------------------------------- claims
def test_a_real_time_claim_once_the_opponent_has_been_gone_long_enough(
        client: TestClient, time_: FakeTime) -> None:
    game_id, red, blue = rated_game(client, REALTIME)
    with client.websocket_connect(f"/ws/games/{game_id}?token={red}"):
        with client.websocket_connect(f"/ws/games/{game_id}?token={blue}"):
            play_turn(client, game_id, red)
            play_turn(client, game_id, blue)
            time_.ms += 60_000
            refused = claim(client, game_id, red)
            assert refused.status_code == 409 and "Blue is connected" in refused.json()["error"]
            assert state(client, game_id, red)["absent"] == []
        wait_for(lambda: 1 in held(client, game_id).gone, client)  # Blue's page closed
        assert state(client, game_id, red)["absent"] == [
            {"seat": 1, "gone_ms": 0, "claim_in_ms": 26_000}]
        time_.ms += 25_999
        early = claim(client, game_id, red)
        assert early.status_code == 409 and "claim in 1 s" in early.json()["error"]
        assert claim(client, game_id, blue).status_code == 409  # Red is here
        time_.ms += 1
        won = claim(client, game_id, red)
    assert won.status_code == 200, won.text
    view = won.json()
    assert view["is_over"] and view["winner"] == "red" and view["absent"] == []
    assert view["result"] == "Red wins (Blue left the game)"
    assert view["clock"]["running"] is None
    changes = {change["seat"]: change["change"] for change in view["rating_changes"]}
    assert changes[0] > 0 > changes[1]
    record = client.get(f"/api/games/{game_id}/record").text
    assert '[Termination "opponent left"]' in record and '[Result "1-0"]' in record
    again = claim(client, game_id, red)
    assert again.status_code == 409 and "over" in again.json()["error"]


def test_a_player_back_restarts_the_countdown_and_a_draw_is_rated(
        client: TestClient, time_: FakeTime) -> None:
    game_id, red, blue = rated_game(client, REALTIME)
    blue_url = f"/ws/games/{game_id}?token={blue}"
    with client.websocket_connect(f"/ws/games/{game_id}?token={red}"):
        with client.websocket_connect(blue_url):
            play_turn(client, game_id, red)
            play_turn(client, game_id, blue)
        wait_for(lambda: 1 in held(client, game_id).gone, client)
        time_.ms += 20_000
        with client.websocket_connect(blue_url):  # back
            wait_for(lambda: 1 not in held(client, game_id).gone, client)
            assert state(client, game_id, red)["absent"] == []
            time_.ms += 10_000
            assert claim(client, game_id, red).status_code == 409
        wait_for(lambda: 1 in held(client, game_id).gone, client)  # gone again: from now
        time_.ms += 25_000
        assert claim(client, game_id, red, "draw").status_code == 409
        time_.ms += 1_000
        drawn = claim(client, game_id, red, "draw").json()
    assert drawn["is_over"] and drawn["winner"] == "draw"
    assert drawn["result"] == "draw (Blue left the game)"
    assert [change["change"] for change in drawn["rating_changes"]] == [0.0, 0.0]
    ann = client.get("/api/players/Ann").json()["ratings"][0]
    assert (ann["games"], ann["draws"]) == (1, 1)
    assert '[Result "1/2-1/2"]' in client.get(f"/api/games/{game_id}/record").text


def test_an_action_counts_as_presence(client: TestClient, time_: FakeTime) -> None:
    """Blue plays over HTTP only (no socket): each action is a sign of life."""
    game_id, red, blue = rated_game(client, REALTIME)
    with client.websocket_connect(f"/ws/games/{game_id}?token={red}"):
        play_turn(client, game_id, red)
        play_turn(client, game_id, blue)
        play_turn(client, game_id, red)
        time_.ms += 20_000
        play_turn(client, game_id, blue)
        play_turn(client, game_id, red)
        time_.ms += 10_000
        refused = claim(client, game_id, red)
        assert refused.status_code == 409 and "gone 10 s" in refused.json()["error"]
        time_.ms += 16_000
        assert claim(client, game_id, red).json()["winner"] == "red"


def test_an_untimed_game_waits_the_long_absence(client: TestClient, time_: FakeTime) -> None:
    game_id, red, blue = rated_game(client, None)
    play_turn(client, game_id, red)
    play_turn(client, game_id, blue)
    assert state(client, game_id, red)["absent"][1:] == []
    time_.ms += 3 * DAY_MS - 1
    assert claim(client, game_id, red).status_code == 409
    time_.ms += 1
    assert claim(client, game_id, red).json()["result"] == "Red wins (Blue left the game)"


def test_a_correspondence_game_is_claimed_at_the_deadline(
        client: TestClient, time_: FakeTime) -> None:
    game_id, red, blue = rated_game(client, {"kind": "correspondence", "days": 1})
    play_turn(client, game_id, red)
    play_turn(client, game_id, blue)
    play_turn(client, game_id, red)
    with client.websocket_connect(f"/ws/games/{game_id}?token={red}"):  # Red's page
        assert state(client, game_id, red)["absent"] == [
            {"seat": 1, "gone_ms": 0, "claim_in_ms": None}]  # the deadline decides
    time_.ms += DAY_MS
    early = claim(client, game_id, red)
    assert early.status_code == 409 and "time to move is up" in early.json()["error"]
    time_.ms += 500  # the deadline and its lag credit (the flag-fall watch is off here)
    assert claim(client, game_id, red).json()["winner"] == "red"


def test_claims_are_refused_to_whoever_may_not_make_them(client: TestClient,
                                                          time_: FakeTime) -> None:
    game_id, red, blue = rated_game(client, REALTIME)
    play_turn(client, game_id, red)
    time_.ms += 3600_000
    early = claim(client, game_id, red)  # Blue never moved: that is what abort is for
    assert early.status_code == 409 and "abort" in early.json()["error"]
    play_turn(client, game_id, blue)
    time_.ms += 60_000
    assert claim(client, game_id, None).status_code == 403
    assert claim(client, game_id, "not-a-token").status_code == 403
    assert claim(client, game_id, red, "win").status_code == 400
    assert client.post(f"/api/games/{game_id}/absence-claim",
                       json={"token": red}).status_code == 400
    assert claim(client, "no-such-game", red).status_code == 404
    with client.websocket_connect(f"/ws/games/{game_id}?token={red}") as socket:
        socket.send_json({"type": "absence_claim", "claim": 3})
        while (message := socket.receive_json())["type"] != "error":
            pass
        assert '"claim" must be' in message["message"]
    hotseat = client.post("/api/games", json={"game": "benediction", "mode": "hotseat"}).json()
    refused = claim(client, hotseat["id"], hotseat["token"])
    assert refused.status_code == 409 and "online games only" in refused.json()["error"]
    assert not state(client, game_id, None)["is_over"]
    with client.websocket_connect(f"/ws/games/{game_id}?token={red}") as socket:
        socket.send_json({"type": "absence_claim", "claim": "victory"})
        while not (message := socket.receive_json()).get("is_over"):
            assert message["type"] != "error", message
    assert message["result"] == "Red wins (Blue left the game)"


# ---------------------------------------------------------- several processes
def test_presence_keeps_the_latest_moment(backend: tuple[str, dict]) -> None:
    storage = open_storage(**backend[1])
    try:
        storage.touch_presence([("g", 0, 100), ("g", 1, 70), ("h", 0, 5)])
        storage.touch_presence([("g", 0, 50), ("g", 1, 90)])
        storage.touch_presence([])
        assert storage.presence(["g", "h", "none"]) == {"g": {0: 100, 1: 90}, "h": {0: 5}}
        assert storage.presence([]) == {}
    finally:
        storage.close()


def test_a_player_connected_to_another_process_is_not_gone(
        postgres_url: str, time_: FakeTime) -> None:
    """Blue's page is on one server process, Red's on another (one PostgreSQL): Red's
    process learns from storage whether Blue is there."""
    with (TestClient(quiet_app(time_, database_url=postgres_url)) as one,
          TestClient(quiet_app(time_, database_url=postgres_url)) as two):
        game_id, red, blue = rated_game(one, REALTIME)
        beats = [client.app.state.site.service.absence.beat for client in (one, two)]
        with two.websocket_connect(f"/ws/games/{game_id}?token={red}"):
            with one.websocket_connect(f"/ws/games/{game_id}?token={blue}"):
                play_turn(one, game_id, red)
                play_turn(one, game_id, blue)
                time_.ms += 60_000
                one.portal.call(beats[0])  # Blue seen now, by process one
                two.portal.call(beats[1])
                two.portal.call(two.app.state.site.service.refresh, game_id)
                assert state(two, game_id, red)["absent"] == []
                refused = claim(two, game_id, red)
                assert refused.status_code == 409 and "gone 0 s" in refused.json()["error"]
            wait_for(lambda: (game_id, 1) not in one.app.state.site.service.absence._here, one)
            left = time_.ms
            one.portal.call(beats[0])  # the moment Blue left, stored
            two.portal.call(beats[1])
            assert held(two, game_id).gone == {}  # as if connected there: too recent
            time_.ms += 2 * PRESENCE_BEAT * 1000
            two.portal.call(beats[1])
            assert held(two, game_id).gone == {1: left}
            assert state(two, game_id, red)["absent"][0]["claim_in_ms"] == 18_000
            time_.ms += 17_999
            assert claim(two, game_id, red).status_code == 409
            time_.ms += 1
            assert claim(two, game_id, red).json()["winner"] == "red"


def test_the_presence_beat_runs_by_itself(tmp_path: Path, time_: FakeTime,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The service's beat task stores when each connected seat was seen (its period
    shortened; the wait for it is bounded)."""
    from hexgames.web.play import absence

    monkeypatch.setattr(absence, "PRESENCE_BEAT", 0.01)
    app = quiet_app(time_, data_dir=tmp_path)
    app.state.site.service.presence = True
    with TestClient(app) as client:
        game_id, red, _blue = rated_game(client, REALTIME)
        storage = client.app.state.site.service.storage
        with client.websocket_connect(f"/ws/games/{game_id}?token={red}"):
            time_.ms += 5_000
            wait_for(lambda: storage.presence([game_id]).get(game_id, {}).get(0)
                     == int(time_.ms), client)
