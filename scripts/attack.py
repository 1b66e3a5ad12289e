#!/usr/bin/env python3
"""Reproduce findings 1-5 of issue 9 against a real ``hexgames serve`` over loopback.

Starts its own server (127.0.0.1, a free port, a temporary data directory), runs each
probe with bounded loops and timeouts, prints the figures, and stops the server.

    PYTHONPATH=src python scripts/attack.py                 # this checkout
    python scripts/attack.py --src /work/main/src           # another checkout's server

Probes: 1 a spectator that never reads; 2 a killed AI worker; 3 strong searches queued
ahead of a beginner's; 4 a 20 MB body, idle sockets, a half-sent request; 5 a long record
upload and a replay at its last ply.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

LOG: list[str] = []


def start(src: str, data: str, ai_processes: int) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "DATABASE_URL": "", "PYTHONPATH": src}
    process = subprocess.Popen(
        [sys.executable, "-m", "hexgames", "serve", "--host", "127.0.0.1", "--port", "0",
         "--data-dir", data, "--ai-processes", str(ai_processes)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"http://\S+?(?=/?\s)", line + " ")
        if found:
            threading.Thread(target=LOG.extend, args=(process.stdout,), daemon=True).start()
            url = found.group(0).rstrip("/")
            for _ in range(100):  # older servers print before listening
                try:
                    socket.create_connection(hostport(url), timeout=1).close()
                    return process, url
                except OSError:
                    time.sleep(0.1)
            return process, url
    raise SystemExit("the server did not start")


def hostport(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


def request(url: str, body: Any = None, timeout: float = 60) -> tuple[int, bytes]:
    data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def api(url: str, body: Any = None, timeout: float = 60) -> Any:
    status, data = request(url, body, timeout)
    return json.loads(data) if status < 300 else {"status": status, "error": data[:200]}


def raw_ws(url: str, path: str, rcvbuf: int | None = None) -> socket.socket:
    sock = socket.socket()
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(10)
    sock.connect(hostport(url))
    key = base64.b64encode(os.urandom(16)).decode()
    host, port = hostport(url)
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    return sock


# --------------------------------------------------------------------- probes
def probe_spectator(url: str, seconds: float) -> dict[str, Any]:
    from websockets.sync.client import connect

    results = {}
    for label, silent in (("without spectator", 0), ("with 3 silent spectators", 3)):
        game = api(url + "/api/games", {"game": "dendria", "mode": "online",
                                        "options": {"quiet_limit": 100000}})
        spectators = [raw_ws(url, f"/ws/games/{game['id']}", 1024) for _ in range(silent)]
        ws = url.replace("http://", "ws://")
        players = [connect(f"{ws}/ws/games/{game['id']}?token={t}", max_size=None)
                   for t in game["tokens"]]
        latest: list[dict[str, Any]] = [{}, {}]
        played, deadline = 0, time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                for seat in (0, 1):
                    while latest[seat].get("ply") != played:
                        left = deadline - time.monotonic()
                        if left <= 0:
                            raise TimeoutError
                        message = json.loads(players[seat].recv(timeout=left))
                        if message.get("type") == "state":
                            latest[seat] = message
                mover = 0 if latest[0]["your_turn"] else 1
                legal = latest[mover]["legal"]
                if not legal:
                    break
                players[mover].send(json.dumps({"type": "action", "ply": played,
                                                "action": legal[played % len(legal)]["action"]}))
                played += 1
        except TimeoutError:
            pass
        finally:
            for player in players:
                player.close()
            for spectator in spectators:
                spectator.close()
        results[label] = f"{played} moves in {seconds:.0f} s"
    return results


def server_workers(server_pid: int) -> list[int]:
    pids = []
    for task in Path(f"/proc/{server_pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
            if b"spawn_main" in cmdline and b"resource_tracker" not in cmdline:
                pids.append(int(child))
    return pids


def ai_first_move(url: str, level: int, timeout: float) -> tuple[float | None, str | None]:
    start = time.monotonic()
    game = api(url + "/api/games", {"game": "dendria", "mode": "ai", "seat": 1, "level": level})
    if "id" not in game:
        return None, f"refused: HTTP {game.get('status')} {game.get('error')!r}"
    while time.monotonic() - start < timeout:
        state = api(f"{url}/api/games/{game['id']}?token={game['token']}")
        if state.get("history"):
            return time.monotonic() - start, None
        if state.get("ai_error"):
            return None, state["ai_error"]
        time.sleep(0.1)
    return None, f"no move in {timeout:.0f} s"


def probe_dead_worker(url: str, server_pid: int) -> dict[str, Any]:
    took, error = ai_first_move(url, 1, 60)
    workers = server_workers(server_pid)
    for pid in workers:
        os.kill(pid, signal.SIGKILL)
    time.sleep(1)
    out = {"before": f"{took:.2f} s" if took else error, "killed workers": len(workers)}
    for attempt in (1, 2):
        took, error = ai_first_move(url, 1, 60)
        out[f"AI game {attempt} after the kill"] = f"moved in {took:.2f} s" if took else error
    return out


def probe_starvation(url: str, strong: int) -> dict[str, Any]:
    refused = 0
    for _ in range(strong):
        game = api(url + "/api/games", {"game": "dendria", "mode": "ai", "seat": 1, "level": 5})
        refused += "id" not in game
    took, error = ai_first_move(url, 1, 120)
    return {"level-5 games queued first": strong, "refused (503 busy)": refused,
            "level-1 first move": f"{took:.2f} s" if took else error}


def probe_limits(url: str, sockets: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    stalls: list[float] = []
    stop = threading.Event()

    def pinger() -> None:
        while not stop.is_set():
            t = time.monotonic()
            try:
                request(url + "/api/games?limit=1", timeout=60)
            except OSError as error:
                print("   other request failed:", error, flush=True)
            stalls.append(time.monotonic() - t)
            time.sleep(0.05)

    thread = threading.Thread(target=pinger)
    thread.start()
    body = json.dumps({"text": "[T \"" + "x" * (20 * 1024 * 1024) + "\"]"}).encode()
    t = time.monotonic()
    try:
        status, answer = request(url + "/api/records", body, timeout=120)
    except urllib.error.URLError as error:  # refused before the body was all sent
        status, answer = 0, str(error.reason).encode()
    stop.set()
    thread.join()
    out["20 MB body"] = (f"HTTP {status}, answer {len(answer)} bytes, "
                         f"{time.monotonic() - t:.2f} s; slowest other request "
                         f"{max(stalls or [0]):.2f} s")
    game = api(url + "/api/games", {"game": "benediction", "mode": "online"})
    opened, accepted = [], 0
    for _ in range(sockets):
        try:
            sock = raw_ws(url, f"/ws/games/{game['id']}")
            opened.append(sock)
        except OSError:
            break
    for sock in opened:
        seen = b""
        try:
            sock.settimeout(5)
            while b'"type":"state"' not in seen and b'"type":"error"' not in seen:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                seen += chunk[:200] if len(seen) > 1000 else chunk
        except OSError:
            pass
        accepted += b'"type":"state"' in seen
    for sock in opened:
        sock.close()
    out[f"{sockets} idle WebSockets on one game"] = f"{accepted} accepted as viewers"
    sock = socket.create_connection(hostport(url), timeout=90)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    t = time.monotonic()
    try:
        sock.settimeout(60)
        sock.recv(10)
        out["half-sent request"] = f"closed after {time.monotonic() - t:.1f} s"
    except TimeoutError:
        out["half-sent request"] = "still open after 60 s"
    sock.close()
    return out


def long_record(actions: int) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from hexgames.game import get_game

    game = get_game("dendria")
    position = game.new(quiet_limit=100_000, size=11)
    rng = random.Random(1)
    count = 0
    while count < actions:
        legal = list(position.legal_actions())
        rng.shuffle(legal)
        for action in legal:
            position.play(action)
            if not position.is_over:
                break
            position.undo()
        count += 1
    return game.write_record(position, {})


def probe_long(url: str, actions: int) -> dict[str, Any]:
    text = long_record(actions)
    t = time.monotonic()
    status, answer = request(url + "/api/records", {"text": text, "game": "dendria"}, timeout=600)
    out = {f"upload of {actions} actions": f"HTTP {status} in {time.monotonic() - t:.2f} s"}
    if status == 201:
        game = json.loads(answer)["id"]
        for label, ply in (("", actions), ("", actions // 2), (" again", actions)):
            t = time.monotonic()
            status, _ = request(f"{url}/api/games/{game}/replay?ply={ply}", timeout=600)
            out[f"replay ply={ply}{label}"] = f"HTTP {status} in {time.monotonic() - t:.2f} s"
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", default=str(Path(__file__).resolve().parents[1] / "src"),
                        help="the hexgames sources the server runs (default: this checkout)")
    parser.add_argument("--seconds", type=float, default=15, help="probe 1 duration")
    parser.add_argument("--strong", type=int, default=8, help="level-5 games for probe 3")
    parser.add_argument("--sockets", type=int, default=300, help="idle sockets for probe 4")
    parser.add_argument("--actions", type=int, default=40000, help="record length, probe 5")
    parser.add_argument("--only", default="12345", help="which probes to run, e.g. 15")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hexgames-attack-") as data:
        process, url = start(args.src, data, 1)
        print(f"server {url} (sources {args.src}, {os.cpu_count()} cores)", flush=True)
        try:
            probes = {
                "1": ("silent spectator", lambda: probe_spectator(url, args.seconds)),
                "2": ("dead AI worker", lambda: probe_dead_worker(url, process.pid)),
                "3": ("AI queue", lambda: probe_starvation(url, args.strong)),
                "4": ("limits", lambda: probe_limits(url, args.sockets)),
                "5": ("long games", lambda: probe_long(url, args.actions)),
            }
            for key, (name, probe) in probes.items():
                if key in args.only:
                    t = time.monotonic()
                    figures = probe()
                    print(f"{key}. {name} ({time.monotonic() - t:.0f} s)", flush=True)
                    for label, value in figures.items():
                        print(f"   {label}: {value}", flush=True)
        finally:
            if process.poll() is not None:
                print(f"the server exited ({process.returncode}):", "".join(LOG[-30:]))
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
