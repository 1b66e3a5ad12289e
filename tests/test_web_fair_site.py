"""One fair site on every process (issue 39, rows 1, 2, 3, 7 and 13): no seat locked out
by the other seat's sockets, absence claims decided on fresh evidence in storage (a move
and a claim at once: exactly one wins), no engine help at a live game's position on any
route (the computer's moves included) with openings and finished games open, and clocks
that stand still while the storage cannot take moves.

Each test failed on the code before these fixes. Time is injected where clocks matter;
the waits are bounded."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

import test_web_absence
import test_web_storage
from hexgames.web.game.clocks import Clock
from hexgames.web.play.hub import MAX_PER_SEAT, REPLACED_CODE
from hexgames.web.play.live_positions import FOLLOW_PLIES, OPENING_PLIES
from hexgames.web.storage import GameMeta, StaleWrite, open_storage
from test_web_absence import REALTIME, claim, held, rated_game
from test_web_accounts_hardening import browser, each_side_moves, named, online_game
from test_web_lobby import FakeTime, play_turn, state
from test_web_pools import quiet_app

backend = test_web_storage.backend
postgres_cluster = test_web_storage.postgres_cluster
postgres_url = test_web_storage.postgres_url


time_ = test_web_absence.time_
client = test_web_absence.client


def opened_game(client: TestClient) -> tuple[str, str, str]:
    """A rated 3+2 game between Ann (red) and Bob (blue) after a turn each (no abort
    any more): its id and both tokens; Red is to move."""
    game_id, red, blue = rated_game(client, REALTIME)
    play_turn(client, game_id, red)
    play_turn(client, game_id, blue)
    return game_id, red, blue


def socket_url(game_id: str, token: str | None = None) -> str:
    return f"/ws/games/{game_id}" + (f"?token={token}" if token else "")


def first_state(socket: Any) -> dict[str, Any]:
    message = socket.receive_json()
    assert message["type"] == "state", message
    return message


def read_until_closed(socket: Any) -> tuple[list[dict[str, Any]], int]:
    """The messages a socket gets until the server closes it, and the close code."""
    messages = []
    try:
        for _ in range(50):
            messages.append(socket.receive_json())
    except WebSocketDisconnect as closed:
        return messages, closed.code
    raise AssertionError(f"the socket was not closed: {messages[-3:]}")


# ------------------------------------------------------------------- row 1
def test_a_seat_holder_is_never_locked_out_by_the_other_seats_sockets(
        client: TestClient, time_: FakeTime) -> None:
    """Blue fills the game with sockets of his own seat (the game's cap lowered, as 63
    sockets from 3 addresses filled 64 before), Red's connection blips: Red is let in,
    Blue keeps only his newest ``MAX_PER_SEAT`` sockets, and his claim is refused."""
    service = client.app.state.site.service
    service.hub.max_per_game = MAX_PER_SEAT + 4
    game_id, red, blue = opened_game(client)
    with contextlib.ExitStack() as stack:
        blues = []
        for _ in range(service.hub.max_per_game):
            socket = stack.enter_context(client.websocket_connect(socket_url(game_id, blue)))
            first_state(socket)
            blues.append(socket)
        assert service.hub.watchers(game_id) == MAX_PER_SEAT
        messages, code = read_until_closed(blues[0])  # the oldest: replaced, not retried
        assert code == REPLACED_CODE
        assert "another tab" in messages[-1]["message"]
        time_.ms += 60_000  # Red had gone: a claim would be accepted now
        with client.websocket_connect(socket_url(game_id, red)) as back:
            assert first_state(back)["your_seats"] == [0]
            refused = claim(client, game_id, blue)
            assert refused.status_code == 409 and "connected" in refused.json()["error"]
            assert service.hub.watchers(game_id) == MAX_PER_SEAT + 1


def test_a_full_game_makes_room_for_a_player_but_not_for_a_viewer(
        client: TestClient) -> None:
    service = client.app.state.site.service
    service.hub.max_per_game = 3
    game_id, red, blue = rated_game(client, REALTIME)
    with (client.websocket_connect(socket_url(game_id, blue)) as mine,
          client.websocket_connect(socket_url(game_id)) as one,
          client.websocket_connect(socket_url(game_id)) as two):
        for socket in (mine, one, two):
            first_state(socket)
        with client.websocket_connect(socket_url(game_id)) as refused:
            assert "viewers" in refused.receive_json()["message"]
        with client.websocket_connect(socket_url(game_id, red)) as player:
            assert first_state(player)["your_seats"] == [0]
            messages, code = read_until_closed(one)  # the oldest viewer made room
            assert code == 1013 and "needed this place" in messages[-1]["message"]


# ------------------------------------------------------------------- row 2
@pytest.fixture
def two_processes(postgres_url: str, time_: FakeTime) -> Iterator[tuple[TestClient, TestClient]]:
    with (TestClient(quiet_app(time_, database_url=postgres_url)) as one,
          TestClient(quiet_app(time_, database_url=postgres_url)) as two):
        yield one, two


def gone_everywhere(one: TestClient, two: TestClient, game_id: str) -> None:
    """Both processes have run their presence beat and hold the current game."""
    for process in (one, two):
        process.portal.call(process.app.state.site.service.absence.beat)
        process.portal.call(process.app.state.site.service.refresh, game_id)


def test_a_player_back_on_another_process_is_seen_by_a_claim_at_once(
        two_processes: tuple[TestClient, TestClient], time_: FakeTime) -> None:
    """Red comes back on process two; Blue claims on process one before any presence
    beat: the claim reads Red's arrival from storage and is refused."""
    one, two = two_processes
    game_id, red, blue = opened_game(one)
    with one.websocket_connect(socket_url(game_id, blue)):
        time_.ms += 60_000
        gone_everywhere(one, two, game_id)
        assert 0 in held(one, game_id).gone
        with two.websocket_connect(socket_url(game_id, red)) as back:
            first_state(back)
            time_.ms += 300
            refused = claim(one, game_id, blue)
            assert refused.status_code == 409, refused.text
            assert "gone 0 s" in refused.json()["error"]


