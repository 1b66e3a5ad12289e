"""Many server processes over one PostgreSQL (issue 10), against real ``hexgames serve``
processes on a throwaway cluster: players of one game on different processes, a
spectator on a third connection, a process killed with SIGKILL mid-game, two processes
storing different actions for the same ply, AI claims, ``--workers``, and small load
tests (0 errors, 0 lost moves; no timing is asserted)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hexgames.web.game.matches import Match
from hexgames.web.loadtest import GameSpec, run_load
from hexgames.web.storage import StaleWrite, StoredGame, open_storage
from server_support import start_serve, stop_serve
from test_web_storage import postgres_cluster, postgres_url  # noqa: F401 - fixtures

websockets_sync = pytest.importorskip("websockets.sync.client")
websockets_sync_exceptions = pytest.importorskip("websockets.exceptions")

SMALL = {"game": "dendria", "mode": "online", "options": {"board_side": 3}}


def start(args: list[str], database_url: str, data: Path) -> tuple[subprocess.Popen[str], str]:
    """``hexgames serve`` on a free port; returns the process and its URL."""
    return start_serve(data, *args, env={**os.environ, "DATABASE_URL": database_url})


def stop(process: subprocess.Popen[str]) -> None:
    stop_serve(process, timeout=20)


@pytest.fixture
def two_servers(postgres_url: str, tmp_path: Path) -> Iterator[tuple[list[str], list[Any]]]:  # noqa: F811
    processes: list[Any] = []
    urls: list[str] = []
    try:
        for name in ("a", "b"):
            process, url = start([], postgres_url, tmp_path / name)
            processes.append(process)
            urls.append(url)
        yield urls, processes
    finally:
        for process in processes:
            stop(process)


def http(method: str, url: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def ws(url: str, game_id: str, token: str | None = None) -> Any:
    query = f"?token={token}" if token else ""
    return websockets_sync.connect(
        url.replace("http://", "ws://") + f"/ws/games/{game_id}{query}",
        max_size=2**24, open_timeout=20,
    )


def reconnect(url: str, game_id: str, token: str | None = None) -> tuple[Any, dict[str, Any]]:
    """Open a socket the way a client comes back after a crash: retrying (bounded) while
    the address still leads to a process that cannot answer (with ``SO_REUSEPORT`` a new
    connection may land on a worker that is going away or not yet started). Returns the
    socket and the first state it received, which proves a live process serves it."""
    for attempt in range(50):
        try:
            socket = ws(url, game_id, token)
        except (OSError, websockets_sync_exceptions.WebSocketException, TimeoutError):
            if attempt == 49:
                raise
            threading.Event().wait(0.1)
            continue
        try:
            return socket, next_state(socket)
        except (OSError, websockets_sync_exceptions.WebSocketException, TimeoutError):
            socket.close()
            if attempt == 49:
                raise
            threading.Event().wait(0.1)
    raise AssertionError("unreachable")


def wait_gone(pid: int) -> None:
    """Wait (bounded) until a killed process is gone or a zombie (its sockets closed)."""
    for _ in range(100):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
        except (FileNotFoundError, IndexError):
            return
        if state == "Z":
            return
        threading.Event().wait(0.05)


def stored_history(url: str, game_id: str, expected: list[str]) -> list[str]:
    """The history a process answers over HTTP, once it has heard of the last stored
    change (a process other than the writer learns of it within milliseconds; bounded)."""
    for _ in range(100):
        history = [e["notation"] for e in http("GET", f"{url}/api/games/{game_id}")[1]["history"]]
        if history == expected:
            break
        threading.Event().wait(0.05)
    return history


def next_state(socket: Any, after: int = -1) -> dict[str, Any]:
    """The next state message with a ply above ``after`` (errors fail the test)."""
    while True:
        message = json.loads(socket.recv(timeout=20))
        assert message["type"] != "error", message
        if message["type"] == "state" and message["ply"] > after:
            return message


class Watcher(threading.Thread):
    """A spectator reading every state of a game on its own connection."""

    def __init__(self, url: str, game_id: str) -> None:
        super().__init__(daemon=True)
        self.socket = ws(url, game_id)
        self.plies: list[int] = []
        self.history: list[str] = []
        self.over = threading.Event()

    def run(self) -> None:
        try:
            while True:
                message = json.loads(self.socket.recv(timeout=60))
                if message["type"] != "state":
                    continue
                self.plies.append(message["ply"])
                self.history = [entry["notation"] for entry in message["history"]]
                if message["is_over"]:
                    self.over.set()
                    return
        except Exception:
            return


def play_until(sockets: dict[int, Any], state: dict[str, Any], rng: random.Random,
               stop_at: int | None = None,
               known: dict[int, dict[str, Any]] | None = None,
               ) -> tuple[dict[str, Any], list[str]]:
    """Play random legal actions through the socket of the seat to act (each move is
    acknowledged by the state that contains it) until the game ends or ``stop_at``.
    ``state`` was read from the socket of seat 0."""
    acknowledged = [entry["notation"] for entry in state["history"]]
    states = {seat: state if seat == 0 else {"ply": -1} for seat in sockets}
    states.update(known or {})  # states already read from a socket (e.g. on reconnecting)
    while not state["is_over"] and (stop_at is None or state["ply"] < stop_at):
        seat = state["current_seat"]
        mine = states[seat]
        while mine["ply"] < state["ply"]:  # this seat's process may still be catching up
            mine = states[seat] = next_state(sockets[seat], mine["ply"])
        assert mine["your_turn"], mine
        action = rng.choice(mine["legal"])["action"]
        sockets[seat].send(json.dumps({"type": "action", "action": action, "ply": mine["ply"]}))
        state = states[seat] = next_state(sockets[seat], mine["ply"])
        acknowledged = [entry["notation"] for entry in state["history"]]
    return state, acknowledged


def test_players_on_two_processes_finish_a_game_and_a_spectator_sees_every_move(
    two_servers: tuple[list[str], list[Any]],
) -> None:
    (a, b), _ = two_servers
    status, created = http("POST", f"{a}/api/games", SMALL)
    assert status == 201, created
    game_id, tokens = created["id"], created["tokens"]
    watcher = Watcher(b, game_id)  # a third connection, on the other process
    watcher.start()
    with ws(a, game_id, tokens[0]) as first, ws(b, game_id, tokens[1]) as second:
        state = next_state(first)
        final, acknowledged = play_until({0: first, 1: second}, state, random.Random(7))
    assert final["is_over"]
    assert watcher.over.wait(30), watcher.plies
    assert watcher.history == acknowledged  # every move reached the third connection
    assert watcher.plies == sorted(watcher.plies)
    for url in (a, b):  # both processes hold the stored game
        assert stored_history(url, game_id, acknowledged) == acknowledged
        assert http("GET", f"{url}/api/games/{game_id}")[1]["is_over"]


def test_sigkill_of_a_process_loses_no_acknowledged_move_and_the_game_goes_on(
    two_servers: tuple[list[str], list[Any]],
) -> None:
    (a, b), processes = two_servers
    _, created = http("POST", f"{a}/api/games", SMALL)
    game_id, tokens = created["id"], created["tokens"]
    rng = random.Random(3)
    first, second = ws(a, game_id, tokens[0]), ws(b, game_id, tokens[1])
    state = next_state(first)
    state, acknowledged = play_until({0: first, 1: second}, state, rng, stop_at=6)
    assert not state["is_over"] and len(acknowledged) == 6
    processes[0].send_signal(signal.SIGKILL)  # process A dies mid-game
    processes[0].wait(timeout=20)
    first.close()
    second.close()
    # The player of A reconnects (to the surviving process, as a browser would).
    with ws(b, game_id, tokens[0]) as first, ws(b, game_id, tokens[1]) as second:
        state = next_state(first, len(acknowledged) - 1)  # B may be a moment behind
        assert [entry["notation"] for entry in state["history"]] == acknowledged
        final, history = play_until({0: first, 1: second}, state, rng)
    assert final["is_over"]
    assert history[:6] == acknowledged
    assert stored_history(b, game_id, history) == history


def test_two_processes_storing_the_same_ply_exactly_one_wins(
    two_servers: tuple[list[str], list[Any]],
) -> None:
    (a, b), _ = two_servers
    created = http("POST", f"{a}/api/games", {**SMALL, "mode": "hotseat"})[1]
    game_id, token = created["id"], created["token"]
    state = http("GET", f"{b}/api/games/{game_id}?token={token}")[1]  # B holds it too
    legal = [entry["action"] for entry in state["legal"]]
    results: dict[str, tuple[int, Any]] = {}

    def post(url: str, action: str) -> None:
        results[url] = http("POST", f"{url}/api/games/{game_id}/actions",
                            {"token": token, "action": action, "ply": 0})

    threads = [threading.Thread(target=post, args=(url, action))
               for url, action in ((a, legal[0]), (b, legal[-1]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    codes = sorted(code for code, _ in results.values())
    assert codes == [200, 409], results
    loser = next(body for code, body in results.values() if code == 409)
    assert "position changed" in loser["error"] or "changed by another" in loser["error"]
    winner = next(body for code, body in results.values() if code == 200)
    won = [winner["history"][0]["notation"]]
    for url in (a, b):
        assert stored_history(url, game_id, won) == won


def test_storage_refuses_a_second_action_for_a_ply_and_the_history_replays(
    postgres_url: str,  # noqa: F811
) -> None:
    one, two = open_storage(database_url=postgres_url), open_storage(database_url=postgres_url)
    stored = StoredGame(
        id="g", game="dendria", options={"board_side": 3}, mode="hotseat",
        players=[{"kind": "human", "level": None}] * 2, seat_tokens=["t", "t"],
        status="playing", winner=None, reason=None, created_at="x", updated_at="x",
    )
    one.create_game(stored)
    legal = [str(a) for a in Match(one.load_game("g")).position.legal_actions()]
    one.append_actions("g", 0, [legal[0]], "y")
    with pytest.raises(StaleWrite, match="changed by another server"):
        two.append_actions("g", 0, [legal[1]], "y")
    loaded = two.load_game("g")
    assert loaded is not None and loaded.actions == [legal[0]]
    assert len(Match(loaded).plies) == 1  # the stored history replays
    # AI claims: one process per (game, ply); a claim for an old ply is refused.
    assert one.claim_ai("g", 1)
    assert not two.claim_ai("g", 1)
    one.release_ai("g", 1)
    assert two.claim_ai("g", 1)
    two.release_ai("g", 1)
    assert not one.claim_ai("g", 0)
    one.close()
    two.close()


def test_a_small_load_test_over_two_processes_loses_nothing(
    two_servers: tuple[list[str], list[Any]],
) -> None:
    (a, b), _ = two_servers
    mix = [GameSpec.parse("dendria:board_side=3"), GameSpec.parse("benediction")]
    figures = asyncio.run(run_load(a, 20, 4.0, mix, seed=5, urls=[a, b]))
    assert figures["errors"] == 0, figures["error_samples"]
    assert figures["lost_moves"] == 0
    assert figures["acknowledged"] > 0


def test_a_small_load_test_on_sqlite_loses_nothing(tmp_path: Path) -> None:
    process, url = start([], "", tmp_path)
    try:
        mix = [GameSpec.parse("benediction"), GameSpec.parse("dendria:board_side=5")]
        for delta in (True, False):
            figures = asyncio.run(run_load(url, 20, 3.0, mix, seed=2, delta=delta))
            assert figures["errors"] == 0, figures["error_samples"]
            assert figures["lost_moves"] == 0
            assert figures["acknowledged"] > 0
    finally:
        stop(process)


def test_workers_above_one_are_refused_on_sqlite(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hexgames", "serve", "--workers", "2", "--port", "0",
         "--data-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "DATABASE_URL": ""},
    )
    assert result.returncode == 2
    assert "--workers 2 needs PostgreSQL" in result.stdout


def children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in text.split()]


def test_workers_serve_one_port_survive_a_sigkill_and_stop_together(
    postgres_url: str, tmp_path: Path,  # noqa: F811
) -> None:
    """``--workers 2``: a game on the one port; one worker killed with SIGKILL mid-game
    (no acknowledged move lost, the players reconnect to the same address and finish;
    the supervisor starts a new worker); SIGTERM stops everything."""
    process, url = start(["--workers", "2"], postgres_url, tmp_path)
    try:
        workers = children(process.pid)
        assert len(workers) == 2
        created = http("POST", f"{url}/api/games", SMALL)[1]
        game_id, tokens = created["id"], created["tokens"]
        rng = random.Random(1)
        first, second = ws(url, game_id, tokens[0]), ws(url, game_id, tokens[1])
        state, acknowledged = play_until({0: first, 1: second}, next_state(first), rng,
                                         stop_at=4)
        os.kill(workers[0], signal.SIGKILL)
        wait_gone(workers[0])
        first.close()
        second.close()
        first, state = reconnect(url, game_id, tokens[0])
        second, seen = reconnect(url, game_id, tokens[1])
        with first, second:
            if state["ply"] < len(acknowledged):  # that process had not heard of it yet
                state = next_state(first, len(acknowledged) - 1)
            assert [e["notation"] for e in state["history"]][: len(acknowledged)] == acknowledged
            final, history = play_until({0: first, 1: second}, state, rng, known={1: seen})
        assert final["is_over"] and history[: len(acknowledged)] == acknowledged
        for _ in range(100):  # the supervisor replaces the dead worker (bounded wait)
            now = children(process.pid)
            if len(now) == 2 and workers[0] not in now:
                break
            threading.Event().wait(0.1)
        assert len(now) == 2 and workers[0] not in now
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=30)
        print("".join(process.output))
        assert code == 0
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers + now)


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_nginx_config_of_deploy_proxies_http_and_websockets_to_two_processes(
    two_servers: tuple[list[str], list[Any]], tmp_path: Path,
) -> None:
    """deploy/nginx.conf as shipped, with its listen port and upstream replaced by two
    real processes: a game is created and played to the end through nginx."""
    import shutil

    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        pytest.skip("nginx is not installed (apt-get install nginx)")
    (a, b), _ = two_servers
    config = (Path(__file__).parents[1] / "deploy" / "nginx.conf").read_text()
    port = free_port()
    upstream = "".join(f"        server {url.removeprefix('http://')};\n" for url in (a, b))
    config = config.replace("        server 127.0.0.1:8000 max_fails=1 fail_timeout=2s;\n",
                            upstream)
    config = config.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    assert upstream in config and f"127.0.0.1:{port}" in config
    prefix = tmp_path / "nginx"
    (prefix / "tmp").mkdir(parents=True)
    (prefix / "nginx.conf").write_text(config)
    process = subprocess.Popen(
        [nginx, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-e", "stderr",
         "-g", "daemon off;"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    proxy = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):  # nginx starts in milliseconds; bounded wait
            try:
                status, created = http("POST", f"{proxy}/api/games", SMALL)
                break
            except urllib.error.URLError:
                if process.poll() is not None:
                    raise AssertionError(process.stdout.read() if process.stdout else "") from None
                threading.Event().wait(0.1)
        assert status == 201, created
        game_id, tokens = created["id"], created["tokens"]
        with ws(proxy, game_id, tokens[0]) as first, ws(proxy, game_id, tokens[1]) as second:
            final, history = play_until({0: first, 1: second}, next_state(first),
                                        random.Random(11))
        assert final["is_over"]
        for url in (a, b, proxy):
            assert stored_history(url, game_id, history) == history
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_delta_states_carry_the_new_tail_and_the_whole_list_after_an_undo(
    tmp_path: Path,
) -> None:
    """``?delta=1``: the first state has the whole move list (``history_since`` 0), each
    next one only what is new; after an undo the whole list again. Without it, nothing
    changes."""
    from fastapi.testclient import TestClient

    from hexgames.web.app import create_app

    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        created = client.post("/api/games", json={"game": "dendria", "mode": "hotseat",
                                                  "options": {"board_side": 3}}).json()
        game_id, token = created["id"], created["token"]
        path = f"/ws/games/{game_id}?token={token}"
        with (client.websocket_connect(path + "&delta=1") as delta,
              client.websocket_connect(path) as full):
            first = delta.receive_json()
            assert first["history_since"] == 0 and first["history_tail"] == []
            assert "history" not in first
            delta.receive_json()  # the second socket arriving
            full.receive_json()
            known: list[str] = []
            rng = random.Random(4)
            state = first
            for _ in range(5):
                action = rng.choice(state["legal"])["action"]
                delta.send_json({"type": "action", "action": action, "ply": state["ply"]})
                state = delta.receive_json()
                assert state["history_since"] == len(known)
                known = known[: state["history_since"]] + [
                    entry["notation"] for entry in state["history_tail"]]
                whole = full.receive_json()
                assert [entry["notation"] for entry in whole["history"]] == known
                assert len(known) == state["ply"] == whole["ply"]
            delta.send_json({"type": "undo"})
            state = delta.receive_json()
            assert state["history_since"] == 0
            assert [e["notation"] for e in state["history_tail"]] == known[: state["ply"]]
            assert [e["notation"] for e in full.receive_json()["history"]] == known[
                : state["ply"]]


@pytest.mark.browser
def test_the_page_reconnects_after_its_workers_are_killed(
    postgres_url: str, tmp_path: Path,  # noqa: F811
) -> None:
    """The bundled front end in headless chromium, on ``--workers 2``: both workers are
    killed with SIGKILL; the page shows "reconnecting…", comes back "online" on the
    workers the supervisor starts again, shows what was played before, and the move the
    opponent makes afterwards."""
    sync_api = pytest.importorskip("playwright.sync_api")
    chromium = "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.skip("no chromium at /usr/bin/chromium")
    process, url = start(["--workers", "2"], postgres_url, tmp_path)
    try:
        created = http("POST", f"{url}/api/games", SMALL)[1]
        game_id, tokens = created["id"], created["tokens"]
        rng = random.Random(2)

        def move(seat: int) -> tuple[str, dict[str, Any]]:
            """One action of ``seat``. Another process may answer a read a few ms behind
            the one that stored the last change, so wait for the turn and retry a stale
            refusal (bounded), as a client would."""
            for _ in range(100):
                state = http("GET", f"{url}/api/games/{game_id}?token={tokens[seat]}")[1]
                played = {entry["notation"] for entry in state["history"]}
                fresh = [e["action"] for e in state["legal"] if e["action"] not in played]
                if state["your_turn"] and fresh:
                    action = rng.choice(fresh)  # seen on the page only once it is played
                    code, body = http(
                        "POST", f"{url}/api/games/{game_id}/actions",
                        {"token": tokens[seat], "action": action, "ply": state["ply"]},
                    )
                    if code == 200:
                        return action, body
                    assert code == 409, body
                threading.Event().wait(0.05)
            raise AssertionError(f"seat {seat} never got to move")

        after = http("GET", f"{url}/api/games/{game_id}")[1]
        while after["current_seat"] == 0 and not after["is_over"]:
            after = move(0)[1]  # seat 0 (the page's) plays its first turn; the answer
            # comes from the process that stored the action, so it is never behind
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            try:
                page = browser.new_page()
                page.goto(f"{url}/play/{game_id}?token={tokens[0]}")
                page.wait_for_selector('#conn:has-text("online")', timeout=30_000)
                for worker in children(process.pid):
                    os.kill(worker, signal.SIGKILL)
                page.wait_for_selector('#conn:has-text("reconnecting")', timeout=30_000)
                page.wait_for_selector('#conn:has-text("online")', timeout=60_000)
                played = move(1)[0]
                page.wait_for_selector(f'#moves:has-text("{played}")', timeout=30_000)
            finally:
                browser.close()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
