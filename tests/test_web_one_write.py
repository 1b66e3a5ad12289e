"""One write per move (issue 40): a move stores its actions, its clock and the turn in one
transaction, and on PostgreSQL in one statement committed on its own (one round trip).

The storages are the real ones; only what they send is counted: SQLite's own trace of
the statements it runs (``set_trace_callback``), and for PostgreSQL a subclass used only
here that notes each transaction and the statements run in it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

import test_web_storage
from hexgames.web.play.storage_calls import StorageCalls
from hexgames.web.storage import ConditionalLine, GameMeta, MoveWrite, StaleWrite, StoredMove
from hexgames.web.storage.postgres import PostgresStorage
from hexgames.web.storage.sqlite import SqliteStorage
from test_web_absence import REALTIME, rated_game
from test_web_lobby import FakeTime, state
from test_web_pools import quiet_app

postgres_cluster = test_web_storage.postgres_cluster
postgres_url = test_web_storage.postgres_url

WRITES = ("INSERT", "UPDATE", "DELETE", "WITH")


class _Cursor:
    """A driver cursor whose statements are noted in ``statements``."""

    def __init__(self, cursor: Any, statements: list[str]) -> None:
        self._cursor = cursor
        self._statements = statements

    def execute(self, statement: str, *args: Any) -> Any:
        self._statements.append(statement)
        return self._cursor.execute(statement, *args)

    def executemany(self, statement: str, *args: Any) -> Any:
        self._statements.append(statement)
        return self._cursor.executemany(statement, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


class CountedPostgres(PostgresStorage):
    """PostgreSQL storage noting each transaction: whether it ran as one statement
    committed on its own (no BEGIN nor COMMIT round trip), and its statements."""

    def __init__(self, url: str) -> None:
        self.transactions: list[tuple[bool, list[str]]] = []
        super().__init__(url)

    @contextmanager
    def _transaction(self, single: bool = False) -> Iterator[Any]:
        statements: list[str] = []
        with super()._transaction(single) as cursor:
            yield _Cursor(cursor, statements)
        self.transactions.append((single, statements))

    def writes(self) -> list[tuple[bool, list[str]]]:
        return [(single, statements) for single, statements in self.transactions
                if any(s.lstrip().upper().startswith(WRITES) for s in statements)]


def _first_move(client: TestClient) -> tuple[str, dict[str, Any]]:
    """An online game with a clock, before Red's first action (a whole turn: the clock
    switches and the turn passes, so the move changes the meta)."""
    game_id, red, _ = rated_game(client, REALTIME)
    view = state(client, game_id, red)
    body = {"token": red, "action": view["legal"][0]["action"], "ply": view["ply"]}
    return game_id, body


def test_a_move_is_one_sqlite_transaction(tmp_path: Path) -> None:
    with TestClient(quiet_app(FakeTime(), data_dir=tmp_path / "site")) as client:
        service = client.app.state.site.service
        site = service.storage
        service.storage = storage = SqliteStorage(tmp_path / "counted.sqlite3")
        try:
            game_id, body = _first_move(client)
            before = storage.load_game(game_id)
            assert before is not None
            seen: list[str] = []
            storage._connection.set_trace_callback(seen.append)
            answer = client.post(f"/api/games/{game_id}/actions", json=body)
            storage._connection.set_trace_callback(None)
            assert answer.status_code == 200, answer.text
            assert [s for s in seen if s.strip().upper() == "COMMIT"] == ["COMMIT"], seen
            after = storage.load_game(game_id)
            assert after is not None and len(after.actions) == 1
            # The one write holds the clock and the turn too.
            assert before.meta.turn == 0 and after.meta.turn == 1
            assert after.meta.clock != before.meta.clock
        finally:
            service.storage = site
            storage.close()


def test_a_move_is_one_postgres_statement(tmp_path: Path, postgres_url: str) -> None:
    with TestClient(quiet_app(FakeTime(), data_dir=tmp_path)) as client:
        service = client.app.state.site.service
        site = service.storage
        service.storage = storage = CountedPostgres(postgres_url)
        try:
            game_id, body = _first_move(client)
            before = storage.load_game(game_id)
            assert before is not None
            storage.transactions.clear()
            answer = client.post(f"/api/games/{game_id}/actions", json=body)
            assert answer.status_code == 200, answer.text
            writes = storage.writes()
            assert len(writes) == 1, writes
            single, statements = writes[0]
            assert single and len(statements) == 1, writes  # one round trip
            after = storage.load_game(game_id)
            assert after is not None and len(after.actions) == 1
            assert before.meta.turn == 0 and after.meta.turn == 1
            assert after.meta.clock != before.meta.clock
        finally:
            service.storage = site
            storage.close()


def test_a_move_on_a_row_changed_meanwhile_keeps_the_other_change(
        postgres_url: str) -> None:
    """The one-statement write is taken only while the row is at the version the mover
    read; else the move's meta change is applied to the stored meta (a takeback offer
    written meanwhile by another process is kept), still in one transaction."""
    storage = CountedPostgres(postgres_url)
    try:
        game = test_web_storage._game("g1")
        game.meta = GameMeta(turn=0)
        storage.create_game(game)
        moved_on = storage.set_meta("g1", GameMeta(turn=0, offers={"rematch": 1}), "t")

        def change(meta: GameMeta) -> None:
            meta.turn = 1

        held = GameMeta(turn=1)  # computed from the older copy
        storage.transactions.clear()
        written = storage.store_move(MoveWrite("g1", 0, ("e3e4",), "t", None, change, held,
                                               moved_on - 1))
        assert written.version == moved_on + 1
        assert written.meta is not None
        assert written.meta.to_dict() == {"turn": 1, "offers": {"rematch": 1}}
        # The one statement found the row moved on and wrote nothing; one transaction
        # then read the row under its lock and wrote everything.
        assert [single for single, _ in storage.transactions] == [True, False]
        assert len(storage.writes()) == 2
        stored = storage.load_game("g1")
        assert stored is not None and stored.actions == ["e3e4"]
        assert stored.meta == written.meta
    finally:
        storage.close()


def test_moves_of_one_loop_turn_share_one_postgres_commit(postgres_url: str) -> None:
    """The moves of several games made in the same turn of the event loop go to the
    storage together (``StorageCalls.call_batched``): one transaction, one statement each,
    one commit; a move refused there (another writer stored its ply) fails alone."""
    storage = CountedPostgres(postgres_url)
    calls = StorageCalls(storage)
    try:
        for game_id in ("a", "b", "c"):
            storage.create_game(test_web_storage._game(game_id))
        storage.append_actions("c", 0, ["e3e4"], "t")  # c's ply 0 is taken
        storage.transactions.clear()

        async def three_moves() -> list[Any]:
            return await asyncio.gather(
                *(calls.call_batched(storage.store_move, MoveWrite(game_id, 0, ("e3e4",), "t"))
                  for game_id in ("a", "b", "c")), return_exceptions=True)

        first, second, refused = asyncio.run(three_moves())
        assert isinstance(first, StoredMove) and isinstance(second, StoredMove)
        assert isinstance(refused, StaleWrite)
        assert len(storage.transactions) == 1, storage.transactions  # one commit
        single, statements = storage.transactions[0]
        assert not single and statements[-1] == "ROLLBACK TO SAVEPOINT move"
        assert [storage.load_game(g).actions for g in "abc"] == [["e3e4"]] * 3  # type: ignore[union-attr]
        assert storage.load_game("c").version == 1  # type: ignore[union-attr]
    finally:
        calls.shutdown()
        storage.close()


def test_a_move_of_a_game_without_conditional_lines_reads_none(
        tmp_path: Path, postgres_url: str) -> None:
    """A correspondence game takes conditional lines; its move learns in its own write
    how many the game holds, so a game with none makes no second call to read them
    (a round trip a move on PostgreSQL). With a line stored, the move reads it."""
    with TestClient(quiet_app(FakeTime(), data_dir=tmp_path)) as client:
        service = client.app.state.site.service
        site = service.storage
        service.storage = storage = CountedPostgres(postgres_url)
        try:
            game_id, red, blue = rated_game(client, {"kind": "correspondence", "days": 3})

            def line_reads() -> int:
                return sum(1 for _, statements in storage.transactions for s in statements
                           if s.lstrip().upper().startswith("SELECT")
                           and "FROM conditional_lines" in s and "count(" not in s)

            view = state(client, game_id, red)
            storage.transactions.clear()
            move = {"token": red, "action": view["legal"][0]["action"], "ply": view["ply"]}
            assert client.post(f"/api/games/{game_id}/actions", json=move).is_success
            assert line_reads() == 0
            assert storage.transactions and service.games.matches[game_id].lines_held == 0
            stored_game = storage.load_game(game_id)
            assert stored_game is not None
            ply = len(stored_game.actions)
            storage.add_conditional_line(ConditionalLine(
                "l1", game_id, 0, ply, "not-this-game", (("x",), ("y",)), "2026-01-01"), 10)
            storage.transactions.clear()
            for token in (red, blue):  # whoever is to act
                view = state(client, game_id, token)
                if view["legal"]:
                    move = {"token": token, "action": view["legal"][0]["action"],
                            "ply": view["ply"]}
                    assert client.post(f"/api/games/{game_id}/actions", json=move).is_success
                    break
            assert line_reads() == 1  # the game holds a line: it is read (and dropped)
        finally:
            service.storage = site
            storage.close()


class HeldPostgres(CountedPostgres):
    """PostgreSQL storage whose first move waits for ``hold`` (a slow commit)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.entered = threading.Event()
        self.hold = threading.Event()

    def store_move(self, move: MoveWrite) -> StoredMove:
        if not self.entered.is_set():
            self.entered.set()
            assert self.hold.wait(30)
        return super().store_move(move)


