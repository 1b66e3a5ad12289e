"""A public site no one can freeze (issue 31, rows 2 and 3): what one client address may
hold, and a seat holder who is never locked out.

Against a real ``hexgames serve`` process on loopback, with clients playing distinct
visitors from distinct loopback addresses (Linux routes all of 127.0.0.0/8 to this
machine): one address opening socket after socket is refused past its share while
another visitor opens the lobby and a game and gets HTTP answers; viewers filling a game
do not keep its player out; idle TCP connections from one address do not make anybody
else's request answer 503; a spoofed ``X-Forwarded-For`` changes nothing unless the
peer is a proxy named with ``--trusted-proxy``. Every wait is bounded; no timing is
asserted.

Before these fixes: the 33rd socket of one address was accepted (the 1,001st game socket
of the site, or lobby socket, was refused to everybody else), a game's player was refused
"already has 64 viewers", 1,500 idle connections made every request answer 503, and
uvicorn believed ``X-Forwarded-For`` from 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from hexgames.web.app import create_app
from hexgames.web.http import client_limits, connections
from hexgames.web.http.state import app_state
from hexgames.web.play.hub import MAX_PER_GAME
from server_support import start_serve, stop_serve

websockets_sync = pytest.importorskip("websockets.sync.client")
ConnectionClosed = pytest.importorskip("websockets.exceptions").ConnectionClosed

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="binds 127.0.0.x source addresses (Linux)")

#: Seconds any one thing that should happen may take (a loaded 2-core CI machine).
WAIT = 30.0
CAP = client_limits.MAX_SOCKETS_PER_ADDRESS
SMALL = {"game": "dendria", "mode": "online", "options": {"board_side": 3}}


# ------------------------------------------------------------------ the servers
def start_server(data: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    """``hexgames serve`` on a free loopback port (SQLite; no proxy trusted through the
    environment); returns the process and its URL."""
    env = {key: value for key, value in os.environ.items()
           if key.upper() != "FORWARDED_ALLOW_IPS"}
    return start_serve(data, *args, env={**env, "DATABASE_URL": ""})


stop = stop_serve


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server as ``hexgames serve`` starts by default (no proxy trusted)."""
    raise_file_limit(2000)  # before the server starts: it inherits the limit
    process, url = start_server(tmp_path_factory.mktemp("limits-data"))
    try:
        yield url
    finally:
        stop(process)


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server behind a proxy on 127.0.0.1 (``--trusted-proxy 127.0.0.1``)."""
    process, url = start_server(tmp_path_factory.mktemp("proxied-data"),
                                "--trusted-proxy", "127.0.0.1")
    try:
        yield url
    finally:
        stop(process)


def raise_file_limit(wanted: int) -> int:
    """This process's soft limit of open files, raised towards ``wanted``."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return wanted if soft == resource.RLIM_INFINITY else int(soft)


