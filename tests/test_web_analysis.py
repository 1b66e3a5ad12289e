"""The analysis board's engine, the hint and the board editor: the game-agnostic analysis
(:mod:`hexgames.ai.review`), the editor protocol (:mod:`hexgames.editing`) of both
games, and their HTTP API (results by increasing depth, bounded budgets and requests,
bad input answered 4xx, hints refused online, games started from an edited position)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import HTTPException
from fastapi.testclient import TestClient
from starlette.requests import Request

from hexgames.ai.review import MISTAKE_DROP, evaluate, game_curve
from hexgames.editing import EditorSpec
from hexgames.game import game_names, get_game
from hexgames.web.app import create_app
from hexgames.web.http.client_limits import ClientLimit
from hexgames.web.routes import analysis as web_analysis

GAMES = ["benediction", "dendria"]
#: Red to act can take Blue's king with its man on e5 (tests/test_ai_benediction.py).
KING_CAPTURE = "Benediction v1: R-E2 B E8\nR:E2kE5\nB:E6kE8"
#: A save file of the earlier Windows client: rows separated by nothing, lines wrapped
#: in "| |", flags and checker counts after the rows.
WINDOWS_SAVE = "| Benediction v1: R-E2 B E8 |\n| R:D12E12k3F12 |\n| B:D78E78k9F7+8 |\n| X:A5 |"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as test_client:
        yield test_client


def post(client: TestClient, path: str, **body: Any) -> Any:
    response = client.post(path, json=body)
    assert response.status_code in (200, 201), response.text
    return response.json()


def refused(client: TestClient, path: str, status: int, **body: Any) -> str:
    response = client.post(path, json=body)
    assert response.status_code == status, response.text
    return str(response.json()["error"])


# ------------------------------------------------------------------ the engine
def test_a_win_in_one_is_proven_and_leads_the_best_line() -> None:
    game = get_game("benediction")
    position = game.position_from_text(KING_CAPTURE, game.make_rules())
    found = evaluate(game, position, iterations=50)
    assert found.proven and found.win == 1.0 and found.seat == 0
    position.play(found.pv[0])
    assert position.is_over and position.winner == "red"


@pytest.mark.parametrize("name", GAMES)
def test_evaluation_reads_the_search(name: str) -> None:
    game = get_game(name)
    position = game.new()
    for _ in range(3):
        position.play(position.legal_actions()[0])
    found = evaluate(game, position, iterations=300, seed=1)
    assert 0.0 <= found.win <= 1.0 and found.seat == position.current_seat
    assert found.iterations == 300  # the whole budget: no early stop in analysis
    assert found.best and found.best[0].action == found.pv[0]
    assert [c.visits for c in found.best] == sorted((c.visits for c in found.best), reverse=True)
    probe = position.copy()
    for action in found.pv:  # the best line is playable
        assert action in probe.legal_actions()
        probe.play(action)
    assert position.ply == 3  # the analysed position is untouched


def test_dendria_is_analysed_in_compiled_code_and_its_tree_read_back() -> None:
    """Dendria's levels search in compiled code, and so does its analysis: the readout
    is the compiled tree's (same seed, same search), its best line follows the tree's
    most visited children, and every iteration reached one root child."""
    from hexgames.ai.review import _Analyser, _mirrored, _ranked

    game = get_game("dendria")
    position = game.new(board_side=5)
    for notation in ("c3", "end", "d4", "end"):
        position.play(notation)
    found = evaluate(game, position, iterations=240, seed=3)
    player = _Analyser(game, iterations=240, seed=3, reuse_tree=False)
    tree = player._tree
    assert tree is not None, "Dendria's analysis player searches in compiled code"
    tree.set_root(position.copy())
    assert player._run_compiled(tree, 240, None) == found.iterations == 240
    root = _mirrored(tree)
    assert [(c.action, c.visits) for c in found.best] == [
        (c.action, c.visits) for c in _ranked(root)[:len(found.best)]]
    assert sum(info["visits"] for info in tree.children()) == 240
    node, probe = None, position.copy()
    for action in found.pv:  # each step: the tree's most visited child there
        children = tree.children(node)
        chosen = next(info for info in children if info["action"] == action)
        assert chosen["visits"] == max(info["visits"] for info in children)
        assert chosen["visits"] >= 2 or chosen["result"] is not None
        assert action in probe.legal_actions()
        probe.play(action)
        node = chosen["node"]
    assert len(found.pv) >= 2


def test_the_graph_marks_an_action_that_throws_a_win_away() -> None:
    game = get_game("benediction")
    start = game.position_from_text(KING_CAPTURE, game.make_rules())
    # A first action after which Red can no longer win: the engine's value drops.
    for action in start.legal_actions():
        after = start.copy()
        after.play(action)
        if not after.is_over and evaluate(game, after, 60).win < 1.0 - MISTAKE_DROP - 0.05:
            break
    else:
        pytest.fail("every action keeps the win")
    curve = game_curve(game, start, [action], iterations=60)
    assert curve.values[0] == 1.0  # Red (seat 0) wins at once from the start
    assert [(ply, seat) for ply, seat, _ in curve.mistakes] == [(1, 0)]
    assert curve.mistakes[0][2] > MISTAKE_DROP


# ------------------------------------------------------------------ the editor
@pytest.mark.parametrize("name", game_names())
def test_every_game_offers_an_editor_whose_text_round_trips(name: str) -> None:
    game = get_game(name)
    assert game.editor is not None
    rules = game.make_rules()
    spec = game.editor(rules)
    assert isinstance(spec, EditorSpec) and spec.pieces and spec.settings
    start = game.new_position(rules)
    cells, settings = spec.read(start.to_text(), rules)
    clean, chosen = spec.check_board(cells, settings, set(game.board(rules).labels))
    text = spec.write(clean, chosen, rules)
    assert game.position_from_text(text, rules).to_text() == start.to_text()


def test_the_benediction_palette_has_men_with_size_and_flags_and_blocks() -> None:
    game = get_game("benediction")
    spec = game.editor(game.make_rules(max_stack=5))
    kinds = {piece.id: piece for piece in spec.pieces}
    assert set(kinds) == {"red", "blue", "block"}
    size = next(a for a in kinds["red"].attributes if a.name == "size")
    assert (size.minimum, size.maximum) == (1, 5)
    assert {a.name for a in kinds["blue"].attributes} >= {"king", "blessed", "cursed", "locked"}
    assert {s.name for s in spec.settings} >= {"to_move", "actions_left"}


def test_the_dendria_palette_has_every_piece_and_the_pie_state() -> None:
    spec = get_game("dendria").editor(get_game("dendria").make_rules())
    assert {piece.id for piece in spec.pieces} == {
        f"{color}-{kind}" for color in ("dark", "light") for kind in ("seed", "tree", "dendrid")}
    assert {s.name for s in spec.settings} >= {"to_move", "pie_pending", "seats_swapped"}


def test_an_edited_board_is_checked_before_the_game_sees_it() -> None:
    game = get_game("benediction")
    rules = game.make_rules()
    spec = game.editor(rules)
    labels = set(game.board(rules).labels)
    cases = [
        ({"z9": {"piece": "red"}}, {}, "not a point"),
        ({"e5": {"piece": "queen"}}, {}, "unknown piece kind"),
        ({"e5": {"piece": "red", "size": 99}}, {}, "Size must be 1..8"),
        ({"e5": {"piece": "red", "king": "yes"}}, {}, "King must be true or false"),
        ({"e5": {"piece": "block", "size": 2}}, {}, "has no 'size'"),
        ({}, {"to_move": "green"}, "Side to act must be one of red, blue"),
        ({}, {"mood": 1}, "unknown setting"),
    ]
    for cells, settings, message in cases:
        with pytest.raises(ValueError, match=message):
            spec.check_board(cells, settings, labels)


# ------------------------------------------------------------------ the API
@pytest.mark.parametrize("name", GAMES)
def test_deeper_results_come_one_depth_after_another(client: TestClient, name: str) -> None:
    line = post(client, "/api/analysis/position", game=name, actions=[])
    first = line["legal"][0]["action"]
    depth: int | None = 0
    seen = []
    while depth is not None:
        found = post(client, "/api/analysis/evaluate", game=name, actions=[first], depth=depth)
        assert found["depth"] == depth and found["depths"] == len(web_analysis.BUDGETS)
        assert 0.0 <= found["win"] <= 1.0
        assert found["iterations"] <= web_analysis.BUDGETS[depth]
        assert all("points" in step and "color" in step for step in found["pv"])
        seen.append(found["iterations"])
        depth = found["next_depth"]
        if depth == 2:
            break  # the deeper searches take seconds and may meet the time cap (then
            # their iterations depend on the machine's load): two depths show the order
    assert seen == sorted(seen) and len(seen) >= 2


def test_the_position_of_a_line_has_its_board_moves_and_legal_actions(
        client: TestClient) -> None:
    start = post(client, "/api/analysis/position", game="dendria", actions=[])
    first = start["legal"][0]
    line = post(client, "/api/analysis/position", game="dendria", actions=[first["action"]],
                flip=True)
    assert line["ply"] == 1 and line["history"][0]["notation"] == first["action"]
    assert line["history"][0]["color"] == "dark"
    assert "data-point" in line["svg"] and line["text"].startswith("Dendria v1:")
    assert line["legal"] and {"action", "points", "paths", "tool", "label"} <= set(line["legal"][0])


def test_the_graph_is_asked_for_in_bounded_slices(client: TestClient) -> None:
    actions = []
    for _ in range(4):
        line = post(client, "/api/analysis/position", game="dendria", actions=actions)
        actions.append(line["legal"][0]["action"])
    part = post(client, "/api/analysis/graph", game="dendria", actions=actions, first=2, count=9)
    assert part["first"] == 2 and len(part["values"]) == 3  # positions after 2, 3 and 4
    assert part["total"] == 5 and part["mistake_drop"] == MISTAKE_DROP
    assert all(0.0 <= value <= 1.0 for value in part["values"])
    too_many = web_analysis.GRAPH_CHUNK + 1
    assert "count must be" in refused(client, "/api/analysis/graph", 400, game="dendria",
                                      actions=actions, count=too_many)
    assert "first must be" in refused(client, "/api/analysis/graph", 400, game="dendria",
                                      actions=actions, first=9)


def test_budgets_are_bounded_and_bad_input_is_a_4xx(client: TestClient) -> None:
    path = "/api/analysis/evaluate"
    deepest = len(web_analysis.BUDGETS)
    assert "depth must be" in refused(client, path, 400, game="dendria", depth=deepest)
    assert "depth must be" in refused(client, path, 400, game="dendria", depth=-1)
    assert "unknown game" in refused(client, path, 400, game="chess")
    assert "cannot be replayed" in refused(client, path, 409, game="benediction",
                                           actions=["e2e9"])
    assert "at most" in refused(client, path, 409, game="dendria", actions=["x" * 500])
    long = ["end"] * (web_analysis.MAX_LINE + 1)
    assert "a line is at most" in refused(client, path, 400, game="dendria", actions=long)
    assert "bad request" in refused(client, path, 400, game="dendria", depth="1")
    assert refused(client, path, 400, game="dendria", options={"board_side": 99})
    assert "Dendria" in refused(client, "/api/analysis/position", 400, game="dendria",
                                start="Benediction v1: R-E2 B E8\nR:E2k\nB:E8k")
    response = client.get("/api/analysis/source/nope")
    assert response.status_code == 404


def test_each_client_has_a_bounded_number_of_analyses_in_flight() -> None:
    limit = ClientLimit(2)

    def request(host: str) -> Request:
        return Request({"type": "http", "client": (host, 1234), "headers": []})

    with limit.hold(request("10.0.0.1")), limit.hold(request("10.0.0.1")):
        with pytest.raises(HTTPException) as caught, limit.hold(request("10.0.0.1")):
            pass
        assert caught.value.status_code == 429
        with limit.hold(request("10.0.0.2")):  # another client is not held back
            pass
    with limit.hold(request("10.0.0.1")):  # released when the searches ended
        pass
    assert not limit.active


@pytest.mark.parametrize("name", GAMES)
def test_a_hint_against_the_computer_is_a_legal_action(client: TestClient, name: str) -> None:
    created = post(client, "/api/games", game=name, mode="ai", level=1)
    hint = post(client, f"/api/games/{created['id']}/hint", token=created["token"])
    state = client.get(f"/api/games/{created['id']}", params={"token": created["token"]}).json()
    legal = {entry["action"]: entry for entry in state["legal"]}
    assert hint["action"] in legal and hint["points"] == legal[hint["action"]]["points"]
    assert hint["ply"] == 0


def test_hints_are_refused_online_to_spectators_and_after_the_end(client: TestClient) -> None:
    online = post(client, "/api/games", game="dendria", mode="online")
    path = f"/api/games/{online['id']}/hint"
    assert "off in online games" in refused(client, path, 403, token=online["token"])
    response = client.get(f"/api/analysis/source/{online['id']}")  # nor the analysis board
    assert response.status_code == 403 and "once it is over" in response.json()["error"]
    post(client, f"/api/games/{online['id']}/resign", token=online["token"])
    assert client.get(f"/api/analysis/source/{online['id']}").status_code == 200
    hotseat = post(client, "/api/games", game="dendria", mode="hotseat")
    path = f"/api/games/{hotseat['id']}/hint"
    assert "only a player" in refused(client, path, 403, token=None)
    assert "only a player" in refused(client, path, 403, token="not-a-token")
    post(client, f"/api/games/{hotseat['id']}/resign", token=hotseat["token"])
    assert "over" in refused(client, path, 409, token=hotseat["token"])
    assert refused(client, "/api/games/nope/hint", 404, token="x")


@pytest.mark.parametrize("name", GAMES)
def test_the_editor_api_starts_from_the_standard_position(client: TestClient, name: str) -> None:
    started = post(client, "/api/editor/spec", game=name)
    assert started["valid"] and "data-point" in started["svg"]
    assert started["text"] == get_game(name).new().to_text()
    assert started["spec"]["pieces"] and started["spec"]["settings"]
    again = post(client, "/api/editor/board", game=name, cells=started["cells"],
                 settings=started["settings"])
    assert again["valid"] and again["text"] == started["text"]


def test_the_editor_shows_the_engine_message_for_an_impossible_position(
        client: TestClient) -> None:
    board = post(client, "/api/editor/board", game="benediction",
                 cells={"e5": {"piece": "red", "king": True, "blessed": True}},
                 settings={"to_move": "blue"})
    assert not board["valid"] and "blessed king" in board["error"]
    assert board["text"] is None or board["text"].startswith("Benediction v1:")
    pie = post(client, "/api/editor/board", game="dendria", options={"pie": False},
               cells={"d4": {"piece": "dark-seed"}},
               settings={"to_move": "light", "pie_pending": True})
    assert not pie["valid"] and "pie" in pie["error"]
    assert "unknown piece kind" in refused(client, "/api/editor/board", 400, game="dendria",
                                           cells={"d4": {"piece": "red"}})
    assert "not a point" in refused(client, "/api/editor/board", 400, game="dendria",
                                    cells={"zz99": {"piece": "dark-seed"}})


def test_pasted_text_is_read_whatever_the_game_and_windows_saves_too(
        client: TestClient) -> None:
    read = post(client, "/api/editor/read", text=WINDOWS_SAVE)
    assert read["game"] == "benediction" and read["valid"]
    assert read["cells"]["f7"] == {"piece": "blue", "size": 2, "king": False,
                                   "blessed": False, "cursed": False, "locked": False}
    assert read["cells"]["a5"] == {"piece": "block"}
    dendria = get_game("dendria").new(board_side=5).to_text()
    read = post(client, "/api/editor/read", text=dendria)
    assert read["game"] == "dendria" and read["options"]["board_side"] == 5
    message = refused(client, "/api/editor/read", 400, text="Benediction v1: R-E2 B E8\nQ:E5")
    assert "line 2, column 1" in message
    assert "not a position text" in refused(client, "/api/editor/read", 400, text="hello")


@pytest.mark.parametrize("mode", ["ai", "hotseat"])
def test_a_game_starts_from_an_edited_position(client: TestClient, mode: str) -> None:
    created = post(client, "/api/games", game="benediction", mode=mode, level=1,
                   start=KING_CAPTURE)
    state = client.get(f"/api/games/{created['id']}", params={"token": created["token"]}).json()
    assert state["ply"] == 0 and state["to_move"] == "red"
    assert "e5e6" in {entry["action"] for entry in state["legal"]}
    source = client.get(f"/api/analysis/source/{created['id']}").json()
    assert source["start"] == get_game("benediction").position_from_text(
        KING_CAPTURE, None).to_text()
    response = client.post(f"/api/games/{created['id']}/actions",
                           json={"token": created["token"], "action": "e5e6"})
    assert response.status_code == 200 and response.json()["winner"] == "red"
    record = client.get(f"/api/games/{created['id']}/record").text
    assert '[Start "' in record  # the record starts where the game did
    assert get_game("benediction").read_record(record)[0].winner == "red"


def test_a_bad_start_position_is_refused_with_the_reader_s_message(client: TestClient) -> None:
    path = "/api/games"
    message = refused(client, path, 400, game="benediction", mode="hotseat",
                      start="Benediction v1: R-E2 B E8\nR:E5kc")
    assert "line 2" in message and "cursed" in message
    over = "Benediction v1: RWE2 BxE8\nR:E2k\nB:E8"
    assert "already over" in refused(client, path, 400, game="benediction", mode="hotseat",
                                     start=over)
    assert "side-5 board" in refused(client, path, 400, game="dendria", mode="hotseat",
                                     start=get_game("dendria").new(board_side=5).to_text())
    assert "bad request" in refused(client, path, 400, game="dendria", mode="hotseat", start=5)


# ------------------------------------------------- abandoned analysis requests
async def _send_evaluation(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A raw HTTP request for a depth-3 evaluation (its connection is ours to close)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = json.dumps({"game": "benediction", "depth": 3}).encode()
    writer.write(b"POST /api/analysis/evaluate HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                 % (len(body), body))
    await writer.drain()
    return reader, writer


async def _until(condition: Any, what: str, seconds: float = 60.0) -> None:
    """Wait (bounded, polling) until ``condition()``; fail naming ``what`` otherwise."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"never: {what}")
        await asyncio.sleep(0.05)


