#!/usr/bin/env python3
"""Reproduce security findings against a real ``hexgames serve`` over loopback.

Starts its own server (127.0.0.1, a free port, a temporary data directory,
``--ai-processes 1``), runs each probe with bounded loops and timeouts, prints the
figures, and stops the server (its whole process group). Traffic goes to 127.0.0.0/8
only: some probes connect from 127.0.0.2 and other loopback addresses, as other visitors.

    PYTHONPATH=src python tools/attack.py                 # this checkout, issue 9
    python tools/attack.py --src /work/main/src           # another checkout's server
    python tools/attack.py --probes 31                    # issue 31's rows
    python tools/attack.py --probes 39                    # issue 39's rows 4-6, 8-11
    python tools/attack.py --probes ai-ponder,socket-flood
    python tools/attack.py --probes 39                    # issue 39's rows 1-3, 7

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
  offer-storm     (row 6) two servers A and B on one PostgreSQL database (--database-url,
                  else a throwaway cluster; "skipped: no PostgreSQL" without one): a
                  rated Benediction game, 10+0, named players; for 20 turns the mover
                  plays on its process while the other player sends takeback offer and
                  cancel in a loop on the other: in how many turns the clock (GET
                  /api/games/{id} on the other process, after the turn) runs for the
                  wrong player.
  login-guess     (row 7) "vic" has a password; 60 wrong passwords from 6 addresses
                  (127.0.0.11-16, 10 each) under the spellings " vic", "vic\\t", "VIC",
                  "Vic "...: how many got an answer (401) before 429.
  cross-site-accept (row 8) "poster" posts a rated challenge; "taker" (its cookie) accepts
                  it with Origin http://127.0.0.1:<another port>: 201 seated or 403.
  password-change (row 9) "pat" logs in from a second browser (cookie jar), changes the
                  password in the first: does the second's cookie still act as "pat"?
  rating-farm     (row 10) "farmer" creates 30 rated online games; each time a new guest
                  opens the invitation and resigns at once: games created, seats, results
                  counted, and the farmer's rating.
  lobby-flood     (row 11) 5 addresses (127.0.0.21-25) post up to 100 challenges, no
                  cookies, as fast as allowed: how many accepted; can a 6th address post?
  mass-creation   (row 13) one address, 10 s or 2,000 requests: cookie-less GET /api/me
                  (a new guest each) and POST /api/games (hot seat) in turn: made per
                  second, and whether a limit answered 429.
  rematch-race    (row 14) two servers as offer-storm: 10 finished unrated games, both
                  players offer a rematch at once, one on A and one on B: rematch games
                  stored per race (read from the database).
  look-alike      (row 17) "Alice" exists; another identity names itself "AIice" (capital
                  i): accepted or refused?

Issue 39 (``--probes 39``, or by name; each on a fresh server or two):
  seat-lockout    (row 1) an online game; Blue opens 64 sockets of his own seat (from
                  127.0.0.40-42): accepted, and still open after; then Red's page
                  reconnects 3 times: accepted or refused?
  claim-race      (row 2) two servers on one PostgreSQL, absence limit 12 s: after Red
                  was gone 13 s, (a) Red's socket returns on B and Blue claims on A
                  0.3 s later; (b) Red moves over HTTP on B, Blue claims on A 1 s later;
                  (c) Red's move on B and Blue's claim on A at the same instant: which
                  is accepted, 3 rounds each.
  ai-replay       (row 3) a Dendria game against the computer from an online game's
                  position one turn earlier, the opponent's real last turn played into
                  it: does the computer answer the live position?
  storage-outage  (row 7) one server on PostgreSQL, a 1+0 game: PostgreSQL stopped for
                  10 s while Red is to move (a move tried every second), then started:
                  the answers, and what Red's next move costs her clock.
  shared-limits   (row 4) two servers A and B on one PostgreSQL (as offer-storm), requests
                  alternating A, B: 140 cookie-less GET /api/me from one address (new
                  identities, documented 60 an hour), 30 rated online games created by
                  a new named identity (documented 10), 30 wrong passwords for "olga"
                  from one address (documented 10); then olga's right password from
                  another address: answered or locked out?
  email-flood     (row 5) a server sending email to a local SMTP sink: 32 named
                  identities from 8 addresses (127.0.0.41-48) each give
                  victim@example.org (60 s bound): answers, and emails that reach it.
  puzzle-solutions (row 6) 200 cookie-less POST .../solution (60 s bound); then
                  "Cheater" takes 25 puzzles, each solved with a cookie-less look-up
                  (its own look-up if refused): its puzzle rating, rated wins, and the
                  sum of the puzzles' rating changes.
  pool-one-address (row 8) 12 named identities from one address (127.0.0.51) join the
                  rated dendria-5+3 pool: how many are paired (3 s); then one from
                  another address.
  email-header    (row 9) a named identity gives =?utf-8?q?a=2C_evil=40attacker.org=2C?=@b.org
                  (a server with a local SMTP sink): the answer and the To: header sent;
                  then =?utf-8?q?=0A?=@b.org and =?utf-8?q??=@b.org: the answers' words.
  look-alike-2    (row 10) "MalloryDY6" exists; "Mal-loryDY6" and "MallorvDY6": accepted
                  or refused?
  host-origin     (row 11) POST /api/me/name with Origin https://<the site> (an http
                  site), and with Host and Origin both evil.org (DNS rebinding); GET /
                  with Host evil.org.

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


def start(src: str, data: str, ai_processes: int, database_url: str = "",
          extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen[str], str]:
    """Start ``hexgames serve`` from ``src`` in a process group of its own (on
    ``database_url`` when given, else SQLite in ``data``; ``extra``: more options)."""
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": src}
    process = subprocess.Popen(
        [sys.executable, "-m", "hexgames", "serve", "--host", "127.0.0.1", "--port", "0",
         "--data-dir", data, "--ai-processes", str(ai_processes), *extra],
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

    def __init__(self, src: str, max_rss_mb: int, retries: int,
                 database_url: str = "", extra: tuple[str, ...] = ()) -> None:
        self.data = tempfile.mkdtemp(prefix="hexgames-attack-")
        for attempt in range(retries + 1):
            try:
                self.process, self.url = start(src, self.data, 1, database_url, extra)
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
        self._wait_for_engine()
        self._done = threading.Event()
        self._guard = threading.Thread(target=self._watch, args=(max_rss_mb * 1024,),
                                       daemon=True)
        self._guard.start()

    def _wait_for_engine(self, bound: float = 600) -> None:
        """A fresh server (sources never run before) compiles its engines in the
        background and answers 503 meanwhile: wait until ``/api/engine-status`` says
        ready (bounded; an older server without it answers 404 and is taken as ready)."""
        deadline = time.monotonic() + bound
        while time.monotonic() < deadline:
            status, body, _ = call(self.url, "/api/engine-status", timeout=10)
            if status == 404 or (status == 200 and answer_of(status, body).get("ready")):
                return
            time.sleep(1)

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


class Jar:
    """A browser's cookies (what ``Set-Cookie`` answers gave it)."""

    def __init__(self) -> None:
        self.cookies: dict[str, str] = {}

    def header(self) -> str:
        return "; ".join(f"{key}={value}" for key, value in self.cookies.items())

    def take(self, response: http.client.HTTPResponse) -> None:
        for line in response.msg.get_all("set-cookie") or []:
            key, _, value = line.split(";", 1)[0].partition("=")
            lowered = line.lower()
            if not value.strip('"') or "max-age=0" in lowered or "1970" in lowered:
                self.cookies.pop(key.strip(), None)
            else:
                self.cookies[key.strip()] = value


