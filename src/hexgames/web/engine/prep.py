"""The rules engines prepared while the site already answers (``hexgames serve``).

On a fresh install numba compiles each game's engine once: tens of seconds on a quiet
machine, minutes on a small busy one; later starts load it from the on-disk cache in
about a second. A start whose engines are all cached loads them before the URL is
printed, as it always did (:meth:`EnginePreparation.load_if_cached`). Otherwise the
server binds, prints its URL and serves its pages at once, and the engines are prepared
in the background (:meth:`EnginePreparation.start`):

* each game whose code is not cached is compiled in a **process of its own**, all of them
  side by side (games share no compiled code, and a process has its own interpreter
  lock, so the compiler never slows the server's event loop);
* once a game's process has written the cache, a background thread of the server
  **loads** it (a second or so). A process that fails, or misses its bound
  (:data:`COMPILE_SECONDS`), is stopped and the thread compiles that game itself.

Until every game is ready nothing on the event loop may call compiled code: numba's
compiler lock would make it wait for the thread, or it would compile there itself. So
:class:`~hexgames.web.http.engine_gate.EngineGate` lets through only what needs no engine
(the pages, which are static files, the catalog without its previews, identities, players,
the lobby list) and answers the rest with 503 and ``Retry-After`` ("the engine is still
being prepared; try again in N s", with the progress); the pages show "Preparing the
engine…" from ``GET /api/engine-status`` and go on by themselves once it is ready.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from hexgames.i18n import DEFAULT_LANGUAGE, Translator, translator
from hexgames.phrases import N_, Phrase
from hexgames.web.game.matches import joined

#: The states an engine is in, as the status message words them (marked for the catalog).
STATE_WORDS = (N_("waiting"), N_("compiling"), N_("loading"), N_("ready"), N_("failed"))

log = logging.getLogger(__name__)

#: Seconds a game's compiling process may run before it is judged stuck and stopped (the
#: server then compiles that game itself). A bound on a bug: a cold compile of both games
#: side by side took 1.5 to 8 minutes on a two-core machine under a load of 4 to 18.
COMPILE_SECONDS = 1800.0
#: Seconds between looks at the compiling processes and at the cache (the progress).
POLL_SECONDS = 0.5
#: ``Retry-After`` while a game compiles, and while the engines only load.
RETRY_COMPILING_S = 5
RETRY_LOADING_S = 2


def compile_command(game: str) -> list[str]:
    """The process that compiles ``game``'s engine into numba's cache (it inherits the
    cache directory, which ``hexgames._jit`` puts in the environment)."""
    return [sys.executable, "-c",
            f"from hexgames.game import get_game; get_game({game!r}).kernel().warm_up()"]


@dataclass
class _Engine:
    """One game's engine as it is prepared."""

    game: str
    title: str
    kernel: Any
    state: str = "waiting"  # waiting, compiling, loading, ready, failed
    cached: int = 0
    parts: int = 1
    began: float | None = None
    ended: float | None = None
    process: subprocess.Popen[bytes] | None = None
    errors: Any = None  # the compiling process's stderr (a temporary file)

    def progress(self) -> float:
        """0 to 1: the share of entry points compiled (loading is the last tenth)."""
        if self.state == "ready":
            return 1.0
        if self.state == "loading":
            return 0.9
        return 0.9 * self.cached / max(1, self.parts)


def game_kernels() -> list[tuple[str, str, Any]]:
    """``(name, title, kernel)`` of every registered game with a compiled kernel
    (importing the games and their kernels compiles nothing)."""
    from hexgames.game import game_names, get_game

    found = []
    for name in game_names():
        game = get_game(name)
        if game.kernel is not None:
            found.append((name, game.title, game.kernel()))
    return found


