"""The web app against hostile or unlucky input (issue 9): dead AI workers, a busy AI,
oversized or malformed bodies, stolen invitations, stored secrets, spoofed results,
records with their own start, two servers on one database, storage failures.

Every test here failed on the server before these fixes."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hexgames.game import get_game
from hexgames.web.app import create_app
from hexgames.web.engine.workers import AiBusy, AiWorkers
from hexgames.web.storage import StaleWrite, StorageUnavailable, open_storage


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as test_client:
        yield test_client


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={"game": "benediction", **body})
    assert response.status_code == 201, response.text
    return response.json()


def view(client: TestClient, game_id: str, token: str | None = None) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}", params={"token": token} if token else {})
    assert response.status_code == 200, response.text
    return response.json()


def wait_for(client: TestClient, game_id: str, token: str, done, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while True:
        current = view(client, game_id, token)
        if done(current):
            return current
        assert time.monotonic() < deadline, f"timed out: {current['ai_error']}"
        time.sleep(0.05)


# ------------------------------------------------------------ 2. dead AI workers
def test_a_killed_ai_worker_does_not_break_the_ai_for_later_games(client: TestClient) -> None:
    first = create(client, mode="ai", seat=1, level=1)  # the computer opens
    wait_for(client, first["id"], first["token"], lambda s: s["history"])
    workers = multiprocessing.active_children()
    assert workers, "the AI runs in worker processes"
    for process in workers:
        os.kill(process.pid, signal.SIGKILL)
    for process in workers:
        process.join(timeout=10)
    second = create(client, mode="ai", seat=1, level=1)
    moved = wait_for(client, second["id"], second["token"],
                     lambda s: s["history"] or s["ai_error"])
    assert moved["ai_error"] is None and len(moved["history"]) >= 1


# ------------------------------------------------------------ 3. fair, bounded AI
def test_the_ai_queue_is_bounded_and_cheap_levels_do_not_wait_behind_strong_ones(
        tmp_path: Path) -> None:
    """Two long jobs (analyses) fill the expensive lane's share for jobs (one runs, one
    waits); a third job is refused, a level-5 game search is not (analyses have a share
    of their own: issue 31, row 12), and a level-1 search still answers at once. The long
    jobs last until the test lets them go (a file appears), not for a time: how long a
    real search takes depends on the engine, and a test must not depend on that."""
    game = get_game("dendria")
    options = dict(game.rules_options(game.make_rules()))
    release = tmp_path / "release"
    hold = ["sh", "-c", f"until [ -e '{release}' ]; do sleep 0.05; done"]

    async def scenario() -> tuple[list[str], bool, bool]:
        workers = AiWorkers(processes=1, max_waiting=1)
        finished: list[str] = []

        async def strong(name: str) -> None:
            await workers.run(subprocess.run, hold, level=5)
            finished.append(name)

        async def game_search() -> None:
            await workers.choose("dendria", options, [], 5, seed=1)
            finished.append("game")

        try:
            tasks = [asyncio.create_task(strong(f"strong{i}")) for i in range(2)]
            await asyncio.sleep(0)  # one runs, one waits: the jobs' share is now full
            refused = False
            try:
                await workers.run(subprocess.run, ["true"], level=5)
            except AiBusy as error:
                refused = "busy" in str(error)
            game_refused = workers.busy(5)
            tasks.append(asyncio.create_task(game_search()))
            await asyncio.sleep(0)
            # waiting behind the held lane would never end: a bound, not a race
            await asyncio.wait_for(workers.choose("dendria", options, [], 1, seed=1), 120)
            finished.append("cheap")
            release.touch()
            await asyncio.wait_for(asyncio.gather(*tasks), 300)
            return finished, refused, game_refused
        finally:
            release.touch()
            workers.shutdown()

    finished, refused, game_refused = asyncio.run(scenario())
    assert refused, "past the jobs' share a job is refused with 'the computer is busy'"
    assert not game_refused, "a game's search is not refused for analyses waiting"
    assert finished[0] == "cheap", finished
    assert sorted(finished[1:]) == ["game", "strong0", "strong1"], finished


def test_a_full_ai_queue_answers_503_when_a_game_is_created(client: TestClient) -> None:
    lane = client.app.state.site.service.workers.lane(5)
    lane.running, lane.waiting = lane.workers, lane.max_waiting  # as if it were full
    try:
        response = client.post("/api/games", json={"game": "dendria", "mode": "ai", "level": 5})
    finally:
        lane.running = lane.waiting = 0
    assert response.status_code == 503
    assert "busy" in response.json()["error"]


# ------------------------------------------------------------------- 4. limits
def test_a_huge_body_is_refused_with_413_without_echo(client: TestClient) -> None:
    huge = "x" * (5 * 1024 * 1024)
    response = client.post("/api/records", content=json.dumps({"text": huge}),
                           headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert len(response.content) < 1000 and "too large" in response.json()["error"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"text": "'
        for _ in range(50):
            yield b"y" * 100_000
        yield b'"}'

    response = client.post("/api/records", content=chunks(),
                           headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_error_messages_do_not_echo_long_input(client: TestClient) -> None:
    game = create(client, mode="hotseat")
    long_action = "a" * 150
    response = client.post(f"/api/games/{game['id']}/actions",
                           json={"token": game["token"], "action": long_action})
    assert response.status_code in (400, 409)
    assert len(response.json()["error"]) <= 300
    response = client.post("/api/games", json={"game": "z" * 100_000})
    assert response.status_code == 400 and len(response.json()["error"]) <= 300
    with client.websocket_connect(f"/ws/games/{game['id']}") as socket:
        socket.receive_json()
        socket.send_json({"type": "t" * 3000})
        assert len(socket.receive_json()["message"]) <= 300


def test_records_are_capped_in_size(client: TestClient) -> None:
    tags = "".join(f'[Tag{i} "{"v" * 90}"]\n' for i in range(15_000))  # ~1.5 MB of tags
    response = client.post("/api/records", json={"text": tags + "\n1. a1\n"})
    assert response.status_code in (400, 413)
    assert "at most" in response.json()["error"]


def test_connections_per_game_are_capped(client: TestClient) -> None:
    client.app.state.site.service.hub.max_per_game = 2
    game = create(client, mode="online")
    url = f"/ws/games/{game['id']}"
    with client.websocket_connect(url) as one, client.websocket_connect(url) as two:
        one.receive_json()
        two.receive_json()
        with client.websocket_connect(url) as three:
            refusal = three.receive_json()
            assert refusal["type"] == "error" and "viewers" in refusal["message"]


# ------------------------------------------------------------ 5. long games
def test_playing_and_replaying_never_copies_the_whole_history(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``position.history`` copies the whole game (O(length)): the server must not call it
    per action, per view or per replay request (that made long games quadratic)."""
    from hexgames.benediction.position import Position

    game = create(client, mode="hotseat")
    gid, token = game["id"], game["token"]
    for _ in range(6):
        legal = view(client, gid, token)["legal"]
        client.post(f"/api/games/{gid}/actions",
                    json={"token": token, "action": legal[0]["action"]})

    def forbidden(self: Any) -> Any:
        raise AssertionError("position.history copied the whole game")

    monkeypatch.setattr(Position, "history", property(forbidden))
    monkeypatch.setattr(Position, "copy", lambda self: forbidden(self))
    legal = view(client, gid, token)["legal"]
    response = client.post(f"/api/games/{gid}/actions",
                           json={"token": token, "action": legal[0]["action"]})
    assert response.status_code == 200, response.text
    assert client.get(f"/api/games/{gid}/board").status_code == 200
    monkeypatch.undo()
    replay = client.get(f"/api/games/{gid}/replay", params={"ply": 5})
    assert replay.status_code == 200 and replay.json()["total"] == 7


