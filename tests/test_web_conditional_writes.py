"""Conditional writes of a game's meta and seats (issue 31, rows 6 and 14).

Every write of a game's row adds one to its ``version``; the writes of its meta (clock,
offers, rematch) and seats (an invitation claimed) are stored only if the row is still at
the version their writer read (``MetaConflict`` otherwise), and the service then re-reads
the game and applies the change again (or answers 409).

The races run on two real server processes sharing one throwaway PostgreSQL database,
each a fixed number of times: nothing here depends on timing, and every wait is bounded.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from http.client import HTTPConnection
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

import test_web_storage
from hexgames.web.app import create_app
from hexgames.web.storage import GameMeta, MetaConflict, StoredGame, open_storage
from test_web_scale import http, start, stop

backend = test_web_storage.backend
postgres_cluster = test_web_storage.postgres_cluster
postgres_url = test_web_storage.postgres_url

REALTIME = {"kind": "realtime", "base_s": 600, "increment_s": 0}
GAME = {"game": "benediction", "mode": "online", "control": REALTIME}
#: Turns of the offer/cancel storm, and races of each kind.
TURNS = 20
RACES = 12


# ------------------------------------------------------------------ storage
def _stored(game_id: str = "g1") -> StoredGame:
    return StoredGame(
        id=game_id, game="benediction", options={}, mode="online",
        players=[{"kind": "human", "level": None}, {"kind": "human", "level": None,
                                                      "invite": "open"}],
        seat_tokens=["a", "b"], status="playing", winner=None, reason=None,
        created_at="t", updated_at="t", meta=GameMeta(turn=0),
    )


def test_meta_and_seat_writes_are_conditional_on_the_version(
    backend: tuple[str, dict],
) -> None:
    _, args = backend
    storage = open_storage(**args)
    try:
        storage.create_game(_stored())
        assert storage.load_game("g1").version == 0
        assert storage.set_meta("g1", GameMeta.from_dict({"turn": 1}), "t", 0) == 1
        with pytest.raises(MetaConflict):  # written on version 0, which is gone
            storage.set_meta("g1", GameMeta(turn=0, offers={"takeback": 0}), "t", 0)
        assert storage.load_game("g1").meta.to_dict() == {"turn": 1}
        assert storage.append_actions("g1", 0, ["x"], "t") == 2  # actions count too
        with pytest.raises(MetaConflict):
            storage.set_seats("g1", [{}, {}], ["c", "d"], "t", 1)
        assert storage.set_seats("g1", [{}, {}], ["c", "d"], "t", 2) == 3
        assert not storage.end_if_playing("g1", None, "x", GameMeta(), "t", 2)
        assert storage.end_if_playing("g1", None, "x", GameMeta(), "t", 3)
        game = storage.load_game("g1")
        assert game.status == "over" and game.version == 4 and game.actions == ["x"]
        storage.set_meta("g1", GameMeta.from_dict({"unconditional": True}), "t")  # bumps
        assert storage.load_game("g1").version == 5
        # A change applied to the stored meta under the row's lock (a move's clock).
        assert storage.update_meta("g1", lambda meta: setattr(meta, "turn", 1), "t", 2) is None
        assert storage.update_meta("g1", lambda meta: setattr(meta, "turn", 1), "t", 1,
                                   "playing") is None
        written = storage.update_meta("g1", lambda meta: setattr(meta, "turn", 1), "t", 1)
        assert written is not None and written.version == 6
        assert written.meta.to_dict() == {"unconditional": True, "turn": 1}
        assert storage.load_game("g1").meta == written.meta
        storage.set_meta("g1", GameMeta.from_dict({"unconditional": True}), "t", 6)
        rematch = _stored("g2")
        with pytest.raises(MetaConflict):  # the new game is stored only with the offer
            storage.set_meta("g1", GameMeta.from_dict({"rematch": "g2"}), "t", 6, None, rematch)
        assert storage.load_game("g2") is None
        storage.set_meta("g1", GameMeta.from_dict({"rematch": "g2"}), "t", 7, None, rematch)
        assert storage.load_game("g2") is not None
    finally:
        storage.close()


def test_an_older_database_gets_the_version_column(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "hexgames.sqlite3"
    connection = sqlite3.connect(path)
    connection.execute(
        "CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL, "
        "mode TEXT NOT NULL, players TEXT NOT NULL, seat_tokens TEXT NOT NULL, "
        "status TEXT NOT NULL, winner TEXT, reason TEXT, created_at TEXT NOT NULL, "
        "updated_at TEXT NOT NULL, start TEXT, rated INTEGER NOT NULL DEFAULT 0, meta TEXT, "
        "deadline BIGINT)")
    connection.execute("INSERT INTO games VALUES ('old','benediction','{}','online','[]',"
                       "'[]','playing',NULL,NULL,'t','t',NULL,0,'{}',NULL)")
    connection.commit()
    connection.close()
    storage = open_storage(data_dir=tmp_path)
    try:
        assert storage.load_game("old").version == 0
        assert storage.set_meta("old", GameMeta.from_dict({"turn": 1}), "t", 0) == 1
    finally:
        storage.close()


# -------------------------------------------------------------- two processes
@pytest.fixture(scope="module")
def database(postgres_cluster: str) -> str:
    """One database for this module's two servers (each test uses games of its own)."""
    import psycopg

    name = "c_" + secrets.token_hex(6)
    with psycopg.connect(f"postgresql://postgres@/postgres?host={postgres_cluster}",
                         autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql://postgres@/{name}?host={postgres_cluster}"


@pytest.fixture(scope="module")
def servers(database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    processes: list[Any] = []
    urls: list[str] = []
    try:
        for name in ("a", "b"):
            process, url = start([], database, tmp_path_factory.mktemp(name))
            processes.append(process)
            urls.append(url)
        yield urls
    finally:
        for process in processes:
            stop(process)
            print("".join(process.output)[-20_000:])  # shown when a test failed


class Client:
    """One keep-alive HTTP connection to a server (fast enough to storm it)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.connection = HTTPConnection(parts.hostname or "", parts.port, timeout=30)

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        self.connection.request("POST", path, json.dumps(body),
                                {"Content-Type": "application/json"})
        response = self.connection.getresponse()
        return response.status, json.loads(response.read())

    def close(self) -> None:
        self.connection.close()


def wait_for(url: str, path: str, ready: Any, what: str) -> dict[str, Any]:
    """GET ``path`` until ``ready(answer)`` (bounded: a process learns of another's
    change within milliseconds)."""
    for _ in range(400):
        status, body = http("GET", url + path)
        if status == 200 and ready(body):
            return body
        threading.Event().wait(0.025)
    raise AssertionError(f"{what}: never seen on {url}; last answer {body!r}")


def online_game(a: str, b: str) -> tuple[str, list[str], str]:
    """A timed online game created on A; its invitation claimed on B. Returns the id,
    the seat credentials and the invitation token (already used)."""
    status, created = http("POST", f"{a}/api/games", GAME)
    assert status == 201, created
    game_id, (red, invite) = created["id"], created["tokens"]
    status, claimed = http("POST", f"{b}/api/games/{game_id}/claim", {"token": invite})
    assert status == 200 and claimed["role"] == "player", claimed
    wait_for(a, f"/api/games/{game_id}?token={claimed['token']}",
             lambda body: body["your_seats"] == [1], "the claimed seat")
    return game_id, [red, claimed["token"]], invite


def stored_game(storage: Any, game_id: str) -> StoredGame:
    game = storage.load_game(game_id)
    assert game is not None
    return game


def test_the_clock_follows_the_turn_under_an_offer_cancel_storm(
    servers: list[str], database: str,
) -> None:
    """Each side plays on its own process while the other side asks for a takeback and
    withdraws it, again and again, on its own: after every turn the stored clock runs
    for the side to move and has counted every turn (a stale offer written over the
    clock gave the mover's time back and ran it on)."""
    a, b = servers
    game_id, tokens, _ = online_game(a, b)
    storage = open_storage(database_url=database)
    stored_offers = 0
    try:
        for turn in range(TURNS):
            mover = turn % 2
            mine, theirs = servers[mover], servers[1 - mover]
            stop_storm = threading.Event()
            answers: list[int] = []

            def storm(url: str = theirs, token: str = tokens[1 - mover],
                      stop_storm: threading.Event = stop_storm,
                      answers: list[int] = answers) -> None:
                client = Client(url)
                try:
                    while not stop_storm.is_set():
                        for answer in ("offer", "cancel"):
                            answers.append(client.post(f"/api/games/{game_id}/takeback",
                                                       {"token": token,
                                                        "answer": answer})[0])
                finally:
                    client.close()

            view = wait_for(mine, f"/api/games/{game_id}?token={tokens[mover]}",
                            lambda body: body["your_turn"] or body["is_over"], "the turn")
            if view["is_over"]:
                break
            spammer = threading.Thread(target=storm, daemon=True)
            spammer.start()
            try:
                client = Client(mine)
                try:
                    while view["your_turn"]:
                        status, view = client.post(f"/api/games/{game_id}/actions", {
                            "token": tokens[mover], "action": view["legal"][0]["action"],
                            "ply": view["ply"]})
                        assert status == 200, view
                finally:
                    client.close()
                # The turn is acknowledged: what is stored now, whoever stores next.
                stored = stored_game(storage, game_id)
            finally:
                stop_storm.set()
                spammer.join(timeout=60)
            assert not spammer.is_alive()
            assert all(code in (200, 409) for code in answers), answers
            stored_offers += answers.count(200)
            if view["is_over"]:
                break
            clock = stored.meta.clock
            assert stored.meta.turn == 1 - mover, (turn, stored.meta)
            assert clock["turns"] == [turn // 2 + 1, (turn + 1) // 2], (turn, clock)
            if turn >= 1:  # the clock runs once each side has had its (free) first turn
                assert clock["running"] == 1 - mover, (turn, clock)
            # ... and the storm after the turn never turns it back.
            assert stored_game(storage, game_id).meta.clock["running"] == \
                clock["running"], turn
        else:
            turn = TURNS
        assert turn >= 10, "the game ended too soon to show anything"
        assert stored_offers >= TURNS, "the storm stored too few requests to race the moves"
    finally:
        storage.close()


def test_rematch_offers_made_at_once_on_two_processes_make_one_rematch(
    servers: list[str], database: str,
) -> None:
    a, b = servers
    storage = open_storage(database_url=database)
    try:
        for race in range(RACES):
            game_id, (red, blue), _ = online_game(a, b)
            status, view = http("POST", f"{a}/api/games/{game_id}/resign", {"token": red})
            assert status == 200 and view["is_over"], view
            for url, token in ((a, red), (b, blue)):
                wait_for(url, f"/api/games/{game_id}?token={token}",
                         lambda body: body["can_rematch"], "the end of the game")
            barrier = threading.Barrier(2, timeout=30)
            results: dict[str, tuple[int, Any]] = {}

            def offer(url: str, token: str, barrier: threading.Barrier = barrier,
                      results: dict[str, tuple[int, Any]] = results,
                      game_id: str = game_id) -> None:
                client = Client(url)
                try:
                    barrier.wait()
                    results[url] = client.post(f"/api/games/{game_id}/rematch",
                                               {"token": token, "answer": "offer"})
                finally:
                    client.close()

            threads = [threading.Thread(target=offer, args=(url, token))
                       for url, token in ((a, red), (b, blue))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=60)
            assert sorted(code for code, _ in results.values()) == [200, 200], results
            stored = stored_game(storage, game_id)
            rematch = stored.meta.rematch
            assert rematch, (race, stored.meta)
            made = [game for game in storage.list_games(500)
                    if game.meta.rematch_of == game_id]
            assert [game.id for game in made] == [rematch], race
            for url, token in ((a, red), (b, blue)):  # both players are sent there
                wait_for(url, f"/api/games/{game_id}?token={token}",
                         lambda body, rematch=rematch: body["rematch"] == rematch,
                         "the rematch")
            # Each credential holds the other colour in the new game.
            assert http("GET", f"{b}/api/games/{rematch}?token={red}")[1][
                "your_seats"] == [1]
            assert http("GET", f"{a}/api/games/{rematch}?token={blue}")[1][
                "your_seats"] == [0]
    finally:
        storage.close()


def test_an_invitation_claimed_on_two_processes_at_once_has_one_player(
    servers: list[str],
) -> None:
    a, b = servers
    for race in range(RACES):
        status, created = http("POST", f"{a}/api/games", GAME)
        assert status == 201, created
        game_id, invite = created["id"], created["tokens"][1]
        for url in (a, b):  # both processes hold the game
            assert http("GET", f"{url}/api/games/{game_id}")[0] == 200
        barrier = threading.Barrier(2, timeout=30)
        results: dict[str, tuple[int, Any]] = {}

        def claim(url: str, barrier: threading.Barrier = barrier,
                  results: dict[str, tuple[int, Any]] = results,
                  game_id: str = game_id, invite: str = invite) -> None:
            client = Client(url)
            try:
                barrier.wait()
                results[url] = client.post(f"/api/games/{game_id}/claim",
                                           {"token": invite})
            finally:
                client.close()

        threads = [threading.Thread(target=claim, args=(url,)) for url in (a, b)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert [code for code, _ in results.values()] == [200, 200], results
        roles = sorted(body["role"] for _, body in results.values())
        assert roles == ["player", "spectator"], (race, results)
        winner = next(body for _, body in results.values() if body["role"] == "player")
        for url in (a, b):  # the winner's credential holds the seat on both processes
            wait_for(url, f"/api/games/{game_id}?token={winner['token']}",
                     lambda body: body["your_seats"] == [1], "the claimed seat")


# -------------------------------------------------------------------- SQLite
def test_one_process_on_sqlite_plays_offers_and_rematches_as_before(tmp_path: Path) -> None:
    app = create_app(data_dir=tmp_path, ai_processes=1)
    with TestClient(app) as client:
        created = client.post("/api/games", json=GAME).json()
        game_id, (red, invite) = created["id"], created["tokens"]
        blue = client.post(f"/api/games/{game_id}/claim", json={"token": invite}).json()
        assert blue["role"] == "player"
        tokens = [red, blue["token"]]
        url = f"/api/games/{game_id}"
        for turn in range(6):
            mover = turn % 2
            if turn:
                assert client.post(f"{url}/takeback", json={
                    "token": tokens[1 - mover], "answer": "offer"}).status_code == 200
                assert client.post(f"{url}/takeback", json={
                    "token": tokens[1 - mover], "answer": "cancel"}).status_code == 200
                assert client.post(f"{url}/takeback", json={
                    "token": tokens[1 - mover], "answer": "offer"}).status_code == 200
            view = client.get(url, params={"token": tokens[mover]}).json()
            while view["your_turn"]:
                view = client.post(f"{url}/actions", json={
                    "token": tokens[mover], "action": view["legal"][0]["action"],
                    "ply": view["ply"]}).json()
            assert view["takeback_offer"] is None  # the move dropped the request
            assert view["clock"]["running"] == (1 - mover if turn else None)
        storage = app.state.site.service.storage
        assert storage.load_game(game_id).meta.clock["turns"] == [3, 3]
        client.post(f"{url}/resign", json={"token": red})
        assert client.post(f"{url}/rematch", json={"token": red}).status_code == 200
        view = client.post(f"{url}/rematch", json={"token": tokens[1]}).json()
        assert view["rematch"]
        made = [game for game in storage.list_games(50)
                if game.meta.rematch_of == game_id]
        assert [game.id for game in made] == [view["rematch"]]
