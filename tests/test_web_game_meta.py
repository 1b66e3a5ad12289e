"""The typed game record (issue 40): ``GameMeta`` and ``Mode``.

Outside ``web/storage`` nothing reads a game's meta by string key (an ``ast`` scan of the
sources), and the stored JSON is what it was: a row written before the type existed (a
plain dict, ``null`` values, keys this version does not know) loads, and is written back
with the same keys and values.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import test_web_storage
from hexgames.web.app import create_app
from hexgames.web.storage import GameMeta, Mode, SeatPlayer, open_storage

backend = test_web_storage.backend
postgres_cluster = test_web_storage.postgres_cluster
postgres_url = test_web_storage.postgres_url

WEB = Path(__file__).resolve().parent.parent / "src" / "hexgames" / "web"
STORAGE = WEB / "storage"
#: Names a game's meta goes by; a subscript or a ``get``-like call on them is a
#: string-key read.
META_NAMES = {"meta"}
DICT_CALLS = {"get", "setdefault", "pop", "update", "keys", "items", "values"}


def _is_meta(node: ast.AST) -> bool:
    """``meta`` or ``<anything>.meta``."""
    return ((isinstance(node, ast.Name) and node.id in META_NAMES)
            or (isinstance(node, ast.Attribute) and node.attr in META_NAMES))


def string_key_reads(source: str) -> list[int]:
    """Lines of ``source`` that read or write a meta by key: ``meta[...]``,
    ``x.meta[...]``, ``meta.get(...)`` and the other dict calls."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        subscript = isinstance(node, ast.Subscript) and _is_meta(node.value)
        call = (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in DICT_CALLS and _is_meta(node.func.value))
        if subscript or call:
            lines.append(node.lineno)
    return sorted(lines)


def test_the_scan_finds_a_planted_read() -> None:
    planted = (
        "def f(match, stored, meta):\n"
        "    a = match.meta['turn']\n"
        "    b = stored.meta.get('clock')\n"
        "    meta['deadline'] = None\n"
        "    c = match.meta.turn\n"
        "    d = match.meta.offers.get('takeback')\n"
        "    match.meta.setdefault('offers', {})\n"
    )
    assert string_key_reads(planted) == [2, 3, 4, 7]


def test_no_string_key_meta_reads_outside_storage() -> None:
    found = []
    for path in sorted(WEB.rglob("*.py")):
        if STORAGE in path.parents:
            continue
        found += [f"{path.relative_to(WEB)}:{line}"
                  for line in string_key_reads(path.read_text())]
    assert found == []


# ---------------------------------------------------------------- the record
OLD_META = {
    "seek": "s1", "control": {"kind": "realtime", "base_s": 180.0, "increment_s": 2.0},
    "turn": 1,
    "clock": {"control": {"kind": "realtime", "base_s": 180.0, "increment_s": 2.0},
              "remaining": [1.0, 2.0], "running": 1, "since": 5.0, "turns": [1, 1],
              "abort_at": None},
    "deadline": 1234, "offers": {"takeback": 0}, "rematch": None, "termination": None,
    "from_a_newer_server": {"kept": True},
}


def test_an_old_meta_reads_as_typed_fields_and_keeps_unknown_keys() -> None:
    meta = GameMeta.from_dict(OLD_META)
    assert (meta.seek, meta.turn, meta.deadline) == ("s1", 1, 1234)
    assert meta.control_kind == "realtime" and meta.clock_running
    assert meta.offers == {"takeback": 0} and meta.rematch is None
    assert meta.extra == {"from_a_newer_server": {"kept": True}}
    # Written back: the same keys and values; the nulls are left out (read the same).
    written = meta.to_dict()
    assert written == {key: value for key, value in OLD_META.items() if value is not None}
    assert GameMeta.from_dict(written) == meta
    assert GameMeta.from_dict(None) == GameMeta.from_dict({}) == GameMeta()
    assert GameMeta().to_dict() == {}
    copied = meta.copy()
    copied.offers.pop("takeback")
    assert meta.offers == {"takeback": 0}  # a deep copy


def test_a_mode_is_its_string() -> None:
    assert Mode("online") is Mode.ONLINE and Mode.AI == "ai"
    assert json.dumps({"mode": Mode.HOTSEAT}) == '{"mode": "hotseat"}'
    with pytest.raises(ValueError):
        Mode("chess")


def _run(storage: Any, statement: str, *params: Any) -> Any:
    """One statement on the storage's own connection, in its own transaction (what an
    older server wrote, written the way it wrote it)."""
    with storage._transaction() as cursor:
        cursor.execute(storage._sql(statement), params)
        return cursor.fetchall() if statement.startswith("SELECT") else None


def test_an_old_row_loads_and_is_stored_back_alike(backend: tuple[str, dict]) -> None:
    """A row as written before the type (its meta a dict dumped by ``json.dumps``) loads
    typed; a write of the loaded game stores the same JSON object (the stored shape did
    not change: no migration)."""
    storage = open_storage(**backend[1])
    try:
        storage.create_game(test_web_storage._game("old"))
        _run(storage, "UPDATE games SET meta = ?, mode = 'online' WHERE id = ?",
             json.dumps(OLD_META), "old")
        loaded = storage.load_game("old")
        assert loaded is not None
        assert loaded.mode is Mode.ONLINE
        assert loaded.meta == GameMeta.from_dict(OLD_META)
        storage.set_meta("old", loaded.meta, "t")
        stored = json.loads(_run(storage, "SELECT meta FROM games WHERE id = ?", "old")[0][0])
        assert stored == {key: value for key, value in OLD_META.items() if value is not None}
        _run(storage, "UPDATE games SET meta = NULL WHERE id = ?", "old")  # the oldest rows
        oldest = storage.load_game("old")
        assert oldest is not None and oldest.meta == GameMeta()
    finally:
        storage.close()


def test_every_key_stored_in_a_seat_is_typed(tmp_path: Path) -> None:
    """The seats the site writes (against the computer, an online game with its
    invitation open, then claimed) hold only keys :class:`SeatPlayer` types."""
    typed = set(SeatPlayer.__annotations__)
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        ai = client.post("/api/games", json={"game": "benediction", "mode": "ai"}).json()
        online = client.post("/api/games", json={"game": "benediction",
                                                  "mode": "online"}).json()
        storage = client.app.state.site.service.storage
        seats = [*storage.load_game(ai["id"]).players, *storage.load_game(online["id"]).players]
        assert {"kind", "level", "invite"} <= {key for seat in seats for key in seat}
        assert all(set(seat) <= typed for seat in seats), seats
        assert storage.load_game(online["id"]).mode is Mode.ONLINE
