"""Sending email (turn emails, address verification) without ever making the site wait.

The event loop only puts a message in a bounded queue (:meth:`Mailer.submit`, which never
blocks: when :data:`MAIL_QUEUE` messages wait, the new one is dropped and counted). One
thread of its own sends them in order through SMTP (``smtplib``), every network step
bounded by :attr:`MailSettings.timeout`: a slow or dead mail server delays only the
emails behind it, never a request, and a message it holds up is given up on after the
timeout (logged, counted in :attr:`Mailer.failed`).

The settings come from ``hexgames serve``'s ``--smtp-*`` options (docs/deploy.md, "Email");
the password only from the environment. It is kept out of ``repr`` and never logged.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import re
import smtplib
import ssl
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any
from urllib.parse import urlsplit

from hexgames.phrases import N_, Phrase

__all__ = ["MAIL_QUEUE", "SMTP_TIMEOUT", "TLS_MODES", "MailSettings", "Mailer",
           "mail_settings", "validate_email"]

log = logging.getLogger(__name__)

#: Messages waiting for the sending thread; past this a new one is dropped (counted).
MAIL_QUEUE = 100
#: Seconds each SMTP step (connect, greeting, TLS, login, each command) may take.
SMTP_TIMEOUT = 10.0
#: How the connection is secured: STARTTLS after connecting (port 587), TLS from the
#: first byte (port 465), or not at all (a relay on the same host or network).
TLS_MODES = {"starttls": 587, "ssl": 465, "none": 25}
#: Longest address accepted (RFC 5321's path limit less the brackets).
MAX_EMAIL = 254

#: RFC 5322's atom characters less ``?``: no RFC 2047 encoded word (``=?utf-8?q?...?=``),
#: which mail programs decode into commas, quotes and more addresses.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_EMAIL = re.compile(rf"{_ATOM}(?:\.{_ATOM})*@{_LABEL}(?:\.{_LABEL})+")


def validate_email(text: object) -> str:
    """An email address as stored (the domain lower-cased), or ``ValueError`` saying what
    is wrong (always in the site's words, never the email library's). Plain ASCII
    addresses only (``name@example.org``): one ``@``, no display name, no quoted local
    part, no encoded word, no comma, quote, space, line break or control character
    (nothing that could add a header or a recipient), and the address must read back
    unchanged from a ``To:`` header (what the email library would send)."""
    if not isinstance(text, str):
        raise ValueError(N_("an email address is a string"))
    address = text.strip()
    if not address:
        raise ValueError(N_("give an email address"))
    if len(address) > MAX_EMAIL:
        raise ValueError(Phrase("an email address has at most {limit} characters",
                                limit=MAX_EMAIL))
    local, _, domain = address.rpartition("@")
    if not _EMAIL.fullmatch(address) or len(local) > 64 or not _reads_back(address):
        raise ValueError(Phrase("{address} is not an email address (like name@example.org)",
                                address=repr(address[:80])))
    return f"{local}@{domain.lower()}"


def _reads_back(address: str) -> bool:
    """Whether ``address`` in a ``To:`` header is one recipient, exactly this one."""
    message = EmailMessage()
    try:
        message["To"] = address
        found = message["To"].addresses
    except Exception:  # the library's complaint is not shown (it is not the site's words)
        return False
    return len(found) == 1 and found[0].addr_spec == address and not found[0].display_name


@dataclass(frozen=True)
class MailSettings:
    """Where and how the site sends email (``hexgames serve --smtp-host ...``).

    ``site_url`` is the site's public address, the start of every link in an email (a
    request's ``Host`` header is not trusted for that: anybody can send one)."""

    host: str
    sender: str
    site_url: str
    port: int = 0  # 0: the usual port of ``tls``
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: str = "starttls"
    timeout: float = SMTP_TIMEOUT

    def __post_init__(self) -> None:
        if not self.host.strip():
            raise ValueError("--smtp-host names the mail server")
        if self.tls not in TLS_MODES:
            raise ValueError(f"--smtp-tls is one of {', '.join(TLS_MODES)}, not {self.tls!r}")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"--smtp-port must be between 1 and 65535, got {self.port}")
        validate_email(self.sender)
        site = urlsplit(self.site_url)
        if site.scheme not in ("http", "https") or not site.netloc or site.query:
            raise ValueError("--site-url is the site's public address, like "
                             f"https://games.example.org (got {self.site_url[:80]!r})")
        if not self.timeout > 0:
            raise ValueError("the SMTP timeout must be positive")
        object.__setattr__(self, "site_url", self.site_url.rstrip("/"))
        if not self.port:
            object.__setattr__(self, "port", TLS_MODES[self.tls])

    def describe(self) -> str:
        """For the start-up line (no secret in it)."""
        who = f"{self.user}@" if self.user else ""
        return f"smtp://{who}{self.host}:{self.port} ({self.tls}) from {self.sender}"


