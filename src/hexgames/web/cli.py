"""``hexgames serve``: run the web app with uvicorn and print where to open it."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="interface to listen on (default: 127.0.0.1; 0.0.0.0 for a LAN)")
    parser.add_argument("--port", type=int, default=8000,
                        help="TCP port (default: 8000; 0 picks a free one)")
    parser.add_argument("--data-dir", type=Path, default=Path("data"),
                        help="folder for the SQLite database (default: ./data)")
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL"),
                        help="postgresql://... to store games in PostgreSQL, or "
                             "sqlite:///path for an SQLite file (default: $DATABASE_URL, "
                             "else SQLite in --data-dir)")
    parser.add_argument("--ai-processes", type=int, default=None,
                        help="worker processes for the strong AI levels (default: the "
                             "usable CPU cores - 1; levels 1-2 have one more of their own)")
    parser.add_argument("--workers", type=int, default=1,
                        help="server processes sharing the port (default: 1); above 1 "
                             "needs PostgreSQL (--database-url): a supervisor starts N "
                             "'hexgames serve' processes with SO_REUSEPORT and restarts any "
                             "that dies")
    parser.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS",
                        help="a reverse proxy (IP address or network, e.g. 127.0.0.1) whose "
                             "X-Forwarded-For names the client; repeat for several "
                             "(default: none: the connection's own address is the client)")
    parser.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                        help="a host name (or name:port) the site is opened by, e.g. "
                             "games.example.org; repeat for several. Requests naming "
                             "another host are refused (DNS rebinding). Always allowed: the "
                             "--host address and port, the loopback names, the host of "
                             "--site-url (with --host 0.0.0.0 and none of these named: "
                             "any host)")
    # Turn emails (docs/deploy.md, "Email"); the password only from the environment.
    mail = parser.add_argument_group(
        "email", "SMTP for turn emails (each also read from $HEXGAMES_SMTP_HOST, ..._PORT, "
        "..._USER, ..._FROM, ..._TLS and $HEXGAMES_SITE_URL; the password only from "
        "$HEXGAMES_SMTP_PASSWORD). Without --smtp-host the site sends no email.")
    mail.add_argument("--smtp-host", default=os.environ.get("HEXGAMES_SMTP_HOST"),
                      help="the mail server to send through")
    mail.add_argument("--smtp-port", type=int, default=os.environ.get("HEXGAMES_SMTP_PORT"),
                      help="its port (default: 587 for starttls, 465 for ssl, 25 for none)")
    mail.add_argument("--smtp-user", default=os.environ.get("HEXGAMES_SMTP_USER"),
                      help="the login, if the server wants one")
    mail.add_argument("--smtp-from", default=os.environ.get("HEXGAMES_SMTP_FROM"),
                      help="the sender address (needed with --smtp-host)")
    mail.add_argument("--smtp-tls", choices=("starttls", "ssl", "none"),
                      default=os.environ.get("HEXGAMES_SMTP_TLS") or "starttls",
                      help="starttls (default), ssl (TLS from the start) or none")
    mail.add_argument("--site-url", default=os.environ.get("HEXGAMES_SITE_URL"),
                      help="the site's public address, e.g. https://games.example.org: "
                           "the start of the links in emails (needed with --smtp-host)")
    parser.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)


def warm_up_engines(announce: Any = None) -> float:
    """Compile (or load from the on-disk cache) the compiled rules engine of every
    registered game that has one (``Game.kernel``), so that the first action of
    a game or of an AI does not wait for it; returns the seconds it took. ``announce(text)``
    hears "compiling the rules engine, once..." when a game's code is not cached yet (a
    cold start takes a minute or more; later starts load the cache in about a second).

    Games share no compiled code, so when several are not cached and the machine has more
    than one core, each is compiled in a process of its own, all at once, into the shared
    cache; this process then loads them. (It compiles whatever a process failed to cache
    itself, so a failed process costs time, never correctness.)"""
    import time

    from hexgames.game import game_names, get_game
    from hexgames.web.engine.workers import usable_cores

    start = time.perf_counter()
    kernels = {}
    for name in game_names():
        factory = get_game(name).kernel
        if factory is not None:
            kernels[name] = factory()
    cold = [name for name, kernel in kernels.items() if not kernel.is_cached()]
    if cold and announce is not None:
        announce("compiling the rules engine, once...")
    if len(cold) > 1 and usable_cores() > 1:
        _compile_in_processes(cold)
    for kernel in kernels.values():
        kernel.warm_up()
    return time.perf_counter() - start


def _compile_in_processes(games: list[str]) -> None:
    """Warm each game's engine up in a child process of its own, all at once, and wait.
    The children inherit the numba cache directory (``hexgames._jit`` puts it in the
    environment) and import this same ``hexgames``. A child that cannot be started is
    left out (the caller compiles its game); if waiting is interrupted (Ctrl-C), the
    children are stopped rather than left compiling in the background."""
    import subprocess
    import sys

    from hexgames._processes import import_path

    env = {**os.environ, "PYTHONPATH": import_path()}
    children: list[subprocess.Popen[bytes]] = []
    try:
        for name in games:
            try:
                children.append(subprocess.Popen(
                    [sys.executable, "-c", "from hexgames.game import get_game; "
                     f"get_game({name!r}).kernel().warm_up()"],
                    env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL))
            except OSError:
                continue
        for child in children:
            child.wait()
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()


def storage_description(data_dir: Path, database_url: str | None) -> str:
    """Where the games go, for the start-up line: what ``open_storage`` opens for these
    settings (an ``sqlite:///`` URL is SQLite, not PostgreSQL)."""
    url = (database_url or "").strip()
    if url.startswith("sqlite:///"):
        return f"SQLite in {Path(url.removeprefix('sqlite:///')).resolve()}"
    return "PostgreSQL" if url else f"SQLite in {data_dir.resolve()}"


def warm_up_visibly(console: Any = None) -> None:
    """:func:`warm_up_engines` for a person waiting at a terminal. A cached start says
    nothing; a cold one (a minute or so on a small machine, once) says so, shows the
    seconds passing on a terminal (a spinner line that goes away), and then how long
    it took, so that a first start never looks hung. ``serve --workers N`` runs it
    before starting its processes (one server process prepares its engines in the
    background instead: :mod:`hexgames.web.engine.prep`)."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = console or Console()
    shown: list[Progress] = []
    said: list[str] = []

    def announce(text: str) -> None:
        said.append(text)
        if console.is_terminal:
            progress = Progress(SpinnerColumn(), TextColumn("{task.description}"),
                                TimeElapsedColumn(), console=console, transient=True)
            progress.add_task(f"{text} (once per machine and version)")
            progress.start()
            shown.append(progress)
        else:
            print(text, flush=True)

    try:
        seconds = warm_up_engines(announce)
    finally:
        for progress in shown:
            progress.stop()
    if said:
        print(f"rules engine compiled in {seconds:.0f} s; later starts load it from the "
              "cache", flush=True)


def run(args: argparse.Namespace) -> int:
    import socket

    import uvicorn

    from hexgames.web.app import create_app

    if not 0 <= args.port <= 65535:
        print(f"error: --port must be between 0 and 65535, got {args.port}")
        return 2
    if args.workers < 1:
        print(f"error: --workers must be at least 1, got {args.workers}")
        return 2
    from hexgames.web.http.addresses import parse_proxies

    trusted = list(getattr(args, "trusted_proxy", None) or [])
    try:
        parse_proxies(trusted)
    except ValueError as bad:
        print(f"error: --trusted-proxy: {bad}")
        return 2
    from hexgames.web.accounts.mail import mail_settings

    try:
        mail = mail_settings(args)
    except ValueError as bad:
        print(f"error: {bad}")
        return 2
    if args.workers > 1:
        from hexgames.web.supervisor import supervise

        # Before the processes start, so that each of them loads the cache (a second).
        warm_up_visibly()
        return supervise(args)
    from hexgames.web.engine.prep import EnginePreparation

    # Cached engines load before the URL is printed (a second or so, as always); engines
    # to compile are prepared in the background once the site answers (engine/prep.py).
    engines = EnginePreparation(announce=lambda text: print(text, flush=True))
    engines.load_if_cached()
    # Bind the socket ourselves so that the printed URL is right even for --port 0.
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if args.reuse_port:  # one of several processes on this port (--workers)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((args.host, args.port))
        sock.listen(2048)  # connections made once the URL is printed wait, not fail
    except OSError as error:
        sock.close()
        print(f"error: cannot listen on {args.host}:{args.port}: {error.strerror}")
        return 2
    from hexgames.web.http.hosts import allowed_hosts

    hosts = allowed_hosts(args.host, sock.getsockname()[1],
                          getattr(args, "allowed_host", None) or (),
                          getattr(args, "site_url", None))
    try:
        app = create_app(data_dir=args.data_dir, database_url=args.database_url or None,
                         ai_processes=args.ai_processes, mail=mail, engines=engines,
                         allowed_hosts=hosts)
    except Exception as error:  # e.g. PostgreSQL unreachable: a message, not a traceback
        sock.close()
        print(f"error: cannot open the game storage: {error}")
        return 2
    port = sock.getsockname()[1]
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    if ":" in shown:
        shown = f"[{shown}]"
    where = storage_description(args.data_dir, args.database_url)
    print(f"hexgames is running: open http://{shown}:{port}/  (games stored in {where})",
          flush=True)
    if args.host in ("0.0.0.0", "::"):
        lan = lan_address()
        if lan:
            print(f"on your network: http://{lan}:{port}/  (open the site by this address "
                  "so that invitation links work for friends on other machines)", flush=True)
    if mail is not None:
        print(f"turn emails go through {mail.describe()}", flush=True)
    if hosts is None:
        print("any host name is answered: name the site's with --allowed-host (against "
              "DNS rebinding)", flush=True)
    print("Press Ctrl+C to stop.", flush=True)
    from hexgames.web.http.connections import (
        MAX_CONNECTIONS,
        guarded_http_protocol,
        raise_open_files,
    )

    # Sockets and idle connections are bounded per address and in all by the protocol and
    # the app (docs/web.md, "Limits"), not by limit_concurrency, so they never make HTTP
    # answer 503; the file limit must leave room for the connections allowed.
    connections = min(MAX_CONNECTIONS, max(256, raise_open_files() - 256))
    config = uvicorn.Config(
        app,
        log_level="warning",
        # header timeout, TCP connections per address and in all (docs/web.md, "Limits")
        http=guarded_http_protocol(trusted, max_connections=connections),
        # X-Forwarded-For only from --trusted-proxy (default: none, the peer is the client)
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or None,
        timeout_keep_alive=5,  # an idle kept-alive connection is closed after 5 s
        h11_max_incomplete_event_size=16 * 1024,
        limit_concurrency=None,  # (sockets and requests: http/client_limits.py)
        ws=fast_deflate_websockets(),
        ws_max_size=64 * 1024,  # a WebSocket message (an action) is tiny
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
    )
    server = uvicorn.Server(config)
    tune_garbage_collector()
    serve_until_stopped(server, sock)
    return 0


class _Stopped(Exception):
    """Ctrl+C or SIGTERM, raised again by uvicorn once it has shut down gracefully."""


def _stopped(signum: int, frame: Any) -> None:
    raise _Stopped(signum)


def serve_until_stopped(server: Any, sock: Any) -> None:
    """Run the uvicorn ``server`` on ``sock`` until Ctrl+C or SIGTERM, then return.

    uvicorn shuts down gracefully (the app closes its AI workers, storage and compiling
    processes) and then raises the signal again for its default behaviour: a
    KeyboardInterrupt traceback for Ctrl+C, and for SIGTERM death by the signal, which
    skips the interpreter's exit handlers: multiprocessing's among them, so its resource
    tracker reported the AI workers' semaphores as "leaked semaphore objects" on every
    such stop. Handlers of ours take the signal raised again instead, and the process
    ends normally (status 0)."""
    import signal

    handled = (signal.SIGINT, signal.SIGTERM)
    previous = {number: signal.signal(number, _stopped) for number in handled}
    try:
        server.run(sockets=[sock])
    except _Stopped:
        pass
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def tune_garbage_collector() -> None:
    """Fewer, cheaper cyclic collections for a long-running server: what is loaded at
    start (modules, the app, the engines' tables) is frozen out of every collection, and
    the youngest generation is collected every 20,000 allocations instead of 700 (each
    move allocates thousands of short-lived objects; reference counting frees nearly all
    of them, the cycle collector only the rare cycles, so memory stays bounded)."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


#: zlib level of the WebSocket compression: a state (~40 KB, mostly the board's SVG)
#: takes 0.2 ms at level 1 (7 KB) against 0.65 ms at uvicorn's default 6 (6 KB), once
#: per socket and move: on a busy server the fastest level wins.
DEFLATE_LEVEL = 1


def fast_deflate_websockets() -> Any:
    """uvicorn's WebSocket protocol with ``permessage-deflate`` at :data:`DEFLATE_LEVEL`
    (uvicorn offers no setting for it); its default ("auto") when that protocol's
    internals are not what this expects."""
    import logging

    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import (
            WebSocketsSansIOProtocol,
        )
        from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
        from websockets.server import ServerProtocol
    except ImportError:  # pragma: no cover - depends on the installed versions
        return "auto"

    class FastDeflateProtocol(WebSocketsSansIOProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            if self.config.ws_per_message_deflate:
                self.conn = ServerProtocol(
                    extensions=[ServerPerMessageDeflateFactory(
                        server_max_window_bits=12, client_max_window_bits=12,
                        compress_settings={"memLevel": 5, "level": DEFLATE_LEVEL},
                    )],
                    max_size=self.config.ws_max_size,
                    logger=logging.getLogger("uvicorn.error"),
                )

    return FastDeflateProtocol


def lan_address() -> str | None:
    """This machine's address on its local network, if it has one (no packet is sent:
    connecting a UDP socket only asks the kernel which interface it would use)."""
    import socket

    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address
