"""The storage backends: SQLite (always) and PostgreSQL (a throwaway cluster per session).

The same tests run against both, through the one ``Storage`` interface, so the two
implementations cannot drift apart. The PostgreSQL cluster is started with Debian's
postgresql-15 binaries as the ``postgres`` OS user (the server refuses to run as root),
listening only on a unix socket inside its own temporary directory, so parallel test
workers never collide on a port.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hexgames.web.storage import (
    StaleWrite,
    Storage,
    StorageUnavailable,
    StoredGame,
    hash_token,
    open_storage,
)
from hexgames.web.storage.sqlite import SqliteStorage

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def _pg_missing_reason() -> str | None:
    if not (PG_BIN / "initdb").exists() or not (PG_BIN / "pg_ctl").exists():
        return f"PostgreSQL binaries not found in {PG_BIN} (install postgresql-15)"
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return "no 'postgres' OS user to run the throwaway cluster as"
    if os.geteuid() != 0 and pwd.getpwuid(os.geteuid()).pw_name != "postgres":
        return "starting a cluster as the postgres user needs root (runuser)"
    if shutil.which("runuser") is None and os.geteuid() == 0:
        return "runuser is not available to switch to the postgres user"
    return None


def _as_postgres(*command: str) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return list(command)


def start_cluster(root: Path) -> None:
    """Make (once) and start a throwaway PostgreSQL cluster under ``root`` (its unix
    socket there too), run by the postgres user."""
    data = root / "data"
    if not data.exists():
        shutil.chown(root, user="postgres")
        root.chmod(0o700)
        subprocess.run(
            _as_postgres(str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres",
                         "-A", "trust", "--no-sync", "-E", "UTF8"),
            check=True, capture_output=True, timeout=120,
        )
    options = f"-c listen_addresses='' -k {root} -c fsync=off -c full_page_writes=off"
    subprocess.run(
        _as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(data), "-o", options,
                     "-l", str(root / "server.log"), "-w", "-t", "60", "start"),
        check=True, capture_output=True, timeout=90,
    )


def stop_cluster(root: Path, mode: str = "immediate") -> None:
    """Stop the cluster under ``root`` (``mode``: pg_ctl's ``-m``)."""
    subprocess.run(
        _as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(root / "data"), "-m", mode, "-w",
                     "-t", "60", "stop"),
        capture_output=True, timeout=90, check=False,
    )


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[str]:
    """A running PostgreSQL cluster; yields the directory holding its unix socket."""
    reason = _pg_missing_reason()
    if reason:
        pytest.skip(reason)
    # Not tmp_path: the postgres user must be able to reach the directory, and pytest's
    # temporary root is private to root.
    root = Path(tempfile.mkdtemp(prefix="hexgames-pg-"))
    try:
        start_cluster(root)
        yield str(root)
    finally:
        stop_cluster(root)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_cluster: str) -> str:
    """A fresh, empty database in the session's cluster (one per test)."""
    import psycopg

    name = "t_" + secrets.token_hex(6)
    with psycopg.connect(f"postgresql://postgres@/postgres?host={postgres_cluster}",
                         autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql://postgres@/{name}?host={postgres_cluster}"


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, dict[str, object]]:
    """Keyword arguments for ``open_storage`` naming a fresh store of each kind."""
    if request.param == "sqlite":
        return "sqlite", {"data_dir": tmp_path}
    return "postgres", {"database_url": request.getfixturevalue("postgres_url")}


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, object]:
    """``open_storage`` arguments naming a fresh store of each kind (``backend`` without
    its name)."""
    if request.param == "sqlite":
        return {"data_dir": tmp_path}
    return {"database_url": request.getfixturevalue("postgres_url")}


def _game(
    game_id: str = "g1", actions: list[str] | None = None, stamp: str = "2026-01-01T00:00:00+00:00"
) -> StoredGame:
    return StoredGame(
        id=game_id, game="benediction", options={"side": 5, "supply": None}, mode="online",
        players=[{"kind": "human", "level": None}, {"kind": "ai", "level": 3}],
        seat_tokens=["secret-0", None], status="playing", winner=None, reason=None,
        created_at=stamp, updated_at=stamp, actions=list(actions or []),
    )


def test_a_game_round_trips_with_its_actions(backend: tuple[str, dict]) -> None:
    _, where = backend
    storage: Storage = open_storage(**where)
    storage.create_game(_game(actions=["e3e4", "@d1"]))
    loaded = storage.load_game("g1")
    assert loaded is not None
    assert loaded.actions == ["e3e4", "@d1"]
    assert loaded.options == {"side": 5, "supply": None}
    assert loaded.players[1] == {"kind": "ai", "level": 3}
    assert loaded.seat_tokens == [hash_token("secret-0"), None]  # never the token itself
    assert storage.load_game("missing") is None
    storage.close()


