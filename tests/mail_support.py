"""Mail servers for the turn-email tests: a real SMTP server (aiosmtpd) on a free loopback
port that keeps what it receives, and one that accepts connections and never answers."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.smtp import SMTP


class MailServer:
    """aiosmtpd in a thread of its own: ``received`` holds ``(recipients, message)``
    (aiosmtpd calls ``handle_DATA`` by that name)."""

    def __init__(self) -> None:
        self.received: list[tuple[list[str], EmailMessage]] = []
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._server: Any = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._ready = threading.Event()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = message_from_bytes(envelope.content, policy=policy.default)
        self.received.append((list(envelope.rcpt_tos), message))  # type: ignore[arg-type]
        return "250 Message accepted for delivery"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(self._loop.create_server(
            lambda: SMTP(self, hostname="mail.test"), "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    def __enter__(self) -> MailServer:
        self._thread.start()
        assert self._ready.wait(20), "the SMTP server did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._server.close)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(20)


class DeadServer:
    """A TCP server that accepts connections and never says a word (a hung mail server).
    ``connections`` counts them; leaving the block closes them all."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._accepted: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        self._listener.settimeout(0.1)  # a closed listener does not wake accept()
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._accepted.append(connection)

    @property
    def connections(self) -> int:
        return len(self._accepted)

    def __enter__(self) -> DeadServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)
        self._listener.close()
        for connection in self._accepted:
            connection.close()


def wait_until(condition: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """Poll ``condition`` until it is true (returned), failing after ``timeout`` seconds:
    a bound for what a thread or a task does meanwhile, never a measured time."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
