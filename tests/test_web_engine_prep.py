"""The engines prepared in the background (``hexgames.web.engine.prep``): what answers
while they are, the 503 that what needs one gets, the bounds on the compiling processes,
and their fall-backs. Stand-in kernels and compiling processes (a process that waits for
a file): fast and deterministic. The real thing, a server on an empty numba cache, is
``test_web_engine_startup.py``."""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from hexgames.web.app import create_app
from hexgames.web.engine.prep import EnginePreparation
from hexgames.web.http.engine_gate import needs_engine

BOUND_S = 30.0  # every wait of these tests


class FakeKernel:
    """A kernel whose cache is a flag and whose warm-up counts its calls."""

    def __init__(self, cached: bool = False, fails: bool = False) -> None:
        self.cached = cached
        self.fails = fails
        self.warmed = 0
        self.threads: list[str] = []

    def is_cached(self) -> bool:
        return self.cached

    def cached_parts(self) -> tuple[int, int]:
        return (3 if self.cached else 1), 3

    def warm_up(self, announce: Any = None) -> float:
        self.threads.append(threading.current_thread().name)
        if self.fails:
            raise RuntimeError("no compiler")
        self.warmed += 1
        self.cached = True
        return 0.0


def waits_for(flag: Path) -> Any:
    """A compiling process that ends (successfully) once ``flag`` exists."""
    script = (f"import os, time\nwhile not os.path.exists({str(flag)!r}): time.sleep(0.02)")
    return lambda game: [sys.executable, "-c", script]


def sleeps(game: str) -> list[str]:
    return [sys.executable, "-c", "import time; time.sleep(600)"]


def fails(game: str) -> list[str]:
    return [sys.executable, "-c", "import sys; sys.exit('numba says no')"]


def until(condition: Any, bound: float = BOUND_S) -> None:
    deadline = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < deadline, "not within the bound"
        time.sleep(0.02)


def preparation(kernels: dict[str, FakeKernel], **kwargs: Any) -> EnginePreparation:
    return EnginePreparation([(name, name.title(), kernel) for name, kernel in kernels.items()],
                             poll_seconds=0.02, **kwargs)


@pytest.fixture
def gated(tmp_path: Path) -> Iterator[tuple[TestClient, EnginePreparation, Path]]:
    """An app whose (stand-in) engines compile until the test creates ``flag``."""
    flag = tmp_path / "compiled"
    engines = preparation({"benediction": FakeKernel(), "dendria": FakeKernel()},
                          command=waits_for(flag))
    app = create_app(data_dir=tmp_path, ai_processes=1, engines=engines)
    with TestClient(app) as client:
        until(lambda: all(e.state == "compiling" for e in engines.engines))
        yield client, engines, flag
        flag.touch()


def test_the_site_answers_while_the_engines_are_prepared(gated) -> None:
    client = gated[0]
    status = client.get("/api/engine-status").json()
    assert status["ready"] is False and status["state"] == "preparing"
    assert [g["state"] for g in status["games"]] == ["compiling", "compiling"]
    assert [(g["cached"], g["parts"]) for g in status["games"]] == [(1, 3), (1, 3)]
    assert 0 < status["progress"] < 1
    assert "Benediction: compiling, 1 of 3 parts" in status["message"]
    for page in ("/", "/lobby", "/leaderboard", "/play/abc", "/learn/dendria",
                 "/static/js/engine.js"):
        assert client.get(page).status_code == 200, page
    catalog = client.get("/api/catalog").json()
    assert {g["name"] for g in catalog["games"]} == {"benediction", "dendria"}
    assert all(g["preview_svg"] == "" for g in catalog["games"])  # the engine draws them
    assert client.get("/api/games").status_code == 200
    assert client.get("/api/me").status_code == 200


def test_what_needs_an_engine_is_told_to_come_back(gated) -> None:
    client = gated[0]
    made = client.post("/api/games", json={"game": "dendria", "mode": "hotseat"})
    assert made.status_code == 503
    assert made.headers["retry-after"] == "5"
    body = made.json()
    assert body["error"] == "the engine is still being prepared; try again in 5 s"
    assert body["preparing"] is True and body["engine"]["ready"] is False
    assert made.headers["content-security-policy"]  # inside the security headers
    assert client.get("/api/games/abc").status_code == 503
    assert client.post("/api/seeks", json={"game": "dendria"}).status_code == 503
    page = client.get("/rules/dendria")
    assert page.status_code == 503 and "Preparing the engine" in page.text
    assert 'data-reload-when-ready="1"' in page.text
    with client.websocket_connect("/ws/games/abc") as socket:
        assert socket.receive_json() == {"type": "error", "message": body["error"]}
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
    assert closed.value.code == 1013


def test_once_ready_everything_works(gated) -> None:
    client, engines, flag = gated
    flag.touch()  # the compiling processes end: the thread loads each engine
    until(lambda: client.get("/api/engine-status").json()["ready"])
    status = client.get("/api/engine-status").json()
    assert status["state"] == "ready" and status["progress"] == 1
    assert all(e.kernel.warmed == 1 for e in engines.engines)
    assert all(e.kernel.threads == ["engine-preparation"] for e in engines.engines)
    made = client.post("/api/games", json={"game": "dendria", "mode": "hotseat",
                                           "options": {"board_side": 5}})
    assert made.status_code == 201, made.text
    assert all(g["preview_svg"].startswith("<svg")
               for g in client.get("/api/catalog").json()["games"])
    assert client.get("/rules/dendria").status_code == 200


