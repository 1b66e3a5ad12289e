"""Measure online play the way docs/web.md quotes it: start ``hexgames serve`` (SQLite in
a temporary directory, or the PostgreSQL of ``--database-url``), run ``hexgames loadtest``
against it (100 games, 15 s, half Benediction, half Dendria side 5, with the engine's
reference speed and the server's CPU per move), print the machine's load before and after,
then stop the server and remove the directory. Starts nothing it does not stop.

    python tools/loadbench.py                       # this tree's server
    python tools/loadbench.py --src /work/main/src  # another tree's server ("before")
    python tools/loadbench.py --workers 2 --database-url postgresql://...
    python tools/loadbench.py -- --full-history     # extra arguments for the load test

The load test itself always runs from this tree (the same client for every server).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def load() -> str:
    with open("/proc/loadavg") as stat:
        return "load average " + ", ".join(stat.read().split()[:3])


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (the worker processes of ``--workers``), from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=HERE / "src",
                        help="source tree of the server (default: this one)")
    parser.add_argument("--port", type=int, default=18761)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("loadtest", nargs="*", help="extra arguments for hexgames loadtest")
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="hexgames-loadbench-"))
    env = {**os.environ, "PYTHONPATH": str(args.src)}
    env.pop("DATABASE_URL", None)
    if args.database_url:
        env["DATABASE_URL"] = args.database_url
    server = subprocess.Popen(
        [sys.executable, "-m", "hexgames", "serve", "--port", str(args.port), "--data-dir",
         str(data), "--ai-processes", "1", "--workers", str(args.workers)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        assert server.stdout is not None
        for line in server.stdout:
            if re.search(r"is running", line):
                break
        else:
            print("the server did not start", file=sys.stderr)
            return 2
        # Keep reading what it prints, so that it never blocks on a full pipe.
        threading.Thread(target=server.stdout.read, daemon=True).start()
        time.sleep(1.0 if args.workers == 1 else 3.0)
        pids = children(server.pid) if args.workers > 1 else [server.pid]
        print(f"before: {load()}", flush=True)
        command = [sys.executable, "-m", "hexgames", "loadtest", "--url",
                   f"http://127.0.0.1:{args.port}", "--games", str(args.games), "--seconds",
                   str(args.seconds), "--mix", "benediction", "--mix", "dendria:board_side=5",
                   "--reference", *[f"--server-pid={pid}" for pid in pids], *args.loadtest]
        started = os.times()
        code = subprocess.call(command, env={**os.environ, "PYTHONPATH": str(HERE / "src")})
        used = os.times()
        client = (used.children_user - started.children_user
                  + used.children_system - started.children_system)
        print(f"after: {load()}; load-test client CPU {client:.1f} s (reference included)")
        return code
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