def mail_settings(args: Any, environ: Mapping[str, str] | None = None) -> MailSettings | None:
    """The settings ``hexgames serve``'s options name (``None`` without ``--smtp-host``);
    ``ValueError`` saying what is missing or wrong. The password is
    ``$HEXGAMES_SMTP_PASSWORD`` (never an option: a command line is visible to every
    user of the machine)."""
    host = getattr(args, "smtp_host", None)
    if not host:
        return None
    if not getattr(args, "smtp_from", None):
        raise ValueError("--smtp-from (the sender address) is needed with --smtp-host")
    if not getattr(args, "site_url", None):
        raise ValueError("--site-url (the site's public address, for the links in emails) "
                         "is needed with --smtp-host")
    environ = os.environ if environ is None else environ
    return MailSettings(host=host, port=getattr(args, "smtp_port", None) or 0,
                        user=getattr(args, "smtp_user", None) or None,
                        password=environ.get("HEXGAMES_SMTP_PASSWORD") or None,
                        sender=args.smtp_from, tls=getattr(args, "smtp_tls", None) or "starttls",
                        site_url=args.site_url)


class Mailer:
    """A bounded queue of emails and the thread that sends them (see the module's doc).

    ``send`` replaces the SMTP conversation (tests); counters: ``sent``, ``failed``
    (given up on: refused, unreachable, or a step past the timeout), ``dropped`` (the
    queue was full)."""

    def __init__(self, settings: MailSettings, queue_size: int = MAIL_QUEUE) -> None:
        self.settings = settings
        self._queue: queue.Queue[EmailMessage | None] = queue.Queue(maxsize=queue_size)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self.sent = self.failed = self.dropped = 0
        #: True while the thread is inside an SMTP conversation.
        self.busy = False
        self._unfinished = 0  # accepted and not yet sent or given up on
        self._count_lock = threading.Lock()

    def message(self, to: str, subject: str, body: str,
                headers: dict[str, str] | None = None) -> EmailMessage:
        """A plain-text email from the site's sender (``to`` validated by the caller)."""
        message = EmailMessage()
        message["From"] = self.settings.sender
        message["To"] = to
        message["Subject"] = subject
        message["Date"] = formatdate(localtime=False, usegmt=True)
        message["Message-ID"] = make_msgid(domain=self.settings.sender.rpartition("@")[2])
        message["Auto-Submitted"] = "auto-generated"  # RFC 3834: no auto-replies to it
        for name, value in (headers or {}).items():
            message[name] = value
        message.set_content(body)
        return message

    def submit(self, message: EmailMessage) -> bool:
        """Queue ``message`` for sending without waiting: False (and dropped) when the
        queue is full or the mailer is closed."""
        if self._stop.is_set():
            return False
        self._start()
        with self._count_lock:
            try:
                self._queue.put_nowait(message)
            except queue.Full:
                self.dropped += 1
                log.warning("the mail queue is full (%d waiting): an email was dropped",
                            self._queue.maxsize)
                return False
            self._unfinished += 1
        return True

    def waiting(self) -> int:
        """Messages queued, not yet taken by the sending thread."""
        return self._queue.qsize()

    def idle(self) -> bool:
        """Every message accepted has been sent or given up on."""
        with self._count_lock:
            return self._unfinished == 0

    def close(self) -> None:
        """Stop after the message being sent (if any); the queued ones are not sent.
        Never waits: the thread ends within one SMTP timeout."""
        self._stop.set()
        while True:  # make room for the wake-up call
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        with contextlib.suppress(queue.Full):  # (emptied just above)
            self._queue.put_nowait(None)

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the thread to end (tests); True if it has."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _start(self) -> None:
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="hexgames-mailer",
                                                daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            message = self._queue.get()
            if message is None or self._stop.is_set():
                break
            self.busy = True
            try:
                self.send(message)
                self.sent += 1
            except Exception as error:  # refused, unreachable, timed out: give up on it
                self.failed += 1
                log.warning("could not send an email to %s via %s:%d: %s: %s",
                            message["To"], self.settings.host, self.settings.port,
                            type(error).__name__, str(error)[:200])
            finally:
                self.busy = False
                with self._count_lock:
                    self._unfinished -= 1

    def send(self, message: EmailMessage) -> None:
        """One SMTP conversation (in the sending thread), each step within the timeout."""
        settings = self.settings
        context = ssl.create_default_context()
        client: smtplib.SMTP
        if settings.tls == "ssl":
            client = smtplib.SMTP_SSL(settings.host, settings.port, timeout=settings.timeout,
                                      context=context)
        else:
            client = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
        with client:
            if settings.tls == "starttls":
                client.starttls(context=context)
            if settings.user:
                client.login(settings.user, settings.password or "")
            client.send_message(message)