def test_a_long_record_uploads_and_replays_anywhere(client: TestClient) -> None:
    import random

    game = get_game("dendria")
    position = game.new(quiet_limit=1000, size=5)  # the largest K
    rng = random.Random(7)
    while len(position.history) < 4500:
        legal = list(position.legal_actions())
        rng.shuffle(legal)
        for action in legal:
            position.play(action)
            if not position.is_over:
                break
            position.undo()
    text = game.write_record(position, {})
    uploaded = client.post("/api/records", json={"text": text, "game": "dendria"})
    assert uploaded.status_code == 201, uploaded.text
    gid = uploaded.json()["id"]
    for ply in (4500, 4321, 2000, 1, 0):
        replay = client.get(f"/api/games/{gid}/replay", params={"ply": ply})
        assert replay.status_code == 200 and replay.json()["total"] == 4500
    probe = game.new(quiet_limit=1000, size=5)
    for action in position.history[:4321]:
        probe.play(action)
    match = client.app.state.site.service.games.matches[gid]
    assert match.replay_svg(4321) == str(game.render_svg(
        probe, last_action=match.latest_turn(4321) or None))


# ------------------------------------------------- 6. storage failures
def test_a_storage_failure_is_a_503_and_the_socket_stays_open(client: TestClient) -> None:
    game = create(client, mode="hotseat")
    service = client.app.state.site.service
    storage = service.storage
    original = storage.store_move

    def disk_full(*args: Any) -> None:
        raise StorageUnavailable("the game storage is not answering; try again in a moment")

    with client.websocket_connect(f"/ws/games/{game['id']}?token={game['token']}") as socket:
        state = socket.receive_json()
        storage.store_move = disk_full
        try:
            socket.send_json({"type": "action", "action": state["legal"][0]["action"]})
            message = socket.receive_json()
            assert message["type"] == "error" and "storage" in message["message"]
            response = client.post(f"/api/games/{game['id']}/actions", json={
                "token": game["token"], "action": state["legal"][0]["action"]})
            assert response.status_code == 503 and "storage" in response.json()["error"]
        finally:
            storage.store_move = original
        socket.send_json({"type": "action", "action": state["legal"][0]["action"]})
        assert socket.receive_json()["ply"] == 1  # the same socket goes on


