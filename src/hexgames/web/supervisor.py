"""``hexgames serve --workers N``: N server processes on one port, over one PostgreSQL.

The supervisor (this process) serves nothing itself. It checks that the storage is
shared (PostgreSQL: with SQLite every process would keep its own copy of the games, so
``--workers`` above 1 is refused), reserves the port with ``SO_REUSEPORT`` (so that
``--port 0`` resolves to one port for all), and starts N ordinary ``hexgames serve``
processes that each bind that port with ``SO_REUSEPORT``: the kernel spreads new
connections over them. Any process serves any game; they learn of each other's moves
through PostgreSQL ``LISTEN/NOTIFY`` (see :mod:`hexgames.web.play.change_feed`).

A process that dies (crash, SIGKILL, out of memory) is started again after a short
pause; its clients reconnect to the others meanwhile, and no acknowledged move is lost
(a move is stored before anybody is told). SIGTERM or SIGINT stops every process.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time

#: Seconds between two starts of the same worker slot (a crash loop must not spin).
RESTART_PAUSE = 1.0
#: Seconds the processes get to stop before they are killed.
STOP_GRACE = 10.0


def worker_command(args: argparse.Namespace, port: int) -> list[str]:
    command = [sys.executable, "-m", "hexgames", "serve", "--host", args.host,
               "--port", str(port), "--reuse-port", "--data-dir", str(args.data_dir)]
    if args.ai_processes is not None:
        command += ["--ai-processes", str(args.ai_processes)]
    for proxy in getattr(args, "trusted_proxy", None) or ():
        command += ["--trusted-proxy", str(proxy)]
    for host in getattr(args, "allowed_host", None) or ():
        command += ["--allowed-host", str(host)]
    for option in ("smtp_host", "smtp_port", "smtp_user", "smtp_from", "smtp_tls", "site_url"):
        value = getattr(args, option, None)  # (the password travels in the environment)
        if value:
            command += ["--" + option.replace("_", "-"), str(value)]
    return command


def supervise(args: argparse.Namespace) -> int:
    url = args.database_url or ""
    if not url.startswith(("postgresql://", "postgres://")):
        print(f"error: --workers {args.workers} needs PostgreSQL (--database-url "
              "postgresql://... or DATABASE_URL): with SQLite each process would keep its "
              "own copy of the games; use --workers 1")
        return 2
    try:  # a clear message now rather than N processes failing in turn; makes the schema
        from hexgames.web.storage import open_storage

        open_storage(database_url=url).close()
    except Exception as error:
        print(f"error: cannot open the game storage: {error}")
        return 2
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    reserve = socket.socket(family, socket.SOCK_STREAM)
    reserve.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    reserve.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        reserve.bind((args.host, args.port))  # bound, never listening: gets no connection
    except OSError as error:
        reserve.close()
        print(f"error: cannot listen on {args.host}:{args.port}: {error.strerror}")
        return 2
    port = reserve.getsockname()[1]
    # The URL travels in the environment, not on command lines that `ps` shows.
    env = {**os.environ, "DATABASE_URL": url}
    command = worker_command(args, port)
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    if ":" in shown:
        shown = f"[{shown}]"
    children: list[subprocess.Popen[bytes] | None] = [None] * args.workers
    started = [0.0] * args.workers
    announced = False
    try:
        while not stopping:
            if not announced and answers(shown.strip("[]"), port):
                announced = True
                print(f"hexgames is running {args.workers} processes: open "
                      f"http://{shown}:{port}/  (games stored in PostgreSQL)", flush=True)
                print("Press Ctrl+C to stop.", flush=True)
            for slot, child in enumerate(children):
                if child is not None and child.poll() is None:
                    continue
                if child is not None:
                    print(f"worker {slot} (pid {child.pid}) ended with {child.returncode}; "
                          "starting it again", flush=True)
                    children[slot] = None
                if time.monotonic() - started[slot] < RESTART_PAUSE:
                    continue
                started[slot] = time.monotonic()
                children[slot] = subprocess.Popen(
                    command, env=env, stdout=subprocess.DEVNULL, start_new_session=False
                )
            time.sleep(0.2)
    finally:
        live = [child for child in children if child is not None and child.poll() is None]
        for child in live:
            child.terminate()  # SIGTERM: uvicorn's graceful stop
        deadline = time.monotonic() + STOP_GRACE
        for child in live:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        reserve.close()
    return 0


def answers(host: str, port: int) -> bool:
    """Whether some worker accepts connections on the port yet."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False
