"""How long a new user waits for the site: start ``hexgames serve`` (SQLite in a
temporary folder, a free port) and time, from the launch of the process,

* **url**: the line with the URL printed;
* **page**: the first 200 of ``GET /`` (the home page);
* **catalog**: the first 200 of ``GET /api/catalog`` (what the home page asks next);
* **ready**: ``GET /api/engine-status`` saying every engine is ready (a server without
  that endpoint prepared its engines before printing its URL: ready at its first page);
* **played**: after ready, a hot-seat game of each game created and one action played
  in it (everything works).

``--cold`` gives each run an empty ``NUMBA_CACHE_DIR`` (a fresh install: the engines
compile); ``--warm`` first fills one cache with a start, then times the runs on it (a
later start). Every process it starts is stopped (SIGINT, then SIGKILL after 30 s) and
every folder it made removed.

    python tools/first_page.py --cold --runs 3
    python tools/first_page.py --warm --runs 3
    python tools/first_page.py --cold --src /tmp/before/src   # another tree's server
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent


def load() -> str:
    with open("/proc/loadavg") as stat:
        return ", ".join(stat.read().split()[:3])


def fetch(url: str, body: Any = None, timeout: float = 10.0) -> tuple[int, Any]:
    """(status, JSON or text) of a GET, or of a POST of ``body``; (0, None) when the
    server does not answer (not listening yet, or the request timed out)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={
        "Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            raw = answer.read()
            status = answer.status
    except urllib.error.HTTPError as refused:
        raw, status = refused.read(), refused.code
    except (OSError, TimeoutError):
        return 0, None
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode(errors="replace")


def one_start(src: Path, cache: str, deadline_s: float) -> dict[str, float | None]:
    """Launch a server on ``cache`` and time its milestones (seconds from launch)."""
    data = tempfile.mkdtemp(prefix="first-page-data-")
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(src),
           "DATABASE_URL": ""}
    launched = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "hexgames", "serve", "--port", "0", "--data-dir", data],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        stdin=subprocess.DEVNULL)
    found: dict[str, float | None] = {"url": None, "page": None, "catalog": None,
                                      "ready": None, "played": None}
    lines: list[str] = []
    base: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            match = re.search(r"http://\S+?(?=/?\s)", line + " ")
            if match and not base:
                found["url"] = time.perf_counter() - launched
                base.append(match.group(0).rstrip("/"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        end = launched + deadline_s
        while not base:
            if time.perf_counter() > end or process.poll() is not None:
                raise RuntimeError("no URL: " + "".join(lines)[-2000:])
            time.sleep(0.02)
        url = base[0]
        for name, path in (("page", "/"), ("catalog", "/api/catalog")):
            while found[name] is None:
                status, _ = fetch(url + path)
                if status == 200:
                    found[name] = time.perf_counter() - launched
                elif time.perf_counter() > end:
                    raise RuntimeError(f"{path} did not answer 200 in {deadline_s:g} s")
                else:
                    time.sleep(0.05)
        while found["ready"] is None:
            status, state = fetch(url + "/api/engine-status")
            if status == 404 or (status == 200 and state.get("ready")):
                found["ready"] = (found["page"] if status == 404
                                  else time.perf_counter() - launched)
            elif time.perf_counter() > end:
                raise RuntimeError(f"the engines were not ready in {deadline_s:g} s")
            else:
                time.sleep(0.1)
        for game in ("benediction", "dendria"):
            status, made = fetch(url + "/api/games", {"game": game, "mode": "hotseat"}, 120)
            if status != 201:
                raise RuntimeError(f"creating a {game} game: {status} {made}")
            status, state = fetch(f"{url}/api/games/{made['id']}?token={made['token']}",
                                  None, 60)
            action = state["legal"][0]["action"] if status == 200 and state.get("legal") \
                else None
            if action is None:
                raise RuntimeError(f"no legal action in the new {game} game: {status}")
            status, _ = fetch(f"{url}/api/games/{made['id']}/actions",
                              {"token": made["token"], "action": action}, 60)
            if status != 200:
                raise RuntimeError(f"playing {action} in {game}: {status}")
        found["played"] = time.perf_counter() - launched
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(timeout=5)
        shutil.rmtree(data, ignore_errors=True)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Prints one line per run and, with --json, a JSON report at the end.")
    kind = parser.add_mutually_exclusive_group(required=True)
    kind.add_argument("--cold", action="store_true",
                      help="each run on an empty NUMBA_CACHE_DIR (a fresh install)")
    kind.add_argument("--warm", action="store_true",
                      help="runs on a cache filled by one start first (a later start)")
    parser.add_argument("--runs", type=int, default=3, help="starts to time (default: 3)")
    parser.add_argument("--src", type=Path, default=HERE / "src",
                        help="source tree of the server (default: this one)")
    parser.add_argument("--deadline", type=float, default=900.0,
                        help="seconds a start may take to be ready and play (default: 900)")
    parser.add_argument("--json", action="store_true", help="print a JSON report at the end")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    label = "cold" if args.cold else "warm"
    print(f"{label} starts of {args.src}; load average before: {load()}", flush=True)
    results = []
    shared = tempfile.mkdtemp(prefix="first-page-cache-") if args.warm else None
    try:
        if shared is not None:
            one_start(args.src, shared, args.deadline)  # fills the cache, not timed
        for run in range(args.runs):
            cache = shared or tempfile.mkdtemp(prefix="first-page-cache-")
            try:
                found = one_start(args.src, cache, args.deadline)
            finally:
                if shared is None:
                    shutil.rmtree(cache, ignore_errors=True)
            results.append(found)
            print(f"run {run + 1}: " + ", ".join(
                f"{name} {value:.1f} s" for name, value in found.items()
                if value is not None) + f"  (load {load()})", flush=True)
    finally:
        if shared is not None:
            shutil.rmtree(shared, ignore_errors=True)
    if args.json:
        print(json.dumps({"kind": label, "src": str(args.src), "runs": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
