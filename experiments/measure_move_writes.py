"""What storing one move costs the storage (issue 40): a move that ends a turn stores its
action, the mover's presence and its meta (the clock, the seat to move).

Run: ``PYTHONPATH=src python experiments/measure_move_writes.py [--database-url URL]``
(without a URL: SQLite in a temporary folder). The same script measures the code before
issue 40 (``PYTHONPATH=<older tree>/src``), which stored a move in two transactions
(``append_actions``, then ``update_meta``); after it, one ``store_move`` per move, and
``store_moves`` for the moves of several games made at once (what the server sends when
many games move in the same turn of its event loop).
"""

from __future__ import annotations

import argparse
import secrets
import tempfile
import time
from typing import Any

from hexgames.web.storage import StoredGame, open_storage

GAMES = 10
PLIES = 60


def _storage(url: str | None, folder: str) -> Any:
    if not url:
        return open_storage(data_dir=folder)
    import psycopg

    name = "m_" + secrets.token_hex(5)
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    base, _, query = url.partition("?")
    return open_storage(database_url=f"{base.rsplit('/', 1)[0]}/{name}"
                        + (f"?{query}" if query else ""))


def _game(index: int, meta: Any) -> StoredGame:
    return StoredGame(
        id=f"g{index}", game="benediction", options={}, mode="online",  # type: ignore[arg-type]
        players=[{"kind": "human", "level": None}] * 2, seat_tokens=["a", "b"],
        status="playing", winner=None, reason=None, created_at="t", updated_at="t", meta=meta)


def before(storage: Any) -> str:
    """Two transactions per move (the code before issue 40)."""
    for index in range(GAMES):
        storage.create_game(_game(index, {"turn": 0}))
    start = time.perf_counter()
    for ply in range(PLIES):
        for index in range(GAMES):
            storage.append_actions(f"g{index}", ply, ["x"], "t", (0, 1))
            storage.update_meta(f"g{index}", lambda meta, ply=ply: meta.update(turn=ply % 2),
                                "t", ply + 1, "playing")
    each = (time.perf_counter() - start) / (PLIES * GAMES) * 1000
    return f"{each:.2f} ms per move (append_actions + update_meta)"


def after(storage: Any) -> str:
    """One write per move, alone and in batches of ``GAMES`` games."""
    from hexgames.web.storage import GameMeta, MoveWrite

    for index in range(GAMES):
        storage.create_game(_game(index, GameMeta(turn=0)))
    versions = dict.fromkeys(range(GAMES), 0)

    def change(meta: Any) -> None:
        meta.turn = 1 - (meta.turn or 0)

    def write(index: int, ply: int) -> Any:
        held = GameMeta(turn=ply % 2)
        change(held)
        return MoveWrite(f"g{index}", ply, ("x",), "t", (0, 1), change, held, versions[index])

    half = PLIES // 2
    start = time.perf_counter()
    for ply in range(half):
        for index in range(GAMES):
            versions[index] = storage.store_move(write(index, ply)).version
    alone = (time.perf_counter() - start) / (half * GAMES) * 1000
    start = time.perf_counter()
    for ply in range(half, PLIES):
        for index, stored in enumerate(storage.store_moves(
                [write(index, ply) for index in range(GAMES)])):
            assert not isinstance(stored, Exception), stored
            versions[index] = stored.version
    batched = (time.perf_counter() - start) / (half * GAMES) * 1000
    return (f"{alone:.2f} ms per move alone (store_move), {batched:.2f} ms per move in "
            f"batches of {GAMES} games (store_moves)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        storage = _storage(args.database_url, folder)
        try:
            measure = after if hasattr(storage, "store_move") else before
            print(("PostgreSQL" if args.database_url else "SQLite") + ": " + measure(storage))
        finally:
            storage.close()


if __name__ == "__main__":
    main()
