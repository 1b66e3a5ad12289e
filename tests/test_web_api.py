"""The web app's HTTP API: creating, playing, undoing, resigning, records, restarts and
errors. Every bad input must get a clear 4xx and change nothing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hexgames.game import Option, get_game
from hexgames.web.app import create_app

GAMES = ["benediction", "dendria"]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as test_client:
        yield test_client


def new_game(client: TestClient, game: str = "benediction", **body: Any) -> tuple[str, str]:
    response = client.post("/api/games", json={"game": game, **body})
    assert response.status_code == 201, response.text
    data = response.json()
    return data["id"], data["token"]


def state(client: TestClient, game_id: str, token: str | None = None) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}", params={"token": token} if token else {})
    assert response.status_code == 200, response.text
    return response.json()


def play(client: TestClient, game_id: str, token: str | None, action: str, **extra: Any):
    return client.post(f"/api/games/{game_id}/actions",
                       json={"token": token, "action": action, **extra})


def wait_for(client: TestClient, game_id: str, token: str, done, timeout: float = 60.0):
    """Poll until ``done(state)``: the AI moves in a worker process, not in the request."""
    deadline = time.monotonic() + timeout
    while True:
        current = state(client, game_id, token)
        if done(current):
            return current
        assert time.monotonic() < deadline, f"timed out; last state: {current['history']}"
        time.sleep(0.1)


def play_first_legal(client: TestClient, game_id: str, token: str, count: int) -> dict[str, Any]:
    for _ in range(count):
        current = state(client, game_id, token)
        assert current["legal"], "expected legal actions for the seat to move"
        response = play(client, game_id, token, current["legal"][0]["action"], ply=current["ply"])
        assert response.status_code == 200, response.text
    return response.json()


def test_catalog_describes_every_game_and_its_options(client: TestClient) -> None:
    catalog = client.get("/api/catalog").json()
    by_name = {game["name"]: game for game in catalog["games"]}
    assert sorted(by_name) == sorted(GAMES)
    for name in GAMES:
        game = get_game(name)
        assert by_name[name]["colors"] == list(game.colors)
        assert [o["name"] for o in by_name[name]["options"]] == [o.name for o in game.options]
        assert "data-point" in by_name[name]["preview_svg"]
    assert [level["level"] for level in catalog["levels"]] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("game", GAMES)
def test_hotseat_game_plays_legal_actions_and_groups_turns(client: TestClient, game: str) -> None:
    game_id, token = new_game(client, game, mode="hotseat")
    start = state(client, game_id, token)
    assert start["your_seats"] == [0, 1] and start["your_turn"]
    for entry in start["legal"]:
        assert set(entry) == {"action", "tool", "points", "paths", "label"}
        assert entry["paths"][0] == entry["points"]
    after = play_first_legal(client, game_id, token, 4)
    assert [ply["notation"] for ply in after["history"]] != []
    assert len(after["history"]) == 4
    assert after["history"][0]["turn_start"] is True
    assert after["history"][0]["seat"] == 0
    assert after["svg"].lstrip().startswith("<svg")


def test_illegal_malformed_and_stale_actions_change_nothing(client: TestClient) -> None:
    game_id, token = new_game(client, mode="hotseat")
    before = state(client, game_id, token)
    legal = {entry["action"] for entry in before["legal"]}
    cases = ["zz", "", "e5e5", "@a1"]
    for text in cases:
        assert text not in legal
        response = play(client, game_id, token, text)
        assert 400 <= response.status_code < 500, (text, response.text)
        assert response.json()["error"]
    stale = play(client, game_id, token, before["legal"][0]["action"], ply=before["ply"] + 3)
    assert stale.status_code == 409 and "changed" in stale.json()["error"]
    after = state(client, game_id, token)
    assert after["history"] == before["history"] and after["svg"] == before["svg"]


def test_seat_tokens_decide_who_may_act(client: TestClient) -> None:
    response = client.post("/api/games", json={"game": "benediction", "mode": "online"})
    data = response.json()
    game_id, (first, second) = data["id"], data["tokens"]
    assert first != second and data["links"]["seats"][1].endswith(second)
    first_state = state(client, game_id, first)
    action = first_state["legal"][0]["action"]
    # Seat 1's token cannot play seat 0's turn, a spectator cannot play at all.
    out_of_turn = play(client, game_id, second, action)
    assert out_of_turn.status_code == 409 and "not your turn" in out_of_turn.json()["error"]
    assert state(client, game_id, second)["legal"] == []
    for bad in (None, "forged-token", "jeton-volé-✓", first + "x"):
        refused = play(client, game_id, bad, action)
        assert refused.status_code == 403
    spectator = state(client, game_id)
    assert spectator["role"] == "spectator" and spectator["legal"] == []
    assert state(client, game_id, first)["history"] == []
    assert play(client, game_id, first, action).status_code == 200


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": "benediction", "mode": "solo"}, "unknown mode"),
        ({"game": "benediction", "seat": 2}, "seat must be 0 or 1"),
        ({"game": "benediction", "mode": "ai", "level": 9}, "level must be 1 to 5"),
        ({"game": "benediction", "options": {"colour": 3}}, "has no option 'colour'"),
        ({"mode": "ai"}, "game"),
        ({"game": "benediction", "options": "side=5"}, "options"),
    ],
)
def test_bad_new_game_requests_are_refused_clearly(
    client: TestClient, body: dict[str, Any], fragment: str
) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert fragment in response.json()["error"]
    assert client.get("/api/games").json()["games"] == []


@pytest.mark.parametrize("game", GAMES)
def test_out_of_range_and_mistyped_options_name_the_option(client: TestClient, game: str) -> None:
    option: Option = next(o for o in get_game(game).options if o.kind == "int")
    too_big = (option.maximum or 10**6) + 1
    response = client.post("/api/games", json={"game": game, "options": {option.name: too_big}})
    assert response.status_code == 400 and option.name in response.json()["error"]
    response = client.post("/api/games", json={"game": game, "options": {option.name: "many"}})
    assert response.status_code == 400 and option.name in response.json()["error"]


def test_malformed_json_is_a_400_not_a_500(client: TestClient) -> None:
    response = client.post("/api/games", content=b"{not json",
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert "bad request" in response.json()["error"]


def test_unknown_game_ids_are_404_everywhere(client: TestClient) -> None:
    for method, path, body in [
        ("GET", "/api/games/nope", None),
        ("POST", "/api/games/nope/actions", {"action": "e3e4"}),
        ("POST", "/api/games/nope/undo", {}),
        ("POST", "/api/games/nope/resign", {}),
        ("GET", "/api/games/nope/record", None),
        ("GET", "/api/games/nope/replay?ply=0", None),
    ]:
        response = client.request(method, path, json=body)
        assert response.status_code == 404, (path, response.text)
        assert "no game 'nope'" in response.json()["error"]


def test_unexpected_errors_become_a_json_500_without_internals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(data_dir=tmp_path)
    with TestClient(app, raise_server_exceptions=False) as client:
        def broken(limit: int = 50) -> list:
            raise RuntimeError("secret internals")

        monkeypatch.setattr(app.state.site.service.storage, "list_games", broken)
        response = client.get("/api/games")
        assert response.status_code == 500
        assert response.json() == {
            "error": "internal error: the server could not handle this request",
            "message": "internal error: the server could not handle this request",
        }


def test_ai_answers_in_a_worker_and_undo_returns_to_the_humans_turn(client: TestClient) -> None:
    game_id, token = new_game(client, "benediction", mode="ai", seat=0, level=1)
    start = state(client, game_id, token)
    assert start["players"][1]["kind"] == "ai" and start["your_seats"] == [0]
    human = play_first_legal(client, game_id, token, 1)
    assert human["history"][0]["seat"] == 0
    replied = wait_for(client, game_id, token,
                       lambda s: s["your_turn"] and not s["thinking"] and len(s["history"]) > 1)
    assert {ply["seat"] for ply in replied["history"][1:]} == {1}
    undone = client.post(f"/api/games/{game_id}/undo", json={"token": token})
    assert undone.status_code == 200, undone.text
    assert undone.json()["history"] == [] and undone.json()["your_turn"]
    nothing = client.post(f"/api/games/{game_id}/undo", json={"token": token})
    assert nothing.status_code == 409 and "no action of yours" in nothing.json()["error"]


def test_the_ai_moves_first_when_the_human_takes_the_second_seat(client: TestClient) -> None:
    game_id, token = new_game(client, "benediction", mode="ai", seat=1, level=1)
    ready = wait_for(client, game_id, token, lambda s: s["your_turn"])
    assert ready["history"] and all(ply["seat"] == 0 for ply in ready["history"])


def test_resignation_ends_the_game_and_later_actions_are_refused(client: TestClient) -> None:
    game_id, token = new_game(client, mode="hotseat")
    action = state(client, game_id, token)["legal"][0]["action"]
    resigned = client.post(f"/api/games/{game_id}/resign", json={"token": token}).json()
    assert resigned["is_over"] and resigned["winner"] == "blue"
    assert resigned["result"] == "Blue wins (Red resigned)"
    refused = play(client, game_id, token, action)
    assert refused.status_code == 409 and "over" in refused.json()["error"]
    again = client.post(f"/api/games/{game_id}/resign", json={"token": token})
    assert again.status_code == 409
    assert client.post(f"/api/games/{game_id}/undo", json={"token": token}).status_code == 409
    listed = client.get("/api/games").json()["games"][0]
    summary = (listed["status"], listed["winner"], listed["reason"])
    assert summary == ("over", "blue", "Red resigned")


def test_an_engine_decided_end_is_stored_with_its_reason(tmp_path: Path) -> None:
    """Dendria ends when both players pass in consecutive turns."""
    with TestClient(create_app(data_dir=tmp_path)) as client:
        game_id, token = new_game(client, "dendria", mode="hotseat")
        for _ in range(2):
            assert play(client, game_id, token, "pass").status_code == 200
        over = state(client, game_id, token)
        assert over["is_over"] and over["legal"] == [] and over["result"]
    with TestClient(create_app(data_dir=tmp_path)) as client:
        listed = client.get("/api/games").json()["games"][0]
        assert listed["status"] == "over" and listed["winner"] == over["winner"]
        assert state(client, game_id, token)["result"] == over["result"]


@pytest.mark.parametrize("game", GAMES)
def test_games_survive_a_server_restart(tmp_path: Path, game: str) -> None:
    with TestClient(create_app(data_dir=tmp_path)) as client:
        game_id, token = new_game(client, game, mode="hotseat")
        before = play_first_legal(client, game_id, token, 3)
    with TestClient(create_app(data_dir=tmp_path)) as client:
        after = state(client, game_id, token)
        assert after["history"] == before["history"]
        assert after["svg"] == before["svg"]
        assert after["legal"] == before["legal"]
        assert [g["id"] for g in client.get("/api/games").json()["games"]] == [game_id]


@pytest.mark.parametrize("game", GAMES)
def test_records_download_and_upload_round_trip(client: TestClient, game: str) -> None:
    game_id, token = new_game(client, game, mode="hotseat")
    played = play_first_legal(client, game_id, token, 4)
    download = client.get(f"/api/games/{game_id}/record")
    assert download.status_code == 200
    assert "attachment" in download.headers["content-disposition"]
    upload = client.post("/api/records", json={"text": download.text})
    assert upload.status_code == 201, upload.text
    copy = state(client, upload.json()["id"], upload.json()["token"])
    assert copy["game"] == game and copy["mode"] == "hotseat"
    assert [p["notation"] for p in copy["history"]] == [p["notation"] for p in played["history"]]
    assert copy["svg"] == played["svg"]


def test_unreadable_records_are_refused(client: TestClient) -> None:
    for text in ("", "this is not a game record"):
        response = client.post("/api/records", json={"text": text})
        assert response.status_code == 400 and response.json()["error"]
    assert client.get("/api/games").json()["games"] == []


def test_replay_draws_every_ply_and_refuses_past_the_end(client: TestClient) -> None:
    game_id, token = new_game(client, "dendria", mode="hotseat")
    played = play_first_legal(client, game_id, token, 3)
    boards = [client.get(f"/api/games/{game_id}/replay", params={"ply": n}).json()
              for n in range(4)]
    assert [b["total"] for b in boards] == [3, 3, 3, 3]
    assert boards[3]["svg"] == played["svg"]
    assert len({b["svg"] for b in boards}) == 4
    past = client.get(f"/api/games/{game_id}/replay", params={"ply": 4})
    assert past.status_code == 400 and "past the end" in past.json()["error"]
    assert client.get(f"/api/games/{game_id}/replay", params={"ply": -1}).status_code == 400


def test_overlays_are_those_the_game_offers(client: TestClient) -> None:
    for game in GAMES:
        game_id, _ = new_game(client, game, mode="hotseat")
        plain = state(client, game_id)
        offered = plain["overlays"]
        assert offered == list(get_game(game).overlays)
        if offered:
            board = client.get(f"/api/games/{game_id}/board",
                               params={"overlays": ",".join(offered)})
            assert board.status_code == 200
            assert board.json()["svg"] != plain["svg"]  # something is drawn at the start
        bad = client.get(f"/api/games/{game_id}/board", params={"overlays": "x-ray"})
        assert bad.status_code == 400 and "no overlay 'x-ray'" in bad.json()["error"]


def test_pages_and_static_files_are_served(client: TestClient) -> None:
    for path in ("/", "/play/anything", "/replay/anything"):
        page = client.get(path)
        assert page.status_code == 200 and "<!doctype html>" in page.text.lower()
    for game in GAMES:
        rules = client.get(f"/rules/{game}")
        assert rules.status_code == 200 and "data-point" in rules.text
    missing = client.get("/rules/chess")  # a page for people: HTML (issue 12)
    assert missing.status_code == 404 and "Page not found" in missing.text
    script = client.get("/static/js/play.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert client.get("/static/js/nope.js").status_code == 404


@pytest.mark.parametrize("game", GAMES)
def test_fuzzed_actions_never_break_the_server_or_the_game(tmp_path: Path, game: str) -> None:
    """Whatever text arrives as an action: a 2xx (it was legal) or a 4xx, never a 500,
    and a refused action leaves the game exactly as it was."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    notation_like = st.from_regex(r"[@Bb+\-=^]?[a-n]{0,2}[0-9]{0,3}[+\-]?[0-9a-n]{0,4}",
                                  fullmatch=True)
    with TestClient(create_app(data_dir=tmp_path), raise_server_exceptions=False) as client:
        game_id, token = new_game(client, game, mode="hotseat")
        before = state(client, game_id, token)

        @settings(max_examples=60, deadline=None, database=None)
        @given(st.one_of(st.text(max_size=40), notation_like))
        def check(text: str) -> None:
            response = play(client, game_id, token, text)
            assert response.status_code < 500, (text, response.text)
            if response.status_code == 200:  # the fuzzer found a legal action: take it back
                undone = client.post(f"/api/games/{game_id}/undo", json={"token": token})
                assert undone.status_code == 200
            else:
                assert response.json()["error"]
            after = state(client, game_id, token)
            assert (after["history"], after["svg"]) == (before["history"], before["svg"])

        check()


