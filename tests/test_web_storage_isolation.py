"""Storage apart from slow work (issue 31, row 3: attack rows 4 and 5).

- Storage calls have threads of their own: a bystander's move is stored and answered
  while slow work (uploads being parsed) fills the threads of CPU work.
- A write whose storage call outlives the storage bound is never answered 503 (it may
  still commit): it is waited for, and its answer is the stored outcome; past the hard
  bound the answer is 409 "reload the game", and the reload shows what was stored.
- Games nobody watches are dropped from memory and rebuilt from storage when opened.
- Record uploads are rate-limited per client address (429 with ``Retry-After``).

Every wait is bounded; slow work is held by events the tests release, not by timing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hexgames.web.app import create_app
from hexgames.web.http.state import app_state
from hexgames.web.play import live_games, storage_calls

WAIT = 30.0  # the bound of every wait in these tests (seconds)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as test_client:
        yield test_client


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={"game": "benediction", "mode": "hotseat",
                                               **body})
    assert response.status_code == 201, response.text
    return response.json()


def view(client: TestClient, game_id: str, token: str | None = None) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}", params={"token": token} if token else {})
    assert response.status_code == 200, response.text
    return response.json()


def move(client: TestClient, game: dict[str, Any]) -> Any:
    legal = view(client, game["id"], game["token"])["legal"]
    return client.post(f"/api/games/{game['id']}/actions",
                       json={"token": game["token"], "action": legal[0]["action"]})


def in_thread(function: Any) -> tuple[threading.Thread, dict[str, Any]]:
    """Run ``function`` in a thread; its result (or exception) lands in the dict."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["result"] = function()
        except BaseException as error:  # reported by the test
            out["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def stored_actions(client: TestClient, game_id: str) -> list[str]:
    stored = client.app.state.site.service.storage.load_game(game_id)
    assert stored is not None
    return list(stored.actions)


# ------------------------------------------------- slow work does not delay storage
def test_a_move_is_stored_and_answered_while_slow_work_fills_the_threads(
        client: TestClient) -> None:
    service = client.app.state.site.service
    service.storage_timeout = 2.0  # a move queued behind the slow work would get 503
    limits = app_state(client.app).client_limits
    limits.uploads.limit = 100  # many uploads from the test client's one address
    if hasattr(limits, "upload_rate"):
        limits.upload_rate.attempts = 100
    bystander = create(client)
    uploader = create(client)
    assert move(client, uploader).status_code == 200
    record = client.get(f"/api/games/{uploader['id']}/record").text

    # Every upload's parsing is held until the end of the test: the threads of CPU work
    # (before: the event loop's default executor, shared with storage) are all busy.
    threads = storage_calls.WORK_THREADS
    entered = threading.Semaphore(0)
    release = threading.Event()
    original = service.setup.read_record

    def held(text: str, game_name: str | None) -> Any:
        entered.release()
        assert release.wait(WAIT)
        return original(text, game_name)

    service.setup.read_record = held
    uploads = [in_thread(lambda: client.post("/api/records", json={"text": record}))
               for _ in range(threads + 2)]
    try:
        for _ in range(threads):  # every thread of slow work is taken
            assert entered.acquire(timeout=WAIT)
        mover, answer = in_thread(lambda: move(client, bystander))
        mover.join(WAIT)
        assert not mover.is_alive(), "the move was not answered"
        still_held = [thread.is_alive() for thread, _ in uploads]
    finally:
        release.set()
        for thread, _ in uploads:
            thread.join(WAIT)
    assert "error" not in answer, answer.get("error")
    response = answer["result"]
    assert response.status_code == 200, response.text
    assert len(response.json()["history"]) == 1
    assert stored_actions(client, bystander["id"]) == [response.json()["history"][0]
                                                       ["notation"]]
    assert all(still_held), "the move was answered only after the slow work ended"
    for thread, out in uploads:
        assert not thread.is_alive()
        assert out["result"].status_code == 201, out["result"].text


def test_analysis_runs_in_the_threads_of_cpu_work(client: TestClient) -> None:
    """Analysis (here a line's view) goes through the service's CPU threads, not the
    storage threads nor the event loop's default executor."""
    service = client.app.state.site.service
    seen: list[str] = []
    original = service.call_thread

    async def counting(function: Any, *args: Any) -> Any:
        seen.append(getattr(function, "__name__", "?"))
        return await original(function, *args)

    service.call_thread = counting
    response = client.post("/api/analysis/position",
                           json={"game": "benediction", "actions": []})
    assert response.status_code == 200, response.text
    assert "line_view" in seen


# --------------------------------------------------- a slow write is not a 503
def hold_appends(client: TestClient) -> tuple[threading.Event, threading.Event, Any]:
    """Make the storage's ``store_move`` (a move's one write) wait for an event (a
    database that takes its time committing); returns (entered, release, original)."""
    storage = client.app.state.site.service.storage
    entered, release = threading.Event(), threading.Event()
    original = storage.store_move

    def slow(*args: Any) -> Any:
        entered.set()
        assert release.wait(WAIT)
        return original(*args)

    storage.store_move = slow
    return entered, release, original


def test_a_write_slower_than_the_storage_bound_is_answered_with_its_stored_outcome(
        client: TestClient) -> None:
    service = client.app.state.site.service
    game = create(client)
    legal = view(client, game["id"], game["token"])["legal"]
    service.storage_timeout = 0.05  # the write outlives it
    entered, release, original = hold_appends(client)
    try:
        mover, answer = in_thread(lambda: client.post(
            f"/api/games/{game['id']}/actions",
            json={"token": game["token"], "action": legal[0]["action"]}))
        assert entered.wait(WAIT)
        # Before: answered 503 at the bound while the write was still to commit. After:
        # no answer until the write's outcome is known.
        mover.join(service.storage_timeout * 20)
        answered_early = not mover.is_alive()
    finally:
        release.set()
        mover.join(WAIT)
        service.storage.store_move = original
    assert not mover.is_alive()
    response = answer["result"]
    assert response.status_code == 200, response.text
    assert not answered_early
    history = [ply["notation"] for ply in response.json()["history"]]
    assert history == stored_actions(client, game["id"]) and len(history) == 1
    service.storage_timeout = storage_calls.STORAGE_TIMEOUT
    assert [ply["notation"] for ply in view(client, game["id"])["history"]] == history
    assert move(client, game).status_code == 200  # memory and storage agree: it goes on


def test_a_write_past_the_hard_bound_says_reload_and_the_reload_shows_the_stored_game(
        client: TestClient) -> None:
    service = client.app.state.site.service
    game = create(client)
    legal = view(client, game["id"], game["token"])["legal"]
    service.storage_timeout = 0.05
    service.storage_write_timeout = 0.1  # a write that never confirms (in time)
    entered, release, original = hold_appends(client)
    try:
        mover, answer = in_thread(lambda: client.post(
            f"/api/games/{game['id']}/actions",
            json={"token": game["token"], "action": legal[0]["action"]}))
        assert entered.wait(WAIT)
        mover.join(WAIT)  # answered while the write is still held
        assert not mover.is_alive()
        response = answer["result"]
        assert response.status_code == 409, response.text
        assert "reload" in response.json()["error"]
    finally:
        release.set()
    service.storage.store_move = original
    service.storage_timeout = storage_calls.STORAGE_TIMEOUT
    deadline = time.monotonic() + WAIT
    while not stored_actions(client, game["id"]):  # the held write commits once let go
        assert time.monotonic() < deadline
        time.sleep(0.01)
    # The game was dropped from memory: the reload shows what storage holds.
    assert ([ply["notation"] for ply in view(client, game["id"])["history"]]
            == stored_actions(client, game["id"]))
    assert move(client, game).status_code == 200


def test_a_read_slower_than_the_storage_bound_is_still_answered_503(
        client: TestClient) -> None:
    service = client.app.state.site.service
    game = create(client)
    service.evict_idle(now=time.monotonic() + live_games.IDLE_SECONDS + 1)
    service.storage_timeout = 0.05
    release = threading.Event()
    original = service.storage.load_game

    def frozen(game_id: str) -> Any:
        assert release.wait(WAIT)
        return original(game_id)

    service.storage.load_game = frozen
    try:
        response = client.get(f"/api/games/{game['id']}")
    finally:
        release.set()
        service.storage.load_game = original
    assert response.status_code == 503 and "not answering" in response.json()["error"]


# ------------------------------------------------------- idle games leave memory
def test_idle_games_are_dropped_from_memory_and_rebuilt_the_same(
        client: TestClient) -> None:
    service = client.app.state.site.service
    game = create(client)
    for _ in range(3):
        assert move(client, game).status_code == 200
    before = view(client, game["id"], game["token"])
    watched = create(client)
    assert game["id"] in service.games.matches

    with client.websocket_connect(f"/ws/games/{watched['id']}") as socket:
        assert socket.receive_json()["type"] == "state"
        assert service.evict_idle() == []  # just used: kept
        later = time.monotonic() + live_games.IDLE_SECONDS + 1
        dropped = service.evict_idle(now=later)
        assert game["id"] in dropped and game["id"] not in service.games.matches
        assert watched["id"] not in dropped  # a socket watches it
        assert watched["id"] in service.games.matches

    after = view(client, game["id"], game["token"])  # rebuilt from storage
    assert game["id"] in service.games.matches
    assert after == before
    assert move(client, game).status_code == 200  # and it goes on
    assert len(stored_actions(client, game["id"])) == 4


def test_beyond_the_cap_the_least_recently_used_idle_games_go_first(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    service = client.app.state.site.service
    games = [create(client) for _ in range(3)]
    service.evict_idle()  # every game gets its time of last use
    for game in games:
        view(client, game["id"])  # used in this order: the first is the oldest
    monkeypatch.setattr(live_games, "MAX_IDLE_GAMES", 1)
    dropped = service.evict_idle()
    assert dropped == [games[0]["id"], games[1]["id"]]
    assert games[2]["id"] in service.games.matches
    assert view(client, games[0]["id"])["history"] == []  # rebuilt on demand


# --------------------------------------------------------- upload rate limit
def test_uploads_per_address_are_rate_limited(client: TestClient) -> None:
    game = create(client)
    assert move(client, game).status_code == 200
    record = client.get(f"/api/games/{game['id']}/record").text
    app_state(client.app).client_limits.upload_rate.attempts = 2
    for _ in range(2):
        response = client.post("/api/records", json={"text": record})
        assert response.status_code == 201, response.text
    refused = client.post("/api/records", json={"text": record})
    assert refused.status_code == 429, refused.text
    assert "too many" in refused.json()["error"]
    assert int(refused.headers["Retry-After"]) >= 1