def test_moves_made_while_a_commit_waits_share_the_next_one(postgres_url: str) -> None:
    """A group commit: while one batch of moves is being stored, the moves made meanwhile
    (here in three separate turns of the event loop) wait and go to the storage together
    when it is done: one commit for the three, not one each."""
    storage = HeldPostgres(postgres_url)
    calls = StorageCalls(storage)
    try:
        for game_id in "abcd":
            storage.create_game(test_web_storage._game(game_id))
        storage.transactions.clear()

        async def moves() -> list[Any]:
            first = asyncio.create_task(
                calls.call_batched(storage.store_move, MoveWrite("a", 0, ("e3e4",), "t")))
            assert await asyncio.to_thread(storage.entered.wait, 30)
            later = []
            for game_id in "bcd":  # each in a turn of its own
                later.append(asyncio.create_task(calls.call_batched(
                    storage.store_move, MoveWrite(game_id, 0, ("e3e4",), "t"))))
                await asyncio.sleep(0.01)
            storage.hold.set()
            return await asyncio.wait_for(asyncio.gather(first, *later), 30)

        stored = asyncio.run(moves())
        assert all(isinstance(move, StoredMove) for move in stored)
        # a's commit, then one for b's, c's and d's (their statements in one pipeline)
        assert [single for single, _ in storage.transactions] == [True, False]
        assert [storage.load_game(g).actions for g in "abcd"] == [["e3e4"]] * 4  # type: ignore[union-attr]
    finally:
        calls.shutdown()
        storage.close()
