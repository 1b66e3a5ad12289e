"""Lobby storage (issue 11) on both backends: meta and deadlines, challenges, and the
accept race (two acceptors of one challenge: exactly one game)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import test_web_storage
from hexgames.web.storage import GameMeta, Seek, SeekTaken, StoredGame, open_storage

# The backends' fixtures (a throwaway PostgreSQL cluster and SQLite) of the storage tests.
backend = test_web_storage.backend
postgres_cluster = test_web_storage.postgres_cluster
postgres_url = test_web_storage.postgres_url

STAMP = "2026-01-01T00:00:00+00:00"


def _game(game_id: str, meta: dict | None = None) -> StoredGame:
    return StoredGame(
        id=game_id, game="benediction", options={}, mode="online",
        players=[{"kind": "human", "level": None}, {"kind": "human", "level": None}],
        seat_tokens=["a", "b"], status="playing", winner=None, reason=None,
        created_at=STAMP, updated_at=STAMP, meta=GameMeta.from_dict(meta),
    )


def _seek(seek_id: str = "s1") -> Seek:
    return Seek(id=seek_id, game="benediction", options={}, control={"kind": "untimed"},
                color="random", rated=True, creator={"kind": "human", "name": "Ann"},
                creator_token="tok", target=None, status="open", game_id=None,
                created_at=STAMP)


def test_meta_and_deadlines_are_kept(backend: tuple[str, dict]) -> None:
    storage = open_storage(**backend[1])
    try:
        storage.create_game(_game("g1", {"deadline": 5_000_000_000_000, "rated": True}))
        storage.create_game(_game("g2"))
        assert storage.load_game("g1").meta.extra["rated"] is True
        assert storage.load_game("g2").meta.to_dict() == {}
        assert storage.clocked_games() == [("g1", 5_000_000_000_000)]
        storage.set_meta("g2", GameMeta.from_dict({"deadline": 7}), STAMP)
        assert sorted(storage.clocked_games()) == [("g1", 5_000_000_000_000), ("g2", 7)]
        assert storage.end_if_playing("g2", "red", "Blue ran out of time",
                                      GameMeta.from_dict({"x": 1}), STAMP)
        assert not storage.end_if_playing("g2", "blue", "Red ran out of time", GameMeta(), STAMP)
        again = storage.load_game("g2")
        assert (again.status, again.winner, again.meta.to_dict()) == ("over", "red", {"x": 1})
        assert storage.clocked_games() == [("g1", 5_000_000_000_000)]
        assert [g.id for g in storage.games_with_status("playing")] == ["g1"]
    finally:
        storage.close()


def test_a_challenge_is_taken_once_and_withdrawn_only_by_its_creator(
        backend: tuple[str, dict]) -> None:
    storage = open_storage(**backend[1])
    try:
        storage.create_seek(_seek("s1"))
        storage.create_seek(_seek("s2"))
        assert [s.id for s in storage.open_seeks()] == ["s1", "s2"]
        storage.accept_seek("s1", _game("g1"))
        with pytest.raises(SeekTaken):
            storage.accept_seek("s1", _game("g2"))
        assert storage.load_game("g2") is None
        assert storage.load_seek("s1").game_id == "g1"
        assert not storage.cancel_seek("s2", "not-the-token")
        assert storage.cancel_seek("s2", "tok")
        assert storage.open_seeks() == []
    finally:
        storage.close()


def test_two_acceptors_racing_get_exactly_one_game(backend: tuple[str, dict]) -> None:
    """Two storages (two server processes on PostgreSQL; one file's two connections are
    not allowed on SQLite, so there two threads share one) accept the same challenge at
    once, many times over: each challenge ends with exactly one game."""
    kind, args = backend
    first = open_storage(**args)
    second = open_storage(**args) if kind == "postgres" else first
    try:
        for round_ in range(20):
            seek_id = f"s{round_}"
            first.create_seek(_seek(seek_id))
            barrier = threading.Barrier(2)
            results: list[str] = []

            def accept(storage, game_id: str, barrier=barrier, seek_id=seek_id,
                       results=results) -> None:
                barrier.wait()
                try:
                    storage.accept_seek(seek_id, _game(game_id))
                    results.append(game_id)
                except SeekTaken:
                    results.append("taken")

            threads = [threading.Thread(target=accept, args=(s, f"{seek_id}-{n}"))
                       for n, s in enumerate((first, second))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert sorted(results)[1] == "taken" and len(results) == 2, results
            winner = sorted(results)[0]
            assert first.load_seek(seek_id).game_id == winner
            loser = f"{seek_id}-1" if winner.endswith("-0") else f"{seek_id}-0"
            assert first.load_game(loser) is None
    finally:
        first.close()
        if second is not first:
            second.close()


def test_an_old_database_gets_the_new_columns(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "hexgames.sqlite3"
    connection = sqlite3.connect(path)
    connection.execute(
        "CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL, "
        "mode TEXT NOT NULL, players TEXT NOT NULL, seat_tokens TEXT NOT NULL, "
        "status TEXT NOT NULL, winner TEXT, reason TEXT, created_at TEXT NOT NULL, "
        "updated_at TEXT NOT NULL)")
    connection.execute("INSERT INTO games VALUES ('old','benediction','{}','hotseat','[]',"
                       "'[]','playing',NULL,NULL,'t','t')")
    connection.commit()
    connection.close()
    storage = open_storage(data_dir=tmp_path)
    try:
        assert storage.load_game("old").meta.to_dict() == {}
        assert storage.clocked_games() == []
    finally:
        storage.close()
