"""A fresh install's first start, through the real path: ``hexgames serve`` as a process
on an empty numba cache answers its pages at once while both engines compile in the
background, tells what needs an engine to come back (503), and plays against the AI once
they are ready; and every stop (Ctrl+C or SIGTERM, to the server or to its whole process
group, as a terminal does) ends it cleanly: status 0, no traceback, no "leaked semaphore
objects" from multiprocessing's resource tracker."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import httpx
import pytest

from engine_support import Server, clean_stop, play_against_the_ai, wait_ready


def test_a_cold_start_answers_at_once_and_plays_once_the_engines_are_ready(
        tmp_path: Path) -> None:
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    server = Server(tmp_path / "data", cache)
    try:
        with httpx.Client(base_url=server.url, timeout=60) as http:
            first = http.get("/api/engine-status").json()
            assert first["ready"] is False and first["state"] == "preparing", first
            assert {g["game"] for g in first["games"]} == {"benediction", "dendria"}
            assert {g["state"] for g in first["games"]} <= {"waiting", "compiling"}
            home = http.get("/")
            assert home.status_code == 200 and "New game" in home.text
            catalog = http.get("/api/catalog")
            assert catalog.status_code == 200
            assert {g["name"] for g in catalog.json()["games"]} == {"benediction", "dendria"}
            refused = http.post("/api/games", json={"game": "dendria", "mode": "hotseat"})
            assert refused.status_code == 503, refused.text
            wait = int(refused.headers["retry-after"])
            assert refused.json()["error"] == (
                f"the engine is still being prepared; try again in {wait} s")
            assert refused.json()["preparing"] is True
            status = wait_ready(http)
            assert status["state"] == "ready", status
            assert [g["state"] for g in status["games"]] == ["ready", "ready"]
            play_against_the_ai(http)
            assert all(g["preview_svg"] for g in http.get("/api/catalog").json()["games"])
    finally:
        code = server.stop(signal.SIGINT, group=True)
    clean_stop(server, code)
    printed = "".join(server.out)
    assert "compiling the rules engine in the background" in printed
    assert re.search(r"rules engine ready in \d+ s", printed), printed
    assert any(cache.glob("benediction_*/core.*.nbi"))
    assert any(cache.glob("dendria_*/core.*.nbi"))


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
@pytest.mark.parametrize("group", [False, True], ids=["server", "group"])
def test_a_stop_leaks_nothing_and_says_nothing(tmp_path: Path, number: int,
                                               group: bool) -> None:
    """After the AI played (its worker processes, their queues and events exist), on
    the test session's cache (warm: the engines load before the URL)."""
    server = Server(tmp_path / "data", None)
    try:
        with httpx.Client(base_url=server.url, timeout=60) as http:
            assert wait_ready(http)["state"] == "ready"
            play_against_the_ai(http)
    finally:
        code = server.stop(number, group=group)
    clean_stop(server, code)


def test_a_warm_start_is_ready_when_it_prints_its_url(tmp_path: Path) -> None:
    """The test session's cache holds both engines (``conftest.py`` compiles them first):
    they load before the URL, as before, so a script may play at once."""
    server = Server(tmp_path / "data", None)
    try:
        with httpx.Client(base_url=server.url, timeout=60) as http:
            status = http.get("/api/engine-status").json()
            assert status["ready"] is True, status
            made = http.post("/api/games", json={"game": "benediction", "mode": "hotseat"})
            assert made.status_code == 201, made.text
    finally:
        code = server.stop(signal.SIGTERM)
    clean_stop(server, code)
    assert "compiling" not in "".join(server.out)
