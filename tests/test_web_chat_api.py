"""A game's chat over HTTP and the game's socket (issue 42, rows "Chat" and "Bad input"):
who reads and writes which room, the bounds (length, rate, a full room, a silence),
blocks, mute and reports; a refused message stores nothing; and two server processes on
one PostgreSQL push a message posted on either."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient

import test_web_pools
import test_web_storage
from hexgames.cli import main
from hexgames.web.chat.rules import MAX_TEXT, POSTS_PER_WINDOW, ROOM_LIMIT
from hexgames.web.play.chat import SHOWN
from test_web_absence import REALTIME, rated_game
from test_web_lobby import FakeTime, visitor
from test_web_pools import quiet_app

postgres_cluster = test_web_storage.postgres_cluster
postgres_url = test_web_storage.postgres_url
# Fixtures: the site's fake clock, and an app on it with its background loops off.
time_ = test_web_pools.time_
client = test_web_pools.client


def name(client: TestClient, who: str) -> None:
    with visitor(client, who):
        assert client.post("/api/me/name", json={"name": who}).status_code == 200


def player_id(client: TestClient, who: str) -> str:
    with visitor(client, who):
        return str(client.get("/api/me").json()["id"])


def post(client: TestClient, who: str, game_id: str, room: str, text: Any) -> Any:
    with visitor(client, who):
        return client.post(f"/api/games/{game_id}/chat", json={"room": room, "text": text})


def read(client: TestClient, who: str, game_id: str, **params: str) -> Any:
    with visitor(client, who):
        return client.get(f"/api/games/{game_id}/chat", params=params)


def rooms(client: TestClient, who: str, game_id: str) -> dict[str, Any]:
    answer = read(client, who, game_id)
    assert answer.status_code == 200, answer.text
    return {room["room"]: room for room in answer.json()["rooms"]}


def texts(client: TestClient, who: str, game_id: str, room: str) -> list[str]:
    return [m["text"] for m in rooms(client, who, game_id)[room]["messages"]]


def stored(client: TestClient, game_id: str, room: str) -> list[str]:
    storage = client.app.state.site.service.storage  # type: ignore[attr-defined]
    return [m.text for m in storage.chat_messages(game_id, room)]


@pytest.fixture
def game(client: TestClient) -> str:
    """A live rated game of Ann and Bob; Cat and Dan, named, watch."""
    game_id, _, _ = rated_game(client, REALTIME)
    name(client, "Cat")
    name(client, "Dan")
    return game_id


# ------------------------------------------------------------------ the rooms
def test_players_talk_in_their_room_and_watchers_in_theirs(client: TestClient,
                                                           game: str) -> None:
    assert post(client, "Ann", game, "players", "good luck").status_code == 201
    answer = post(client, "Bob", game, "players", "you too")
    assert answer.status_code == 201
    assert answer.json()["message"] | {"at": 0} == {
        "room": "players", "seq": 2, "player_id": player_id(client, "Bob"), "name": "Bob",
        "text": "you too", "at": 0, "mine": True}
    assert post(client, "Cat", game, "spectators", "nice opening").status_code == 201
    # during a rated game the players read their room only, the watchers theirs only
    assert list(rooms(client, "Ann", game)) == ["players"]
    assert texts(client, "Bob", game, "players") == ["good luck", "you too"]
    assert list(rooms(client, "Dan", game)) == ["spectators"]
    assert texts(client, "Dan", game, "spectators") == ["nice opening"]
    seen = rooms(client, "Ann", game)["players"]["messages"]
    assert [m["mine"] for m in seen] == [True, False]


def test_a_long_room_shows_its_newest_messages_oldest_first(client: TestClient,
                                                             game: str) -> None:
    storage = client.app.state.site.service.storage  # type: ignore[attr-defined]
    cat = player_id(client, "Cat")
    for n in range(SHOWN + 30):
        storage.post_chat(game, "spectators", cat, "Cat", f"m{n}", 1000 + n, ROOM_LIMIT)
    assert texts(client, "Dan", game, "spectators") == [f"m{n}" for n in range(30, SHOWN + 30)]


def test_a_stranger_neither_reads_nor_posts_in_the_players_room(client: TestClient,
                                                                game: str) -> None:
    post(client, "Ann", game, "players", "secret plan")
    refused = read(client, "Cat", game, room="players")
    assert refused.status_code == 403 and "only the two players" in refused.json()["error"]
    refused = post(client, "Cat", game, "players", "let me in")
    assert refused.status_code == 403 and "only the two players" in refused.json()["error"]
    # no cookie at all (a visitor that made no identity): a stranger too
    assert read(client, "Nobody", game, room="players").status_code == 403
    assert stored(client, game, "players") == ["secret plan"]


def test_a_player_does_not_write_to_the_watchers_during_a_rated_game(
        client: TestClient, game: str) -> None:
    refused = post(client, "Ann", game, "spectators", "hello watchers")
    assert refused.status_code == 403 and "rated game" in refused.json()["error"]
    assert stored(client, game, "spectators") == []


def test_a_guest_reads_the_watchers_room_but_does_not_write(client: TestClient,
                                                            game: str) -> None:
    post(client, "Cat", game, "spectators", "welcome")
    with visitor(client, "Guest"):  # an identity with the name the site gave
        assert client.get("/api/me").json()["guest"] is True
    view = rooms(client, "Guest", game)
    assert read(client, "Guest", game).json()["you"]["guest"] is True
    assert texts(client, "Guest", game, "spectators") == ["welcome"]
    assert view["spectators"]["can_post"] is False
    assert "guests do not write" in view["spectators"]["refusal"]
    refused = post(client, "Guest", game, "spectators", "hi")
    assert refused.status_code == 403 and "guests do not write" in refused.json()["error"]
    assert stored(client, game, "spectators") == ["welcome"]


def test_chat_is_off_in_a_game_against_the_computer(client: TestClient) -> None:
    name(client, "Ann")
    with visitor(client, "Ann"):
        made = client.post("/api/games", json={"game": "benediction", "mode": "ai"}).json()
    view = read(client, "Ann", made["id"]).json()
    assert view["enabled"] is False and view["rooms"] == []
    assert "against the computer" in view["off_reason"]
    refused = post(client, "Ann", made["id"], "players", "hello computer")
    assert refused.status_code == 403 and "against the computer" in refused.json()["error"]
    assert stored(client, made["id"], "players") == []


# ------------------------------------------------------------------ the bounds
@pytest.mark.parametrize("text,status,says", [
    ("x" * (MAX_TEXT + 1), 400, f"at most {MAX_TEXT} characters"),
    ("   \u200b ", 400, "needs some words"),
    (12, 400, "text"),
])
def test_a_bad_message_is_refused_with_its_reason_and_not_stored(
        client: TestClient, game: str, text: Any, status: int, says: str) -> None:
    refused = post(client, "Ann", game, "players", text)
    assert refused.status_code == status and says in refused.text
    assert stored(client, game, "players") == []


def test_an_unknown_room_or_game_is_named(client: TestClient, game: str) -> None:
    refused = post(client, "Ann", game, "lounge", "hi")
    assert refused.status_code == 400 and "unknown chat room" in refused.json()["error"]
    assert post(client, "Ann", "nope", "players", "hi").status_code == 404
    assert read(client, "Ann", game, room="lounge").status_code == 400


def test_beyond_the_rate_a_message_waits_with_retry_after(client: TestClient, game: str,
                                                          time_: FakeTime) -> None:
    for number in range(POSTS_PER_WINDOW):
        assert post(client, "Ann", game, "players", f"m{number}").status_code == 201
    refused = post(client, "Ann", game, "players", "one too many")
    assert refused.status_code == 429 and "too many chat messages" in refused.json()["error"]
    assert 1 <= int(refused.headers["Retry-After"]) <= 10
    assert "one too many" not in stored(client, game, "players")
    assert post(client, "Bob", game, "players", "mine is fine").status_code == 201
    time_.ms += 10_001  # the window ended
    assert post(client, "Ann", game, "players", "again").status_code == 201


def test_a_full_room_takes_no_more(client: TestClient, game: str,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hexgames.web.play.chat.ROOM_LIMIT", 2)
    assert post(client, "Ann", game, "players", "one").status_code == 201
    assert post(client, "Bob", game, "players", "two").status_code == 201
    refused = post(client, "Ann", game, "players", "three")
    assert refused.status_code == 409 and "full" in refused.json()["error"]
    assert stored(client, game, "players") == ["one", "two"]


def test_a_silenced_player_is_refused(client: TestClient, game: str, time_: FakeTime) -> None:
    storage = client.app.state.site.service.storage  # type: ignore[attr-defined]
    storage.silence_chat(player_id(client, "Ann"), int(time_.ms) + 60_000, "spam",
                         int(time_.ms))
    refused = post(client, "Ann", game, "players", "hello")
    assert refused.status_code == 409 and "silenced" in refused.json()["error"]
    assert stored(client, game, "players") == []


# ------------------------------------------------------- blocks, mute, reports
def test_a_block_hides_messages_and_stops_the_players_room(client: TestClient, game: str,
                                                           time_: FakeTime) -> None:
    storage = client.app.state.site.service.storage  # type: ignore[attr-defined]
    post(client, "Ann", game, "players", "before the block")
    post(client, "Cat", game, "spectators", "cat speaks")
    storage.set_relation(player_id(client, "Bob"), player_id(client, "Ann"), "block", True,
                         int(time_.ms))
    storage.set_relation(player_id(client, "Dan"), player_id(client, "Cat"), "block", True,
                         int(time_.ms))
    assert texts(client, "Bob", game, "players") == []  # Bob blocked Ann
    assert texts(client, "Ann", game, "players") == ["before the block"]  # her own
    assert texts(client, "Dan", game, "spectators") == []
    view = rooms(client, "Ann", game)["players"]
    assert view["can_post"] is False and "blocked" in view["refusal"]
    for who in ("Ann", "Bob"):  # either way round
        refused = post(client, who, game, "players", "hello?")
        assert refused.status_code == 403 and "blocked" in refused.json()["error"]
    assert stored(client, game, "players") == ["before the block"]


def test_a_muted_chat_shows_nothing_until_unmuted(client: TestClient, game: str) -> None:
    post(client, "Ann", game, "players", "hello")
    with visitor(client, "Bob"):
        assert client.post(f"/api/games/{game}/chat/mute", json={"on": True}).json() == {
            "muted": True}
    view = read(client, "Bob", game).json()
    assert view["muted"] is True and view["rooms"][0]["messages"] == []
    assert read(client, "Ann", game).json()["muted"] is False  # Ann's own choice
    with visitor(client, "Bob"):
        assert client.post(f"/api/games/{game}/chat/mute", json={"on": "yes"}
                           ).status_code == 400
        client.post(f"/api/games/{game}/chat/mute", json={"on": False})
    assert texts(client, "Bob", game, "players") == ["hello"]


def test_a_report_is_kept_for_the_moderators(client: TestClient, game: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "240")  # the listing's table at its full width
    post(client, "Ann", game, "players", "rude words")

    def report(who: str, room: str, seq: Any) -> Any:
        with visitor(client, who):
            return client.post(f"/api/games/{game}/chat/report",
                               json={"room": room, "seq": seq})

    assert report("Bob", "players", 1).status_code == 201
    assert report("Ann", "players", 1).status_code == 400  # her own
    assert report("Bob", "players", 9).status_code == 404
    assert report("Cat", "players", 1).status_code == 403  # a room Cat does not read
    for huge in (2**31, 10**30, 0):  # a message number out of any room's range
        assert report("Bob", "players", huge).status_code == 400
    with visitor(client, "Guest"):  # a guest (the name the site gave) does not report
        refused = client.post(f"/api/games/{game}/chat/report",
                              json={"room": "spectators", "seq": 1})
        assert refused.status_code == 403 and "guests" in refused.json()["error"]
    storage = client.app.state.site.service.storage  # type: ignore[attr-defined]
    [kept] = storage.chat_reports()
    assert (kept.text, kept.reported_id) == ("rude words", player_id(client, "Ann"))
    assert main(["moderate", "--data-dir", str(tmp_path), "reports"]) == 0
    assert "rude words" in capsys.readouterr().out


# ------------------------------------------------------------------ the socket
def receive(socket: Any, seconds: float = 10.0) -> dict[str, Any]:
    """The socket's next message, waiting at most ``seconds`` (the test client's own
    receive waits forever: a message that never comes would hang the test)."""
    async def bounded() -> Any:
        with anyio.fail_after(seconds):
            return await socket._send_rx.receive()

    message = socket.portal.call(bounded)
    socket._raise_on_close(message)
    return dict(json.loads(message["text"]))


def joined(socket: Any) -> Any:
    """The socket once the game's hub holds it (its first state is sent after it
    joined: a message posted before then is not for it)."""
    assert receive(socket)["type"] == "state"
    return socket


def chat_messages(socket: Any, count: int) -> list[dict[str, Any]]:
    """The next ``count`` chat messages on a socket (other messages skipped, bounded)."""
    found: list[dict[str, Any]] = []
    for _ in range(50):
        message = receive(socket)
        if message["type"] == "chat":
            found.append(message)
            if len(found) == count:
                return found
    raise AssertionError(f"no {count} chat messages: {found}")


def game_sockets(stack: contextlib.ExitStack, client: TestClient, game: str,
                 *names: str) -> dict[str, Any]:
    """Each named visitor's socket on the game, once the game's hub holds it."""
    sockets = {}
    for who in names:
        with visitor(client, who):
            sockets[who] = joined(stack.enter_context(
                client.websocket_connect(f"/ws/games/{game}")))
    return sockets


def test_a_muted_chat_is_sent_nothing_over_the_socket(client: TestClient, game: str) -> None:
    with contextlib.ExitStack() as stack:
        sockets = game_sockets(stack, client, game, "Cat", "Dan")
        with visitor(client, "Dan"):
            assert client.post(f"/api/games/{game}/chat/mute", json={"on": True}).status_code \
                == 200
        post(client, "Cat", game, "spectators", "while Dan muted")
        [cats] = chat_messages(sockets["Cat"], 1)
        assert cats["message"]["text"] == "while Dan muted"
        with visitor(client, "Dan"):
            client.post(f"/api/games/{game}/chat/mute", json={"on": False})
        post(client, "Cat", game, "spectators", "after")
        [dans] = chat_messages(sockets["Dan"], 1)  # the first Dan's socket got
        assert dans["message"]["text"] == "after"


def test_the_sockets_that_may_read_a_room_get_its_messages(client: TestClient,
                                                           game: str) -> None:
    with contextlib.ExitStack() as stack:
        sockets = game_sockets(stack, client, game, "Bob", "Cat")
        post(client, "Ann", game, "players", "for Bob only")
        post(client, "Dan", game, "spectators", "for the watchers")
        [bobs] = chat_messages(sockets["Bob"], 1)
        assert bobs["room"] == "players" and bobs["message"]["text"] == "for Bob only"
        [cats] = chat_messages(sockets["Cat"], 1)  # the players' message never came
        assert cats == {"type": "chat", "room": "spectators", "message": {
            "room": "spectators", "seq": 1, "player_id": player_id(client, "Dan"),
            "name": "Dan", "text": "for the watchers", "at": cats["message"]["at"]}}
        # over the socket too: a stranger cannot post in the players' room
        sockets["Cat"].send_json({"type": "chat", "room": "players", "text": "psst"})
        reply = receive(sockets["Cat"])
        while reply["type"] != "error":
            reply = receive(sockets["Cat"])
        assert "only the two players" in reply["message"]
        sockets["Cat"].send_json({"type": "chat", "room": "spectators", "text": "via socket"})
        [mine] = chat_messages(sockets["Cat"], 1)
        assert mine["message"]["text"] == "via socket"
    assert stored(client, game, "players") == ["for Bob only"]


def test_a_blocked_posters_message_is_not_pushed(client: TestClient, game: str,
                                                 time_: FakeTime) -> None:
    storage = client.app.state.site.service.storage  # type: ignore[attr-defined]
    storage.set_relation(player_id(client, "Cat"), player_id(client, "Dan"), "block", True,
                         int(time_.ms))
    name(client, "Eve")
    with contextlib.ExitStack() as stack:
        sockets = game_sockets(stack, client, game, "Cat", "Eve")
        post(client, "Dan", game, "spectators", "from Dan")
        post(client, "Eve", game, "spectators", "from Eve")
        assert [m["message"]["text"] for m in chat_messages(sockets["Eve"], 2)] == [
            "from Dan", "from Eve"]
        assert [m["message"]["text"] for m in chat_messages(sockets["Cat"], 1)] == [
            "from Eve"]


# ------------------------------------------------- two processes, one PostgreSQL
def test_a_message_posted_on_one_process_is_pushed_by_the_other(
        postgres_url: str, time_: FakeTime) -> None:
    with (TestClient(quiet_app(time_, database_url=postgres_url)) as one,
          TestClient(quiet_app(time_, database_url=postgres_url)) as two):
        game_id, _, _ = rated_game(one, REALTIME)
        with visitor(one, "Bob"):  # Bob's browser, on process two
            two.cookies = one.cookies
        with two.websocket_connect(f"/ws/games/{game_id}") as bobs:
            joined(bobs)
            assert post(one, "Ann", game_id, "players", "across processes").status_code == 201
            [pushed] = chat_messages(bobs, 1)
            assert pushed["message"]["text"] == "across processes"
            assert pushed["message"]["seq"] == 1


def test_the_game_page_loads_without_scripts_and_says_the_chat_needs_them(
        client: TestClient, game: str) -> None:
    page = client.get(f"/play/{game}")
    assert page.status_code == 200
    assert 'id="chat"' in page.text and "The chat needs scripts" in page.text
    assert '<script type="module" src="/static/js/chat.js">' in page.text
    korean = client.get(f"/play/{game}", params={"lang": "ko"}).text
    assert "채팅에는 스크립트가 필요합니다" in korean


def test_reports_are_bounded_per_identity(client: TestClient, game: str,
                                          time_: FakeTime) -> None:
    """A report keeps a copy for the moderators: at most REPORTS_PER_HOUR an hour per
    identity (counted in storage), then 429 with Retry-After; nothing more is kept."""
    from hexgames.web.play.chat import REPORTS_PER_HOUR

    for n in range(REPORTS_PER_HOUR + 1):
        post(client, "Ann", game, "players", f"message {n}")
        time_.ms += 2_000  # under the messages' own rate
    with visitor(client, "Bob"):
        answers = [client.post(f"/api/games/{game}/chat/report",
                               json={"room": "players", "seq": seq})
                   for seq in range(1, REPORTS_PER_HOUR + 2)]
    assert [a.status_code for a in answers] == [201] * REPORTS_PER_HOUR + [429]
    assert int(answers[-1].headers["retry-after"]) > 0
    storage = client.app.state.site.service.storage  # type: ignore[attr-defined]
    assert len(storage.chat_reports()) == REPORTS_PER_HOUR