# ------------------------------------------------------------------ the clients
def host_port(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


def tcp_from(address: str, url: str) -> socket.socket:
    """A TCP connection to the server from the local ``address``."""
    return socket.create_connection(host_port(url), timeout=WAIT, source_address=(address, 0))


def ws_from(address: str, url: str, path: str, forwarded_for: str | None = None) -> Any:
    """A WebSocket to ``path`` from the local ``address`` (optionally claiming, through
    ``X-Forwarded-For``, to be somebody else)."""
    host, port = host_port(url)
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else None
    return websockets_sync.connect(
        f"ws://{host}:{port}{path}", sock=tcp_from(address, url), additional_headers=headers,
        open_timeout=WAIT, close_timeout=5, max_size=2**24, proxy=None,
    )


def receive(ws: Any) -> dict[str, Any]:
    message = json.loads(ws.recv(timeout=WAIT))
    assert isinstance(message, dict)
    return message


def refused(ws: Any) -> tuple[str, int | None]:
    """A refused socket's message and close code (it is told why, then closed)."""
    message = receive(ws)
    assert message["type"] == "error", message
    with pytest.raises(ConnectionClosed) as closed:
        while True:  # nothing but the close may follow
            extra = receive(ws)
            raise AssertionError(f"a refused socket got {extra}")
    return message["message"], closed.value.rcvd.code if closed.value.rcvd else None


def http_from(address: str, method: str, url: str, body: Any = None,
              headers: dict[str, str] | None = None) -> httpx.Response:
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(transport=transport, timeout=WAIT, trust_env=False) as client:
        return client.request(method, url, json=body, headers=headers)


def create_game(address: str, url: str) -> dict[str, Any]:
    response = http_from(address, "POST", f"{url}/api/games", SMALL)
    assert response.status_code == 201, response.text
    return response.json()


class Sockets(list[Any]):
    """Open sockets, each closed when the ``with`` block that holds them ends."""

    def __init__(self, stack: contextlib.ExitStack) -> None:
        super().__init__()
        self.stack = stack

    def open(self, address: str, url: str, path: str, forwarded_for: str | None = None) -> Any:
        self.append(self.stack.enter_context(ws_from(address, url, path, forwarded_for)))
        return self[-1]


@contextlib.contextmanager
def holding() -> Iterator[Sockets]:
    """Sockets closed at the end, whatever happens."""
    with contextlib.ExitStack() as stack:
        yield Sockets(stack)


# ------------------------------------------------------ (a) sockets per address
def test_one_address_opening_socket_after_socket_leaves_room_for_everybody_else(
    server: str,
) -> None:
    watched = create_game("127.0.0.3", server)["id"]
    with holding() as held:
        for number in range(CAP):  # the attacker: game sockets and lobby sockets alike
            path = "/ws/lobby" if number % 2 else f"/ws/games/{watched}"
            held.open("127.0.0.2", server, path)
            assert receive(held[-1])["type"] in ("lobby", "state")
        for path in ("/ws/lobby", f"/ws/games/{watched}"):
            held.open("127.0.0.2", server, path)
            message, code = refused(held[-1])
            assert code == 1013 and f"at most {CAP} open sockets" in message

        # Another visitor: the lobby, a game of their own, and HTTP all answer.
        held.open("127.0.0.3", server, "/ws/lobby")
        assert receive(held[-1])["type"] == "lobby"
        mine = create_game("127.0.0.3", server)
        held.open("127.0.0.3", server,
                  f"/ws/games/{mine['id']}?token={mine['tokens'][0]}")
        state = receive(held[-1])
        assert state["type"] == "state" and state["your_seats"] == [0]
        assert http_from("127.0.0.3", "GET", f"{server}/api/catalog").status_code == 200
        # The attacker's own HTTP is not refused for its sockets either.
        assert http_from("127.0.0.2", "GET", f"{server}/api/games").status_code == 200


# ------------------------------------------------- (b) a player is never locked out
def test_viewers_filling_a_game_do_not_keep_its_players_out(server: str) -> None:
    """The game's id is public (the lobby lists games being played): anonymous viewers
    from two addresses take all of its places. Each player still gets in, and the
    oldest viewer makes room (told why, closed with 1013); everybody else stays."""
    game = create_game("127.0.0.6", server)
    path = f"/ws/games/{game['id']}"
    with holding() as viewers, holding() as held:
        for number in range(MAX_PER_GAME):
            viewers.open(f"127.0.0.{4 + number // CAP}", server, path)
            assert receive(viewers[-1])["type"] == "state"
        held.open("127.0.0.8", server, path)  # one more viewer: no room
        message, code = refused(held[-1])
        assert code == 1013 and f"already has {MAX_PER_GAME} viewers" in message

        held.open("127.0.0.6", server, f"{path}?token={game['tokens'][0]}")
        first = receive(held[-1])
        assert first["type"] == "state" and first["your_seats"] == [0], first

        evicted = []
        for index, viewer in enumerate(viewers):  # each sees the player arrive, or left
            while True:
                try:
                    message = receive(viewer)
                except ConnectionClosed as closed:
                    assert closed.rcvd is not None and closed.rcvd.code == 1013
                    evicted.append(index)
                    break
                if message["type"] == "error":
                    assert "a player of the game needed this place" in message["message"]
                elif 0 in message.get("present", ()):
                    break
        assert evicted == [0]  # the oldest viewer, and only one

        held.open("127.0.0.7", server, f"{path}?token={game['tokens'][1]}")
        second = receive(held[-1])
        assert second["type"] == "state" and second["your_seats"] == [1], second

        # and the players play (before: the player could not even see the game)
        mover = held[-2] if first["your_turn"] else held[-1]
        state = first if first["your_turn"] else second
        mover.send(json.dumps({"type": "action", "action": state["legal"][0]["action"],
                               "ply": state["ply"]}))
        while state["ply"] == 0:
            state = receive(mover)
            assert state["type"] == "state", state


def test_a_player_gets_in_when_viewers_fill_the_whole_server(tmp_path: Path) -> None:
    """The server-wide total (lowered to 2 here, on a server in this process): a viewer
    is refused, a player of a game is admitted and a viewer makes room."""
    app = create_app(data_dir=tmp_path, ai_processes=1)
    app.state.site.service.hub.max_total = 2
    with serving(app) as url:
        made = [create_game("127.0.0.12", url) for _ in range(3)]
        one, two, three = (f"/ws/games/{game['id']}" for game in made)
        with holding() as held:
            held.open("127.0.0.12", url, one)
            held.open("127.0.0.13", url, two)
            assert receive(held[0])["type"] == receive(held[1])["type"] == "state"
            held.open("127.0.0.13", url, three)
            message, code = refused(held[-1])
            assert code == 1013 and "too many" in message
            held.open("127.0.0.12", url, f"{three}?token={made[2]['tokens'][0]}")
            state = receive(held[-1])
            assert state["type"] == "state" and state["your_seats"] == [0]
            message, code = refused(held[0])  # the oldest viewer made room
            assert code == 1013 and "a player of the game" in message
            held[1].send(json.dumps({"type": "ping"}))  # the other viewer stays
            assert receive(held[1])["type"] == "pong"
            assert "127.0.0.13" in limits_by_peer(app)  # its sockets are counted
        # Every connection counted for its address was released when it closed (those
        # upgraded to WebSockets too).
        counted = limits_by_peer(app)
        deadline = time.monotonic() + WAIT
        while any(peer in counted for peer in ("127.0.0.12", "127.0.0.13")):
            assert time.monotonic() < deadline, f"connections still counted: {counted}"
            time.sleep(0.05)


def limits_by_peer(app: Any) -> dict[str, set[Any]]:
    """The open connections counted per peer address by the protocol serving ``app``."""
    return app.state.test_protocol.open_by_peer  # type: ignore[no-any-return]


@contextlib.contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` under uvicorn with the protocol ``hexgames serve`` uses, in a thread."""
    import uvicorn

    app.state.test_protocol = connections.guarded_http_protocol()
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                            http=app.state.test_protocol, proxy_headers=False,
                            timeout_graceful_shutdown=10)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)


# ------------------------------------------------ (c) idle connections are no 503
def test_idle_connections_of_one_address_do_not_make_the_site_answer_503(
    server: str,
) -> None:
    """Before: uvicorn's ``limit_concurrency`` (1,500) counted connections, so 1,500
    connections that never send a byte made every request of everybody answer 503
    until the header timeout closed them (and again, at will). Now one address keeps at
    most ``MAX_CONNECTIONS_PER_ADDRESS`` connections; each of those is closed after
    ``HEADER_TIMEOUT`` anyway."""
    flood = 1600
    if raise_file_limit(flood + 400) < flood + 400:
        pytest.skip("the open-file limit is too low for the flood")
    idle: list[socket.socket] = []
    try:
        for _ in range(flood):
            idle.append(tcp_from("127.0.0.9", server))
        response = http_from("127.0.0.10", "GET", f"{server}/api/catalog")
        assert response.status_code == 200, response.text
        assert http_from("127.0.0.10", "GET", f"{server}/api/games").status_code == 200
        # and not one of them is held for ever: all closed by the server (bounded wait)
        still_open = wait_closed(idle, connections.HEADER_TIMEOUT + 60)
        assert not still_open, f"{len(still_open)} idle connections were kept open"
    finally:
        for sock in idle:
            sock.close()


def wait_closed(sockets: list[socket.socket], seconds: float) -> list[socket.socket]:
    """Wait until the server has closed each socket (or ``seconds`` pass); returns those
    still open."""
    waiting = set(sockets)
    with selectors.DefaultSelector() as selector:
        for sock in sockets:
            selector.register(sock, selectors.EVENT_READ)
        deadline = time.monotonic() + seconds
        while waiting and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=1.0):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(1024)
                except OSError:  # reset by the server: closed too
                    data = b""
                if not data:
                    selector.unregister(sock)
                    waiting.discard(sock)
    return list(waiting)


# ------------------------------------------------- (d) X-Forwarded-For and proxies
def test_a_spoofed_forwarded_for_does_not_change_the_client(server: str) -> None:
    """No proxy is trusted by default: a client on 127.0.0.1 claiming to be many
    clients is one client."""
    with holding() as held:
        for number in range(CAP):
            held.open("127.0.0.1", server, "/ws/lobby",
                      forwarded_for=f"203.0.113.{number + 1}")
            assert receive(held[-1])["type"] == "lobby"
        held.open("127.0.0.1", server, "/ws/lobby", forwarded_for="198.51.100.9")
        message, code = refused(held[-1])
        assert code == 1013 and "per client address" in message


def test_the_forwarded_for_of_a_trusted_proxy_names_the_client(proxied: str) -> None:
    """``--trusted-proxy 127.0.0.1``: the proxy's clients are counted apart, each by the
    address it forwards; any other peer's ``X-Forwarded-For`` is still ignored."""
    with holding() as held:
        for number in range(CAP + 8):  # many clients behind one proxy
            held.open("127.0.0.1", proxied, "/ws/lobby",
                      forwarded_for=f"203.0.113.{number + 1}")
            assert receive(held[-1])["type"] == "lobby"
        for _ in range(CAP):  # one client behind the proxy has its own share
            held.open("127.0.0.1", proxied, "/ws/lobby",
                      forwarded_for="192.0.2.7")
            assert receive(held[-1])["type"] == "lobby"
        held.open("127.0.0.1", proxied, "/ws/lobby", forwarded_for="192.0.2.7")
        assert refused(held[-1])[1] == 1013
        for number in range(CAP):  # a peer that is no proxy claims to be many clients
            held.open("127.0.0.11", proxied, "/ws/lobby",
                      forwarded_for=f"198.51.100.{number + 1}")
            assert receive(held[-1])["type"] == "lobby"
        held.open("127.0.0.11", proxied, "/ws/lobby",
                  forwarded_for="198.51.100.200")
        assert refused(held[-1])[1] == 1013


# ------------------------------------------- HTTP requests in flight per address
def test_requests_past_a_client_s_share_are_refused_politely(tmp_path: Path) -> None:
    """429 with ``Retry-After`` past a client's share of requests in flight, uploads or
    hints (shares lowered to 0 here so that no request need be held in flight); 503 with
    ``Retry-After`` past the server's total."""
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        shares = app_state(client.app).client_limits
        created = client.post("/api/games", json={"game": "dendria", "mode": "ai",
                                                  "level": 1}).json()
        shares.uploads.limit = 0
        response = client.post("/api/records", json={"text": "1. a1\n", "game": "dendria"})
        assert response.status_code == 429 and response.headers["retry-after"]
        assert "uploads at a time" in response.json()["error"]
        shares.hints.limit = 0
        response = client.post(f"/api/games/{created['id']}/hint",
                               json={"token": created["token"]})
        assert response.status_code == 429 and response.headers["retry-after"]
        assert "hints at a time" in response.json()["error"]
        shares.requests_per_address = 0
        response = client.get("/api/catalog")
        assert response.status_code == 429 and response.headers["retry-after"]
        shares.requests_per_address, shares.max_requests = 10, 0
        response = client.get("/api/catalog")
        assert response.status_code == 503 and response.headers["retry-after"]
        shares.max_requests = 10
        assert client.get("/api/catalog").status_code == 200
        assert not shares.requests and shares.total_requests == 0