def test_a_real_sqlite_failure_becomes_storage_unavailable(tmp_path: Path) -> None:
    storage = open_storage(data_dir=tmp_path)
    storage._connection.close()  # as good as a vanished disk
    with pytest.raises(StorageUnavailable):
        storage.load_game("x")
    storage._release_lock()


# ------------------------------------------------------ 7. one server per file
def test_a_second_server_on_the_same_sqlite_file_refuses_to_start(tmp_path: Path) -> None:
    first = open_storage(data_dir=tmp_path)
    try:
        with pytest.raises(RuntimeError, match="another hexgames server"):
            open_storage(data_dir=tmp_path)
    finally:
        first.close()
    open_storage(data_dir=tmp_path).close()  # free again once the first one is closed


def test_an_action_is_stored_only_at_the_next_ply(tmp_path: Path) -> None:
    from hexgames.web.storage import StoredGame

    storage = open_storage(data_dir=tmp_path)
    try:
        storage.create_game(StoredGame("g", "benediction", {}, "hotseat", [{}, {}], [None, None],
                                       "playing", None, None, "t", "t", actions=["a", "b"]))
        with pytest.raises(StaleWrite):
            storage.append_actions("g", 5, ["c"], "t")  # a gap: would never replay
        with pytest.raises(StaleWrite):
            storage.append_actions("g", 1, ["c"], "t")  # a fork
        storage.append_actions("g", 2, ["c"], "t")
        assert storage.load_game("g").actions == ["a", "b", "c"]
    finally:
        storage.close()


# -------------------------------------------------- 8. invitations claimed once
def test_an_invitation_is_claimed_once(client: TestClient) -> None:
    game = create(client, mode="online", seat=0)
    gid, (mine, invite) = game["id"], game["tokens"]
    claim = f"/api/games/{gid}/claim"
    # The creator opening the opponent's link keeps their seat and is told so.
    creator = client.post(claim, json={"token": invite, "have": mine}).json()
    assert creator["token"] == mine and "opponent" in creator["notice"]
    friend = client.post(claim, json={"token": invite}).json()
    assert friend["role"] == "player" and friend["token"] not in (invite, mine)
    assert view(client, gid, friend["token"])["your_seats"] == [1]
    stranger = client.post(claim, json={"token": invite}).json()
    assert stranger["role"] == "spectator" and "already been taken" in stranger["notice"]
    assert view(client, gid, invite)["your_seats"] == []  # the link no longer holds a seat
    again = client.post(claim, json={"token": invite, "have": friend["token"]}).json()
    assert again["token"] == friend["token"]  # the friend reopening the link is fine
    assert view(client, gid, mine)["your_seats"] == [0]


def test_a_claimed_invitation_survives_a_restart(tmp_path: Path) -> None:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        game = create(client, mode="online", seat=1)
        friend = client.post(f"/api/games/{game['id']}/claim",
                             json={"token": game["tokens"][0]}).json()
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        assert view(client, game["id"], friend["token"])["your_seats"] == [0]
        late = client.post(f"/api/games/{game['id']}/claim",
                           json={"token": game["tokens"][0]}).json()
        assert late["role"] == "spectator"


# -------------------------------------------------------- 9. hashed tokens
def test_seat_tokens_are_stored_hashed(tmp_path: Path) -> None:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        game = create(client, mode="online")
        assert view(client, game["id"], game["tokens"][0])["your_seats"] == [0]
    raw = (tmp_path / "hexgames.sqlite3").read_bytes()
    raw += b"".join(p.read_bytes() for p in tmp_path.glob("*-wal"))
    with sqlite3.connect(tmp_path / "hexgames.sqlite3") as connection:
        stored = json.loads(connection.execute("SELECT seat_tokens FROM games").fetchone()[0])
    for token in game["tokens"]:
        assert token.encode() not in raw
        assert token not in stored
    assert all(entry.startswith("sha256:") for entry in stored)


