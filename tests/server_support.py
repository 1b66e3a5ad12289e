"""A real ``hexgames serve`` for the tests that need one: started on a free loopback
port, its URL read from what it prints, stopped (killed if it must be) with a bound."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path


def start_serve(data: Path, *args: str, env: Mapping[str, str] | None = None
                ) -> tuple[subprocess.Popen[str], str]:
    """``hexgames serve --port 0`` with its data in ``data`` and one AI process, plus
    ``args``; returns the process and its URL. ``env`` replaces the environment (default:
    this one without a ``DATABASE_URL``: SQLite). What the server prints is kept in
    ``process.output`` (shown when a test fails)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "hexgames", "serve", "--port", "0", "--data-dir", str(data),
         "--ai-processes", "1", *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=dict(env) if env is not None else {**os.environ, "DATABASE_URL": ""},
    )
    seen: list[str] = []
    process.output = seen  # type: ignore[attr-defined]
    assert process.stdout is not None
    for line in process.stdout:
        seen.append(line)
        found = re.search(r"http://\S+?(?=/?\s)", line + " ")
        if found:
            threading.Thread(target=seen.extend, args=(process.stdout,), daemon=True).start()
            return process, found.group(0).rstrip("/")
    process.wait(timeout=60)
    raise AssertionError(f"the server did not start: {''.join(seen)!r}")


def stop_serve(process: subprocess.Popen[str], timeout: float = 30) -> None:
    """Stop the server: SIGTERM, then SIGKILL after ``timeout`` seconds."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)
