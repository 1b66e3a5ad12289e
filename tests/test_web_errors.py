"""The app's one table of exception handlers (``web/http/errors.py``): every exception type
it lists is answered with its status, the documented JSON shape (``{"error": English,
"message": the visitor's language}``) and its extra headers, on a real app.

A route added to the app raises each exception; a rule lost from the table would leave
its exception to a less specific rule (a 400 or a 500), and the test names it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from fastapi import FastAPI, HTTPException
from fastapi.testclient import TestClient
from pydantic import BaseModel, StrictInt

from hexgames.errors import IllegalAction
from hexgames.phrases import N_, Phrase
from hexgames.web.accounts.rated_play import NamedPlayersOnly, TooManyRatedGames
from hexgames.web.app import create_app
from hexgames.web.http.errors import ERRORS
from hexgames.web.http.state import app_state
from hexgames.web.play.chat import ChatForbidden, ChatTooFast, MessageNotFound
from hexgames.web.routes.seeks import SEEKS_PER_ADDRESS
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

SAID = N_("the server is busy; try again in a moment")  # a phrase with a Korean text

#: exception -> (a raised instance, status, extra headers the answer must carry).
CASES: dict[str, tuple[Callable[[], Exception], int, dict[str, str]]] = {
    "HTTPException": (
        lambda: HTTPException(429, Phrase("try again in {seconds} s", seconds=3),
                              headers={"Retry-After": "3"}), 429, {"retry-after": "3"}),
    "StorageUnavailable": (lambda: StorageUnavailable(SAID), 503, {}),
    "AiBusy": (lambda: AiBusy(SAID), 503, {}),
    "PoolFull": (lambda: PoolFull(SAID), 503, {}),
    "LobbyFull": (lambda: LobbyFull(SAID), 503, {}),
    "StaleWrite": (lambda: StaleWrite(SAID), 409, {}),
    "WriteUnconfirmed": (lambda: WriteUnconfirmed(SAID), 409, {}),
    "SeekTaken": (lambda: SeekTaken(SAID), 409, {}),
    "IllegalAction": (lambda: IllegalAction(SAID), 409, {}),
    "GameNotFound": (lambda: GameNotFound(SAID), 404, {}),
    "PermissionError": (lambda: PermissionError(SAID), 403, {}),
    "TooManyRatedGames": (lambda: TooManyRatedGames(Phrase(SAID), retry_after=42), 429,
                          {"retry-after": "42"}),
    "ValueError": (lambda: ValueError(SAID), 400, {}),
    "TournamentUnknown": (lambda: TournamentUnknown(SAID), 404, {}),
    "TournamentClosed": (lambda: TournamentClosed(SAID), 409, {}),
    "TournamentQuota": (lambda: TournamentQuota(SAID), 429, {}),
    "GuestsRefused": (lambda: GuestsRefused(SAID), 403, {}),
    "TournamentRefused": (lambda: TournamentRefused(SAID), 409, {}),
    "ChatForbidden": (lambda: ChatForbidden(SAID), 403, {}),
    "ChatTooFast": (lambda: ChatTooFast(7), 429, {"retry-after": "7"}),
    "ChatRefused": (lambda: ChatRefused(SAID), 409, {}),
    "MessageNotFound": (lambda: MessageNotFound(SAID), 404, {}),
}


class Body(BaseModel):
    number: StrictInt


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    application = create_app(data_dir=tmp_path_factory.mktemp("errors"))

    async def raising(name: str) -> None:
        if name == "Exception":
            raise RuntimeError("a secret internal detail")
        if name == "NamedPlayersOnly":
            raise NamedPlayersOnly(SAID)
        raise CASES[name][0]()

    async def validated(body: Body) -> dict[str, int]:
        return {"number": body.number}

    application.add_api_route("/api/test-raise/{name}", raising, methods=["GET"])
    application.add_api_route("/api/test-validate", validated, methods=["POST"])
    yield application


@pytest.fixture(scope="module")
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def test_the_table_lists_each_exception_once_and_each_has_a_case() -> None:
    """(Starlette's ``HTTPException``, the base of FastAPI's, is listed by its name.)"""
    names = [rule.exception.__name__ for rule in ERRORS]
    assert len(names) == len(set(names))
    assert set(names) == {*CASES, "RequestValidationError", "Exception"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_exception_answers_its_status_shape_and_headers(client: TestClient,
                                                             name: str) -> None:
    _, status, headers = CASES[name]
    answer = client.get(f"/api/test-raise/{name}", params={"lang": "ko"})
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"error", "message"}
    if name not in ("HTTPException", "ChatTooFast"):  # (these two say their own words)
        assert body["error"] == SAID  # English: what API clients match on
        assert body["message"] != SAID and body["message"]  # in the visitor's language
    for key, value in headers.items():
        assert answer.headers[key] == value
    assert answer.headers["content-security-policy"]  # the edge's headers, as everywhere


def test_a_guest_refused_a_rated_game_is_a_403(client: TestClient) -> None:
    answer = client.get("/api/test-raise/NamedPlayersOnly")
    assert answer.status_code == 403 and answer.json()["error"] == SAID


def test_a_body_that_does_not_fit_is_a_400_naming_the_field(client: TestClient) -> None:
    answer = client.post("/api/test-validate", json={"number": "1"})
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("bad request: number:")


def test_an_unexpected_failure_is_a_500_that_reveals_nothing(client: TestClient) -> None:
    answer = client.get("/api/test-raise/Exception")
    assert answer.status_code == 500
    assert answer.json()["error"] == "internal error: the server could not handle this request"
    assert "secret" not in answer.text


def test_an_unknown_page_is_the_html_404_and_an_unknown_api_path_json(
        client: TestClient) -> None:
    page = client.get("/no-such-page")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    api = client.get("/api/no-such-thing")
    assert api.status_code == 404 and set(api.json()) == {"error", "message"}


def test_the_error_body_is_built_once_for_http_and_sockets() -> None:
    """The socket message and the HTTP body come from one builder (same bound)."""
    from hexgames.i18n import translator
    from hexgames.web.game.errors import MAX_ERROR, error_body, socket_error

    long = "x" * 1000
    assert len(error_body(long)["error"]) == MAX_ERROR
    korean = translator("ko")
    assert socket_error(SAID, korean) == {"type": "error",
                                          "message": error_body(SAID, korean)["message"]}



def test_a_refusal_answered_by_a_route_has_the_same_shape(app: FastAPI,
                                                          client: TestClient) -> None:
    """``POST /api/seeks`` past its rate answers 429 itself (``error_response``), with
    ``Retry-After``, in the same shape as a raised error."""
    limiter = app_state(app).seek_posts
    limiter.attempts = 2
    try:
        codes = [client.post("/api/seeks", json={"game": "dendria"}).status_code
                 for _ in range(2)]
        refused = client.post("/api/seeks", json={"game": "dendria"}, params={"lang": "pt"})
    finally:
        limiter.attempts = SEEKS_PER_ADDRESS
    assert codes == [201, 201]
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    body = refused.json()
    assert set(body) == {"error", "message"}
    assert body["error"].startswith("too many challenges posted")