def call(url: str, path: str, body: Any = None, source: str | None = None,
         timeout: float = 30, jar: Jar | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, bytes, float]:
    """One request on a connection of its own from ``source`` (with ``jar``'s cookies,
    kept up to date): (status or 0, body or the error, seconds). ``timeout`` bounds each
    socket operation."""
    host, port = hostport(url)
    data = None if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
    connection = http.client.HTTPConnection(
        host, port, timeout=timeout, source_address=(source, 0) if source else None)
    sent = {"content-type": "application/json", **(headers or {})}
    if jar is not None and jar.cookies:
        sent["cookie"] = jar.header()
    t = time.monotonic()
    try:
        connection.request("GET" if data is None else "POST", path, body=data, headers=sent)
        response = connection.getresponse()
        answer = response.read()
        if jar is not None:
            jar.take(response)
        return response.status, answer, time.monotonic() - t
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


def flood(url: str, path: str, count: int, address: Callable[[int], str],
          sockets: list[socket.socket], accepted: re.Pattern[bytes] = ACCEPTED) -> list[str]:
    """Open ``count`` WebSockets to ``path``, the ``n``-th from ``address(n)``, into
    ``sockets`` (the caller closes them); returns how each was answered within 30 s."""
    for n in range(count):
        sock = ws_open(url, path, address(n))
        if sock is not None:
            sockets.append(sock)
    return ws_outcomes(sockets, 30, accepted)


def probe_viewer_lockout(fresh: Callable[[], Served], viewers: int = 64) -> str:
    with contextlib.closing(fresh()) as server:
        url, sockets = server.url, list[socket.socket]()
        status, body, _ = call(url, "/api/games", {"game": "dendria", "mode": "online"})
        if status != 201:
            return f"online game refused: HTTP {status} {body[:80]!r}"
        game = json.loads(body)
        try:
            outcomes = flood(url, f"/ws/games/{game['id']}", viewers,  # 16 an address:
                             lambda n: f"127.0.0.{10 + n // 16}", sockets)  # under any cap
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


# ----------------------------------------------- issue 31: accounts, lobby, creation
def answer_of(status: int, body: bytes) -> dict[str, Any]:
    """A JSON answer as a dict (``{}`` when it is none), with ``_status``."""
    try:
        parsed = json.loads(body) if body else {}
    except ValueError:
        parsed = {}
    if not isinstance(parsed, dict):
        parsed = {"value": parsed}
    parsed["_status"] = status
    return parsed


def web(url: str, path: str, body: Any = None, jar: Jar | None = None,
        source: str | None = None, headers: dict[str, str] | None = None,
        timeout: float = 30) -> dict[str, Any]:
    status, answer, _ = call(url, path, body, source=source, timeout=timeout, jar=jar,
                             headers=headers)
    return answer_of(status, answer)


def named(url: str, name: str, source: str | None = None,
          password: str | None = None) -> tuple[Jar, str]:
    """A browser whose identity picked ``name`` (and ``password``): the jar and what
    went wrong ("" when nothing)."""
    jar = Jar()
    me = web(url, "/api/me", jar=jar, source=source)
    if me["_status"] != 200:
        return jar, f"GET /api/me: HTTP {me['_status']}"
    renamed = web(url, "/api/me/name", {"name": name}, jar=jar, source=source)
    if renamed["_status"] != 200:
        return jar, f"naming {name!r}: HTTP {renamed['_status']} {renamed.get('error')!r:.80}"
    if password is not None:
        set_ = web(url, "/api/me/password", {"password": password}, jar=jar, source=source)
        if set_["_status"] != 200:
            return jar, f"password: HTTP {set_['_status']} {set_.get('error')!r:.80}"
    return jar, ""


def probe_login_guess(fresh: Callable[[], Served], guesses: int = 60) -> str:
    variants = [" vic", "vic\t", "VIC", "Vic ", "\tvic", "vic  "]
    with contextlib.closing(fresh()) as server:
        url = server.url
        _, problem = named(url, "vic", password="correct horse battery 1")
        if problem:
            return f"n/a ({problem})"
        statuses: list[int] = []
        first_429 = None
        deadline = time.monotonic() + 120
        for n in range(guesses):
            if time.monotonic() > deadline:
                break
            source = f"127.0.0.{11 + n * 6 // guesses}"  # 6 addresses, 10 guesses each
            status, _, _ = call(url, "/api/login", {"name": variants[n % len(variants)],
                                                    "password": f"wrong guess {n}"},
                                source=source, timeout=30)
            statuses.append(status)
            if status == 429 and first_429 is None:
                first_429 = n + 1
        real = statuses.count(401)
        return (f"{len(statuses)} wrong passwords for {len(variants)} spellings of 'vic' "
                f"from 6 addresses: {real} answered (401 wrong password), "
                f"{statuses.count(429)} refused 429"
                f"{f' from guess {first_429}' if first_429 else ''}; all: {tally(statuses)}")


def probe_cross_site_accept(fresh: Callable[[], Served]) -> str:
    with contextlib.closing(fresh()) as server:
        url = server.url
        poster, problem = named(url, "poster", ATTACKER)
        taker, problem2 = named(url, "taker", BYSTANDER)
        if problem or problem2:
            return f"n/a ({problem or problem2})"
        _, port = hostport(url)
        foreign = {"Origin": f"http://127.0.0.1:{port + 1}"}

        def post_seek() -> tuple[str | None, str]:
            for rated in (True, False):
                seek = web(url, "/api/seeks", {"game": "dendria", "rated": rated},
                           jar=poster, source=ATTACKER)
                if seek["_status"] == 201 and "id" in seek:
                    return seek["id"], "rated" if rated else "unrated"
            return None, f"HTTP {seek['_status']} {seek.get('error')!r:.60}"

        seek, kind = post_seek()
        if seek is None:
            return f"n/a (posting a challenge: {kind})"
        taken = web(url, f"/api/seeks/{seek}/accept", {}, jar=taker, source=BYSTANDER,
                    headers=foreign)
        seated = " (the taker seated in the new game)" if taken.get("id") else ""
        out = (f"{kind} challenge accepted by another identity with Origin "
               f"{foreign['Origin']}: HTTP {taken['_status']}{seated}")
        if taken["_status"] != 201:  # refused: does the site's own page still work?
            seek, kind = post_seek()
            if seek is not None:
                own = web(url, f"/api/seeks/{seek}/accept", {}, jar=taker, source=BYSTANDER,
                          headers={"Origin": url})
                out += f"; the same from the site's own Origin: HTTP {own['_status']}"
        return out


def probe_password_change(fresh: Callable[[], Served]) -> str:
    first, second = "correct horse battery 1", "another horse battery 2"
    with contextlib.closing(fresh()) as server:
        url = server.url
        browser1, problem = named(url, "pat", ATTACKER, password=first)
        if problem:
            return f"n/a ({problem})"
        browser2 = Jar()
        login = web(url, "/api/login", {"name": "pat", "password": first}, jar=browser2,
                    source=BYSTANDER)
        before = web(url, "/api/me", jar=browser2, source=BYSTANDER)
        if login["_status"] != 200 or before.get("name") != "pat":
            return (f"n/a (login from browser 2: HTTP {login['_status']}, it is "
                    f"{before.get('name')!r})")
        change = web(url, "/api/me/password", {"password": second, "current": first},
                     jar=browser1, source=ATTACKER)
        after = web(url, "/api/me", jar=browser2, source=BYSTANDER)
        rename = web(url, "/api/me/name", {"name": "patsy"}, jar=browser2, source=BYSTANDER)
        still = after.get("id") == before.get("id")
        return (f"browser 1 changes the password: HTTP {change['_status']}; browser 2's "
                f"cookie then: " + (f"still the account ({after.get('name')!r}); its rename "
                                    f"of the account: HTTP {rename['_status']}" if still else
                                    f"not the account (a new guest {after.get('name')!r}; "
                                    f"HTTP {after['_status']})"))


