#!/usr/bin/env python3
"""Reproduce security findings against a real ``hexgames serve`` over loopback.

Starts its own server (127.0.0.1, a free port, a temporary data directory,
``--ai-processes 1``), runs each probe with bounded loops and timeouts, prints the
figures, and stops the server (its whole process group). Traffic goes to 127.0.0.0/8
only: some probes connect from 127.0.0.2 and other loopback addresses, as other visitors.

    PYTHONPATH=src python scripts/attack.py                 # this checkout, issue 9
    python scripts/attack.py --src /work/main/src           # another checkout's server
    python scripts/attack.py --probes 31                    # issue 31's rows
    python scripts/attack.py --probes ai-ponder,socket-flood

Issue 9 (``--probes 9``, or its numbers ``1``-``5``; one server for all of them):
  1 a spectator that never reads; 2 a killed AI worker; 3 strong searches queued ahead of
  a beginner's; 4 a 20 MB body, idle sockets, a half-sent request; 5 a long record upload
  and a replay at its last ply.

Issue 31 (``--probes 31``, or by name; each on a fresh server; one result line each):
  ai-ponder       (row 0) Dendria against level 5 over HTTP: the computer's answer time
                  on turns 1-3 (3 s of pondering before turns 2 and 3; 60 s bound each),
                  and a level-3 game of another client (127.0.0.2) started meanwhile.
  huge-option     (row 1) POST /api/games with quiet_limit 2,000,000 and 10**23, POST
                  /api/seeks with 10**9 (a fresh server each, 30 s bound each): status,
                  time, and the slowest GET /api/catalog of a bystander meanwhile.
  socket-flood    (row 2) 1,000 /ws/lobby sockets and 1,500 idle TCP connections from
                  127.0.0.1 (fewer if the open-file limit is low), then from 127.0.0.2:
                  is a lobby socket accepted, does GET / answer 200 or 503?
  viewer-lockout  (row 3) 64 viewer sockets (no token, from 4 addresses) on an online
                  game, then a player's socket with its seat token: accepted or refused?
  slow-work       (row 4) 4 concurrent record uploads (the longest random Dendria game
                  at QuietLimit 1000) and 8 /api/analysis/position requests of 5,000
                  actions from 127.0.0.1, while a bystander (127.0.0.2) plays 10 moves
                  of a hot-seat game: its move latencies and any 503.
  upload-memory   (row 5) the server's RSS (server and its children, VmRSS) before and
                  after 4 concurrent uploads of a 40,000-action record (QuietLimit
                  100000, out of range since issue 31), then of the longest game at
                  QuietLimit 1000, and 5 s after each.
  Not here (row 6 and the rest): the offer storm and the housekeeping rows need two
  server processes and PostgreSQL; they are covered by the tests
  (tests/test_web_client_limits.py, tests/test_web_accounts_hardening.py, ...).

A memory guard kills a server whose RSS passes --max-rss-mb (reported). A server that
fails to start is retried after a minute (once; --start-retries).
"""

from __future__ import annotations

import argparse
import base64
import collections
import contextlib
import http.client
import json
import os
import queue
import random
import re
import resource
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOG: collections.deque[str] = collections.deque(maxlen=2000)
#: Longest wait for a server to print its address (a cold compile takes about a minute).
START_SECONDS = 600.0