def test_an_action_stored_by_another_process_is_presence_for_a_claim(
        two_processes: tuple[TestClient, TestClient], time_: FakeTime) -> None:
    """Red, gone a minute, moves over HTTP on process two; process one already holds the
    new position (its change feed), and Blue claims there a second later: refused, the
    action's presence was stored with it."""
    one, two = two_processes
    game_id, red, blue = opened_game(one)
    time_.ms += 60_000
    gone_everywhere(one, two, game_id)
    play_turn(two, game_id, red)
    one.portal.call(one.app.state.site.service.refresh, game_id)
    time_.ms += 1_000
    refused = claim(one, game_id, blue)
    assert refused.status_code == 409, refused.text
    assert "gone 1 s" in refused.json()["error"]


def test_a_move_and_a_claim_at_the_same_instant_exactly_one_wins(
        two_processes: tuple[TestClient, TestClient], time_: FakeTime) -> None:
    """Red's move on process two and Blue's claim on process one, sent together (from
    two threads), three times: exactly one is accepted each time, and storage agrees."""
    one, two = two_processes
    for _ in range(3):
        game_id, red, blue = opened_game(one)
        time_.ms += 60_000
        gone_everywhere(one, two, game_id)
        action = state(two, game_id, red)["legal"][0]["action"]
        plies = len(held(one, game_id).plies)
        with ThreadPoolExecutor(2) as pool:
            moved = pool.submit(two.post, f"/api/games/{game_id}/actions",
                                json={"token": red, "action": action})
            claimed = pool.submit(claim, one, game_id, blue)
            answers = (moved.result(timeout=60), claimed.result(timeout=60))
        assert sorted(answer.status_code == 200 for answer in answers) == [False, True], [
            answer.text for answer in answers]
        stored = one.app.state.site.service.storage.load_game(game_id)
        if answers[1].status_code == 200:  # the claim won: the action was not stored
            assert (stored.status, stored.reason) == ("over", "Red left the game")
            assert len(stored.actions) == plies and answers[0].status_code == 409
        else:
            assert stored.status == "playing" and len(stored.actions) == plies + 1
            assert answers[1].status_code == 409


