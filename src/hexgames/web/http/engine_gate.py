"""The gate in front of the app while the rules engines are prepared (``hexgames serve``
on a fresh install, :class:`~hexgames.web.engine.prep.EnginePreparation`): what needs an
engine is answered 503 with ``Retry-After`` instead of waiting for the compiler, and what
does not (pages that are static files, identities, lists) is let through.
"""

from __future__ import annotations

import html

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from hexgames.i18n import Translator
from hexgames.web.engine.prep import EnginePreparation
from hexgames.web.game.errors import error_body
from hexgames.web.http.language import request_translator
from hexgames.web.http.refusals import refuse_socket, send_error

#: What answers without an engine while it is prepared: the pages that are static files
#: (their scripts wait for the engine), the static files, the catalog (its previews
#: empty until then), the scripts' messages (``/i18n/<lang>.js``) and the languages,
#: identities and their alerts, a player's profile, the leaderboard,
#: the lists of games and challenges and the lobby's socket. Everything else (a player's
#: statistics and exports included: they read games) needs an engine.
WITHOUT_ENGINE = frozenset({
    "/", "/lobby", "/editor", "/analysis", "/leaderboard", "/favicon.ico",
    "/api/engine-status", "/api/catalog", "/api/me", "/api/me/name", "/api/me/password",
    "/api/me/turn", "/api/me/alerts", "/api/login", "/api/logout", "/api/leaderboard",
    "/api/openapi.json", "/openapi.json", "/ws/lobby", "/ws/alerts", "/api/languages",
})
WITHOUT_ENGINE_PREFIXES = ("/static/", "/i18n/", "/play/", "/replay/", "/analysis/", "/learn/",
                           "/player/", "/alerts/")
#: ``/api/players/{name}`` itself, not what lies below it.
WITHOUT_ENGINE_ONE_BELOW = ("/api/players/",)
#: Read-only lists (``GET`` only: a ``POST`` to them makes a game or a challenge).
WITHOUT_ENGINE_GET = frozenset({"/api/games", "/api/seeks"})


def needs_engine(scope: Scope) -> bool:
    path = scope.get("path", "")
    if path in WITHOUT_ENGINE or path.startswith(WITHOUT_ENGINE_PREFIXES):
        return False
    for prefix in WITHOUT_ENGINE_ONE_BELOW:
        if path.startswith(prefix) and "/" not in path[len(prefix):]:
            return False
    return not (path in WITHOUT_ENGINE_GET and scope.get("method") in ("GET", "HEAD"))


_PREPARING_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · hexgames</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/css/site.css">
<script type="module" src="/static/js/engine.js"></script>
</head><body class="page-preparing" data-reload-when-ready="1">
<header class="topbar"><a class="brand" href="/"><img src="/static/favicon.svg" alt="">
hexgames</a></header>
<main class="home"><section class="card"><h1>{heading}</h1>
<p>{text}</p></section></main></body></html>
"""


def preparing_page(words: Translator) -> str:
    """The page a person gets while the engines are prepared, in ``words``' language."""
    return _PREPARING_PAGE.format(
        lang=words.language, title=html.escape(words.gettext("Preparing the engine")),
        heading=html.escape(words.gettext("Preparing the engine…")),
        text=html.escape(words.gettext(
            "The server compiles the rules engines once after an install; this page opens "
            "by itself when they are ready.")))


class EngineGate:
    """While ``engines`` are not ready, answer what needs one (:func:`needs_engine`)
    without calling the app: API calls with 503, ``Retry-After`` and ``{"error",
    "preparing": true, "engine": <status>}``, pages with a 503 page that reloads itself
    once the engine is ready, WebSockets with an error message and close code 1013."""

    def __init__(self, app: ASGIApp, engines: EnginePreparation) -> None:
        self.app = app
        self.engines = engines

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (self.engines.ready or scope["type"] not in ("http", "websocket")
                or not needs_engine(scope)):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await refuse_socket(receive, send, self.engines.refusal(), scope)
            return
        words = request_translator(HTTPConnection(scope))
        path = scope.get("path", "")
        wait = str(self.engines.retry_after()).encode()
        headers = [(b"retry-after", wait), (b"cache-control", b"no-store")]
        if path.startswith(("/api/", "/ws/")) or path == "/openapi.json":
            await send_error(send, 503, {**error_body(self.engines.refusal(), words),
                                         "preparing": True,
                                         "engine": self.engines.status(words)}, headers)
            return
        body = preparing_page(words).encode()
        await send({"type": "http.response.start", "status": 503, "headers": [
            (b"content-type", b"text/html; charset=utf-8"),
            (b"content-length", str(len(body)).encode()), *headers]})
        await send({"type": "http.response.body", "body": body})