def test_actions_append_truncate_and_the_result_is_kept(backend: tuple[str, dict]) -> None:
    _, where = backend
    storage = open_storage(**where)
    storage.create_game(_game())
    storage.append_actions("g1", 0, ["e3e4"], "2026-01-01T00:00:01+00:00")
    storage.append_actions("g1", 1, ["e7e6", "e8e7"], "2026-01-01T00:00:02+00:00")
    assert storage.load_game("g1").actions == ["e3e4", "e7e6", "e8e7"]
    storage.truncate_actions("g1", 1, "2026-01-01T00:00:03+00:00")
    assert storage.load_game("g1").actions == ["e3e4"]
    storage.finish_game("g1", "red", "Blue resigned", "2026-01-01T00:00:04+00:00")
    loaded = storage.load_game("g1")
    assert (loaded.status, loaded.winner, loaded.reason) == ("over", "red", "Blue resigned")
    assert loaded.updated_at == "2026-01-01T00:00:04+00:00"
    storage.finish_game("g1", None, None, "2026-01-01T00:00:05+00:00")
    assert storage.load_game("g1").status == "playing"
    storage.close()


def test_a_ply_cannot_be_stored_twice(backend: tuple[str, dict]) -> None:
    """Two writers racing for the same ply must not both succeed (primary key)."""
    _, where = backend
    storage = open_storage(**where)
    storage.create_game(_game(actions=["e3e4"]))
    with pytest.raises(StaleWrite, match="not stored"):
        storage.append_actions("g1", 0, ["e2e3"], "2026-01-01T00:00:01+00:00")
    assert storage.load_game("g1").actions == ["e3e4"]  # the failed write left nothing behind
    storage.close()


def test_games_survive_reopening_and_list_newest_first(backend: tuple[str, dict]) -> None:
    _, where = backend
    first = open_storage(**where)
    first.create_game(_game("old", stamp="2026-01-01T00:00:00+00:00"))
    first.create_game(_game("new", stamp="2026-01-02T00:00:00+00:00"))
    first.append_actions("old", 0, ["e3e4"], "2026-01-03T00:00:00+00:00")
    first.close()
    second = open_storage(**where)
    assert [g.id for g in second.list_games()] == ["old", "new"]
    assert [g.id for g in second.list_games(limit=1)] == ["old"]
    assert second.load_game("old").actions == ["e3e4"]
    second.close()


def test_open_storage_chooses_the_backend_from_the_url(tmp_path: Path) -> None:
    storage = open_storage(database_url=f"sqlite:///{tmp_path / 'x.sqlite3'}")
    assert isinstance(storage, SqliteStorage)
    assert (tmp_path / "x.sqlite3").exists()
    storage.close()
    with pytest.raises(ValueError, match="unsupported DATABASE_URL"):
        open_storage(database_url="mysql://somewhere/db")


def test_the_web_app_keeps_games_in_postgresql_across_restarts(postgres_url: str) -> None:
    """End to end: ``create_app(database_url=...)`` stores and reloads games in PostgreSQL."""
    from fastapi.testclient import TestClient

    from hexgames.web.app import create_app

    with TestClient(create_app(database_url=postgres_url)) as client:
        created = client.post("/api/games", json={"game": "dendria", "mode": "hotseat"}).json()
        game_id, token = created["id"], created["token"]
        legal = client.get(f"/api/games/{game_id}", params={"token": token}).json()["legal"]
        played = client.post(f"/api/games/{game_id}/actions",
                             json={"token": token, "action": legal[0]["action"]})
        assert played.status_code == 200
    with TestClient(create_app(database_url=postgres_url)) as client:
        again = client.get(f"/api/games/{game_id}", params={"token": token}).json()
        assert again["history"] == played.json()["history"]
        assert [g["id"] for g in client.get("/api/games").json()["games"]] == [game_id]


def test_postgres_storage_reconnects_after_losing_its_connection(postgres_url: str) -> None:
    import psycopg

    storage = open_storage(database_url=postgres_url)
    storage.create_game(_game())
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    with pytest.raises(StorageUnavailable):
        storage.load_game("g1")  # the statement that meets the dead connection fails...
    assert storage.load_game("g1").id == "g1"  # ...and the next one reconnects
    storage.close()


def test_a_frozen_postgresql_answers_503_instead_of_hanging(postgres_url: str) -> None:
    """A database that does not answer (here: a table locked by another session) must
    not hang requests: statements time out and the API answers 503 with a message."""
    import threading

    import psycopg
    from fastapi.testclient import TestClient

    from hexgames.web.app import create_app
    from hexgames.web.storage.postgres import PostgresStorage

    storage = PostgresStorage(postgres_url, statement_timeout_ms=300)
    storage.create_game(_game())
    app = create_app(database_url=postgres_url, ai_processes=1)
    app.state.site.service.storage.close()
    app.state.site.service.storage = PostgresStorage(postgres_url, statement_timeout_ms=300)
    with psycopg.connect(postgres_url) as admin, TestClient(app) as client:
        admin.execute("LOCK TABLE games IN ACCESS EXCLUSIVE MODE")  # held until the end
        outcome: list[object] = []

        def load() -> None:
            try:
                outcome.append(storage.load_game("g1"))
            except Exception as error:
                outcome.append(error)

        worker = threading.Thread(target=load, daemon=True)
        worker.start()
        worker.join(timeout=60)
        assert outcome and isinstance(outcome[0], StorageUnavailable), outcome
        response = client.get("/api/games")
        assert response.status_code == 503
        assert "storage" in response.json()["error"]
        admin.rollback()
    assert storage.load_game("g1").id == "g1"  # and it recovers
    storage.close()