def _first_legal(game_name: str, options: dict[str, Any], actions: list[str]) -> str:
    game = get_game(game_name)
    position = game.new_position(game.make_rules(**options))
    for action in actions:
        position.play(action)
    return str(position.legal_actions()[0])


def test_an_ai_answer_that_arrives_after_an_undo_is_discarded(tmp_path: Path) -> None:
    import asyncio
    import threading

    release = threading.Event()
    app = create_app(data_dir=tmp_path)

    async def slow_choose(game_name, options, actions, level, seed=None, start=None,
                          game_id=None):
        while not release.is_set():  # a long search, without blocking the event loop
            await asyncio.sleep(0.01)
        return _first_legal(game_name, options, actions)

    app.state.site.service.workers.choose = slow_choose
    with TestClient(app) as client:
        game_id, token = new_game(client, "benediction", mode="ai", seat=0, level=1)
        play_first_legal(client, game_id, token, 1)
        thinking = wait_for(client, game_id, token, lambda s: s["thinking"])
        assert not thinking["your_turn"] and thinking["legal"] == []
        undone = client.post(f"/api/games/{game_id}/undo", json={"token": token}).json()
        assert undone["history"] == [] and undone["your_turn"]
        release.set()
        time.sleep(0.3)
        after = state(client, game_id, token)
        assert after["history"] == [] and not after["thinking"] and after["your_turn"]