class EnginePreparation:
    """The engines of ``kernels`` (``(game, title, kernel)``; default: every registered
    game's, :func:`game_kernels`), prepared once. Building one imports the games and
    their kernels, so that no request has to import them on the event loop later.

    ``announce(text)`` hears that a compile has started and how long it took;
    ``command(game)`` is the compiling process (tests replace it); ``compile_seconds``
    bounds each process."""

    def __init__(self, kernels: Iterable[tuple[str, str, Any]] | None = None, *,
                 announce: Callable[[str], None] | None = None,
                 command: Callable[[str], list[str]] = compile_command,
                 compile_seconds: float = COMPILE_SECONDS,
                 poll_seconds: float = POLL_SECONDS) -> None:
        self.engines = [_Engine(name, title, kernel, parts=kernel.cached_parts()[1])
                        for name, title, kernel in (game_kernels() if kernels is None
                                                    else kernels)]
        self.announce = announce
        self.command = command
        self.compile_seconds = compile_seconds
        self.poll_seconds = poll_seconds
        self.began = time.monotonic()
        self.ended: float | None = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # the children, between the thread and stop()
        if not self.engines:
            self.ended = self.began

    # ------------------------------------------------------------------ state
    @property
    def ready(self) -> bool:
        return self.ended is not None and all(e.state == "ready" for e in self.engines)

    @property
    def failed(self) -> bool:
        return any(engine.state == "failed" for engine in self.engines)

    def retry_after(self) -> int:
        """Seconds a client should wait before asking again."""
        compiling = any(e.state in ("waiting", "compiling") for e in self.engines)
        return RETRY_COMPILING_S if compiling else RETRY_LOADING_S

    def status(self, words: Translator | None = None) -> dict[str, Any]:
        """What ``GET /api/engine-status`` answers (a snapshot: no I/O); ``message_text``:
        ``message`` in ``words``' language."""
        words = words or translator(DEFAULT_LANGUAGE)
        now = time.monotonic()
        state = "ready" if self.ready else "failed" if self.failed else "preparing"
        games = [{
            "game": e.game,
            "title": e.title,
            "state": e.state,
            "cached": e.parts if e.state == "ready" else e.cached,
            "parts": e.parts,
            "progress": round(e.progress(), 3),
            "seconds": round(((e.ended or now) - e.began) if e.began is not None else 0.0, 1),
        } for e in self.engines]
        progress = (sum(e.progress() for e in self.engines) / len(self.engines)
                    if self.engines else 1.0)
        return {
            "ready": self.ready,
            "state": state,
            "progress": round(progress, 3),
            "seconds": round((self.ended or now) - self.began, 1),
            "retry_after_s": 0 if self.ready else self.retry_after(),
            "message": self.message(),
            "message_text": words.text(self.message_phrase()),
            "games": games,
        }

    def message(self) -> str:
        """For people: what is being done ("Benediction: compiling, 3 of 14 parts")."""
        return str(self.message_phrase())

    def message_phrase(self) -> Phrase:
        """:meth:`message` as a phrase a page translates."""
        if self.ready:
            return Phrase("the engine is ready")
        if self.failed:
            return Phrase("the rules engine could not be prepared; the server's log says why "
                          "(restarting the server tries again)")
        parts: list[Phrase | str] = []
        for e in self.engines:
            if e.state == "compiling":
                parts.append(Phrase("{game}: compiling, {done} of {parts} parts",
                                    game=e.title, done=e.cached, parts=e.parts))
            else:
                parts.append(Phrase("{game}: {state}", game=e.title, state=Phrase(e.state)))
        return Phrase("preparing the engine ({parts})", parts=joined(parts))

    def refusal(self) -> Phrase:
        """The error of a request that needs an engine not ready yet."""
        if self.failed:
            return self.message_phrase()
        return Phrase("the engine is still being prepared; try again in {seconds} s",
                      seconds=self.retry_after())

    async def wait_ready(self, poll: float = 0.25) -> None:
        """Return once every engine is ready (the caller bounds or cancels the wait)."""
        while not self.ready:
            await asyncio.sleep(poll)

    # ------------------------------------------------------------- preparing
    def load_if_cached(self) -> bool:
        """When every engine is in the cache already: load them here and now (a second or
        so, before the URL is printed, as a warm start always did) and return True."""
        if self.ended is not None:
            return self.ready
        if not all(engine.kernel.is_cached() for engine in self.engines):
            return False
        for engine in self.engines:
            self._load(engine)
        self.ended = time.monotonic()
        return self.ready

    def start(self) -> None:
        """Prepare the engines in the background (no-op when done or started)."""
        if self.ended is not None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="engine-preparation",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the compiling processes and wait (at most ``timeout`` s) for the thread:
        one loading or compiling in this process cannot be interrupted, and is left."""
        self._stopping.set()
        with self._lock:
            for engine in self.engines:
                self._end_process(engine, kill=True)
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        began = time.monotonic()
        cold = [engine for engine in self.engines if not engine.kernel.is_cached()]
        if cold and self.announce is not None:
            self.announce("compiling the rules engine in the background, once per machine "
                          "and version; the site answers meanwhile and shows the progress")
        with self._lock:
            for engine in cold:
                if not self._stopping.is_set():
                    self._spawn(engine)
        pending = list(self.engines)
        while pending and not self._stopping.is_set():
            for engine in list(pending):
                if self._stopping.is_set():
                    break
                if self._compiling(engine):
                    continue
                self._load(engine)
                pending.remove(engine)
            if pending:
                self._stopping.wait(self.poll_seconds)
        if self._stopping.is_set():
            return
        self.ended = time.monotonic()
        if cold and self.announce is not None:
            if self.ready:
                self.announce(f"rules engine ready in {self.ended - began:.0f} s; later "
                              "starts load it from the cache")
            else:
                self.announce(self.message())

    def _spawn(self, engine: _Engine) -> None:
        from hexgames._processes import import_path

        engine.began = time.monotonic()
        engine.errors = tempfile.TemporaryFile()  # noqa: SIM115 (closed by _end_process)
        try:
            engine.process = subprocess.Popen(
                self.command(engine.game),
                env={**os.environ, "PYTHONPATH": import_path()},
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=engine.errors)
        except OSError as error:  # no Python to start: this process compiles it
            log.warning("could not start a process to compile %s's engine: %s",
                        engine.game, error)
            engine.errors.close()
            engine.errors = None
            return
        engine.state = "compiling"

    def _compiling(self, engine: _Engine) -> bool:
        """Whether ``engine``'s process still compiles (its progress updated); a process
        past its bound is stopped, one that failed is logged."""
        with self._lock:
            process = engine.process
            if process is None:
                return False
            with contextlib.suppress(Exception):  # progress only: never fatal
                engine.cached = engine.kernel.cached_parts()[0]
            code = process.poll()
            if code is None and time.monotonic() - (engine.began or 0) < self.compile_seconds:
                return True
            if code is None:
                log.warning("compiling %s's engine took over %.0f s: stopped; the server "
                            "compiles it itself", engine.game, self.compile_seconds)
            elif code != 0:
                log.warning("compiling %s's engine failed (exit %s); the server compiles it "
                            "itself: %s", engine.game, code, self._errors(engine))
            self._end_process(engine, kill=code is None)
            return False

    def _errors(self, engine: _Engine) -> str:
        if engine.errors is None:
            return ""
        engine.errors.seek(0)
        return engine.errors.read()[-2000:].decode(errors="replace").strip()

    def _end_process(self, engine: _Engine, kill: bool) -> None:
        process, engine.process = engine.process, None
        if process is not None:
            if kill and process.poll() is None:
                process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
        if engine.errors is not None:
            engine.errors.close()
            engine.errors = None

    def _load(self, engine: _Engine) -> None:
        """Load (or, when no process cached it, compile) ``engine`` in this process."""
        if engine.began is None:
            engine.began = time.monotonic()
        engine.state = "loading"
        try:
            engine.kernel.warm_up()
        except Exception:
            log.exception("could not prepare %s's engine", engine.game)
            engine.state = "failed"
        else:
            engine.cached = engine.parts
            engine.state = "ready"
        engine.ended = time.monotonic()


def engine_status(engines: EnginePreparation | None,
                  words: Translator | None = None) -> dict[str, Any]:
    """``GET /api/engine-status``: the app's preparation ``engines``, or ready (an app
    built without one: its engines compile or load on first use, as in tests and
    scripts)."""
    if engines is not None:
        return engines.status(words)
    ready = Phrase("the engine is ready")
    return {"ready": True, "state": "ready", "progress": 1.0, "seconds": 0.0,
            "retry_after_s": 0, "message": str(ready),
            "message_text": (words or translator(DEFAULT_LANGUAGE)).text(ready), "games": []}


def engines_ready(engines: EnginePreparation | None) -> bool:
    """Whether what needs an engine may run now (no preparation: always)."""
    return engines is None or engines.ready