def test_storage_lets_either_an_end_or_an_action_through_never_both(
        backend: tuple[str, dict]) -> None:
    storage = open_storage(**backend[1])
    try:
        storage.create_game(test_web_storage._game("claimed"))
        version = storage.load_game("claimed").version
        assert storage.end_if_playing("claimed", "red", "Blue left the game", GameMeta(), "t",
                                      version)
        with pytest.raises(StaleWrite):  # the end came first: the action is too late
            storage.append_actions("claimed", 0, ["e3e4"], "t")
        assert storage.load_game("claimed").actions == []
        storage.create_game(test_web_storage._game("moved"))
        version = storage.load_game("moved").version
        storage.append_actions("moved", 0, ["e3e4"], "t", (1, 1234))
        assert storage.presence(["moved"]) == {"moved": {1: 1234}}  # with the action
        # The action came first: an end judged on the version before it is refused.
        assert not storage.end_if_playing("moved", "red", "Blue left the game", GameMeta(), "t",
                                          version)
    finally:
        storage.close()


# -------------------------------------------------------------- rows 3, 13
def live_line(app: Any) -> tuple[str, list[str], list[str], TestClient]:
    """An online Dendria game past its opening, at a turn start: its id, its actions,
    the seat tokens and a stranger's client."""
    ann, bob = named(app, "Ann"), named(app, "Bob")
    game_id, tokens = online_game(ann, bob, rated=False)
    each_side_moves(ann, game_id, tokens, OPENING_PLIES)
    line = [entry["notation"] for entry in
            ann.get(f"/api/games/{game_id}").json()["history"]]
    return game_id, line, tokens, browser(app)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Any]:
    from hexgames.web.app import create_app

    application = create_app(data_dir=tmp_path, ai_processes=1)
    with TestClient(application):
        yield application


def test_the_computer_does_not_answer_a_live_position_played_into_its_game(app: Any) -> None:
    """A game against the computer from the live game's position one turn earlier; the
    opponent's real last turn is played into it: the computer will not move."""
    game_id, line, _tokens, stranger = live_line(app)
    plies = app.state.site.service.games.matches[game_id].plies
    last_turn = max(index for index, ply in enumerate(plies) if ply.turn_start)
    earlier = stranger.post("/api/analysis/position", json={
        "game": "dendria", "actions": line[:last_turn]}).json()["text"]
    for seat in (0, 1):  # the seat to move at that position is the human's
        made = stranger.post("/api/games", json={"game": "dendria", "mode": "ai",
                                                 "start": earlier, "seat": seat, "level": 1})
        assert made.status_code == 201, made.text
        ai_game, token = made.json()["id"], made.json()["token"]
        if stranger.get(f"/api/games/{ai_game}", params={"token": token}).json()["your_turn"]:
            break
    else:
        raise AssertionError("no seat to move at the earlier position")
    for action in line[last_turn:]:
        played = stranger.post(f"/api/games/{ai_game}/actions",
                               json={"token": token, "action": action})
        assert played.status_code == 200, played.text
    deadline = time.monotonic() + 60
    while not (view := stranger.get(f"/api/games/{ai_game}",
                                     params={"token": token}).json())["ai_error"]:
        assert len(view["history"]) == len(line) - last_turn, "the computer answered"
        assert time.monotonic() < deadline, "neither a move nor a refusal in 60 s"
        time.sleep(0.05)
    assert "being played" in view["ai_error"] and len(view["history"]) == len(line) - last_turn