def test_an_abandoned_analysis_leaves_the_engine_queue_and_the_client_s_share(
    tmp_path: Path,
) -> None:
    """A reader who closes the page (or moves on) abandons the searches it asked for: the
    ones still waiting for the engine leave its queue, and they no longer count against
    that reader's :data:`MAX_PER_CLIENT` (the next page is served, not refused with 429).
    The only worker is kept busy by a long job so that the requests must wait."""

    async def scenario() -> None:
        app = create_app(data_dir=tmp_path, ai_processes=1)
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0,
                                               log_level="warning",
                                               timeout_graceful_shutdown=10))
        serving = asyncio.create_task(server.serve())
        await _until(lambda: server.started, "the server started")
        port = server.servers[0].sockets[0].getsockname()[1]
        lane = app.state.site.service.workers.lane(web_analysis.HINT_LEVEL)
        busy = asyncio.create_task(app.state.site.service.workers.run(time.sleep, 300))
        try:
            await _until(lambda: lane.running == 1, "the long job holds the worker")
            first = [await _send_evaluation(port) for _ in range(web_analysis.MAX_PER_CLIENT)]
            await _until(lambda: lane.waiting == web_analysis.MAX_PER_CLIENT,
                         "both evaluations wait for the worker")
            for _, writer in first:
                writer.close()  # the reader leaves the page
            await _until(lambda: lane.waiting == 0, "the abandoned evaluations left the queue")
            reader, writer = await _send_evaluation(port)  # the reader's next page
            answered = asyncio.create_task(reader.readline())
            await _until(lambda: lane.waiting == 1 or answered.done(),
                         "the next evaluation is queued or answered")
            assert not answered.done(), f"refused: {answered.result()!r}"
            writer.close()
        finally:
            busy.cancel()
            app.state.site.service.workers.shutdown()  # ends the long job (and any search)
            server.should_exit = True
            await serving
            app.state.site.service.workers.shutdown()

    asyncio.run(scenario())