def test_cached_engines_load_before_the_url_and_start_nothing() -> None:
    kernels = {"a": FakeKernel(cached=True), "b": FakeKernel(cached=True)}
    engines = preparation(kernels, command=sleeps)
    assert engines.load_if_cached() is True
    assert engines.ready and [k.warmed for k in kernels.values()] == [1, 1]
    engines.start()  # nothing left to do
    assert engines._thread is None


def test_a_partly_cached_set_is_prepared_in_the_background(tmp_path: Path) -> None:
    kernels = {"a": FakeKernel(cached=True), "b": FakeKernel()}
    said: list[str] = []
    engines = preparation(kernels, command=waits_for(tmp_path / "flag"), announce=said.append)
    assert engines.load_if_cached() is False and not engines.ready
    engines.start()
    try:
        until(lambda: kernels["a"].warmed == 1)  # the cached one loads at once
        assert engines.engines[1].state == "compiling" and not engines.ready
        (tmp_path / "flag").touch()
        until(lambda: engines.ready)
    finally:
        engines.stop()
    assert said[0].startswith("compiling the rules engine in the background")
    assert said[-1].startswith("rules engine ready in ")


def test_a_compiling_process_past_its_bound_is_stopped(caplog) -> None:
    """The bound holds: the stuck process is killed and the server compiles it itself."""
    kernel = FakeKernel()
    engines = preparation({"a": kernel}, command=sleeps, compile_seconds=0.3)
    caplog.set_level(logging.WARNING, "hexgames.web.engine.prep")
    engines.start()
    until(lambda: engines.engines[0].process is not None)
    process = engines.engines[0].process
    try:
        until(lambda: engines.ready)
    finally:
        engines.stop()
    assert process is not None and process.poll() is not None  # killed, reaped
    assert kernel.warmed == 1
    assert "took over 0 s: stopped" in caplog.text


def test_a_failed_compiling_process_is_logged_and_compiled_here(caplog) -> None:
    kernel = FakeKernel()
    engines = preparation({"a": kernel}, command=fails)
    caplog.set_level(logging.WARNING, "hexgames.web.engine.prep")
    engines.start()
    try:
        until(lambda: engines.ready)
    finally:
        engines.stop()
    assert "compiling a's engine failed (exit 1)" in caplog.text
    assert "numba says no" in caplog.text
    assert kernel.warmed == 1


def test_no_python_to_start_compiles_here() -> None:
    kernel = FakeKernel()
    engines = preparation({"a": kernel}, command=lambda game: ["/nonexistent/python"])
    engines.start()
    try:
        until(lambda: engines.ready)
    finally:
        engines.stop()
    assert kernel.warmed == 1


def test_an_engine_that_cannot_be_prepared_is_said_so(tmp_path: Path) -> None:
    engines = preparation({"a": FakeKernel(fails=True)}, command=fails)
    app = create_app(data_dir=tmp_path, ai_processes=1, engines=engines)
    with TestClient(app) as client:
        until(lambda: engines.ended is not None)
        status = client.get("/api/engine-status").json()
        assert status["state"] == "failed" and status["ready"] is False
        refused = client.post("/api/games", json={"game": "dendria", "mode": "hotseat"})
        assert refused.status_code == 503
        assert "could not be prepared" in refused.json()["error"]


def test_stopping_kills_the_compiling_processes_within_the_bound() -> None:
    engines = preparation({"a": FakeKernel(), "b": FakeKernel()}, command=sleeps)
    engines.start()
    until(lambda: all(e.process is not None for e in engines.engines))
    processes = [e.process for e in engines.engines]
    began = time.monotonic()
    engines.stop(timeout=BOUND_S)
    assert time.monotonic() - began < BOUND_S
    assert all(p is not None and p.poll() is not None for p in processes)
    assert engines._thread is not None and not engines._thread.is_alive()
    assert not engines.ready


def test_an_app_without_a_preparation_is_ready(tmp_path: Path) -> None:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        status = client.get("/api/engine-status").json()
    assert status["ready"] is True and status["state"] == "ready"


@pytest.mark.parametrize("method,path,needs", [
    ("GET", "/", False), ("GET", "/static/js/api.js", False), ("GET", "/play/x", False),
    ("GET", "/api/catalog", False), ("GET", "/api/games", False),
    ("POST", "/api/games", True), ("GET", "/api/games/x", True), ("GET", "/rules/x", True),
    ("GET", "/api/learn/dendria", True), ("POST", "/api/analysis/evaluate", True),
    ("GET", "/ws/games/x", True), ("GET", "/ws/lobby", False), ("POST", "/api/seeks", True),
    ("GET", "/api/players/ann", False), ("GET", "/api/players/ann/export", True),
    ("GET", "/player/ann", False), ("GET", "/unknown", True),
    ("GET", "/i18n/ko.js", False), ("GET", "/api/languages", False),
])
def test_what_needs_an_engine(method: str, path: str, needs: bool) -> None:
    assert needs_engine({"type": "http", "method": method, "path": path}) is needs