def test_finished_lines_and_openings_stay_open_to_the_engine(app: Any) -> None:
    """A line through a live game's position is closed there and just after, open
    everywhere else; a live game's opening is open (issue 39, row 13)."""
    _game_id, line, _tokens, stranger = live_line(app)
    position = stranger.post("/api/analysis/position",
                             json={"game": "dendria", "actions": line}).json()
    longer = list(line)
    for _ in range(FOLLOW_PLIES + 2):  # a game that went on from the live position
        longer.append(position["legal"][0]["action"])
        position = stranger.post("/api/analysis/position",
                                 json={"game": "dendria", "actions": longer}).json()

    def evaluate(actions: list[str]) -> int:
        return stranger.post("/api/analysis/evaluate", json={
            "game": "dendria", "actions": actions, "depth": 0}).status_code

    def graph(first: int, count: int) -> int:
        return stranger.post("/api/analysis/graph", json={
            "game": "dendria", "actions": longer, "first": first, "count": count}).status_code

    assert evaluate(line) == 403
    assert evaluate(longer[:len(line) + FOLLOW_PLIES]) == 403
    assert evaluate(longer) == 200  # further on: open (refused before)
    assert evaluate(line[:OPENING_PLIES - 1]) == 200
    assert graph(0, len(line) - FOLLOW_PLIES) == 200
    assert graph(len(line) + FOLLOW_PLIES + 1, 1) == 200
    assert graph(len(line) - 1, 3) == 403
    # A live game still in its opening closes nothing (its first action, say).
    ciro = named(app, "Ciro")
    opening, seats = online_game(ciro, named(app, "Dina"), rated=False)
    first = state(ciro, opening, seats[0])["legal"][0]["action"]
    played = ciro.post(f"/api/games/{opening}/actions", json={"token": seats[0], "action": first})
    assert played.status_code == 200, played.text
    app.state.site.service.live_positions._read_at = -1e9  # the list of live games is re-read now
    assert evaluate([first]) == 200


# ------------------------------------------------------------------- row 7
@pytest.fixture
def own_cluster() -> Iterator[Path]:
    """A PostgreSQL cluster of this test's own, which it may stop and start."""
    from test_web_storage import _pg_missing_reason, start_cluster, stop_cluster

    reason = _pg_missing_reason()
    if reason:
        pytest.skip(reason)
    root = Path(tempfile.mkdtemp(prefix="hexgames-pg-own-"))
    try:
        start_cluster(root)
        yield root
    finally:
        stop_cluster(root)
        shutil.rmtree(root, ignore_errors=True)


def test_the_clock_stands_still_while_storage_cannot_take_moves(
        own_cluster: Path, time_: FakeTime) -> None:
    """PostgreSQL stops for 10 s (injected time) while Red is to move: Red's moves are
    answered 503; once it is back, Red's clock is charged her thinking time only, and a
    flag that would have fallen in the outage does not."""
    import psycopg

    from test_web_storage import start_cluster, stop_cluster

    with psycopg.connect(f"postgresql://postgres@/postgres?host={own_cluster}",
                         autocommit=True) as connection:
        connection.execute('CREATE DATABASE "fair"')
    url = f"postgresql://postgres@/fair?host={own_cluster}"
    control = {"kind": "realtime", "base_s": 60, "increment_s": 0}
    with TestClient(quiet_app(time_, database_url=url)) as client:
        service = client.app.state.site.service
        service.storage_timeout = 3.0
        game_id, red, blue = rated_game(client, control)
        play_turn(client, game_id, red)
        play_turn(client, game_id, blue)
        before = state(client, game_id, red)["clock"]["left_ms"][0]
        time_.ms += 1_000  # Red thinks a second
        action = state(client, game_id, red)["legal"][0]["action"]
        stop_cluster(own_cluster, "fast")
        try:
            failed = client.post(f"/api/games/{game_id}/actions",
                                 json={"token": red, "action": action})
            assert failed.status_code == 503, failed.text
            time_.ms += 70_000  # longer than Red's whole clock
            assert client.portal.call(service.clocks.check_clocks) == []  # no flag fall
        finally:
            start_cluster(own_cluster)
        deadline = time.monotonic() + 60
        while (moved := client.post(f"/api/games/{game_id}/actions",
                                    json={"token": red, "action": action})).status_code == 503:
            assert time.monotonic() < deadline, moved.text
            time.sleep(0.2)
        assert moved.status_code == 200, moved.text
        view = state(client, game_id, red)
        assert not view["is_over"]
        assert view["clock"]["left_ms"][0] == before - 1_000
        # Stored too (another process, or a restart, reads the same clock).
        client.portal.call(service.clocks.credit_storage_outage)
        stored = Clock.from_dict(service.storage.load_game(game_id).meta.clock)
        assert stored.left(0, time_.ms) == before - 1_000