def start(src: str, data: str, ai_processes: int) -> tuple[subprocess.Popen[str], str]:
    """Start ``hexgames serve`` from ``src`` in a process group of its own."""
    env = {**os.environ, "DATABASE_URL": "", "PYTHONPATH": src}
    process = subprocess.Popen(
        [sys.executable, "-m", "hexgames", "serve", "--host", "127.0.0.1", "--port", "0",
         "--data-dir", data, "--ai-processes", str(ai_processes)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        start_new_session=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            LOG.append(line)
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            stop(process)
            raise RuntimeError(
                f"the server printed no address in {START_SECONDS:.0f} s") from None
        if line is None:
            stop(process)
            raise RuntimeError("the server exited: " + "".join(list(LOG)[-20:]))
        found = re.search(r"http://\S+?(?=/?\s)", line + " ")
        if found:
            url = found.group(0).rstrip("/")
            for _ in range(100):  # older servers print before listening
                try:
                    socket.create_connection(hostport(url), timeout=1).close()
                    return process, url
                except OSError:
                    time.sleep(0.1)
            return process, url


def stop(process: subprocess.Popen[str]) -> None:
    """SIGINT, 20 s to finish, then SIGKILL to the whole process group (AI workers too)."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=20)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)


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
                                        "options": {"quiet_limit": 1000}})
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


def random_game(actions: int, quiet_limit: int = 100_000) -> Any:
    """A seeded random Dendria game on the 11 board, at most ``actions`` long (it stops
    earlier where every action ends the game). A ``quiet_limit`` over today's bound (1000)
    is set past the rules' check: the record an older server accepted."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from hexgames.game import get_game

    game = get_game("dendria")
    rules = game.rules(quiet_limit=min(quiet_limit, 1000), board_side=11)
    object.__setattr__(rules, "quiet_limit", quiet_limit)
    position = game.new_position(rules)
    rng = random.Random(1)
    for _ in range(actions):
        legal = list(position.legal_actions())
        rng.shuffle(legal)
        for action in legal:
            position.play(action)
            if not position.is_over:
                break
            position.undo()
        else:
            break
    return position


def long_record(actions: int, quiet_limit: int = 100_000) -> str:
    position = random_game(actions, quiet_limit)  # (puts this checkout on the path)
    from hexgames.game import get_game

    return get_game("dendria").write_record(position, {})


def probe_long(url: str, actions: int) -> dict[str, Any]:
    position = random_game(actions)  # QuietLimit 100000: since issue 31, refused (400)
    from hexgames.game import get_game

    actions, text = position.ply, get_game("dendria").write_record(position, {})
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


# ------------------------------------------------------------ issue 31's probes
ATTACKER, BYSTANDER = "127.0.0.1", "127.0.0.2"
#: What a socket's first message says: accepted (a state or the lobby) or refused.
ACCEPTED = re.compile(rb'"type"\s*:\s*"(?:state|lobby)"')
REFUSED = re.compile(rb'"type"\s*:\s*"error"')
PLAYER = re.compile(rb'"role"\s*:\s*"player"')


class Served:
    """A running server of one probe, watched by a memory guard."""

    def __init__(self, src: str, max_rss_mb: int, retries: int) -> None:
        self.data = tempfile.mkdtemp(prefix="hexgames-attack-")
        for attempt in range(retries + 1):
            try:
                self.process, self.url = start(src, self.data, 1)
                break
            except RuntimeError as error:
                if attempt == retries:
                    shutil.rmtree(self.data, ignore_errors=True)
                    raise
                print(f"   (the server did not start: {str(error)[-300:]!r}; retry in 60 s)",
                      flush=True)
                time.sleep(60)
        self.killed: str | None = None
        self.peak_kib = 0
        self._done = threading.Event()
        self._guard = threading.Thread(target=self._watch, args=(max_rss_mb * 1024,),
                                       daemon=True)
        self._guard.start()

    def _watch(self, limit_kib: int) -> None:
        while not self._done.wait(0.5):
            rss = tree_rss_kib(self.process.pid)
            self.peak_kib = max(self.peak_kib, rss)
            if rss > limit_kib:
                self.killed = f"server killed by the memory guard at {rss // 1024} MiB"
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                return

    def close(self) -> None:
        self._done.set()
        self._guard.join(timeout=5)
        stop(self.process)
        shutil.rmtree(self.data, ignore_errors=True)


def tree_rss_kib(pid: int) -> int:
    """VmRSS of ``pid`` and all its descendants (KiB)."""
    total, stack, seen = 0, [pid], set()
    while stack and len(seen) < 1000:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            found = re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{current}/status").read_text())
            total += int(found.group(1)) if found else 0
            for task in Path(f"/proc/{current}/task").iterdir():
                stack.extend(int(child) for child in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return total


def call(url: str, path: str, body: Any = None, source: str | None = None,
         timeout: float = 30) -> tuple[int, bytes, float]:
    """One request on a connection of its own from ``source``: (status or 0, body or the
    error, seconds). ``timeout`` bounds each socket operation."""
    host, port = hostport(url)
    data = None if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
    connection = http.client.HTTPConnection(
        host, port, timeout=timeout, source_address=(source, 0) if source else None)
    t = time.monotonic()
    try:
        connection.request("GET" if data is None else "POST", path, body=data,
                           headers={"content-type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read(), time.monotonic() - t
    except (OSError, http.client.HTTPException) as error:
        reason = "timeout" if isinstance(error, TimeoutError) else type(error).__name__
        return 0, reason.encode(), time.monotonic() - t
    finally:
        connection.close()


def fmt(status: int, answer: bytes, seconds: float) -> str:
    if status == 0:
        return f"{answer.decode()} after {seconds:.1f} s"
    return f"HTTP {status} in {seconds:.2f} s"


def tally(statuses: list[int]) -> str:
    counts = collections.Counter(statuses)
    return " ".join(f"{status or 'failed'}x{n}" for status, n in sorted(counts.items()))


def ws_open(url: str, path: str, source: str | None = None,
            timeout: float = 5) -> socket.socket | None:
    """A WebSocket handshake sent from ``source``; None when it could not be sent."""
    sock = socket.socket()
    try:
        sock.settimeout(timeout)
        if source:
            sock.bind((source, 0))
        sock.connect(hostport(url))
        host, port = hostport(url)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                      "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        return sock
    except OSError:
        sock.close()
        return None


def ws_outcomes(socks: list[socket.socket], seconds: float,
                accepted: re.Pattern[bytes] = ACCEPTED) -> list[str]:
    """Each socket's fate from what it received first: "accepted", "refused" (an error
    message, an HTTP answer other than 101, or closed) or "no answer" in ``seconds``."""
    results: dict[socket.socket, str] = {}
    seen: dict[socket.socket, bytes] = collections.defaultdict(bytes)
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ)
        deadline = time.monotonic() + seconds
        while len(results) < len(socks) and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=min(1.0, max(0.0, deadline - time.monotonic()))):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    chunk = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if len(seen[sock]) < 65536:
                    seen[sock] += chunk
                data = seen[sock]
                good, bad = accepted.search(data), REFUSED.search(data)
                if data.startswith(b"HTTP/") and b"\r\n" in data and b" 101 " not in data[:20]:
                    verdict = "refused"
                elif good and (not bad or good.start() < bad.start()):
                    verdict = "accepted"
                elif bad or not chunk:
                    verdict = "refused"
                else:
                    continue
                results[sock] = verdict
                selector.unregister(sock)
    for sock in socks:
        sock.settimeout(5)
    return [results.get(sock, "no answer") for sock in socks]


def counted(outcomes: list[str]) -> str:
    counts = collections.Counter(outcomes)
    return ", ".join(f"{counts[k]} {k}" for k in ("accepted", "refused", "no answer")
                     if counts[k])


def closed_by_server(socks: list[socket.socket], seconds: float) -> int:
    """How many of these (idle) sockets the server closed, or told of an error (a
    WebSocket's close handshake may wait for the client), within ``seconds``."""
    closed: set[socket.socket] = set()
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and len(closed) < len(socks):
            for key, _ in selector.select(timeout=max(0.0, deadline - time.monotonic())):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    chunk = sock.recv(65536)
                    if chunk and not REFUSED.search(chunk):
                        continue
                except BlockingIOError:
                    continue
                except OSError:
                    pass
                closed.add(sock)
                selector.unregister(sock)
    return len(closed)


def state_of(url: str, game: str, token: str, source: str | None = None,
             timeout: float = 10) -> dict[str, Any]:
    status, body, _ = call(url, f"/api/games/{game}?token={token}", source=source,
                           timeout=timeout)
    return json.loads(body) if status == 200 else {"status": status}


def play_turn(url: str, game: str, token: str, state: dict[str, Any],
              source: str | None = None) -> tuple[dict[str, Any], float | None]:
    """Play the first legal action until the turn passes (at most 40 actions): the last
    state and the latency of the slowest action (None: one was refused)."""
    slowest = 0.0
    for _ in range(40):
        if not state.get("your_turn") or state.get("is_over") or not state.get("legal"):
            break
        status, body, took = call(url, f"/api/games/{game}/actions", {
            "token": token, "action": state["legal"][0]["action"], "ply": state["ply"]},
            source=source)
        slowest = max(slowest, took)
        if status != 200:
            return {"status": status, "error": body[:200]}, None
        state = json.loads(body)
    return state, slowest


def wait_answer(url: str, game: str, token: str, bound: float) -> str:
    """Poll until it is our turn again: "<seconds> s" or why not."""
    t = time.monotonic()
    while time.monotonic() - t < bound:
        state = state_of(url, game, token, timeout=min(10.0, bound))
        if state.get("your_turn") or state.get("is_over"):
            return f"{time.monotonic() - t:.1f} s"
        if state.get("ai_error"):
            return f"error {state['ai_error']!r:.60}"
        time.sleep(0.25)
    return f"no answer in {bound:.0f} s"


def other_ai_game(url: str, level: int, bound: float, out: list[str]) -> None:
    """A second client (127.0.0.2) starts an AI game where the computer moves first."""
    t = time.monotonic()
    status, body, _ = call(url, "/api/games", {"game": "dendria", "mode": "ai", "seat": 1,
                                               "level": level}, source=BYSTANDER)
    if status != 201:
        out.append(f"refused: HTTP {status} {body[:80]!r}")
        return
    game = json.loads(body)
    while time.monotonic() - t < bound:
        state = state_of(url, game["id"], game["token"], BYSTANDER, timeout=min(10.0, bound))
        if state.get("history"):
            out.append(f"moved in {time.monotonic() - t:.1f} s")
            return
        if state.get("ai_error"):
            out.append(f"error {state['ai_error']!r:.60}")
            return
        time.sleep(0.25)
    out.append(f"no move in {bound:.0f} s")


def probe_ai_ponder(fresh: Callable[[], Served], ponder: float = 3, turns: int = 3,
                    bound: float = 60) -> str:
    with contextlib.closing(fresh()) as server:
        url = server.url
        status, body, _ = call(url, "/api/games", {"game": "dendria", "mode": "ai",
                                                   "seat": 0, "level": 5})
        if status != 201:
            return f"level-5 game refused: HTTP {status} {body[:80]!r}"
        game = json.loads(body)
        answers, other = [], []
        helper: threading.Thread | None = None
        for turn in range(1, turns + 1):
            if turn > 1:
                time.sleep(ponder)
            state, _ = play_turn(url, game["id"], game["token"],
                                 state_of(url, game["id"], game["token"]))
            if "status" in state:
                answers.append(f"turn {turn}: our action refused (HTTP {state['status']})")
                break
            if turn == 2:  # another client's game while the computer answers
                helper = threading.Thread(target=other_ai_game, args=(url, 3, bound, other))
                helper.start()
            answer = wait_answer(url, game["id"], game["token"], bound)
            answers.append(f"turn {turn} {answer}")
            if answer.startswith("no answer") or answer.startswith("error"):
                break
        if helper is not None:
            helper.join(bound + 15)
        guard = f"; {server.killed}" if server.killed else ""
        return (f"level-5 answers: {', '.join(answers)}; another client's level-3 game: "
                f"{other[0] if other else 'not started'}{guard}")


def probe_huge_option(fresh: Callable[[], Served], bound: float = 30) -> str:
    cases = [
        ("game quiet_limit=2000000", "/api/games",
         {"game": "dendria", "mode": "hotseat", "options": {"quiet_limit": 2_000_000}}),
        ("seek quiet_limit=10**9", "/api/seeks",
         {"game": "dendria", "options": {"quiet_limit": 10**9}}),
        ("game quiet_limit=10**23", "/api/games",
         {"game": "dendria", "mode": "hotseat", "options": {"quiet_limit": 10**23}}),
    ]
    parts = []
    for label, path, body in cases:  # a fresh server each: an old one may stay frozen
        with contextlib.closing(fresh()) as server:
            call(server.url, "/api/catalog", source=BYSTANDER)  # warm
            times: list[float] = []
            done = threading.Event()

            def bystander(url: str = server.url, done: threading.Event = done,
                          times: list[float] = times) -> None:
                for _ in range(2000):  # one request at least, then until done
                    status, _, took = call(url, "/api/catalog", source=BYSTANDER,
                                           timeout=bound)
                    times.append(took if status == 200 else max(took, bound))
                    if done.wait(0.1):
                        return

            thread = threading.Thread(target=bystander)
            thread.start()
            answer = fmt(*call(server.url, path, body, source=ATTACKER, timeout=bound))
            done.set()
            thread.join(bound + 10)
            killed = f" ({server.killed})" if server.killed else ""
            parts.append(f"{label}: {answer}{killed}, catalog worst "
                         f"{max(times or [0]):.2f} s of {len(times)}")
    return "; ".join(parts)


def raise_open_files(wanted: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else wanted


def probe_socket_flood(fresh: Callable[[], Served], lobby: int = 1000,
                       idle: int = 1500) -> str:
    limit = raise_open_files(lobby + idle + 256)
    if limit < lobby + idle + 256:  # scale both down to the open-file limit
        scale = max(0.0, (limit - 256) / (lobby + idle))
        lobby, idle = int(lobby * scale), int(idle * scale)
    with contextlib.closing(fresh()) as server:
        url, sockets, tcp = server.url, [], []
        try:
            deadline = time.monotonic() + 90
            for _ in range(lobby):
                if time.monotonic() > deadline:
                    break
                sock = ws_open(url, "/ws/lobby", ATTACKER)
                if sock is not None:
                    sockets.append(sock)
            outcomes = ws_outcomes(sockets, 30)
            deadline = time.monotonic() + 90
            for _ in range(idle):
                if time.monotonic() > deadline:
                    break
                with contextlib.suppress(OSError):
                    tcp.append(socket.create_connection(hostport(url), timeout=5,
                                                        source_address=(ATTACKER, 0)))
            closed = closed_by_server(tcp, 1.0)
            probe = ws_open(url, "/ws/lobby", BYSTANDER)
            verdict = ws_outcomes([probe], 15)[0] if probe else "not connected"
            if probe:
                probe.close()
            page = fmt(*call(url, "/", source=BYSTANDER, timeout=15))
        finally:
            for sock in sockets + tcp:
                sock.close()
        return (f"127.0.0.1: {lobby} lobby sockets: {counted(outcomes)}; {idle} idle TCP: "
                f"{len(tcp)} connected, {closed} closed by the server within 1 s; "
                f"then 127.0.0.2: lobby socket {verdict}, GET / {page}")


def probe_viewer_lockout(fresh: Callable[[], Served], viewers: int = 64) -> str:
    with contextlib.closing(fresh()) as server:
        url, sockets = server.url, []
        status, body, _ = call(url, "/api/games", {"game": "dendria", "mode": "online"})
        if status != 201:
            return f"online game refused: HTTP {status} {body[:80]!r}"
        game = json.loads(body)
        try:
            for n in range(viewers):  # 16 per address: under any per-address cap
                sock = ws_open(url, f"/ws/games/{game['id']}", f"127.0.0.{10 + n // 16}")
                if sock is not None:
                    sockets.append(sock)
            outcomes = ws_outcomes(sockets, 30)
            player = ws_open(url, f"/ws/games/{game['id']}?token={game['tokens'][0]}",
                             "127.0.0.30")
            verdict = ws_outcomes([player], 15, PLAYER)[0] if player else "not connected"
            gone = closed_by_server([s for s, o in zip(sockets, outcomes, strict=True)
                                     if o == "accepted"], 2.0)
            if player:
                player.close()
        finally:
            for sock in sockets:
                sock.close()
        return (f"{viewers} viewers: {counted(outcomes)}; then the player's own socket "
                f"(seat token): {verdict}; viewers closed or told to go after it: {gone}")


def probe_slow_work(fresh: Callable[[], Served], uploads: int = 4, lines: int = 8,
                    moves: int = 10) -> str:
    game = random_game(50_000, quiet_limit=1000)  # the longest random game it allows
    from hexgames.game import get_game

    record = {"text": get_game("dendria").write_record(game, {}), "game": "dendria"}
    line = {"game": "dendria", "options": {"board_side": 11, "quiet_limit": 1000},
            "actions": [str(action) for action in list(game.history)[:5000]]}
    with contextlib.closing(fresh()) as server:
        url = server.url
        attack: list[int] = []
        threads = [threading.Thread(target=lambda p=path, b=body: attack.append(
            call(url, p, b, source=ATTACKER, timeout=120)[0]))
            for path, body in [("/api/records", record)] * uploads
            + [("/api/analysis/position", line)] * lines]
        status, body, _ = call(url, "/api/games", {"game": "dendria", "mode": "hotseat"},
                               source=BYSTANDER)
        if status != 201:
            return f"hot-seat game refused: HTTP {status}"
        mine = json.loads(body)
        state = state_of(url, mine["id"], mine["token"], BYSTANDER)
        for thread in threads:
            thread.start()
        time.sleep(0.3)
        latencies: list[float] = []
        refused: list[int] = []
        for _ in range(moves):
            if not state.get("legal"):
                break
            status, body, took = call(url, f"/api/games/{mine['id']}/actions", {
                "token": mine["token"], "action": state["legal"][0]["action"],
                "ply": state["ply"]}, source=BYSTANDER, timeout=30)
            latencies.append(took)
            if status != 200:
                refused.append(status)
                state = state_of(url, mine["id"], mine["token"], BYSTANDER)
            else:
                state = json.loads(body)
        for thread in threads:
            thread.join(130)
        return (f"bystander's {len(latencies)} moves: median "
                f"{statistics.median(latencies or [0]):.2f} s, worst "
                f"{max(latencies or [0]):.2f} s, refused {tally(refused) or 'none'}; "
                f"attacker ({game.ply}-action uploads, 5000-action lines): "
                f"{tally(sorted(attack))}")


def probe_upload_memory(fresh: Callable[[], Served], uploads: int = 4) -> str:
    from_rules = [("40k-action record (QuietLimit 100000)", long_record(40_000))]
    game = random_game(50_000, quiet_limit=1000)
    from hexgames.game import get_game

    from_rules.append((f"{game.ply}-action record (QuietLimit 1000)",
                       get_game("dendria").write_record(game, {})))
    with contextlib.closing(fresh()) as server:
        url, pid = server.url, server.process.pid
        parts = [f"RSS at start {tree_rss_kib(pid) // 1024} MiB"]
        for label, text in from_rules:
            statuses: list[int] = []
            body = {"text": text, "game": "dendria"}
            threads = [threading.Thread(target=lambda s=statuses, b=body: s.append(call(
                url, "/api/records", b, source=ATTACKER, timeout=120)[0]))
                for _ in range(uploads)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(130)
            after = tree_rss_kib(pid) // 1024
            time.sleep(5)
            parts.append(f"{uploads} uploads of the {label}: {tally(sorted(statuses))}, "
                         f"RSS {after} MiB, 5 s later {tree_rss_kib(pid) // 1024} MiB")
        parts.append(f"peak {server.peak_kib // 1024} MiB")
        if server.killed:
            parts.append(server.killed)
        return "; ".join(parts)


PROBES_31: dict[str, tuple[str, Callable[..., str]]] = {
    "ai-ponder": ("row 0", probe_ai_ponder),
    "huge-option": ("row 1", probe_huge_option),
    "socket-flood": ("row 2", probe_socket_flood),
    "viewer-lockout": ("row 3", probe_viewer_lockout),
    "slow-work": ("row 4", probe_slow_work),
    "upload-memory": ("row 5", probe_upload_memory),
}


def selected(spec: str) -> tuple[list[str], list[str]]:
    """``--probes``: issue 9's numbers and issue 31's names, in order."""
    old, new = [], []
    for token in (part.strip() for part in spec.split(",")):
        if token == "9":
            old += list("12345")
        elif token == "31":
            new += list(PROBES_31)
        elif token in PROBES_31:
            new.append(token)
        elif token and set(token) <= set("12345"):
            old += list(token)
        elif token:
            raise SystemExit(f"unknown probe {token!r}: 9, 31, 1-5 or one of "
                             f"{', '.join(PROBES_31)}")
    return list(dict.fromkeys(old)), list(dict.fromkeys(new))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", default=str(Path(__file__).resolve().parents[1] / "src"),
                        help="the hexgames sources the server runs (default: this checkout)")
    parser.add_argument("--probes", default=None,
                        help="comma list: 9 (issue 9's probes 1-5), 31 (issue 31's), issue "
                        "9's numbers (1-5, e.g. 15) or issue 31's names (default: 9)")
    parser.add_argument("--seconds", type=float, default=15, help="probe 1 duration")
    parser.add_argument("--strong", type=int, default=8, help="level-5 games for probe 3")
    parser.add_argument("--sockets", type=int, default=300, help="idle sockets for probe 4")
    parser.add_argument("--actions", type=int, default=40000, help="record length, probe 5")
    parser.add_argument("--ponder", type=float, default=10,
                        help="ai-ponder: seconds left to the computer before turns 2, 3...")
    parser.add_argument("--turns", type=int, default=4, help="ai-ponder: turns played")
    parser.add_argument("--only", default=None, help="issue 9's probes to run (as --probes)")
    parser.add_argument("--max-rss-mb", type=int, default=3072,
                        help="issue 31's probes: kill a server past this RSS (MiB)")
    parser.add_argument("--start-retries", type=int, default=1,
                        help="issue 31's probes: restarts of a server that does not start")
    args = parser.parse_args()
    old, new = selected(args.probes or args.only or "9")
    print(f"sources {args.src}, {os.cpu_count()} cores", flush=True)
    if old:
        run_issue9(args, old)
    for name in new:
        row, probe = PROBES_31[name]
        t = time.monotonic()
        try:
            fresh = lambda: Served(args.src, args.max_rss_mb, args.start_retries)  # noqa: E731
            result = (probe(fresh, args.ponder, args.turns) if name == "ai-ponder"
                      else probe(fresh))
        except Exception as error:  # report it, go on with the next
            result = f"probe failed: {type(error).__name__}: {str(error)[-300:]}"
        print(f"31/{row} {name} ({time.monotonic() - t:.0f} s): {result}", flush=True)
    return 0


def run_issue9(args: argparse.Namespace, keys: list[str]) -> None:
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
                if key in keys:
                    t = time.monotonic()
                    figures = probe()
                    print(f"{key}. {name} ({time.monotonic() - t:.0f} s)", flush=True)
                    for label, value in figures.items():
                        print(f"   {label}: {value}", flush=True)
        finally:
            if process.poll() is not None:
                print(f"the server exited ({process.returncode}):", "".join(list(LOG)[-30:]))
            stop(process)


if __name__ == "__main__":
    sys.exit(main())
