"""Housekeeping, lobby shares, creation limits and clock rules (issue 31, rows 6, 11, 13, 15).

Time is injected (the service's clock is a value the test moves forward); the watch, the
housekeeping task and the departed-poster timer are run by calling what they call
(``check_clocks``, ``housekeep``, ``withdraw_departed``), so nothing sleeps on a timer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hexgames.errors import IllegalAction
from hexgames.web.app import create_app
from hexgames.web.game.clocks import FIRST_TURN_LIMIT_MS, wall_ms
from hexgames.web.http import identity as identity_module
from hexgames.web.routes import games as game_routes
from test_web_lobby import accept, play_turn, seek_and_accept, state, visitor

DAY_MS = 86_400_000


class FakeTime:
    """Starts at the real time (rows carry real creation stamps) and moves on demand."""

    def __init__(self) -> None:
        self.ms = float(int(wall_ms()))

    def __call__(self) -> float:
        return self.ms


@pytest.fixture
def time_() -> FakeTime:
    return FakeTime()


def make_app(path: Path, time_: FakeTime) -> Any:
    app = create_app(data_dir=path, ai_processes=1)
    app.state.site.service.now = time_
    app.state.site.service.watch_clocks = False
    app.state.site.service.housekeeping = False
    return app


@pytest.fixture
def client(tmp_path: Path, time_: FakeTime) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path, time_)) as test_client:
        yield test_client


def invitation(client: TestClient, control: dict[str, Any] | None) -> dict[str, Any]:
    made = client.post("/api/games", json={"game": "benediction", "mode": "online",
                                           "control": control})
    assert made.status_code == 201, made.text
    return made.json()


REALTIME = {"kind": "realtime", "base_s": 60, "increment_s": 0}


# ------------------------------------------------------ row 13: invitations, guests
def test_an_unopened_realtime_invitation_is_written_once_not_every_minute(
        client: TestClient, time_: FakeTime, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    service = client.app.state.site.service
    writes: list[str] = []
    original = service.storage.set_meta

    def counted(game_id: str, *args: Any, **kwargs: Any) -> Any:
        writes.append(game_id)
        return original(game_id, *args, **kwargs)

    monkeypatch.setattr(service.storage, "set_meta", counted)
    made = invitation(client, REALTIME)
    for _ in range(5):  # five first-turn limits pass, the link still unopened
        time_.ms += FIRST_TURN_LIMIT_MS + 1_000
        client.portal.call(service.resync_clocks)
        assert client.portal.call(service.check_clocks) == []
    assert writes == [made["id"]]  # paused once; before: once a minute, forever
    assert [row for row in service.storage.clocked_games() if row[0] == made["id"]] == []
    view = state(client, made["id"], made["token"])
    assert not view["is_over"] and view["clock"]["abort_in_ms"] == FIRST_TURN_LIMIT_MS
    # Opened at last: the friend's first-turn limit starts then.
    link = made["links"]["seats"][1].split("token=")[1]
    with visitor(client, "friend"):
        claimed = client.post(f"/api/games/{made['id']}/claim", json={"token": link})
    assert claimed.json()["role"] == "player"
    time_.ms += FIRST_TURN_LIMIT_MS - 1
    assert client.portal.call(service.check_clocks) == []
    time_.ms += 1
    assert client.portal.call(service.check_clocks) == [made["id"]]  # creator never moved


def test_unopened_invitations_expire_and_challenges_too(
        client: TestClient, time_: FakeTime) -> None:
    service = client.app.state.site.service
    quick = invitation(client, REALTIME)
    untimed = invitation(client, None)
    slow = invitation(client, {"kind": "correspondence", "days": 3})
    posted = client.post("/api/seeks", json={"game": "dendria"}).json()
    time_.ms += DAY_MS - 60_000  # the challenge's hour is over; not the invitations' day
    done = client.portal.call(service.housekeep)
    assert done["invitations"] == 0 and done["seeks"] == 1
    time_.ms += 120_000
    assert client.portal.call(service.housekeep)["invitations"] == 2
    for game in (quick, untimed):
        view = state(client, game["id"], game["token"])
        assert view["is_over"] and view["winner"] is None and "aborted" in view["result"]
    assert not state(client, slow["id"], slow["token"])["is_over"]
    assert client.get(f"/api/seeks/{posted['id']}").json()["status"] == "expired"
    time_.ms += 6 * DAY_MS
    assert client.portal.call(service.housekeep)["invitations"] == 1
    assert state(client, slow["id"], slow["token"])["is_over"]
    assert client.portal.call(service.housekeep) == {"seeks": 0, "invitations": 0,
                                                     "guests": 0}


def test_idle_guests_are_deleted_named_ones_and_players_kept(
        client: TestClient, time_: FakeTime) -> None:
    service = client.app.state.site.service
    ids = {}
    for who in ("idle", "named", "player", "opponent", "aborter"):
        with visitor(client, who):
            ids[who] = client.get("/api/me").json()["id"]
    with visitor(client, "named"):
        assert client.post("/api/me/name", json={"name": "Keeper"}).status_code == 200
    with visitor(client, "player"):
        game = invitation(client, None)
    with visitor(client, "opponent"):
        link = game["links"]["seats"][1].split("token=")[1]
        client.post(f"/api/games/{game['id']}/claim", json={"token": link})
    with visitor(client, "aborter"):
        invitation(client, REALTIME)  # never opened: aborted after a day
    time_.ms += 29 * DAY_MS
    assert client.portal.call(service.housekeep)["guests"] == 0
    time_.ms += 2 * DAY_MS
    assert client.portal.call(service.housekeep)["guests"] == 2
    storage = service.storage
    assert storage.player_by_id(ids["idle"]) is None
    assert storage.player_by_id(ids["aborter"]) is None
    for kept in ("named", "player", "opponent"):
        assert storage.player_by_id(ids[kept]) is not None
    with visitor(client, "idle"):  # the old cookie names nobody: a new guest
        assert client.get("/api/me").json()["id"] != ids["idle"]


def test_new_identities_and_games_are_limited_per_address(client: TestClient) -> None:
    for n in range(identity_module.NEW_IDENTITIES_PER_ADDRESS):
        with visitor(client, f"new{n}"):
            assert client.get("/api/me").status_code == 200
    with visitor(client, "one-too-many"):
        refused = client.get("/api/me")
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
        page = client.get("/")  # a page still loads, without an identity
        assert page.status_code == 200 and "set-cookie" not in page.headers
    codes = [client.post("/api/games", json={"game": "benediction", "mode": "hotseat"})
             .status_code for _ in range(game_routes.GAMES_PER_ADDRESS + 1)]
    assert codes[:-1] == [201] * game_routes.GAMES_PER_ADDRESS and codes[-1] == 429
    limited = client.post("/api/games", json={"game": "benediction", "mode": "hotseat"})
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) > 0


# ------------------------------------------------------------- row 11: the lobby
def test_one_address_has_a_small_share_of_the_lobby(client: TestClient) -> None:
    from hexgames.web.lobby import challenges as lobby_module

    share = lobby_module.MAX_OPEN_SEEKS_PER_ADDRESS
    assert share * 10 <= lobby_module.MAX_OPEN_SEEKS
    codes = []
    for n in range(share + 1):
        with visitor(client, f"sybil{n}"):
            codes.append(client.post("/api/seeks", json={"game": "dendria"}))
    assert [r.status_code for r in codes[:share]] == [201] * share
    assert codes[-1].status_code == 409 and "your address" in codes[-1].json()["error"]
    assert "from" not in codes[0].json()["seek"]  # the address tag is not shown
    service = client.app.state.site.service
    other = {"player_id": "someone-else", "name": "Guest-other"}
    seek, _ = client.portal.call(lambda: service.create_seek(
        "dendria", None, None, "random", False, other, None, address="198.51.100.7"))
    assert seek.status == "open"
    with pytest.raises(IllegalAction):  # the same address, yet another identity
        client.portal.call(lambda: service.create_seek(
            "dendria", None, None, "random", False,
            {"player_id": "x", "name": "Guest-x"}, None, address="testclient"))


def wait_for(condition: Any, client: TestClient) -> None:
    """Wait (bounded, on the app's loop) until ``condition()`` holds."""
    for _ in range(300):
        if condition():
            return
        client.portal.call(asyncio.sleep, 0.01)
    raise AssertionError("the condition never held")


def test_a_departed_posters_realtime_challenges_are_withdrawn(
        client: TestClient, time_: FakeTime) -> None:
    from hexgames.web.lobby.challenges import LOBBY_LEAVE_GRACE

    service = client.app.state.site.service
    me = client.get("/api/me").json()["id"]
    with client.websocket_connect("/ws/lobby") as socket:
        assert socket.receive_json()["type"] == "lobby"
        quick = client.post("/api/seeks", json={"game": "dendria", "control": REALTIME}).json()
        slow = client.post("/api/seeks", json={"game": "dendria", "control": {
            "kind": "correspondence", "days": 2}}).json()
    wait_for(lambda: me in service.lobby.departed, client)
    # Back within the grace period: nothing is withdrawn.
    time_.ms += LOBBY_LEAVE_GRACE * 1000 / 2
    with client.websocket_connect("/ws/lobby") as socket:
        assert socket.receive_json()["type"] == "lobby"
        wait_for(lambda: me not in service.lobby.departed, client)
        time_.ms += LOBBY_LEAVE_GRACE * 1000
        assert client.portal.call(service.withdraw_departed) == []
    wait_for(lambda: me in service.lobby.departed, client)
    time_.ms += LOBBY_LEAVE_GRACE * 1000 - 1
    assert client.portal.call(service.withdraw_departed) == []
    time_.ms += 1
    assert client.portal.call(service.withdraw_departed) == [quick["id"]]
    assert client.get(f"/api/seeks/{quick['id']}").json()["status"] == "expired"
    assert client.get(f"/api/seeks/{slow['id']}").json()["status"] == "open"
    assert accept(client, quick["id"]).status_code == 409


# ------------------------------------------------------------- row 15: clocks
def test_a_move_within_the_lag_credit_after_the_deadline_counts(
        client: TestClient, time_: FakeTime) -> None:
    service = client.app.state.site.service
    game_id, (red, blue) = seek_and_accept(
        client, {"kind": "realtime", "base_s": 10, "increment_s": 0})
    play_turn(client, game_id, red)
    play_turn(client, game_id, blue)
    time_.ms += 10_100  # 100 ms after red's deadline
    assert client.portal.call(service.check_clocks) == []  # the watch waits for the lag
    view = state(client, game_id, red)
    late = client.post(f"/api/games/{game_id}/actions", json={
        "token": red, "action": view["legal"][0]["action"], "ply": view["ply"], "lag": 500})
    assert late.status_code == 200, late.text
    assert not late.json()["is_over"]


def test_a_late_move_without_lag_is_still_refused(client: TestClient, time_: FakeTime) -> None:
    game_id, (red, blue) = seek_and_accept(
        client, {"kind": "realtime", "base_s": 10, "increment_s": 0})
    play_turn(client, game_id, red)
    play_turn(client, game_id, blue)
    time_.ms += 10_100
    view = state(client, game_id, red)
    late = client.post(f"/api/games/{game_id}/actions",
                       json={"token": red, "action": view["legal"][0]["action"], "lag": 0})
    assert late.status_code == 409 and "your time ran out" in late.json()["error"]


def test_an_outage_is_not_charged_to_the_player_to_move(
        tmp_path: Path, time_: FakeTime) -> None:
    with TestClient(make_app(tmp_path, time_)) as client:
        game_id, (red, blue) = seek_and_accept(
            client, {"kind": "realtime", "base_s": 60, "increment_s": 0})
        play_turn(client, game_id, red)
        play_turn(client, game_id, blue)
        time_.ms += 2_000
        assert state(client, game_id, red)["clock"]["left_ms"] == [58_000, 60_000]
    time_.ms += 13_500  # the server is down
    with TestClient(make_app(tmp_path, time_)) as client:
        view = state(client, game_id, red)
        assert view["clock"]["left_ms"] == [58_000, 60_000]  # before: 44,500
        assert view["clock"]["running"] == 0
        time_.ms += 1_000
        assert state(client, game_id, red)["clock"]["left_ms"] == [57_000, 60_000]


def test_a_short_gap_while_another_process_kept_the_clocks_is_not_credited(
        tmp_path: Path, time_: FakeTime) -> None:
    with TestClient(make_app(tmp_path, time_)) as client:
        game_id, (red, blue) = seek_and_accept(
            client, {"kind": "realtime", "base_s": 60, "increment_s": 0})
        play_turn(client, game_id, red)
        play_turn(client, game_id, blue)
    time_.ms += 3_000  # a quick restart: within two heartbeats
    with TestClient(make_app(tmp_path, time_)) as client:
        assert state(client, game_id, red)["clock"]["left_ms"] == [57_000, 60_000]