def test_a_failing_ai_is_reported_and_changes_nothing(tmp_path: Path) -> None:
    app = create_app(data_dir=tmp_path)

    async def broken_choose(game_name, options, actions, level, seed=None, start=None,
                            game_id=None):
        return "not-an-action"

    app.state.site.service.workers.choose = broken_choose
    with TestClient(app) as client:
        game_id, token = new_game(client, "dendria", mode="ai", seat=1, level=1)
        failed = wait_for(client, game_id, token, lambda s: s["ai_error"])
        assert "the computer could not move" in failed["ai_error"]
        assert failed["history"] == [] and not failed["thinking"]


def test_hotseat_undo_takes_back_one_action_at_a_time(client: TestClient) -> None:
    game_id, token = new_game(client, "benediction", mode="hotseat")
    played = play_first_legal(client, game_id, token, 3)
    undone = client.post(f"/api/games/{game_id}/undo", json={"token": token}).json()
    assert undone["history"] == played["history"][:2]
    assert undone["legal"] and undone["ply"] == 2
    spectator = client.post(f"/api/games/{game_id}/undo", json={"token": None})
    assert spectator.status_code == 403
    assert state(client, game_id)["history"] == played["history"][:2]


def test_public_listings_and_views_never_reveal_seat_tokens(client: TestClient) -> None:
    created = client.post("/api/games", json={"game": "dendria", "mode": "online"}).json()
    listing = client.get("/api/games").text
    spectator_view = client.get(f"/api/games/{created['id']}").text
    for token in created["tokens"]:
        assert token not in listing and token not in spectator_view
    seat_view = client.get(f"/api/games/{created['id']}", params={"token": created["token"]}).text
    assert created["tokens"][1] not in seat_view  # one seat never learns the other's secret


@pytest.mark.parametrize("game", GAMES)
def test_a_resignation_survives_the_record_round_trip(client: TestClient, game: str) -> None:
    game_id, token = new_game(client, game, mode="hotseat")
    play_first_legal(client, game_id, token, 1)
    resigned = client.post(f"/api/games/{game_id}/resign", json={"token": token}).json()
    record = client.get(f"/api/games/{game_id}/record").text
    copy = client.post("/api/records", json={"text": record}).json()
    restored = state(client, copy["id"], copy["token"])
    assert restored["is_over"] and restored["legal"] == []
    assert (restored["winner"], restored["result"]) == (resigned["winner"], resigned["result"])
    listed = {g["id"]: g for g in client.get("/api/games").json()["games"]}[copy["id"]]
    assert listed["status"] == "over" and listed["reason"] == resigned["result"].split("(")[1][:-1]