# ------------------------------------------------------ 10. browser protections
class InlineScripts(HTMLParser):
    """Collects inline scripts: <script> without src, and on* handler attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        names = dict(attrs)
        if tag == "script" and "src" not in names:
            self.found.append(tag)
        self.found.extend(name for name in names if name.startswith("on"))


def test_pages_carry_security_headers_and_no_inline_script(client: TestClient) -> None:
    for path in ("/", "/play/x", "/replay/x", "/rules/dendria", "/api/catalog"):
        response = client.get(path)
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] in ("no-referrer", "same-origin")
        if response.headers["content-type"].startswith("text/html"):
            parser = InlineScripts()
            parser.feed(response.text)
            assert not parser.found, f"inline script on {path}: {parser.found}"


def test_the_websocket_refuses_another_sites_origin(client: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    game = create(client, mode="online")
    url = f"/ws/games/{game['id']}?token={game['tokens'][0]}"
    with pytest.raises(WebSocketDisconnect), client.websocket_connect(
        url, headers={"origin": "https://evil.example"}
    ) as socket:
        socket.receive_json()
    with client.websocket_connect(url, headers={"origin": "http://testserver"}) as socket:
        assert socket.receive_json()["your_seats"] == [0]  # the site's own pages
    with client.websocket_connect(url) as socket:  # no Origin: a script, not a browser
        assert socket.receive_json()["your_seats"] == [0]


# ----------------------------------------------------------- 11. spoofed results
def test_an_uploaded_ending_cannot_inject_text(client: TestClient) -> None:
    game = get_game("benediction")
    text = game.write_record(game.new(), {"Winner": "red", "Ending": "x" * 100_000 + " resigned"})
    uploaded = client.post("/api/records", json={"text": text})
    assert uploaded.status_code == 201, uploaded.text
    gid = uploaded.json()["id"]
    listed = next(g for g in client.get("/api/games").json()["games"] if g["id"] == gid)
    assert listed["winner"] == "red" and listed["reason"] == "Blue resigned"
    spoof = game.write_record(game.new(), {"Winner": "red", "Ending": "<b>hacked</b>"})
    spoofed = client.post("/api/records", json={"text": spoof}).json()
    assert view(client, spoofed["id"])["is_over"] is False


def test_a_resigned_game_round_trips_through_its_record(client: TestClient) -> None:
    game = create(client, mode="hotseat")
    client.post(f"/api/games/{game['id']}/resign", json={"token": game["token"]})
    record = client.get(f"/api/games/{game['id']}/record").text
    again = client.post("/api/records", json={"text": record}).json()
    state = view(client, again["id"])
    assert state["is_over"] and state["winner"] == "blue" and "Red resigned" in state["result"]


# --------------------------------------------------------- 12. strict bodies
@pytest.mark.parametrize("body", [
    {"game": "benediction", "mode": "online", "seat": "1"},
    {"game": "benediction", "mode": "online", "seat": True},
    {"game": "benediction", "mode": "ai", "level": "3"},
    {"game": "benediction", "mode": "ai", "level": 3.0},
    {"game": 7},
])
def test_request_bodies_are_strict(client: TestClient, body: dict[str, Any]) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400 and "error" in response.json()


def test_action_bodies_are_strict(client: TestClient) -> None:
    game = create(client, mode="hotseat")
    legal = view(client, game["id"], game["token"])["legal"][0]["action"]
    for extra in ({"ply": "0"}, {"ply": False}, {"token": 5}):
        body = {"token": game["token"], "action": legal, **extra}
        response = client.post(f"/api/games/{game['id']}/actions", json=body)
        assert response.status_code == 400, (extra, response.text)
    assert view(client, game["id"])["ply"] == 0


# ------------------------------------------------------------ 13. no CDN
def test_nothing_is_loaded_from_the_internet(client: TestClient) -> None:
    import re

    assert client.get("/api/docs").status_code == 404  # Swagger UI came from a CDN
    assert client.get("/api/openapi.json").json()["info"]["title"] == "hexgames"
    static = Path(__file__).parents[1] / "src" / "hexgames" / "web" / "static"
    for path in ("/", "/play/x", "/replay/x", "/rules/benediction"):
        page = client.get(path).text
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), path
    for file in [*static.rglob("*"), *(static.parent / "templates").rglob("*")]:
        if file.suffix in (".js", ".css", ".html"):
            assert not re.search(r"""(import|from|url\()\s*["']?(https?:)?//""",
                                 file.read_text()), file


# ------------------------------------------------------ 14. records with a start
def test_an_uploaded_record_keeps_its_start_position(client: TestClient) -> None:
    game = get_game("benediction")
    position = game.new()
    for _ in range(3):
        position.play(position.legal_actions()[0])
    start_text = position.to_text()
    custom = game.position_from_text(start_text, position.rules)
    custom.play(custom.legal_actions()[0])
    record = game.write_record(custom, {})
    assert "[Start" in record
    uploaded = client.post("/api/records", json={"text": record})
    assert uploaded.status_code == 201, uploaded.text
    gid, token = uploaded.json()["id"], uploaded.json()["token"]
    state = view(client, gid, token)
    assert state["ply"] == 1 and state["svg"] == str(game.render_svg(
        custom, last_action=[custom.history[-1]]))
    replay = client.get(f"/api/games/{gid}/replay", params={"ply": 0})
    assert replay.status_code == 200, replay.text
    assert replay.json()["svg"] == str(game.render_svg(
        game.position_from_text(start_text, position.rules)))
    played = client.post(f"/api/games/{gid}/actions",
                         json={"token": token, "action": state["legal"][0]["action"]})
    assert played.status_code == 200, played.text
    again = client.get(f"/api/games/{gid}/record").text
    assert "[Start" in again


def test_the_encoded_state_is_the_state(client: TestClient) -> None:
    """States are sent as JSON assembled from pre-encoded pieces: the same content."""
    game = create(client, mode="hotseat")
    for _ in range(5):
        legal = view(client, game["id"], game["token"])["legal"]
        client.post(f"/api/games/{game['id']}/actions",
                    json={"token": game["token"], "action": legal[-1]["action"]})
    client.post(f"/api/games/{game['id']}/undo", json={"token": game["token"]})
    match = client.app.state.site.service.games.matches[game["id"]]
    for token in (game["token"], None):
        assert json.loads(match.view_json(token, present=[0])) == {
            **match.view(token), "present": [0]}
    assert len(view(client, game["id"])["history"]) == 4


def test_connections_in_total_are_capped(client: TestClient) -> None:
    client.app.state.site.service.hub.max_total = 2
    games = [create(client, mode="online")["id"] for _ in range(3)]
    with client.websocket_connect(f"/ws/games/{games[0]}") as one, \
            client.websocket_connect(f"/ws/games/{games[1]}") as two:
        one.receive_json()
        two.receive_json()
        with client.websocket_connect(f"/ws/games/{games[2]}") as three:
            refusal = three.receive_json()
            assert refusal["type"] == "error" and "too many" in refusal["message"]
    with client.websocket_connect(f"/ws/games/{games[2]}") as again:  # room again
        assert again.receive_json()["type"] == "state"


def test_a_storage_call_that_hangs_is_answered_503(client: TestClient) -> None:
    import threading

    service = client.app.state.site.service
    service.storage_timeout = 0.5
    release = threading.Event()
    original = service.storage.list_games

    def frozen(limit: int = 50) -> list:
        release.wait(30)  # a database that does not answer
        return original(limit)

    service.storage.list_games = frozen
    try:
        response = client.get("/api/games")
    finally:
        release.set()
        service.storage.list_games = original
    assert response.status_code == 503 and "not answering" in response.json()["error"]


def test_an_older_database_is_upgraded_and_its_links_keep_working(tmp_path: Path) -> None:
    """A database written before this change (no ``start`` column, plain tokens) opens:
    its tokens are hashed in place and the old links still hold their seats."""
    with sqlite3.connect(tmp_path / "hexgames.sqlite3") as connection:
        connection.execute(
            "CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT "
            "NULL, mode TEXT NOT NULL, players TEXT NOT NULL, seat_tokens TEXT NOT NULL, "
            "status TEXT NOT NULL, winner TEXT, reason TEXT, created_at TEXT NOT NULL, "
            "updated_at TEXT NOT NULL)")
        connection.execute(
            "INSERT INTO games VALUES ('old', 'benediction', ?, 'hotseat', ?, ?, 'playing', "
            "NULL, NULL, 't', 't')",
            (json.dumps(dict(get_game("benediction").rules_options(
                get_game("benediction").make_rules()))),
             json.dumps([{"kind": "human", "level": None}] * 2),
             json.dumps(["plain-old-token", "plain-old-token"])))
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        assert view(client, "old", "plain-old-token")["your_seats"] == [0, 1]
    with sqlite3.connect(tmp_path / "hexgames.sqlite3") as connection:
        stored = connection.execute("SELECT seat_tokens FROM games").fetchone()[0]
    assert "plain-old-token" not in stored and stored.count("sha256:") == 2
