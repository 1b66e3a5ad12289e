"""Conditional moves in correspondence games (issue 32, item 6): lines checked and stored
while the opponent is to act, played by the server the moment the opponent follows them
(in the same request, under the game's lock), dropped on a deviation, kept across a
restart and between server processes, shown to their owner only, and removable.

The lines are built from the server's own preview (the legal actions of whoever acts
next in the line), never hard-coded, so every game is played through the protocol."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import test_web_storage
from hexgames.web.app import create_app
from hexgames.web.play.conditional_lines import Future, digest, future
from hexgames.web.play.conditional_moves import MAX_LINE_ACTIONS, MAX_LINES
from hexgames.web.storage import ConditionalLine

# The PostgreSQL fixtures (a throwaway cluster per session, a database per test).
postgres_cluster = test_web_storage.postgres_cluster
postgres_url = test_web_storage.postgres_url

CORRESPONDENCE = {"kind": "correspondence", "days": 3}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as test_client:
        yield test_client


def new_game(client: TestClient, game: str = "benediction", control: Any = CORRESPONDENCE,
             mode: str = "online") -> tuple[str, list[str]]:
    body = {"game": game, "mode": mode, **({"control": control} if mode == "online" else {})}
    created = client.post("/api/games", json=body)
    assert created.status_code == 201, created.text
    return created.json()["id"], created.json()["tokens"]


def preview(client: TestClient, game_id: str, token: str, line: list[str]) -> dict[str, Any]:
    answer = client.post(f"/api/games/{game_id}/conditional/preview",
                         json={"token": token, "line": line})
    assert answer.status_code == 200, answer.text
    return answer.json()


def line_of(client: TestClient, game_id: str, token: str, turns: int, choice: int = 0,
            prefix: list[str] | None = None) -> list[str]:
    """A line of ``turns`` whole turns from the position (after ``prefix``), each action
    the ``choice``-th legal one the preview offers (clicked ones first)."""
    line = list(prefix or [])
    while True:
        shown = preview(client, game_id, token, line)
        done = len(shown["turns"]) - (0 if shown["turn_start"] else 1)
        if done >= turns:
            return line
        clicked = [entry for entry in shown["legal"] if entry["points"]] or shown["legal"]
        line.append(clicked[choice % len(clicked)]["action"])


def play(client: TestClient, game_id: str, token: str, actions: list[str]) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for action in actions:
        answer = client.post(f"/api/games/{game_id}/actions",
                             json={"token": token, "action": action})
        assert answer.status_code == 200, answer.text
        state = answer.json()
    return state


def lines_of(client: TestClient, game_id: str, token: str) -> dict[str, Any]:
    answer = client.get(f"/api/games/{game_id}/conditional", params={"token": token})
    assert answer.status_code == 200, answer.text
    return answer.json()


def store(client: TestClient, game_id: str, token: str, line: list[str]) -> Any:
    return client.post(f"/api/games/{game_id}/conditional", json={"token": token, "line": line})


def notations(state: dict[str, Any]) -> list[str]:
    return [entry["notation"] for entry in state["history"]]


@pytest.mark.parametrize("game", ["benediction", "dendria"])
def test_a_line_plays_its_reply_when_the_opponent_follows_it(client: TestClient,
                                                              game: str) -> None:
    game_id, (red, blue) = new_game(client, game)
    line = line_of(client, game_id, blue, 2)
    stored = store(client, game_id, blue, line)
    assert stored.status_code == 201, stored.text
    shown = stored.json()["line"]
    assert [turn["yours"] for turn in shown["turns"]] == [False, True]
    expected = shown["turns"][0]["actions"]
    reply = shown["turns"][1]["actions"]
    assert expected + reply == line
    # Nobody else sees it: not the opponent, not a spectator.
    assert lines_of(client, game_id, red)["lines"] == []
    assert client.get(f"/api/games/{game_id}/conditional").status_code == 403

    # The opponent plays the expected turn: the answer to its last action already holds
    # the reply, stored and played for the other seat, and it is the opponent's turn again.
    state = play(client, game_id, red, expected)
    assert notations(state) == expected + reply
    assert [entry["seat"] for entry in state["history"]] == \
        [0] * len(expected) + [1] * len(reply)
    assert state["current_seat"] == 0 and state["turn_start"]
    assert state["your_turn"] and state["legal"]  # red's view: its turn, with its actions
    assert state["clock"]["running"] == 0  # the clock switched back after the reply
    assert lines_of(client, game_id, blue)["lines"] == []  # followed to its end
    again = client.get(f"/api/games/{game_id}").json()
    assert notations(again) == expected + reply


def test_a_deviation_drops_the_line_and_nothing_is_played(client: TestClient) -> None:
    game_id, (red, blue) = new_game(client)
    line = line_of(client, game_id, blue, 2)
    assert store(client, game_id, blue, line).status_code == 201
    other = next(entry["action"] for entry in preview(client, game_id, blue, [])["legal"]
                 if entry["action"] != line[0])
    state = play(client, game_id, red, [other])  # Benediction's first turn: one action
    assert notations(state) == [other]
    assert state["current_seat"] == 1  # blue to act: nothing was played for it
    assert lines_of(client, game_id, blue)["lines"] == []


def test_a_longer_line_advances_turn_by_turn(client: TestClient) -> None:
    game_id, (red, blue) = new_game(client, "dendria")
    line = line_of(client, game_id, blue, 4, choice=3)
    turns = store(client, game_id, blue, line).json()["line"]["turns"]
    first, reply, second, last = (turn["actions"] for turn in turns)
    play(client, game_id, red, first)
    left = lines_of(client, game_id, blue)["lines"]
    assert len(left) == 1 and left[0]["followed"] == 2
    assert [turn["actions"] for turn in left[0]["turns"]] == [second, last]
    state = play(client, game_id, red, second)
    assert notations(state) == first + reply + second + last
    assert lines_of(client, game_id, blue)["lines"] == []


def test_several_lines_form_a_tree(client: TestClient) -> None:
    game_id, (red, blue) = new_game(client)
    one = line_of(client, game_id, blue, 2, choice=0)
    two = line_of(client, game_id, blue, 2, choice=1)  # another expected turn
    assert one[0] != two[0]
    assert store(client, game_id, blue, one).status_code == 201
    assert store(client, game_id, blue, two).status_code == 201
    # The same expected turn answered differently: refused, naming why.
    other_reply = line_of(client, game_id, blue, 2, choice=5, prefix=one[:1])
    assert other_reply[1:] != one[1:]
    refused = store(client, game_id, blue, other_reply)
    assert refused.status_code == 409 and "differently" in refused.json()["error"]
    again = store(client, game_id, blue, one)
    assert again.status_code == 409 and "already have this line" in again.json()["error"]
    # A line that goes further than a stored one replaces it.
    longer = line_of(client, game_id, blue, 4, prefix=one)
    extended = store(client, game_id, blue, longer)
    assert extended.status_code == 201
    assert len(extended.json()["replaced"]) == 1
    assert len(lines_of(client, game_id, blue)["lines"]) == 2
    # The opponent follows the second line: its reply is played, the other line drops.
    play(client, game_id, red, two[:1])
    assert notations(client.get(f"/api/games/{game_id}").json()) == two
    assert lines_of(client, game_id, blue)["lines"] == []


def test_lines_are_checked_when_stored_with_clear_refusals(client: TestClient) -> None:
    game_id, (red, blue) = new_game(client)
    whole = line_of(client, game_id, blue, 2)  # Benediction: red 1 action, blue 2
    expected_only = whole[:1]
    half_reply = whole[:2]
    cases: list[tuple[str | None, Any, int, str]] = [
        (red, whole, 409, "it is your turn"),
        (None, whole, 403, "holds no seat"),
        ("forged", whole, 403, "holds no seat"),
        (blue, [], 400, "the line is empty"),
        (blue, "e3e4", 400, "line"),
        (blue, [1, 2], 400, "line"),
        (blue, ["zz9"] * (MAX_LINE_ACTIONS + 1), 400, "at most 40"),
        (blue, ["x" * 300, "e3e4"], 400, "over 200 characters"),
        (blue, ["zz9", *whole[1:]], 409, "action 1 of the line ('zz9')"),
        (blue, [whole[0], whole[0]], 409, "action 2 of the line"),
        (blue, expected_only, 409, "add your reply"),
        (blue, half_reply, 409, "finish your turn"),
    ]
    for token, line, status, words in cases:
        answer = client.post(f"/api/games/{game_id}/conditional",
                             json={"token": token, "line": line})
        assert answer.status_code == status, (line, answer.text)
        assert words in answer.json()["error"], (line, answer.json())
    assert lines_of(client, game_id, blue)["lines"] == []
    assert client.post("/api/games/nope/conditional",
                       json={"token": blue, "line": whole}).status_code == 404

    # Games that take no lines: real time (premoves instead), untimed is fine, not online.
    realtime, tokens = new_game(client, control={"kind": "realtime", "base_s": 300,
                                                 "increment_s": 2})
    refused = store(client, realtime, tokens[1], whole)
    assert refused.status_code == 409 and "correspondence" in refused.json()["error"]
    assert not lines_of(client, realtime, tokens[1])["can_add"]
    untimed, tokens = new_game(client, control=None)
    assert store(client, untimed, tokens[1], whole).status_code == 201
    hotseat, tokens = new_game(client, mode="hotseat")
    refused = store(client, hotseat, tokens[0], whole)
    assert refused.status_code == 409 and "online games" in refused.json()["error"]


def test_lines_are_bounded_and_removable_by_their_owner_only(client: TestClient) -> None:
    game_id, (red, blue) = new_game(client, "dendria")
    starts = [entry["action"] for entry in preview(client, game_id, blue, [])["legal"]]
    ids = []
    for number in range(MAX_LINES):
        line = line_of(client, game_id, blue, 2, prefix=[starts[number]])
        answer = store(client, game_id, blue, line)
        assert answer.status_code == 201, answer.text
        ids.append(answer.json()["line"]["id"])
    full = store(client, game_id, blue, line_of(client, game_id, blue, 2,
                                                prefix=[starts[MAX_LINES]]))
    assert full.status_code == 409 and f"{MAX_LINES} lines" in full.json()["error"]
    assert len(lines_of(client, game_id, blue)["lines"]) == MAX_LINES

    url = f"/api/games/{game_id}/conditional/{ids[0]}"
    assert client.delete(url, params={"token": red}).status_code == 404  # not red's
    assert client.delete(url).status_code == 403
    removed = client.delete(url, params={"token": blue})
    assert removed.status_code == 200
    assert ids[0] not in [line["id"] for line in removed.json()["lines"]]
    assert client.delete(url, params={"token": blue}).status_code == 404  # gone
    assert store(client, game_id, blue, line_of(
        client, game_id, blue, 2, prefix=[starts[MAX_LINES]])).status_code == 201


def test_lines_survive_a_restart(tmp_path: Path) -> None:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        game_id, (red, blue) = new_game(client)
        line = line_of(client, game_id, blue, 2)
        assert store(client, game_id, blue, line).status_code == 201
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        assert len(lines_of(client, game_id, blue)["lines"]) == 1
        state = play(client, game_id, red, line[:1])
        assert notations(state) == line


def test_a_reply_that_loses_a_race_leaves_the_stored_game_as_it_is(tmp_path: Path) -> None:
    """Another writer stores the reply's ply first (another server process): the
    opponent's action stands, the reply is not stored, and the game shows what is."""
    app = create_app(data_dir=tmp_path, ai_processes=1)
    with TestClient(app) as client:
        game_id, (red, blue) = new_game(client)
        line = line_of(client, game_id, blue, 2)
        assert store(client, game_id, blue, line).status_code == 201
        other = next(entry["action"] for entry in preview(client, game_id, blue, line[:1])
                     ["legal"] if entry["action"] != line[1])
        service = app.state.site.service
        save = service.games.save_or_take_back

        async def racing(match: Any, first: int, notation: str, *rest: Any) -> None:
            if first == 1:  # the reply's first action: someone else stored that ply
                service.storage.append_actions(game_id, 1, [other], "2026-01-01T00:00:00")
            await save(match, first, notation, *rest)

        service.games.save_or_take_back = racing
        answer = client.post(f"/api/games/{game_id}/actions",
                             json={"token": red, "action": line[0]})
        assert answer.status_code == 200, answer.text
        assert service.storage.load_game(game_id).actions == [line[0], other]
        assert notations(client.get(f"/api/games/{game_id}").json()) == [line[0], other]