def probe_rating_farm(fresh: Callable[[], Served], games: int = 30) -> str:
    with contextlib.closing(fresh()) as server:
        url = server.url
        farmer, problem = named(url, "farmer", ATTACKER)
        if problem:
            return f"n/a ({problem})"
        created, claimed, resigned, counted = [], [], 0, 0
        deadline = time.monotonic() + 180
        for _ in range(games):
            if time.monotonic() > deadline:
                break
            game = web(url, "/api/games", {"game": "dendria", "mode": "online", "rated": True},
                       jar=farmer, source=ATTACKER)
            created.append(game["_status"])
            if game["_status"] != 201:
                continue
            guest = Jar()  # a throwaway guest opens the invitation and resigns at once
            web(url, "/api/me", jar=guest, source=BYSTANDER)
            seat = web(url, f"/api/games/{game['id']}/claim", {"token": game["tokens"][1]},
                       jar=guest, source=BYSTANDER)
            claimed.append(seat["_status"])
            if seat["_status"] != 200 or seat.get("role") != "player":
                continue
            done = web(url, f"/api/games/{game['id']}/resign", {"token": seat["token"]},
                       jar=guest, source=BYSTANDER)
            resigned += done["_status"] == 200
            state = web(url, f"/api/games/{game['id']}", source=BYSTANDER)
            counted += bool(state.get("rating_changes"))
        page = web(url, "/api/players/farmer", source=BYSTANDER)
        ratings = [f"{r.get('rating', 0):.0f} ±{r.get('deviation', 0):.0f} after "
                   f"{r.get('games')} games" for r in page.get("ratings") or []]
        return (f"{len(created)} rated games by 'farmer': created {tally(created)}; guests "
                f"opening the invitation: {tally(claimed) or 'none'}; resigned at once: "
                f"{resigned}; results counted: {counted}; farmer's rating: "
                f"{', '.join(ratings) or 'none (1500 unrated)'}")


def probe_look_alike(fresh: Callable[[], Served]) -> str:
    with contextlib.closing(fresh()) as server:
        url = server.url
        _, problem = named(url, "Alice", ATTACKER)
        if problem:
            return f"n/a ({problem})"
        jar = Jar()
        web(url, "/api/me", jar=jar, source=BYSTANDER)
        answer = web(url, "/api/me/name", {"name": "AIice"}, jar=jar, source=BYSTANDER)
        verdict = "accepted" if answer["_status"] == 200 else "refused"
        why = f" {answer.get('error')!r:.90}" if verdict == "refused" else ""
        return f"'Alice' taken, then 'AIice' (capital i): {verdict} (HTTP {answer['_status']}{why})"


def probe_lobby_flood(fresh: Callable[[], Served], posts: int = 100,
                      addresses: int = 5) -> str:
    with contextlib.closing(fresh()) as server:
        url = server.url
        statuses: list[int] = []
        deadline = time.monotonic() + 120
        for n in range(posts):  # cookie-less: a new guest each time
            if time.monotonic() > deadline:
                break
            status, _, _ = call(url, "/api/seeks", {"game": "dendria"},
                                source=f"127.0.0.{21 + n % addresses}", timeout=30)
            statuses.append(status)
        lobby = web(url, "/api/seeks", source=BYSTANDER)
        other = web(url, "/api/seeks", {"game": "dendria"}, source=f"127.0.0.{21 + addresses}")
        return (f"{len(statuses)} challenges from {addresses} addresses: {tally(statuses)}; "
                f"open in the lobby: {len(lobby.get('seeks') or [])}; then a 6th address "
                f"posts one: HTTP {other['_status']}"
                f"{' ' + repr(other.get('error'))[:60] if other['_status'] != 201 else ''}")


def probe_mass_creation(fresh: Callable[[], Served], seconds: float = 10,
                        most: int = 2000) -> str:
    with contextlib.closing(fresh()) as server:
        url = server.url
        kinds: dict[str, list[int]] = {"identities": [], "games": []}
        first_429: dict[str, float] = {}
        t = time.monotonic()
        for n in range(most):
            if time.monotonic() - t > seconds:
                break
            if n % 2 == 0:  # a cookie-less GET /api/me: a new guest each time
                kind, status = "identities", call(url, "/api/me", source=ATTACKER,
                                                  timeout=10)[0]
            else:
                kind, status = "games", call(url, "/api/games", {
                    "game": "dendria", "mode": "hotseat"}, source=ATTACKER, timeout=10)[0]
            kinds[kind].append(status)
            if status == 429:
                first_429.setdefault(kind, time.monotonic() - t)
        took = time.monotonic() - t
        parts = []
        for kind, ok in (("identities", 200), ("games", 201)):
            made = kinds[kind].count(ok)
            limit = (f"429 from {first_429[kind]:.1f} s" if kind in first_429
                     else "no 429")
            parts.append(f"{kind}: {made} made ({made / took:.1f}/s), {limit}; "
                         f"{tally(kinds[kind])}")
        return f"one address, {took:.0f} s, {len(kinds['games']) * 2} requests: " + \
            "; ".join(parts)


# ------------------------------------- issue 31: two server processes on PostgreSQL
PG_BIN = Path("/usr/lib/postgresql/15/bin")


