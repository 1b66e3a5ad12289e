"""The request body limit: a body over the limit is refused with 413 before the app
holds more of it than the limit (plain ASGI: no body is buffered)."""

from __future__ import annotations

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hexgames.phrases import Phrase
from hexgames.web.http.refusals import refused, send_error
from hexgames.web.http.security_headers import SECURITY_HEADERS


class BodyLimit:
    """Refuse request bodies larger than ``limit`` bytes with 413.

    A ``Content-Length`` over the limit is answered at once, before any of the body is
    read; a chunked body is counted as it arrives and refused as soon as it passes the
    limit (the application never holds more than ``limit`` bytes of it).
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared < 0 or declared > self.limit:
                    await self._refuse(scope, send)
                    return
        seen = 0
        limit = self.limit

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise HTTPException(413, self.message())  # a phrase: translated
            return message

        await self.app(scope, counted, send)

    def message(self) -> Phrase:
        return Phrase("the request body is too large (at most {limit} bytes)",
                      limit=self.limit)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        await send_error(send, 413, refused(scope, self.message()),
                         [(b"connection", b"close"), *SECURITY_HEADERS])
