"""A real ``hexgames serve`` process over loopback (issue 9): what only a real server
shows. A spectator that never reads must not stop the players; a client that sends half
a request is disconnected; a second server on the same SQLite file refuses to start."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_support import start_serve, stop_serve

websockets_sync = pytest.importorskip("websockets.sync.client")


def start_server(data: Path) -> tuple[subprocess.Popen[str], str]:
    return start_serve(data)


def stop(process: subprocess.Popen[str]) -> None:
    stop_serve(process, timeout=15)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process, url = start_server(tmp_path_factory.mktemp("server-data"))
    try:
        yield url
    finally:
        stop(process)


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def host_port(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


def silent_spectator(url: str, game_id: str) -> socket.socket:
    """A WebSocket handshake, then never a byte read (with a tiny receive buffer)."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    raw.connect(host_port(url))
    key = base64.b64encode(os.urandom(16)).decode()
    host, port = host_port(url)
    raw.sendall((
        f"GET /ws/games/{game_id} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode())
    return raw


def test_a_spectator_that_never_reads_does_not_stop_the_players(server: str) -> None:
    created = post(server + "/api/games",
                   {"game": "dendria", "mode": "online", "options": {"quiet_limit": 1000}})
    game_id, tokens = created["id"], created["tokens"]
    spectators = [silent_spectator(server, game_id) for _ in range(3)]
    ws = server.replace("http://", "ws://")
    try:
        players = [websockets_sync.connect(f"{ws}/ws/games/{game_id}?token={t}",
                                           max_size=None) for t in tokens]
        try:
            latest: list[dict[str, Any]] = [{}, {}]

            def state_of(seat: int, ply: int) -> dict[str, Any]:
                while latest[seat].get("ply") != ply or latest[seat].get("type") != "state":
                    message = json.loads(players[seat].recv(timeout=30))
                    if message.get("type") == "state":
                        latest[seat] = message
                return latest[seat]

            played = 0
            while played < 150:
                views = [state_of(seat, played) for seat in (0, 1)]
                if views[0]["is_over"]:
                    break
                mover = 0 if views[0]["your_turn"] else 1
                action = views[mover]["legal"][played % len(views[mover]["legal"])]["action"]
                players[mover].send(json.dumps(
                    {"type": "action", "action": action, "ply": played}))
                played += 1
            assert played >= 100, "the game ended too early to show anything"
        finally:
            for player in players:
                player.close()
    finally:
        for spectator in spectators:
            spectator.close()


def test_a_partial_request_is_disconnected(server: str) -> None:
    raw = socket.create_connection(host_port(server), timeout=60)
    try:
        raw.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # and never the rest
        assert raw.recv(1024) == b""  # closed by the server (before: held for ever)
    finally:
        raw.close()


def test_a_second_server_on_the_same_data_dir_refuses_to_start(tmp_path: Path) -> None:
    first, _ = start_server(tmp_path)
    try:
        second = subprocess.run(
            [sys.executable, "-m", "hexgames", "serve", "--port", "0", "--data-dir",
             str(tmp_path)],
            capture_output=True, text=True, timeout=60, env={**os.environ, "DATABASE_URL": ""},
        )
        assert second.returncode != 0
        assert "another hexgames server" in second.stdout + second.stderr
    finally:
        stop(first)
