"""The one guard every change of a live game starts with (``LiveGames.locked``): the
seat, then the mode, then the game not being over, checked under the game's lock, with
the same answers on every route that uses it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hexgames.errors import IllegalAction
from hexgames.web.app import create_app
from hexgames.web.play.live_games import NO_SEAT, GameNotFound


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as test_client:
        yield test_client


def new_game(client: TestClient, mode: str) -> tuple[str, list[str]]:
    data = client.post("/api/games", json={"game": "benediction", "mode": mode}).json()
    return data["id"], data["tokens"]


@pytest.mark.parametrize("route,body", [
    ("takeback", {"answer": "offer"}), ("abort", {}), ("rematch", {"answer": "offer"}),
])
def test_a_link_without_a_seat_is_refused_before_anything_else(
        client: TestClient, route: str, body: dict[str, str]) -> None:
    game_id, _ = new_game(client, "hotseat")  # not online either: the seat comes first
    answer = client.post(f"/api/games/{game_id}/{route}", json={**body, "token": "nobody"})
    assert answer.status_code == 403
    assert answer.json()["error"] == str(NO_SEAT)


def test_an_online_only_request_names_what_it_is_for(client: TestClient) -> None:
    game_id, tokens = new_game(client, "hotseat")
    answer = client.post(f"/api/games/{game_id}/takeback",
                         json={"answer": "offer", "token": tokens[0]})
    assert answer.status_code == 409
    assert answer.json()["error"] == "takeback requests are for online games; use undo"


def test_a_finished_game_is_refused_with_its_result(client: TestClient) -> None:
    game_id, tokens = new_game(client, "online")
    assert client.post(f"/api/games/{game_id}/resign", json={"token": tokens[0]}).is_success
    answer = client.post(f"/api/games/{game_id}/takeback",
                         json={"answer": "offer", "token": tokens[1]})
    assert answer.status_code == 409
    assert answer.json()["error"].startswith("the game is over:")


def test_the_guard_holds_the_lock_and_reloads_the_game(client: TestClient) -> None:
    """Inside the guard the game's lock is held (a second change waits), and the match
    handed over is the live copy, not one a caller held before a reload."""
    game_id, tokens = new_game(client, "online")
    hotseat_id, _ = new_game(client, "hotseat")
    games = client.app.state.site.service.games  # type: ignore[attr-defined]

    async def scenario() -> None:
        async with games.locked(game_id, tokens[0], online="online only",
                                playing=True) as held:
            assert games.locks[game_id].locked()
            assert held.match is games.matches[game_id]
            assert held.seats == frozenset({0})
        assert not games.locks[game_id].locked()
        with pytest.raises(GameNotFound):
            async with games.locked("no-such-game", tokens[0]):
                pass  # pragma: no cover
        with pytest.raises(IllegalAction, match="online only"):
            async with games.locked(hotseat_id, None, seat=False, online="online only"):
                pass  # pragma: no cover
        assert not games.locks[hotseat_id].locked()  # released on a refusal too

    client.portal.call(asyncio.wait_for, scenario(), 30)  # type: ignore[union-attr]
