"""Refusals made before the app runs (by the ASGI middleware: the body limit, the
per-client bounds, the host and cross-site guards, the engine gate), in the app's own
error shape (:func:`hexgames.web.game.errors.error_body`: ``error`` in English,
``message`` in the visitor's language, read from the request as the app does).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Any

from starlette.requests import HTTPConnection
from starlette.types import Receive, Scope, Send

from hexgames.phrases import Phrase
from hexgames.web.game.errors import error_body, socket_error
from hexgames.web.http.language import request_translator
from hexgames.web.http.security_headers import SECURITY_HEADERS

#: Seconds a refused client is told to wait (``Retry-After``).
RETRY_AFTER = 5


def _words(scope: Scope | None) -> Any:
    """The visitor's translator (``None``: not a request, so English)."""
    if scope is None or scope.get("type") not in ("http", "websocket"):
        return None
    return request_translator(HTTPConnection(scope))


def refused(scope: Scope | None, message: Phrase | str) -> dict[str, Any]:
    """The error shape (``{"error": English, "message": the visitor's language}``) of a
    refusal made before the app (the language read from ``scope``, as the app does)."""
    return error_body(message, _words(scope))


async def send_error(send: Send, status: int, body: dict[str, Any],
                     headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """Answer ``status`` with the JSON ``body`` (its type and length, then ``headers``)."""
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
        *headers,
    ]})
    await send({"type": "http.response.body", "body": data})


async def refuse_socket(receive: Receive, send: Send, message: Phrase | str,
                        scope: Scope | None = None) -> None:
    """Accept a WebSocket, send ``{"type": "error", "message"}`` (in the visitor's
    language) and close it with 1013 (try again later), as the hub's own refusals do."""
    with contextlib.suppress(Exception):  # a client gone meanwhile: nothing to tell
        if (await receive())["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send",
                    "text": json.dumps(socket_error(message, _words(scope)))})
        await send({"type": "websocket.close", "code": 1013, "reason": "try again later"})


async def refuse_request(send: Send, status: int, message: Phrase | str,
                         scope: Scope | None = None) -> None:
    """Answer an HTTP request ``status`` with ``Retry-After`` and close its connection."""
    await send_error(send, status, refused(scope, message), [
        (b"retry-after", str(RETRY_AFTER).encode()),
        (b"connection", b"close"),
        *SECURITY_HEADERS,
    ])
