"""The app's answers to exceptions: ONE table (:data:`ERRORS`, exception type -> status,
message, extra headers) registered by one loop (:func:`add_error_handlers`).

Error policy: bad input of any kind (malformed JSON, unknown game or id, bad options,
illegal or out-of-turn actions, a token for another seat, a body over the limit) is
answered with a 4xx and the JSON error shape (:func:`hexgames.web.game.errors.error_body`:
``{"error": English, "message": the visitor's language}``, bounded), and changes nothing.
A storage that does not answer, or an AI with too many searches waiting, is a 503 ("try
again"). Unexpected failures are logged and answered with a JSON 500 that reveals no
internals. A 404 of a person's address (not the API's) is the HTML page instead.

Starlette picks the handler of the closest class in an exception's MRO, so the order of
the table does not matter (``IllegalAction``, a ``ValueError``, is a 409, not a 400).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from hexgames.errors import IllegalAction
from hexgames.phrases import N_, Phrase
from hexgames.web.accounts.rated_play import TooManyRatedGames
from hexgames.web.game.errors import error_body
from hexgames.web.http.language import request_translator, said
from hexgames.web.http.not_found import not_found_response
from hexgames.web.play.chat import ChatForbidden, ChatTooFast, MessageNotFound
from hexgames.web.service import (
    AiBusy,
    GameNotFound,
    LobbyFull,
    PoolFull,
    SeekTaken,
    WriteUnconfirmed,
)
from hexgames.web.storage import ChatRefused, StaleWrite, StorageUnavailable
from hexgames.web.storage.sql_tournaments import (
    TournamentClosed,
    TournamentQuota,
    TournamentRefused,
    TournamentUnknown,
)
from hexgames.web.tournaments.director import GuestsRefused

__all__ = ["ERRORS", "ErrorRule", "add_error_handlers", "error_response", "wants_page"]

log = logging.getLogger(__name__)


def error_response(status: int, message: object, request: Request | None = None,
                   headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The error shape of every 4xx/5xx (bounded: it may quote the client's input):
    ``error`` in English (what API clients match on), ``message`` in the language of
    ``request``'s visitor (what the site shows). Raised errors reach it through
    :data:`ERRORS`; a route answering a refusal itself calls it."""
    words = request_translator(request) if request is not None else None
    return JSONResponse(error_body(message, words), status_code=status,
                        headers=dict(headers) if headers else None)


def wants_page(request: Request) -> bool:
    """A person's address (answered with an HTML page) rather than the API's (JSON)."""
    path = request.url.path
    return not (path.startswith(("/api/", "/ws/")) or path == "/openapi.json")


def _problems(exc: Exception) -> object:
    """A request that does not fit its model: the first few problems, each where it is."""
    assert isinstance(exc, RequestValidationError)
    problems = []
    for item in exc.errors()[:5]:
        where = ".".join(str(part)[:40] for part in item.get("loc", ()) if part != "body")
        problems.append(f"{where}: {item.get('msg')}" if where else str(item.get("msg")))
    return Phrase("bad request: {problems}", problems="; ".join(problems))


def _http_status(exc: Exception) -> int:
    assert isinstance(exc, StarletteHTTPException)
    return exc.status_code


def _http_detail(exc: Exception) -> object:
    assert isinstance(exc, StarletteHTTPException)
    return exc.detail


def _http_headers(exc: Exception) -> Mapping[str, str] | None:
    assert isinstance(exc, StarletteHTTPException)
    return exc.headers  # e.g. a 429's Retry-After


def _rated_wait(exc: Exception) -> Mapping[str, str]:
    assert isinstance(exc, TooManyRatedGames)
    return {"Retry-After": str(exc.retry_after)}


def _chat_wait(exc: Exception) -> Mapping[str, str]:
    assert isinstance(exc, ChatTooFast)
    return {"Retry-After": str(exc.retry_after)}


def _internal(exc: Exception) -> object:
    return N_("internal error: the server could not handle this request")


def _no_headers(exc: Exception) -> Mapping[str, str] | None:
    return None


@dataclass(frozen=True)
class ErrorRule:
    """How the app answers one exception type: ``status`` (or a function of the
    exception), the message (:func:`~hexgames.web.http.language.said`: its phrase), the
    extra headers; ``page_404``: a 404 of a person's address is the HTML page;
    ``logged``: an unexpected failure, logged with its traceback."""

    exception: type[Exception]
    status: int | Callable[[Exception], int]
    message: Callable[[Exception], object] = said
    headers: Callable[[Exception], Mapping[str, str] | None] = _no_headers
    page_404: bool = False
    logged: bool = False

    def status_of(self, exc: Exception) -> int:
        return self.status if isinstance(self.status, int) else self.status(exc)

    def answer(self, request: Request, exc: Exception) -> Response:
        if self.logged:
            log.exception("unexpected error on %s %s", request.method, request.url.path,
                          exc_info=exc)
        status = self.status_of(exc)
        if self.page_404 and status == 404 and wants_page(request):
            return not_found_response(request)
        return error_response(status, self.message(exc), request, self.headers(exc))


#: Every exception the app answers, and how (docs/web.md, "Limits and hardening").
ERRORS: tuple[ErrorRule, ...] = (
    ErrorRule(RequestValidationError, 400, _problems),  # strict bodies: "1" is no seat
    ErrorRule(StarletteHTTPException, _http_status, _http_detail, _http_headers,
              page_404=True),
    ErrorRule(StorageUnavailable, 503),
    ErrorRule(AiBusy, 503),
    ErrorRule(PoolFull, 503),
    ErrorRule(LobbyFull, 503),
    ErrorRule(StaleWrite, 409),
    ErrorRule(WriteUnconfirmed, 409),  # may still commit: reload, never 503
    ErrorRule(SeekTaken, 409),
    ErrorRule(IllegalAction, 409),
    ErrorRule(GameNotFound, 404),
    ErrorRule(PermissionError, 403),  # a token for another seat; a guest's rated game
    ErrorRule(TooManyRatedGames, 429, headers=_rated_wait),
    ErrorRule(TournamentUnknown, 404, page_404=True),
    ErrorRule(TournamentClosed, 409),  # ended, or full
    ErrorRule(TournamentQuota, 429),  # tournaments per creator per day
    ErrorRule(GuestsRefused, 403),
    ErrorRule(TournamentRefused, 409),
    ErrorRule(ChatForbidden, 403),  # a stranger in the players' chat, a guest, a block
    ErrorRule(ChatTooFast, 429, headers=_chat_wait),
    ErrorRule(ChatRefused, 409),  # a full room, a silenced writer
    ErrorRule(MessageNotFound, 404),
    ErrorRule(ValueError, 400),
    ErrorRule(Exception, 500, _internal, logged=True),
)


def _handler(rule: ErrorRule) -> Callable[[Request, Exception], Any]:
    async def handle(request: Request, exc: Exception) -> Response:
        return rule.answer(request, exc)

    handle.__name__ = f"answer_{rule.exception.__name__}"
    return handle


def add_error_handlers(app: FastAPI, rules: tuple[ErrorRule, ...] = ERRORS) -> None:
    """Register every rule of ``rules`` on ``app``."""
    for rule in rules:
        app.add_exception_handler(rule.exception, _handler(rule))