class Cluster:
    """``--database-url``, or a throwaway PostgreSQL cluster on a loopback port (started
    on first use, stopped by :meth:`close`); each probe gets a database of its own."""

    def __init__(self, given: str | None) -> None:
        self.given, self.root, self.port = given, None, 0
        self.problem: str | None = None

    def _as_postgres(self, *command: str) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 \
            else list(command)

    def _start(self) -> None:
        import pwd

        initdb = PG_BIN / "initdb" if (PG_BIN / "initdb").exists() else shutil.which("initdb")
        pg_ctl = PG_BIN / "pg_ctl" if (PG_BIN / "pg_ctl").exists() else shutil.which("pg_ctl")
        if not initdb or not pg_ctl:
            raise RuntimeError("no initdb/pg_ctl")
        if os.geteuid() == 0:
            pwd.getpwnam("postgres")  # KeyError: no user to run it as
            if shutil.which("runuser") is None:
                raise RuntimeError("no runuser")
        self.pg_ctl = str(pg_ctl)
        self.root = Path(tempfile.mkdtemp(prefix="hexgames-attack-pg-"))
        if os.geteuid() == 0:
            shutil.chown(self.root, user="postgres")
        self.root.chmod(0o700)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        subprocess.run(self._as_postgres(str(initdb), "-D", str(self.root / "data"), "-U",
                                         "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"),
                       check=True, capture_output=True, timeout=120)
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} "
                   "-c fsync=off -c full_page_writes=off -c max_connections=200")
        subprocess.run(self._as_postgres(self.pg_ctl, "-D", str(self.root / "data"), "-o",
                                         options, "-l", str(self.root / "server.log"), "-w",
                                         "-t", "60", "start"),
                       check=True, capture_output=True, timeout=90)

    def database(self) -> str | None:
        """A URL of a fresh database (the given URL as it is), or None (see problem)."""
        if self.given:
            return self.given
        if self.problem:
            return None
        try:
            if self.root is None:
                self._start()
            import psycopg

            name = "attack_" + os.urandom(5).hex()
            with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres",
                                 autocommit=True, connect_timeout=10) as connection:
                connection.execute(f'CREATE DATABASE "{name}"')
            return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"
        except (OSError, KeyError, ImportError, RuntimeError,
                subprocess.SubprocessError, Exception) as error:
            self.problem = f"{type(error).__name__}: {str(error)[-200:]}"
            return None

    def pause(self) -> None:
        """Stop the throwaway cluster (fast: sessions cut), keeping its data."""
        subprocess.run(self._as_postgres(self.pg_ctl, "-D", str(self.root / "data"), "-m",
                                         "fast", "-w", "-t", "60", "stop"),
                       capture_output=True, timeout=90, check=False)

    def resume(self) -> None:
        """Start the paused cluster again, on the same port."""
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} "
                   "-c fsync=off -c full_page_writes=off -c max_connections=200")
        subprocess.run(self._as_postgres(self.pg_ctl, "-D", str(self.root / "data"), "-o",
                                         options, "-l", str(self.root / "server.log"), "-w",
                                         "-t", "60", "start"),
                       check=True, capture_output=True, timeout=90)

    def close(self) -> None:
        if self.root is None:
            return
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(self._as_postgres(self.pg_ctl, "-D", str(self.root / "data"), "-m",
                                             "immediate", "stop"),
                           capture_output=True, timeout=60, check=False)
        with contextlib.suppress(OSError, ValueError):  # pg_ctl failed: its postmaster
            pid = int((self.root / "data" / "postmaster.pid").read_text().split()[0])
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.root, ignore_errors=True)
        self.root = None


def stored_rematches(database_url: str, game_id: str) -> int | None:
    """Games stored as rematches of ``game_id`` (None: the database cannot be read)."""
    try:
        import psycopg

        with psycopg.connect(database_url, connect_timeout=10) as connection:
            row = connection.execute(
                "SELECT count(*) FROM games WHERE meta LIKE %s AND meta LIKE %s",
                ("%rematch_of%", f"%{game_id}%")).fetchone()
        return int(row[0]) if row else None
    except Exception:  # an old schema, no driver: counted from the answers instead
        return None


def two_processes(args: argparse.Namespace, cluster: Cluster, count: int = 2) -> tuple[
        list[Served], str] | str:
    database = cluster.database()
    if database is None:
        return f"skipped: no PostgreSQL ({cluster.problem})"
    servers: list[Served] = []
    try:
        for _ in range(count):
            servers.append(Served(args.src, args.max_rss_mb, args.start_retries, database))
    except Exception:
        for server in servers:
            server.close()
        raise
    return servers, database


def poll(url: str, path: str, ready: Callable[[dict[str, Any]], bool], bound: float = 10,
         jar: Jar | None = None) -> dict[str, Any]:
    """GET until ``ready`` (at most ``bound`` seconds): the last answer."""
    deadline, answer = time.monotonic() + bound, {"_status": 0}
    while time.monotonic() < deadline:
        answer = web(url, path, jar=jar, timeout=10)
        if answer["_status"] == 200 and ready(answer):
            return answer
        time.sleep(0.05)
    return answer


def online_pair(a: str, b: str, body: dict[str, Any], jars: tuple[Jar | None, Jar | None]
                = (None, None)) -> tuple[str, list[str]] | str:
    """An online game created on A, its invitation claimed on B: the id and both seat
    credentials, or why not."""
    game = web(a, "/api/games", body, jar=jars[0])
    if game["_status"] != 201:
        return f"HTTP {game['_status']} {game.get('error')!r:.80}"
    seat = web(b, f"/api/games/{game['id']}/claim", {"token": game["tokens"][1]}, jar=jars[1])
    if seat["_status"] != 200 or not seat.get("token"):
        return f"claim: HTTP {seat['_status']} {seat.get('error')!r:.80}"
    poll(a, f"/api/games/{game['id']}?token={seat['token']}",
         lambda state: state.get("your_seats") == [1])
    return game["id"], [game["tokens"][0], seat["token"]]


REALTIME = {"kind": "realtime", "base_s": 600, "increment_s": 0}


def probe_offer_storm(args: argparse.Namespace, cluster: Cluster, turns: int = 20) -> str:
    made = two_processes(args, cluster)
    if isinstance(made, str):
        return made
    servers, _ = made
    try:
        a, b = servers[0].url, servers[1].url
        suffix = os.urandom(3).hex()
        red, problem = named(a, f"red{suffix}")
        blue, problem2 = named(b, f"blue{suffix}")
        if problem or problem2:
            return f"n/a ({problem or problem2})"
        kind = "rated"
        pair = online_pair(a, b, {"game": "benediction", "mode": "online", "rated": True,
                                  "control": REALTIME}, (red, blue))
        if isinstance(pair, str):
            kind = f"unrated (rated refused: {pair})"
            pair = online_pair(a, b, {"game": "benediction", "mode": "online",
                                      "control": REALTIME}, (red, blue))
            if isinstance(pair, str):
                return f"n/a (online game: {pair})"
        game_id, tokens = pair
        urls = [a, b]
        wrong, checked, stored_offers, refused_moves = [], 0, 0, []
        for turn in range(turns):
            mover = turn % 2
            mine, theirs = urls[mover], urls[1 - mover]
            view = poll(mine, f"/api/games/{game_id}?token={tokens[mover]}",
                        lambda state: state.get("your_turn") or state.get("is_over"))
            if view.get("is_over") or not view.get("your_turn"):
                break
            stop_storm, answers = threading.Event(), []

            def storm(url: str = theirs, token: str = tokens[1 - mover],
                      stop_storm: threading.Event = stop_storm,
                      answers: list[int] = answers) -> None:
                host, port = hostport(url)
                connection = http.client.HTTPConnection(host, port, timeout=10)
                try:
                    for n in range(4000):
                        if stop_storm.is_set():
                            break
                        try:
                            connection.request("POST", f"/api/games/{game_id}/takeback",
                                               json.dumps({"token": token, "answer": (
                                                   "offer", "cancel")[n % 2]}),
                                               {"content-type": "application/json"})
                            response = connection.getresponse()
                            response.read()
                            answers.append(response.status)
                        except (OSError, http.client.HTTPException):
                            connection.close()
                            connection = http.client.HTTPConnection(host, port, timeout=10)
                finally:
                    connection.close()

            spammer = threading.Thread(target=storm, daemon=True)
            spammer.start()
            try:
                for _ in range(40):  # the mover's turn, on its own process
                    if not view.get("your_turn") or not view.get("legal"):
                        break
                    moved = web(mine, f"/api/games/{game_id}/actions", {
                        "token": tokens[mover], "action": view["legal"][0]["action"],
                        "ply": view["ply"]})
                    if moved["_status"] == 200:
                        view = moved
                    else:
                        refused_moves.append(moved["_status"])
                        view = web(mine, f"/api/games/{game_id}?token={tokens[mover]}")
                time.sleep(0.2)  # the storm goes on a moment after the turn
            finally:
                stop_storm.set()
                spammer.join(30)
            stored_offers += answers.count(200)
            if view.get("is_over"):
                break
            ply = view.get("ply")
            seen = poll(theirs, f"/api/games/{game_id}",
                        lambda state, ply=ply: state.get("ply") == ply, 5)
            time.sleep(0.3)
            seen = web(theirs, f"/api/games/{game_id}")
            clock = seen.get("clock") or {}
            if turn >= 1 and clock:  # it runs once each side has had its free first turn
                checked += 1
                if clock.get("running") != 1 - mover:
                    wrong.append(turn + 1)
        return (f"{kind} Benediction, 10+0, {checked} turns checked (GET on the other "
                f"process): the clock ran for the wrong player in {len(wrong)}"
                f"{' (turns ' + ', '.join(map(str, wrong[:12])) + ')' if wrong else ''}; "
                f"takeback requests stored during the turns: {stored_offers}; moves "
                f"refused: {tally(refused_moves) or 'none'}")
    finally:
        for server in servers:
            server.close()