def test_two_processes_on_postgresql_share_the_lines(postgres_url: str,
                                                     tmp_path: Path) -> None:
    """The line is stored through one server process and followed through another: the
    process that stores the opponent's action plays the reply."""
    with (TestClient(create_app(data_dir=tmp_path / "a", database_url=postgres_url,
                                ai_processes=1)) as one,
          TestClient(create_app(data_dir=tmp_path / "b", database_url=postgres_url,
                                ai_processes=1)) as two):
        game_id, (red, blue) = new_game(one)
        line = line_of(one, game_id, blue, 2)
        assert store(one, game_id, blue, line).status_code == 201
        assert len(lines_of(two, game_id, blue)["lines"]) == 1
        state = play(two, game_id, red, line[:1])
        assert notations(state) == line
        assert lines_of(one, game_id, blue)["lines"] == []


def test_how_far_a_line_was_followed_is_read_from_the_game() -> None:
    """``future``: what is left of a line after the game's actions; a deviation, or a
    takeback under the line (the actions before it changed), leaves nothing."""
    before = ["a1", "end"]
    line = ConditionalLine(id="x", game_id="g", seat=1, ply=2, digest=digest(before),
                           turns=(("b1", "end"), ("c1", "end"), ("d1", "end"), ("e1", "end")),
                           created_at="")
    assert future(line, before) == Future(line.turns, 0, 0)
    assert future(line, [*before, "b1"]) == Future((("end",), *line.turns[1:]), 0, 1)
    followed = future(line, [*before, "b1", "end"])
    assert followed == Future(line.turns[1:], 1, 0) and followed.due()
    assert not future(line, [*before, "b1"]).due()
    assert future(line, [*before, "b1", "end", "c1", "end", "d1", "end", "e1", "end"]) \
        == Future((), 4, 0)
    assert future(line, [*before, "b2"]) is None  # a deviation
    assert future(line, ["a2", "end", "b1", "end"]) is None  # another game before it
    assert future(line, ["a1"]) is None  # taken back under it


