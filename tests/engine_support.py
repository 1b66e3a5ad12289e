"""A real ``hexgames serve`` in a process group of its own, on a numba cache of the
test's choosing (an empty one: a fresh install), for the start-up tests: its output
kept (stderr apart), its engine status waited for, a game against the AI played, and
its stop checked for a clean end."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

SRC = str(Path(__file__).resolve().parents[1] / "src")
#: A bound on a cold compile of both engines (107 s to 232 s measured on a busy
#: two-core machine); a bound on a bug, not a speed check.
COMPILE_BOUND_S = 1500.0
AI_BOUND_S = 120.0


class Server:
    """``hexgames serve --port 0`` in a process group of its own, its output kept."""

    def __init__(self, data: Path, cache: Path | None) -> None:
        env = {**os.environ, "DATABASE_URL": "", "PYTHONPATH": SRC}
        if cache is not None:
            env["NUMBA_CACHE_DIR"] = str(cache)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "hexgames", "serve", "--port", "0", "--data-dir",
             str(data), "--ai-processes", "1"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            text=True, env=env, start_new_session=True)
        self.out: list[str] = []
        self.err: list[str] = []
        self.readers = [threading.Thread(target=lines.extend, args=(stream,), daemon=True)
                        for lines, stream in ((self.err, self.process.stderr),)]
        for reader in self.readers:
            reader.start()
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.out.append(line)
            found = re.search(r"http://\S+?(?=/?\s)", line + " ")
            if found:
                self.url = found.group(0).rstrip("/")
                break
        else:
            raise AssertionError(f"no URL: {self.out} {self.err}")
        reader = threading.Thread(target=self.out.extend, args=(self.process.stdout,),
                                  daemon=True)
        reader.start()
        self.readers.append(reader)

    def stop(self, number: int = signal.SIGINT, group: bool = False) -> int:
        """Send ``number`` (to the process group: a terminal's Ctrl+C), wait for the end
        (killed after 60 s) and for its output; the exit status."""
        if self.process.poll() is None:
            if group:
                os.killpg(self.process.pid, number)
            else:
                self.process.send_signal(number)
        try:
            code = self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=60)
            raise
        for reader in self.readers:
            reader.join(timeout=10)
        return code


def wait_ready(http: httpx.Client) -> dict[str, Any]:
    deadline = time.monotonic() + COMPILE_BOUND_S
    while True:
        status = http.get("/api/engine-status").json()
        if status["ready"] or status["state"] == "failed":
            return status
        assert time.monotonic() < deadline, f"not ready in {COMPILE_BOUND_S:g} s: {status}"
        time.sleep(0.5)


def play_against_the_ai(http: httpx.Client) -> None:
    """A Dendria game where the AI (level 1) moves first, then one action of ours."""
    made = http.post("/api/games", json={"game": "dendria", "mode": "ai", "seat": 1,
                                         "level": 1, "options": {"board_side": 5}})
    assert made.status_code == 201, made.text
    game, token = made.json()["id"], made.json()["token"]
    deadline = time.monotonic() + AI_BOUND_S
    while True:
        state = http.get(f"/api/games/{game}", params={"token": token}).json()
        if state["legal"]:
            break
        assert time.monotonic() < deadline, f"the AI did not move: {state['history']}"
        time.sleep(0.2)
    assert state["ply"] >= 1  # the AI's first turn
    played = http.post(f"/api/games/{game}/actions",
                       json={"token": token, "action": state["legal"][0]["action"]})
    assert played.status_code == 200, played.text


def clean_stop(server: Server, code: int) -> None:
    errors = "".join(server.err)
    assert code == 0, errors
    assert "leaked semaphore" not in errors
    assert "Traceback" not in errors, errors