def probe_rematch_race(args: argparse.Namespace, cluster: Cluster, races: int = 10) -> str:
    made = two_processes(args, cluster)
    if isinstance(made, str):
        return made
    servers, database = made
    try:
        a, b = servers[0].url, servers[1].url
        counts: list[str] = []
        left: list[int] = []
        for _ in range(races):
            pair = online_pair(a, b, {"game": "benediction", "mode": "online",
                                      "control": REALTIME})
            if isinstance(pair, str):
                counts.append("n/a")
                continue
            game_id, (red, blue) = pair
            web(a, f"/api/games/{game_id}/resign", {"token": red})
            for url, token in ((a, red), (b, blue)):
                poll(url, f"/api/games/{game_id}?token={token}",
                     lambda state: bool(state.get("can_rematch")))
            barrier = threading.Barrier(2, timeout=30)
            answers: list[dict[str, Any]] = []

            def offer(url: str, token: str, barrier: threading.Barrier = barrier,
                      answers: list[dict[str, Any]] = answers,
                      game_id: str = game_id) -> None:
                with contextlib.suppress(threading.BrokenBarrierError):
                    barrier.wait()
                answers.append(web(url, f"/api/games/{game_id}/rematch",
                                   {"token": token, "answer": "offer"}))

            threads = [threading.Thread(target=offer, args=(url, token))
                       for url, token in ((a, red), (b, blue))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
            time.sleep(1.0)
            after = [web(url, f"/api/games/{game_id}?token={token}")
                     for url, token in ((a, red), (b, blue))]
            seen = {answer.get("rematch") for answer in answers + after}
            stored = stored_rematches(database, game_id)
            counts.append(str(stored if stored is not None else len(seen - {None})))
            if counts[-1] == "0":  # what became of the two offers
                left.append(len(after[1].get("rematch_offers") or []))
        made = collections.Counter(counts)
        return (f"{races} races of two rematch offers at once (A and B): rematch games "
                f"made per race: {', '.join(counts)} ("
                + ", ".join(f"{c} in {n} race(s)" for c, n in sorted(made.items()))
                + (f"; in the races with none, offers still stored: "
                   f"{', '.join(map(str, left))} of 2" if left else "") + ")")
    finally:
        for server in servers:
            server.close()




# ------------------------------------------------------------------------ issue 39
SHORT_ABSENCE = "2"  # HEXGAMES_ABSENCE_REALTIME_S of issue 39's servers (shared: 12 s)


def opened_turns(url: str, game_id: str, tokens: list[str], plies: int,
                 other: str | None = None) -> list[str]:
    """Play first legal actions, turn by turn, until at least ``plies`` actions are
    stored and a turn starts (``other``: the second seat's process); the actions."""
    urls = [url, other or url]
    history: list[dict[str, Any]] = []
    for _ in range(200):
        views = [state_of(urls[seat], game_id, tokens[seat]) for seat in (0, 1)]
        history = views[0].get("history", [])
        if len(history) >= plies and views[0].get("turn_start", True):
            break
        seat = 0 if views[0].get("your_turn") else 1
        if not views[seat].get("legal"):
            break
        call(urls[seat], f"/api/games/{game_id}/actions",
             {"token": tokens[seat], "action": views[seat]["legal"][0]["action"]})
    return [entry["notation"] for entry in history]


def probe_seat_lockout(fresh: Callable[[], Served], sockets: int = 64) -> str:
    """Row 1: Blue opens ``sockets`` sockets of his own seat from 3 addresses; Red's
    page then reconnects (3 tries)."""
    with contextlib.closing(fresh()) as server:
        url = server.url
        game = web(url, "/api/games", {"game": "benediction", "mode": "online",
                                       "control": REALTIME})
        if game["_status"] != 201:
            return f"n/a (online game: HTTP {game['_status']})"
        game_id, (red, blue) = game["id"], game["tokens"]
        opened_turns(url, game_id, [red, blue], 3)
        blues: list[socket.socket] = []
        try:
            outcomes = flood(url, f"/ws/games/{game_id}?token={blue}", sockets,
                             lambda n: f"127.0.0.{40 + n % 3}", blues, PLAYER)
            kept = len(blues) - closed_by_server(
                [s for s, o in zip(blues, outcomes, strict=True) if o == "accepted"], 2.0)
            tries = []
            for _ in range(3):
                sock = ws_open(url, f"/ws/games/{game_id}?token={red}", "127.0.0.30")
                tries.append(ws_outcomes([sock], 15, PLAYER)[0] if sock else "not connected")
                if sock:
                    sock.close()
        finally:
            for sock in blues:
                sock.close()
        return (f"Blue's {sockets} sockets of his seat: {counted(outcomes)}, still open "
                f"after: {kept}; Red's 3 reconnects: {counted(tries)}")


def probe_claim_race(args: argparse.Namespace, cluster: Cluster, rounds: int = 3) -> str:
    """Row 2, two processes on PostgreSQL (absence limit 12 s): (a) Red returns on B,
    Blue claims on A 0.3 s later; (b) Red moves over HTTP on B, Blue claims on A 1 s
    later; (c) Red's move on B and Blue's claim on A sent at the same instant. Each
    ``rounds`` times, after Red was gone 13 s."""
    os.environ["HEXGAMES_ABSENCE_REALTIME_S"] = SHORT_ABSENCE
    made = two_processes(args, cluster)
    if isinstance(made, str):
        return made
    servers, _ = made
    try:
        a, b = servers[0].url, servers[1].url
        outcome: dict[str, list[str]] = {"return": [], "move": [], "same instant": []}
        for kind in outcome:
            for _ in range(rounds):
                pair = online_pair(a, b, {"game": "benediction", "mode": "online",
                                          "control": REALTIME})
                if isinstance(pair, str):
                    return f"n/a (online game: {pair})"
                game_id, tokens = pair
                opened_turns(a, game_id, tokens, 3, b)
                # "Red": the seat to move, whose page is on B; "Blue" claims on A.
                to_move = 0 if state_of(a, game_id, tokens[0]).get("your_turn") else 1
                red, blue = tokens[to_move], tokens[1 - to_move]
                time.sleep(13)  # Red (no socket anywhere) gone past the limit
                claim = {"token": blue, "claim": "victory"}
                path = f"/api/games/{game_id}/absence-claim"
                if kind == "return":
                    sock = ws_open(b, f"/ws/games/{game_id}?token={red}")
                    seen = ws_outcomes([sock], 15, PLAYER)[0] if sock else "not connected"
                    time.sleep(0.3)
                    answer = web(a, path, claim)["_status"]
                    outcome[kind].append(f"{'accepted' if answer == 200 else 'refused'}"
                                         f"{'' if seen == 'accepted' else ' (' + seen + ')'}")
                    if sock:
                        sock.close()
                    continue
                view = state_of(b, game_id, red)
                move = {"token": red, "action": view["legal"][0]["action"]}
                if kind == "move":
                    moved = web(b, f"/api/games/{game_id}/actions", move)["_status"]
                    time.sleep(1)
                    answer = web(a, path, claim)["_status"]
                    outcome[kind].append(f"move {moved}, claim {answer}")
                    continue
                answers: dict[str, int] = {}

                def send(name: str, url: str, where: str, body: dict[str, Any],
                         answers: dict[str, int] = answers) -> None:
                    answers[name] = web(url, where, body)["_status"]

                both = [threading.Thread(target=send, args=(
                            "move", b, f"/api/games/{game_id}/actions", move)),
                        threading.Thread(target=send, args=("claim", a, path, claim))]
                for thread in both:
                    thread.start()
                for thread in both:
                    thread.join(60)
                winners = [name for name, status in answers.items() if status == 200]
                outcome[kind].append("both" if len(winners) == 2 else
                                     winners[0] if winners else "neither")
        return "; ".join(f"{kind}: {counted_words(results)}"
                         for kind, results in outcome.items())
    finally:
        for server in servers:
            server.close()
        os.environ.pop("HEXGAMES_ABSENCE_REALTIME_S", None)


def counted_words(results: list[str]) -> str:
    counts = collections.Counter(results)
    return ", ".join(f"{n}x {word}" for word, n in counts.items())


def probe_ai_replay(fresh: Callable[[], Served], bound: float = 30) -> str:
    """Row 3: an online Dendria game past its opening; an AI game started one turn
    earlier; the opponent's real last turn played into it: does the computer answer?"""
    with contextlib.closing(fresh()) as server:
        url = server.url
        game = web(url, "/api/games", {"game": "dendria", "mode": "online"})
        if game["_status"] != 201:
            return f"n/a (online game: HTTP {game['_status']})"
        tokens = game["tokens"]
        line = opened_turns(url, game["id"], tokens, 8)
        history = state_of(url, game["id"], tokens[0]).get("history", [])
        starts = [i for i, entry in enumerate(history) if entry.get("turn_start")]
        if len(starts) < 2:
            return f"n/a (no whole turn in {len(line)} actions)"
        last = starts[-1]
        text = web(url, "/api/analysis/position", {"game": "dendria",
                                                   "actions": line[:last]}).get("text")
        for seat in (0, 1):
            made = web(url, "/api/games", {"game": "dendria", "mode": "ai", "start": text,
                                           "seat": seat, "level": 1})
            if made["_status"] != 201:
                return f"AI game from the earlier position: HTTP {made['_status']}"
            if state_of(url, made["id"], made["token"]).get("your_turn"):
                break
        for action in line[last:]:
            played = web(url, f"/api/games/{made['id']}/actions",
                         {"token": made["token"], "action": action})
            if played["_status"] != 200:
                return f"replaying the live turn: HTTP {played['_status']}"
        deadline = time.monotonic() + bound
        while time.monotonic() < deadline:
            view = state_of(url, made["id"], made["token"])
            if len(view.get("history", [])) > len(line) - last:
                return (f"the computer answered the live position "
                        f"({view['history'][-1]['notation']})")
            if view.get("ai_error"):
                return f"refused: {view['ai_error'][:90]!r}"
            time.sleep(0.1)
        return f"no answer in {bound:.0f} s"


def probe_storage_outage(args: argparse.Namespace, cluster: Cluster,
                         outage: float = 10) -> str:
    """Row 7: one server on PostgreSQL, a 1+0 game; PostgreSQL stopped ``outage`` s
    while Red is to move (moves tried every second), then started: the moves answered
    during it, and what Red's next move costs her clock."""
    made = two_processes(args, cluster, count=1)
    if isinstance(made, str):
        return made
    servers, _ = made
    url = servers[0].url
    try:
        game = web(url, "/api/games", {"game": "benediction", "mode": "online",
                                       "control": {"kind": "realtime", "base_s": 60,
                                                   "increment_s": 0}})
        if game["_status"] != 201:
            return f"n/a (online game: HTTP {game['_status']})"
        game_id, tokens = game["id"], game["tokens"]
        opened_turns(url, game_id, tokens, 3)
        seat = 0 if state_of(url, game_id, tokens[0]).get("your_turn") else 1
        view = state_of(url, game_id, tokens[seat])
        before = view["clock"]["left_ms"][seat]
        action = view["legal"][0]["action"]
        started = time.monotonic()
        statuses = []
        cluster.pause()
        try:
            while time.monotonic() - started < outage:
                statuses.append(web(url, f"/api/games/{game_id}/actions",
                                    {"token": tokens[seat], "action": action},
                                    timeout=15)["_status"])
                time.sleep(1)
        finally:
            cluster.resume()
        deadline = time.monotonic() + 60
        while (moved := web(url, f"/api/games/{game_id}/actions",
                            {"token": tokens[seat], "action": action}))["_status"] != 200:
            if time.monotonic() > deadline:
                return f"moves during the outage: {tally(statuses)}; none accepted after"
            time.sleep(0.5)
        spent = time.monotonic() - started
        after = moved["clock"]["left_ms"][seat]
        return (f"moves during the outage: {tally(statuses)}; Red's clock: {before / 1000:.1f}"
                f" s -> {after / 1000:.1f} s after {spent:.1f} s of which {outage:.0f} s "
                f"outage (charged {(before - after) / 1000:.1f} s)")
    finally:
        for server in servers:
            server.close()


PROBES_31: dict[str, tuple[str, Callable[..., str]]] = {
    "ai-ponder": ("row 0", probe_ai_ponder),
    "huge-option": ("row 1", probe_huge_option),
    "socket-flood": ("row 2", probe_socket_flood),
    "viewer-lockout": ("row 3", probe_viewer_lockout),
    "slow-work": ("row 4", probe_slow_work),
    "upload-memory": ("row 5", probe_upload_memory),
    "offer-storm": ("row 6", probe_offer_storm),
    "login-guess": ("row 7", probe_login_guess),
    "cross-site-accept": ("row 8", probe_cross_site_accept),
    "password-change": ("row 9", probe_password_change),
    "rating-farm": ("row 10", probe_rating_farm),
    "lobby-flood": ("row 11", probe_lobby_flood),
    "mass-creation": ("row 13", probe_mass_creation),
    "rematch-race": ("row 14", probe_rematch_race),
    "look-alike": ("row 17", probe_look_alike),
}


# ------------------------------- issue 39: limits for the site, emails, puzzles, names
class MailSink:
    """A minimal SMTP server on a loopback port that keeps each message's recipients and
    ``To:`` header (what a mail server would deliver), for the email probes."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.messages: list[tuple[list[str], str]] = []
        self._stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.listener.settimeout(0.5)
        while not self._stop.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                continue
            threading.Thread(target=self._session, args=(connection,), daemon=True).start()

    def _session(self, connection: socket.socket) -> None:
        connection.settimeout(30)
        reader = connection.makefile("rb")
        recipients: list[str] = []
        try:
            connection.sendall(b"220 sink ESMTP\r\n")
            for raw in reader:
                line = raw.decode("latin-1").rstrip("\r\n")
                verb = line[:4].upper()
                if verb == "DATA":
                    connection.sendall(b"354 go on\r\n")
                    lines = []
                    for body in reader:
                        text = body.decode("latin-1").rstrip("\r\n")
                        if text == ".":
                            break
                        lines.append(text)
                    to = next((t[3:].strip() for t in lines if t.lower().startswith("to:")),
                              "")
                    self.messages.append((recipients, to))
                    recipients = []
                    connection.sendall(b"250 kept\r\n")
                elif verb == "RCPT":
                    recipients.append(line.partition(":")[2].strip().strip("<>"))
                    connection.sendall(b"250 ok\r\n")
                elif verb == "QUIT":
                    connection.sendall(b"221 bye\r\n")
                    return
                else:
                    connection.sendall(b"250 ok\r\n")
        except OSError:
            return
        finally:
            connection.close()

    def options(self) -> tuple[str, ...]:
        """``hexgames serve`` options that send its email here."""
        return ("--smtp-host", "127.0.0.1", "--smtp-port", str(self.port), "--smtp-tls",
                "none", "--smtp-from", "games@example.org", "--site-url",
                "https://games.example.org")

    def close(self) -> None:
        self._stop.set()
        self.listener.close()


def probe_shared_limits(args: argparse.Namespace, cluster: Cluster) -> str:
    """Row 4: each limit with two processes A and B on one PostgreSQL, requests
    alternating between them."""
    made = two_processes(args, cluster)
    if isinstance(made, str):
        return made
    servers, _ = made
    try:
        urls = [server.url for server in servers]
        deadline = time.monotonic() + 240
        identities = [call(urls[n % 2], "/api/me", source="127.0.0.31", timeout=30)[0]
                      for n in range(140) if time.monotonic() < deadline]
        maker, problem = named(urls[0], "Rita", "127.0.0.32")
        if problem:
            return f"n/a ({problem})"
        rated = [web(urls[n % 2], "/api/games", {"game": "dendria", "mode": "online",
                                                 "rated": True},
                     jar=maker, source="127.0.0.32")["_status"]
                 for n in range(30) if time.monotonic() < deadline]
        _, problem = named(urls[0], "Olga", "127.0.0.33", password="olga's secret 1")
        if problem:
            return f"n/a ({problem})"
        guesses = [call(urls[n % 2], "/api/login", {"name": "olga", "password": f"guess {n}"},
                        source="127.0.0.34", timeout=30)[0]
                   for n in range(30) if time.monotonic() < deadline]
        owner = call(urls[1], "/api/login", {"name": "olga", "password": "olga's secret 1"},
                     source="127.0.0.35", timeout=30)[0]
        return (f"2 processes, one address each: new identities {identities.count(200)} of "
                f"{len(identities)} (documented 60); rated games of a new identity "
                f"{rated.count(201)} of {len(rated)} (documented 10); wrong passwords "
                f"answered {guesses.count(401)} of {len(guesses)} (documented 10), then the "
                f"owner from another address: HTTP {owner}")
    finally:
        for server in servers:
            server.close()


def probe_email_flood(args: argparse.Namespace, identities: int = 32,
                      addresses: int = 8) -> str:
    """Row 5: named identities from 8 addresses each give one victim's address."""
    sink = MailSink()
    try:
        with contextlib.closing(Served(args.src, args.max_rss_mb, args.start_retries,
                                       extra=sink.options())) as server:
            url, statuses = server.url, []
            t = time.monotonic()
            for n in range(identities):
                if time.monotonic() - t > 60:
                    break
                source = f"127.0.0.{41 + n % addresses}"
                jar, problem = named(url, f"Flood{n}x", source)
                if problem:
                    statuses.append(0)
                    continue
                statuses.append(web(url, "/api/me/alerts", {"email": "victim@example.org"},
                                    jar=jar, source=source)["_status"])
            took = time.monotonic() - t
            time.sleep(3)  # the mail thread sends what was queued
            sent = sum(recipients == ["victim@example.org"] for recipients, _ in sink.messages)
            return (f"{len(statuses)} identities from {addresses} addresses ask for a "
                    f"confirmation email to one address in {took:.0f} s: {tally(statuses)}; "
                    f"emails received by that address: {sent}")
    finally:
        sink.close()


def probe_puzzle_solutions(fresh: Callable[[], Served], lookups: int = 200,
                           puzzles: int = 25) -> str:
    """Row 6: cookie-less solution look-ups, then a named account that solves what it
    looked up."""
    game = "benediction"
    with contextlib.closing(fresh()) as server:
        url = server.url
        first = web(url, f"/api/puzzles/{game}/next", source=BYSTANDER)
        if "id" not in first:
            return f"n/a (no puzzle: HTTP {first['_status']})"
        t = time.monotonic()
        anonymous = [call(url, f"/api/puzzles/{game}/{first['id']}/solution", {},
                          source=BYSTANDER, timeout=30)[0]
                     for _ in range(lookups) if time.monotonic() - t < 60]
        cheat, problem = named(url, "Cheater", ATTACKER)
        if problem:
            return f"n/a ({problem})"
        changes, solved = [], 0
        for _ in range(puzzles):
            if time.monotonic() - t > 180:
                break
            puzzle = web(url, f"/api/puzzles/{game}/next", jar=cheat, source=ATTACKER)
            if "id" not in puzzle:
                break
            # The solution from a cookie-less look-up (another browser of the cheater).
            answer = web(url, f"/api/puzzles/{game}/{puzzle['id']}/solution", {},
                         source=ATTACKER)
            if "solution" not in answer:
                answer = web(url, f"/api/puzzles/{game}/{puzzle['id']}/solution", {},
                             jar=cheat, source=ATTACKER)  # its own look-up: a miss
            if "solution" not in answer:
                break
            done = web(url, f"/api/puzzles/{game}/{puzzle['id']}/try",
                       {"actions": answer["solution"]}, jar=cheat, source=ATTACKER)
            solved += done.get("status") == "solved"
            result = done.get("result") or {}
            if result.get("rated"):
                changes.append(result["changes"]["puzzle"]["change"])
        me = web(url, f"/api/puzzles/{game}", jar=cheat, source=ATTACKER).get("me") or {}
        return (f"cookie-less POST .../solution: {tally(anonymous)}; 'Cheater' solves "
                f"{solved} puzzles with looked-up solutions: puzzle rating 1500 -> "
                f"{me.get('rating', 1500):.0f}, rated wins {len(changes)}, the puzzles' "
                f"ratings moved {sum(changes):+.0f} in total")


def probe_pool_one_address(fresh: Callable[[], Served], players: int = 12) -> str:
    """Row 8: named identities from one address join one rated pool."""
    with contextlib.closing(fresh()) as server:
        url = server.url
        jars, joins = [], []
        for n in range(players):
            jar, problem = named(url, f"Sybil{n}x", "127.0.0.51")
            if problem:
                return f"n/a ({problem})"
            joined = web(url, "/api/pools/join", {"pool": "dendria-5+3", "rated": True},
                         jar=jar, source="127.0.0.51")
            joins.append(joined["_status"])
            if joined["_status"] == 201:
                jars.append(jar)
        time.sleep(3)  # a matching wave or two
        entries = [web(url, "/api/pools", jar=jar, source="127.0.0.51").get("entry") or {}
                   for jar in jars]
        paired = sum(entry.get("status") == "paired" for entry in entries)
        other, problem = named(url, "Outsider", "127.0.0.52")
        outsider = web(url, "/api/pools/join", {"pool": "dendria-5+3", "rated": True},
                       jar=other, source="127.0.0.52") if not problem else {}
        time.sleep(2)
        outside = (web(url, "/api/pools", jar=other, source="127.0.0.52").get("entry")
                   or {}).get("status")
        return (f"{players} named identities from one address join a rated pool "
                f"({tally(joins)}): {paired} paired with each other; then one from another "
                f"address: {outside} (join HTTP {outsider.get('_status')})")


ENCODED_WORD = "=?utf-8?q?a=2C_evil=40attacker.org=2C?=@b.org"
#: Encoded words the email library fails on (a line break; an empty word).
ODD_ADDRESSES = ("=?utf-8?q?=0A?=@b.org", "=?utf-8?q??=@b.org")


def probe_email_header(args: argparse.Namespace) -> str:
    """Row 9: an address made of an encoded word, and the 400 answers' words."""
    sink = MailSink()
    try:
        with contextlib.closing(Served(args.src, args.max_rss_mb, args.start_retries,
                                       extra=sink.options())) as server:
            url = server.url
            jar, problem = named(url, "Headers", ATTACKER)
            if problem:
                return f"n/a ({problem})"
            answer = web(url, "/api/me/alerts", {"email": ENCODED_WORD}, jar=jar,
                         source=ATTACKER)
            time.sleep(3)
            to = [header for _, header in sink.messages]
            odd = [(address, web(url, "/api/me/alerts", {"email": address}, jar=jar,
                                 source=ATTACKER)) for address in ODD_ADDRESSES]
            return (f"{ENCODED_WORD}: HTTP {answer['_status']}"
                    f"{' ' + repr(answer.get('error'))[:70] if answer['_status'] != 200 else ''}"
                    f"; To: of the emails sent: {to or 'none'}; " + "; ".join(
                        f"{address!r}: HTTP {got['_status']} {got.get('error')!r:.90}"
                        for address, got in odd))
    finally:
        sink.close()


def probe_look_alike_separators(fresh: Callable[[], Served]) -> str:
    """Row 10: a hyphen added, y read as v."""
    with contextlib.closing(fresh()) as server:
        url = server.url
        _, problem = named(url, "MalloryDY6", ATTACKER)
        if problem:
            return f"n/a ({problem})"
        verdicts = []
        for copy in ("Mal-loryDY6", "MallorvDY6"):
            jar = Jar()
            web(url, "/api/me", jar=jar, source=BYSTANDER)
            answer = web(url, "/api/me/name", {"name": copy}, jar=jar, source=BYSTANDER)
            verdicts.append(f"{copy!r} {'accepted' if answer['_status'] == 200 else 'refused'}"
                            f" (HTTP {answer['_status']})")
        return "'MalloryDY6' taken, then " + ", ".join(verdicts)


def probe_host_origin(fresh: Callable[[], Served]) -> str:
    """Row 11: an https Origin on the http site; Host and Origin both evil.org."""
    with contextlib.closing(fresh()) as server:
        url = server.url
        host = url.removeprefix("http://")
        jar = Jar()
        web(url, "/api/me", jar=jar, source=ATTACKER)
        https = web(url, "/api/me/name", {"name": "Schemer"}, jar=jar, source=ATTACKER,
                    headers={"Origin": f"https://{host}"})
        rebound = web(url, "/api/me/name", {"name": "Rebound"}, source=ATTACKER,
                      headers={"Host": "evil.org", "Origin": "http://evil.org"})
        page = call(url, "/", source=ATTACKER, headers={"Host": "evil.org"})[0]
        return (f"POST /api/me/name with Origin https://{host}: HTTP {https['_status']}; "
                f"with Host and Origin evil.org (DNS rebinding): HTTP {rebound['_status']}; "
                f"GET / with Host evil.org: HTTP {page}")


PROBES_39: dict[str, tuple[str, Callable[..., str]]] = {
    "seat-lockout": ("row 1", probe_seat_lockout),
    "claim-race": ("row 2", probe_claim_race),
    "ai-replay": ("row 3", probe_ai_replay),
    "shared-limits": ("row 4", probe_shared_limits),
    "email-flood": ("row 5", probe_email_flood),
    "puzzle-solutions": ("row 6", probe_puzzle_solutions),
    "storage-outage": ("row 7", probe_storage_outage),
    "pool-one-address": ("row 8", probe_pool_one_address),
    "email-header": ("row 9", probe_email_header),
    "look-alike-2": ("row 10", probe_look_alike_separators),
    "host-origin": ("row 11", probe_host_origin),
}
#: Issue 39's probes that start their servers themselves (email options).
ARGS_PROBES = ("email-flood", "email-header")
#: Probes on server processes over PostgreSQL.
PG_PROBES = ("offer-storm", "rematch-race", "claim-race", "storage-outage", "shared-limits")
#: Every probe of issues 31 and 39 by name, with its issue.
NAMED_PROBES = {**{name: ("31", *entry) for name, entry in PROBES_31.items()},
                **{name: ("39", *entry) for name, entry in PROBES_39.items()}}


def selected(spec: str) -> tuple[list[str], list[str]]:
    """``--probes``: issue 9's numbers and issue 31's and 39's names, in order."""
    old, new = [], []
    for token in (part.strip() for part in spec.split(",")):
        if token == "9":
            old += list("12345")
        elif token == "31":
            new += list(PROBES_31)
        elif token == "39":
            new += list(PROBES_39)
        elif token in NAMED_PROBES:
            new.append(token)
        elif token and set(token) <= set("12345"):
            old += list(token)
        elif token:
            raise SystemExit(f"unknown probe {token!r}: 9, 31, 39, 1-5 or one of "
                             f"{', '.join(NAMED_PROBES)}")
    return list(dict.fromkeys(old)), list(dict.fromkeys(new))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", default=str(Path(__file__).resolve().parents[1] / "src"),
                        help="the hexgames sources the server runs (default: this checkout)")
    parser.add_argument("--probes", default=None,
                        help="comma list: 9 (issue 9's probes 1-5), 31 (issue 31's), 39 "
                        "(issue 39's), issue 9's numbers (1-5, e.g. 15) or issue 31's and "
                        "39's names (default: 9)")
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
    parser.add_argument("--database-url", default=None,
                        help="offer-storm, rematch-race, shared-limits: the PostgreSQL "
                        "database their two "
                        "servers share (default: a throwaway cluster of initdb/pg_ctl on a "
                        "loopback port, a fresh database per probe, stopped at the end)")
    parser.add_argument("--start-retries", type=int, default=1,
                        help="issue 31's probes: restarts of a server that does not start")
    args = parser.parse_args()
    old, new = selected(args.probes or args.only or "9")
    print(f"sources {args.src}, {os.cpu_count()} cores", flush=True)
    if old:
        run_issue9(args, old)
    cluster = Cluster(args.database_url)
    try:
        for name in new:
            issue, row, probe = NAMED_PROBES[name]
            t = time.monotonic()
            try:
                fresh = lambda: Served(args.src, args.max_rss_mb,  # noqa: E731
                                       args.start_retries)
                result = (probe(fresh, args.ponder, args.turns) if name == "ai-ponder"
                          else probe(args, cluster) if name in PG_PROBES
                          else probe(args) if name in ARGS_PROBES
                          else probe(fresh))
            except Exception as error:  # report it, go on with the next
                result = f"probe failed: {type(error).__name__}: {str(error)[-300:]}"
            print(f"{issue}/{row} {name} ({time.monotonic() - t:.0f} s): {result}", flush=True)
    finally:
        cluster.close()
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