backend = test_web_storage.backend


def test_the_storage_stores_a_line_only_where_its_owner_saw_the_game(
        backend: tuple[str, dict[str, Any]]) -> None:
    """Both backends: a line is stored only at the game's stored length and while it is
    played, at most ``limit`` per seat (the replaced lines' deletion undone when full),
    and deleted by id, by seat or all at once."""
    from hexgames.web.storage import StoredGame, open_storage

    storage = open_storage(**backend[1])
    stamp = "2026-01-01T00:00:00+00:00"
    try:
        storage.create_game(StoredGame(
            id="g1", game="dendria", options={}, mode="online",
            players=[{"kind": "human"}, {"kind": "human"}], seat_tokens=["a", "b"],
            status="playing", winner=None, reason=None, created_at=stamp, updated_at=stamp,
            actions=["a1", "end"]))

        def line(line_id: str, ply: int = 2, seat: int = 0) -> ConditionalLine:
            return ConditionalLine(id=line_id, game_id="g1", seat=seat, ply=ply, digest="d",
                                   turns=(("b1", "end"), ("c1", "end")), created_at=stamp)

        assert storage.add_conditional_line(line("x", ply=1), 2) == "moved"
        assert storage.add_conditional_line(line("one"), 2) == "stored"
        assert storage.add_conditional_line(line("two"), 2) == "stored"
        assert storage.add_conditional_line(line("other", seat=1), 2) == "stored"
        assert storage.add_conditional_line(line("three"), 2, replaces=["nope"]) == "full"
        assert storage.add_conditional_line(line("three"), 2, replaces=["one"]) == "stored"
        stored = storage.conditional_lines("g1")
        assert sorted(item.id for item in stored) == ["other", "three", "two"]
        assert stored[0].turns == (("b1", "end"), ("c1", "end"))
        assert storage.delete_conditional_lines("g1", ["two"], seat=1) == 0  # not seat 1's
        assert storage.delete_conditional_lines("g1", ["two"], seat=0) == 1
        assert storage.delete_conditional_lines("g1", seat=1) == 1
        storage.append_actions("g1", 2, ["b1"], stamp)
        assert storage.add_conditional_line(line("four"), 5) == "moved"  # the game moved on
        storage.finish_game("g1", "dark", "resigned", stamp)
        assert storage.add_conditional_line(line("five", ply=3), 5) == "moved"  # over
        assert [item.id for item in storage.conditional_lines("g1")] == ["three"]
        assert storage.delete_conditional_lines("g1") == 1
    finally:
        storage.close()
