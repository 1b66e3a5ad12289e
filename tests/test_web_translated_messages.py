"""The server's words reach each visitor in their language: errors keep their English
``error`` (what programs match on) and add ``message`` in the visitor's language; the
states, lessons, lobby and catalog add or translate the texts a page shows.

The shipped catalogs may not have these messages yet, so each test puts a small Korean
catalog in place (built in memory from a ``.po``, as :func:`hexgames.i18n.translations`
builds the real one) and compares with it.
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient

from hexgames import i18n
from hexgames.game import get_game
from hexgames.tutorial import lessons
from hexgames.web.app import create_app

KO = {"Accept-Language": "ko-KR,ko;q=0.9,en;q=0.5"}

#: English -> Korean for the tests (only what they look at).
MESSAGES = {
    "it is not your turn: {color} is to act": "차례가 아닙니다: {color} 차례입니다",
    "red": "빨강",
    "Red": "빨강",
    "Blue": "파랑",
    "this link does not hold a seat in this game (spectators watch)": "관전만 가능합니다",
    "{color} wins ({reason})": "{color} 승리 ({reason})",
    "{color} resigned": "{color} 기권",
    "unknown message type {kind}": "알 수 없는 메시지 종류 {kind}",
    "Computer (level {level})": "컴퓨터 (레벨 {level})",
    "untimed": "시간 제한 없음",
    "there is no game {id}": "{id} 게임이 없습니다",
}


def po_text(messages: dict[str, str]) -> str:
    def quoted(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    entries = [f"msgid {quoted(english)}\nmsgstr {quoted(korean)}\n"
               for english, korean in messages.items()]
    header = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    return header + "\n".join(entries)


@pytest.fixture
def korean(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[dict[str, str]], None]]:
    """Install a Korean catalog of the given messages (on top of :data:`MESSAGES`)."""
    original = i18n.translations

    def install(extra: dict[str, str]) -> None:
        catalog = read_po(io.StringIO(po_text({**MESSAGES, **extra})), locale="ko")
        buffer = io.BytesIO()
        write_mo(buffer, catalog)
        buffer.seek(0)
        ko = gettext.GNUTranslations(buffer)

        def translations(language: str) -> gettext.NullTranslations:
            return ko if i18n.normalize(language) == "ko" else original(language)

        monkeypatch.setattr(i18n, "translations", translations)

    install({})
    yield install
    original.cache_clear()  # nothing of the test's catalog stays behind
    i18n.entries.cache_clear()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as test_client:
        yield test_client


def online_game(client: TestClient) -> tuple[str, list[str]]:
    data = client.post("/api/games", json={"game": "benediction", "mode": "online"}).json()
    return data["id"], data["tokens"]


def first_action(client: TestClient, game_id: str, token: str) -> str:
    state = client.get(f"/api/games/{game_id}", params={"token": token}).json()
    return str(state["legal"][0]["action"])


def test_an_illegal_action_says_why_in_english_and_in_the_visitors_language(
        client: TestClient, korean: Any) -> None:
    game_id, (first, second) = online_game(client)
    action = first_action(client, game_id, first)
    body = {"token": second, "action": action}
    answer = client.post(f"/api/games/{game_id}/actions", json=body, headers=KO)
    assert answer.status_code == 409
    assert answer.json() == {"error": "it is not your turn: red is to act",
                             "message": "차례가 아닙니다: 빨강 차례입니다"}
    plain = client.post(f"/api/games/{game_id}/actions", json=body).json()
    assert plain["message"] == plain["error"] == "it is not your turn: red is to act"
    # ?lang= wins over the header, as on the pages
    english = client.post(f"/api/games/{game_id}/actions?lang=en", json=body, headers=KO)
    assert english.json()["message"] == "it is not your turn: red is to act"


def test_a_refused_right_and_a_missing_game_are_translated(client: TestClient,
                                                           korean: Any) -> None:
    game_id, (first, _) = online_game(client)
    action = first_action(client, game_id, first)
    refused = client.post(f"/api/games/{game_id}/actions",
                          json={"token": "not-a-token", "action": action}, headers=KO)
    assert refused.status_code == 403
    assert refused.json()["error"] == ("this link does not hold a seat in this game "
                                       "(spectators watch)")
    assert refused.json()["message"] == "관전만 가능합니다"
    missing = client.get("/api/games/nothing-here", headers=KO)
    assert missing.status_code == 404
    assert missing.json() == {"error": "there is no game 'nothing-here'",
                              "message": "'nothing-here' 게임이 없습니다"}


def test_the_result_and_made_up_names_come_in_the_viewers_language(client: TestClient,
                                                                    korean: Any) -> None:
    created = client.post("/api/games", json={"game": "benediction", "mode": "ai",
                                              "seat": 0, "level": 1}).json()
    game_id, token = created["id"], created["token"]
    state = client.get(f"/api/games/{game_id}", params={"token": token}, headers=KO).json()
    computer = state["players"][1]
    assert computer["name"] == "Computer (level 1)"  # the documented field stays English
    assert computer["name_text"] == "컴퓨터 (레벨 1)"
    assert state["result"] is None and state["result_text"] is None
    over = client.post(f"/api/games/{game_id}/resign", json={"token": token}, headers=KO).json()
    assert over["result"] == "Blue wins (Red resigned)"
    assert over["result_text"] == "파랑 승리 (빨강 기권)"
    english = client.get(f"/api/games/{game_id}").json()
    assert english["result_text"] == english["result"] == "Blue wins (Red resigned)"
    assert "name_text" not in english["players"][1]


def test_socket_errors_are_in_the_sockets_language(client: TestClient, korean: Any) -> None:
    game_id, (first, _) = online_game(client)
    for url, headers in [(f"/ws/games/{game_id}?token={first}", KO),
                         (f"/ws/games/{game_id}?token={first}&lang=ko", {})]:
        with client.websocket_connect(url, headers=headers) as socket:
            assert socket.receive_json()["type"] == "state"
            socket.send_json({"type": "dance"})
            assert socket.receive_json() == {"type": "error",
                                             "message": "알 수 없는 메시지 종류 'dance'"}
    with client.websocket_connect(f"/ws/games/{game_id}?token={first}") as socket:
        assert socket.receive_json()["type"] == "state"
        socket.send_json({"type": "dance"})
        assert socket.receive_json()["message"] == "unknown message type 'dance'"
    with client.websocket_connect("/ws/games/missing", headers=KO) as socket:
        assert socket.receive_json() == {"type": "error", "message": "'missing' 게임이 없습니다"}


def test_the_lobby_describes_time_controls_in_the_visitors_language(client: TestClient,
                                                                     korean: Any) -> None:
    posted = client.post("/api/seeks", json={"game": "benediction"}, headers=KO)
    assert posted.status_code == 201, posted.text
    assert posted.json()["seek"]["time"] == "untimed"
    assert posted.json()["seek"]["time_text"] == "시간 제한 없음"
    listed = client.get("/api/seeks", headers=KO).json()["seeks"][0]
    assert (listed["time"], listed["time_text"]) == ("untimed", "시간 제한 없음")
    with client.websocket_connect("/ws/lobby?lang=ko") as socket:
        lobby = socket.receive_json()
        assert lobby["seeks"][0]["time_text"] == "시간 제한 없음"


def test_lessons_and_the_options_form_are_in_the_visitors_language(client: TestClient,
                                                                   korean: Any) -> None:
    game = get_game("benediction")
    lesson = lessons(game)[0]
    option = game.options[0]
    korean({str(lesson.title): "첫 수업", str(lesson.task): "과제", str(option.help): "도움말"})
    listed = client.get("/api/learn/benediction", headers=KO).json()
    assert (listed["lessons"][0]["title"], listed["lessons"][0]["task"]) == ("첫 수업", "과제")
    assert client.get("/api/learn/benediction").json()["lessons"][0]["title"] == str(
        lesson.title)
    one = client.get(f"/api/learn/benediction/{lesson.id}", headers=KO).json()
    assert one["title"] == "첫 수업"
    catalog = client.get("/api/catalog", headers=KO).json()
    options = next(entry for entry in catalog["games"] if entry["name"] == "benediction")
    assert options["options"][0]["help"] == "도움말"
    english = next(entry for entry in client.get("/api/catalog").json()["games"]
                   if entry["name"] == "benediction")
    assert english["options"][0]["help"] == str(option.help)
