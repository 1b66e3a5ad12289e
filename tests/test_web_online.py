"""Online play over WebSockets: two seats, a spectator, and everything a client may get
wrong (wrong token, out of turn, malformed JSON, a finished game)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from hexgames.web.app import create_app


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as test_client:
        yield test_client


def online_game(client: TestClient, game: str = "benediction") -> tuple[str, list[str]]:
    data = client.post("/api/games", json={"game": game, "mode": "online"}).json()
    return data["id"], data["tokens"]


def url(game_id: str, token: str | None = None) -> str:
    return f"/ws/games/{game_id}" + (f"?token={token}" if token else "")


def next_state(socket: Any) -> dict[str, Any]:
    message = socket.receive_json()
    assert message["type"] == "state", message
    return message


def joined(first: Any, second: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The states after both players connected: the first player is told of the second."""
    next_state(first)
    return next_state(first), next_state(second)


@pytest.mark.parametrize("game", ["benediction", "dendria"])
def test_two_players_and_a_spectator_share_every_move(client: TestClient, game: str) -> None:
    game_id, (first, second) = online_game(client, game)
    with (
        client.websocket_connect(url(game_id, first)) as one,
        client.websocket_connect(url(game_id, second)) as two,
        client.websocket_connect(url(game_id)) as watcher,
    ):
        views = [*joined(one, two), next_state(watcher)]
        assert [v["your_seats"] for v in views] == [[0], [1], []]
        assert all(v["present"] == [0, 1] for v in views)
        assert views[0]["legal"] and not views[1]["legal"] and not views[2]["legal"]
        assert views[2]["role"] == "spectator"

        expected: list[str] = []
        for _ in range(4):  # alternate through whichever seat is to act
            mover = one if views[0]["your_turn"] else two
            mine = views[0] if mover is one else views[1]
            action = mine["legal"][0]["action"]
            mover.send_json({"type": "action", "action": action, "ply": mine["ply"]})
            views = [next_state(one), next_state(two), next_state(watcher)]
            expected.append(views[2]["history"][-1]["notation"])
            for view in views:
                assert [p["notation"] for p in view["history"]] == expected
            assert views[0]["svg"] == views[1]["svg"] == views[2]["svg"]
            assert views[2]["legal"] == []
            assert views[0]["your_turn"] != views[1]["your_turn"]


def test_out_of_turn_wrong_seat_and_malformed_messages_get_errors(client: TestClient) -> None:
    game_id, (first, second) = online_game(client)
    with (
        client.websocket_connect(url(game_id, first)) as one,
        client.websocket_connect(url(game_id, second)) as two,
    ):
        start, _ = joined(one, two)
        action = start["legal"][0]["action"]
        two.send_json({"type": "action", "action": action})
        assert two.receive_json() == {"type": "error",
                                      "message": "it is not your turn: red is to act"}
        for raw, fragment in [
            ("{oops", "malformed JSON"),
            ("[1, 2]", 'JSON object with a "type"'),
            ('{"type": "dance"}', "unknown message type 'dance'"),
            ('{"type": "action"}', '"action" must be a string'),
            ('{"type": "action", "action": "e3e4", "ply": "x"}', '"ply" must be an integer'),
            ('{"type": "action", "action": "zz"}', "not an action"),
            ('{"type": "undo"}', "not available in online games"),
        ]:
            one.send_text(raw)
            reply = one.receive_json()
            assert reply["type"] == "error" and fragment in reply["message"], (raw, reply)
        one.send_bytes(b"\xff\xfe not text")
        assert "malformed JSON" in one.receive_json()["message"]
        one.send_json({"type": "ping"})
        assert one.receive_json() == {"type": "pong"}
    assert client.get(f"/api/games/{game_id}").json()["history"] == []


def test_a_forged_token_only_watches(client: TestClient) -> None:
    game_id, _ = online_game(client)
    with client.websocket_connect(url(game_id, "forged")) as socket:
        warning = socket.receive_json()
        assert warning["type"] == "error" and "no seat" in warning["message"]
        view = next_state(socket)
        assert view["role"] == "spectator" and view["legal"] == []
        socket.send_json({"type": "action", "action": "e3e4"})
        assert "does not hold a seat" in socket.receive_json()["message"]


def test_an_unknown_game_closes_the_socket_with_a_reason(client: TestClient) -> None:
    with client.websocket_connect(url("missing")) as socket:
        message = socket.receive_json()
        assert message == {"type": "error", "message": "there is no game 'missing'"}
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
        assert closed.value.code == 4404


def test_resignation_reaches_both_players_and_ends_the_game(client: TestClient) -> None:
    game_id, (first, second) = online_game(client)
    with (
        client.websocket_connect(url(game_id, first)) as one,
        client.websocket_connect(url(game_id, second)) as two,
    ):
        start, _ = joined(one, two)
        two.send_json({"type": "resign"})
        ended = [next_state(one), next_state(two)]
        assert all(v["is_over"] and v["winner"] == "red" for v in ended)
        assert ended[0]["result"] == "Red wins (Blue resigned)"
        one.send_json({"type": "action", "action": start["legal"][0]["action"]})
        assert "the game is over" in one.receive_json()["message"]


def test_a_reconnecting_player_resumes_with_the_same_seat(tmp_path: Path) -> None:
    with TestClient(create_app(data_dir=tmp_path)) as client:
        game_id, (first, _) = online_game(client)
        with client.websocket_connect(url(game_id, first)) as one:
            start = next_state(one)
            one.send_json({"type": "action", "action": start["legal"][0]["action"]})
            moved = next_state(one)
    with (
        TestClient(create_app(data_dir=tmp_path)) as client,  # and after a restart
        client.websocket_connect(url(game_id, first)) as again,
    ):
        view = next_state(again)
        assert view["your_seats"] == [0] and view["history"] == moved["history"]


def test_players_see_whether_their_opponent_is_connected(client: TestClient) -> None:
    game_id, (first, second) = online_game(client)
    with client.websocket_connect(url(game_id, first)) as one:
        assert next_state(one)["present"] == [0]  # waiting for the friend
        with client.websocket_connect(url(game_id, second)) as two:
            assert next_state(one)["present"] == [0, 1]
            assert next_state(two)["present"] == [0, 1]
            with client.websocket_connect(url(game_id)) as watcher:  # spectators are silent
                assert next_state(watcher)["present"] == [0, 1]
            one.send_json({"type": "ping"})
            assert one.receive_json() == {"type": "pong"}  # no state arrived for the watcher
        assert next_state(one)["present"] == [0]  # the friend left
