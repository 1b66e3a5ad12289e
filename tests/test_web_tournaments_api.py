"""Tournaments through the site (issue 42): the API, real games started by the director,
their ends reported by the live games, bounds answered with the documented statuses."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import test_web_housekeeping
from hexgames.web.app import create_app
from hexgames.web.lobby import tournaments as site_tournaments
from hexgames.web.storage.errors import StorageUnavailable
from hexgames.web.tournaments.director import RECONCILE_AFTER_MS
from test_web_housekeeping import FakeTime

time_ = test_web_housekeeping.time_  # a fixture: the site's clock, moved by the test
REALTIME = {"kind": "realtime", "base_s": 180, "increment_s": 2}
CORRESPONDENCE = {"kind": "correspondence", "days": 3}
FORM = {"content-type": "application/x-www-form-urlencoded"}


@pytest.fixture
def app(tmp_path: Path, time_: FakeTime) -> Iterator[Any]:
    """An app with its background tasks off (the test ticks the director itself); each
    player is a client (a cookie jar) of its own."""
    application = create_app(data_dir=tmp_path, ai_processes=1)
    service = application.state.site.service
    service.now = time_
    service.watch_clocks = service.housekeeping = service.pooling = False
    service.presence = service.ticking = False
    with TestClient(application) as driver:
        application.state.driver = driver
        yield application


def visitor(app: Any) -> TestClient:
    """A browser of its own (a cookie jar) whose requests run on the app's one event loop
    (the lifespan's portal), as in a server: a task a request starts (a tournament
    game's result handed to the director) outlives the request."""
    client = TestClient(app)
    client.portal = app.state.driver.portal
    return client


def named(app: Any, name: str) -> TestClient:
    client = visitor(app)
    answer = client.post("/api/me/name", json={"name": name})
    assert answer.status_code == 200, answer.text
    return client


def tick(app: Any) -> None:
    director = app.state.site.service.tournaments.director
    app.state.driver.portal.call(director.tick)


def settle(app: Any) -> None:
    """Wait for the tournament results being handed to the director (bounded)."""
    games = app.state.site.service.tournaments

    async def drained() -> None:
        import asyncio

        if games._ends:
            await asyncio.wait(list(games._ends), timeout=10)

    app.state.driver.portal.call(drained)


def read(client: TestClient, tournament_id: str) -> dict[str, Any]:
    answer = client.get(f"/api/tournaments/{tournament_id}")
    assert answer.status_code == 200, answer.text
    return answer.json()


def resign(players: dict[str, TestClient], game_id: str, loser_id: str) -> None:
    """The loser opens the game (its browser gets the seat's credential) and resigns."""
    client = next(c for c in players.values() if c.get("/api/me").json()["id"] == loser_id)
    claimed = client.post(f"/api/games/{game_id}/claim", json={}).json()
    assert claimed["role"] == "player", claimed
    answer = client.post(f"/api/games/{game_id}/resign", json={"token": claimed["token"]})
    assert answer.status_code == 200, answer.text


def live_games(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [g for g in view["games"] if g["result"] is None and g["second"]]


def test_an_arena_of_eight_with_real_games(app: Any, time_: FakeTime) -> None:
    names = [f"Player{n}" for n in range(8)]
    players = {name: named(app, name) for name in names}
    ids = {name: players[name].get("/api/me").json()["id"] for name in names}
    made = players["Player0"].post("/api/tournaments", json={
        "game": "benediction", "kind": "arena", "minutes": 20, "control": REALTIME,
        "rated": False, "starts_in_s": 60})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    assert made.json()["status"] == "created" and made.json()["countdown_ms"] == 60_000
    for name in names:
        assert players[name].post(f"/api/tournaments/{tid}/join").status_code == 200
    assert read(players["Player0"], tid)["players"] == 8
    assert tid in [t["id"] for t in players["Player0"].get("/api/tournaments").json()["upcoming"]]

    tick(app)
    assert read(players["Player0"], tid)["status"] == "created"  # the countdown runs
    time_.ms += 60_000
    # Each wave: the first player of each pairing wins (the second resigns).
    wins: dict[str, int] = dict.fromkeys(ids.values(), 0)
    for _ in range(3):
        tick(app)
        view = read(players["Player0"], tid)
        assert view["status"] == "running"
        pairings = live_games(view)
        assert len(pairings) == 4
        paired = [g[seat] for g in pairings for seat in ("first", "second")]
        assert sorted(paired) == sorted(ids.values())  # everyone, once
        for game in pairings:
            stored = players["Player0"].get(f"/api/games/{game['game_id']}").json()
            assert not stored["is_over"] and stored["mode"] == "online"
            resign(players, game["game_id"], game["second"])
            wins[game["first"]] += 1
        settle(app)
        time_.ms += 1000
    view = read(players["Player0"], tid)
    assert not live_games(view) and all(g["result"] == "first" for g in view["games"])
    scores = {line["player"]: line["score"] for line in view["standings"]}
    for player, won in wins.items():  # 2 a win, doubled from a third win in a row
        assert scores[player] == {0: 0, 1: 2, 2: 4, 3: 8}[won], (player, won, scores)
    assert view["standings"][0]["score"] == max(scores.values())

    time_.ms += 20 * 60_000  # the end: no new wave, the podium
    tick(app)
    tick(app)
    ended = read(players["Player0"], tid)
    assert ended["status"] == "finished" and len(ended["podium"]) == 3
    assert ended["podium"][0]["name"] in names
    joined = players["Player1"].post(f"/api/tournaments/{tid}/join")
    assert joined.status_code == 409 and "ended" in joined.json()["error"]


def test_a_swiss_of_three_rounds_and_five_players_with_a_bye(app: Any, time_: FakeTime) -> None:
    names = [f"Swiss{n}" for n in range(5)]
    players = {name: named(app, name) for name in names}
    made = players["Swiss0"].post("/api/tournaments", json={
        "game": "dendria", "options": {"board_side": 5}, "kind": "swiss", "rounds": 3,
        "control": CORRESPONDENCE, "rated": False, "starts_in_s": 0})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    for name in names:
        players[name].post(f"/api/tournaments/{tid}/join")
    byes: list[str] = []
    for round_number in (1, 2, 3):
        tick(app)
        view = read(players["Swiss0"], tid)
        assert view["round"] == round_number
        this_round = [g for g in view["games"] if g["round"] == view["games"][-1]["round"]]
        bye = [g["first"] for g in this_round if not g["second"]]
        assert len(bye) == 1 and len(live_games(view)) == 2
        byes.extend(bye)
        for game in live_games(view):
            resign(players, game["game_id"], game["first"])  # the second player wins
        settle(app)
    assert len(set(byes)) == 3  # never two byes to one player
    tick(app)
    ended = read(players["Swiss0"], tid)
    assert ended["status"] == "finished"
    assert all({"buchholz", "sonneborn_berger"} <= set(line["tiebreaks"])
               for line in ended["standings"])
    assert sum(line["score"] for line in ended["standings"]) == 3 * 3  # 2 games + a bye


@pytest.mark.parametrize("held", [True, False], ids=["held", "evicted"])
def test_a_swiss_result_that_never_reached_the_director_is_recorded_by_a_later_tick(
        app: Any, time_: FakeTime, monkeypatch: pytest.MonkeyPatch, held: bool) -> None:
    """A result dropped on its way (here: past MAX_PENDING_ENDS) leaves a live pairing
    whose game is over; a tick after RECONCILE_AFTER_MS reads the game (the one held, or
    the stored row of one no longer held, then the game), records its result and pairs
    the next round (without it, the Swiss would wait forever)."""
    names = ["Lost0", "Lost1"]
    players = {name: named(app, name) for name in names}
    made = players["Lost0"].post("/api/tournaments", json={
        "game": "dendria", "options": {"board_side": 5}, "kind": "swiss", "rounds": 2,
        "control": CORRESPONDENCE, "rated": False, "starts_in_s": 0})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    for name in names:
        players[name].post(f"/api/tournaments/{tid}/join")
    tick(app)
    (game,) = live_games(read(players["Lost0"], tid))
    monkeypatch.setattr(site_tournaments, "MAX_PENDING_ENDS", 0)  # every end dropped
    resign(players, game["game_id"], game["first"])
    settle(app)
    if not held:
        app.state.site.service.games.matches.pop(game["game_id"])
    time_.ms += 1000
    tick(app)
    view = read(players["Lost0"], tid)
    assert view["round"] == 1 and live_games(view) == [game]  # the result was lost
    time_.ms += RECONCILE_AFTER_MS
    tick(app)
    view = read(players["Lost0"], tid)
    first = next(g for g in view["games"] if g["game_id"] == game["game_id"])
    assert first["result"] == "second" and first["turns"] >= 0
    assert view["round"] == 2 and len(live_games(view)) == 1


def test_a_result_the_director_failed_to_record_is_tried_again(
        app: Any, time_: FakeTime, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first ``game_ended`` fails (storage away a moment): the report tries again
    after a short wait, and the result is there without waiting for reconciliation."""
    names = ["Retry0", "Retry1"]
    players = {name: named(app, name) for name in names}
    made = players["Retry0"].post("/api/tournaments", json={
        "game": "dendria", "options": {"board_side": 5}, "kind": "swiss", "rounds": 2,
        "control": CORRESPONDENCE, "rated": False, "starts_in_s": 0})
    tid = made.json()["id"]
    for name in names:
        players[name].post(f"/api/tournaments/{tid}/join")
    tick(app)
    (game,) = live_games(read(players["Retry0"], tid))
    director = app.state.site.service.tournaments.director
    real = director.game_ended
    calls: list[str] = []

    async def fails_once(game_id: str, *args: Any) -> bool:
        calls.append(game_id)
        if len(calls) == 1:
            raise StorageUnavailable("the database is away a moment")
        return await real(game_id, *args)

    monkeypatch.setattr(site_tournaments, "REPORT_BACKOFF_S", (0.0, 0.0))
    monkeypatch.setattr(director, "game_ended", fails_once)
    resign(players, game["game_id"], game["first"])
    settle(app)
    assert calls == [game["game_id"]] * 2
    first = next(g for g in read(players["Retry0"], tid)["games"]
                 if g["game_id"] == game["game_id"])
    assert first["result"] == "second"


@pytest.mark.parametrize("body,field", [
    ({"kind": "knockout"}, "kind"),
    ({"kind": "arena", "minutes": 5}, "minutes"),
    ({"kind": "swiss", "rounds": 99}, "rounds"),
    ({"kind": "arena", "minutes": 30, "game": "chess"}, "game"),
    ({"kind": "arena", "minutes": 30, "options": {"board_side": 99}}, "options"),
    ({"kind": "arena", "minutes": 30, "control": CORRESPONDENCE}, "control"),
    ({"kind": "arena", "minutes": 30, "control": None}, "control"),
    ({"kind": "arena", "minutes": 30, "starts_in_s": -5}, "starts_in_s"),
    ({"kind": "arena", "minutes": 30, "prize": 100}, "prize"),
])
def test_bad_settings_get_a_400_naming_the_field(app: Any, body: dict[str, Any],
                                                 field: str) -> None:
    creator = named(app, "Creator")
    full = {"game": "benediction", "control": REALTIME, "rated": False, **body}
    answer = creator.post("/api/tournaments", json=full)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"].startswith(f"{field}:"), answer.json()
    assert creator.get("/api/tournaments").json()["upcoming"] == []  # nothing stored


def test_guests_full_tournaments_and_the_daily_bound(app: Any) -> None:
    guest = visitor(app)
    body = {"game": "benediction", "kind": "arena", "minutes": 30, "control": REALTIME,
            "rated": False, "starts_in_s": 600, "max_players": 2}
    assert guest.post("/api/tournaments", json=body).status_code == 403
    creator = named(app, "Maker")
    made = [creator.post("/api/tournaments", json=body) for _ in range(6)]
    assert [m.status_code for m in made] == [201] * 5 + [429]
    tid = made[0].json()["id"]
    assert guest.post(f"/api/tournaments/{tid}/join").status_code == 403
    for name in ("Ann", "Bob"):
        assert named(app, name).post(f"/api/tournaments/{tid}/join").status_code == 200
    late = named(app, "Cyd").post(f"/api/tournaments/{tid}/join")
    assert late.status_code == 409 and "full" in late.json()["error"]
    assert creator.get("/api/tournaments/nope").status_code == 404
    assert creator.post("/api/tournaments/nope/join").status_code == 404


def test_the_socket_pushes_the_tournament_as_it_changes(app: Any, time_: FakeTime) -> None:
    creator = named(app, "Host")
    made = creator.post("/api/tournaments", json={
        "game": "benediction", "kind": "arena", "minutes": 20, "control": REALTIME,
        "rated": False, "starts_in_s": 60}).json()
    with creator.websocket_connect(f"/ws/tournaments/{made['id']}") as socket:
        first = socket.receive_json()
        assert first["type"] == "tournament" and first["players"] == 0
        named(app, "Joiner").post(f"/api/tournaments/{made['id']}/join")
        for _ in range(20):  # pushed within a look or two
            pushed = socket.receive_json()
            if pushed["players"] == 1:
                break
        assert pushed["players"] == 1 and pushed["standings"][0]["name"] == "Joiner"


def test_the_pages_work_without_scripts(app: Any, time_: FakeTime) -> None:
    """Create and join with plain HTML forms (303 to the tournament's page), read the
    page drawn by the server; a refused form is a page saying why."""
    host = named(app, "Formhost")
    form = {"game": "benediction", "kind": "arena", "minutes": "30", "clock": "realtime",
            "base_minutes": "3", "increment_s": "2", "starts_in_min": "0",
            "max_players": "8", "rated": "on"}
    made = host.post("/api/tournaments", data=form, follow_redirects=False)
    assert made.status_code == 303, made.text
    page = made.headers["location"]
    tid = page.rsplit("/", 1)[1]
    joined = host.post(f"/api/tournaments/{tid}/join", content=b"", headers=FORM,
                       follow_redirects=False)  # a form without fields, as a browser
    assert joined.status_code == 303 and joined.headers["location"] == page
    drawn = host.get(page)
    assert drawn.status_code == 200 and "Formhost" in drawn.text and 'id="leave"' in drawn.text
    assert f'/tournament/{tid}' in host.get("/tournaments").text
    refused = host.post("/api/tournaments", data={**form, "minutes": "3"},
                        follow_redirects=False)
    assert refused.status_code == 400 and "minutes: must be between 10 and 360" in refused.text
    assert "text/html" in refused.headers["content-type"]
    guest = visitor(app)
    assert 'id="join"' not in guest.get(page).text  # guests are asked for a name
    assert guest.get("/tournament/unknown").status_code == 404

    other = named(app, "Formguest")
    other.post(f"/api/tournaments/{tid}/join", content=b"", headers=FORM)
    tick(app)
    view = read(host, tid)
    game_id = live_games(view)[0]["game_id"]
    assert host.get(f"/api/games/{game_id}").json()["tournament"] == tid
    history = host.get("/api/players/Formhost").json()["tournaments"]
    assert [entry["id"] for entry in history] == [tid]


def test_a_refused_form_has_the_status_of_the_error_table(app: Any) -> None:
    """A form's refusal answers what the JSON call answers (the app's one error table):
    a guest 403, the daily bound 429, a full tournament 409, an unknown one 404, a bad
    field 400."""
    form = {"game": "benediction", "kind": "arena", "minutes": "30", "clock": "realtime",
            "base_minutes": "3", "increment_s": "2", "starts_in_min": "10",
            "max_players": "2"}
    guest = visitor(app)
    refused = guest.post("/api/tournaments", data=form, follow_redirects=False)
    assert refused.status_code == 403 and "text/html" in refused.headers["content-type"]
    host = named(app, "Quotahost")
    made = [host.post("/api/tournaments", data=form, follow_redirects=False)
            for _ in range(6)]
    assert [m.status_code for m in made] == [303] * 5 + [429]
    tid = made[0].headers["location"].rsplit("/", 1)[1]
    for name in ("Ann", "Bob"):
        named(app, name).post(f"/api/tournaments/{tid}/join", content=b"", headers=FORM)
    full = named(app, "Cyd").post(f"/api/tournaments/{tid}/join", content=b"",
                                  headers=FORM, follow_redirects=False)
    assert full.status_code == 409 and "full" in full.text
    unknown = host.post("/api/tournaments/nope/join", content=b"", headers=FORM,
                        follow_redirects=False)
    assert unknown.status_code == 404
    bad = host.post("/api/tournaments", data={**form, "minutes": "x"},
                    follow_redirects=False)
    assert bad.status_code == 400 and "minutes: must be a number" in bad.text


def test_a_pause_is_an_arenas_only(app: Any) -> None:
    """A Swiss pairs every player each round: its pause is refused (409, saying why);
    an arena's is taken."""
    host = named(app, "Pausehost")
    base = {"game": "benediction", "control": REALTIME, "rated": False, "starts_in_s": 600}
    swiss = host.post("/api/tournaments", json={**base, "kind": "swiss", "rounds": 3})
    arena = host.post("/api/tournaments", json={**base, "kind": "arena", "minutes": 30})
    player = named(app, "Pauser")
    for made in (swiss, arena):
        assert player.post(f"/api/tournaments/{made.json()['id']}/join").status_code == 200
    refused = player.post(f"/api/tournaments/{swiss.json()['id']}/pause", json={"on": True})
    assert refused.status_code == 409 and "only an arena" in refused.json()["error"]
    paused = player.post(f"/api/tournaments/{arena.json()['id']}/pause", json={"on": True})
    assert paused.status_code == 200, paused.text


def _arena(client: TestClient) -> str:
    made = client.post("/api/tournaments", json={
        "game": "benediction", "kind": "arena", "minutes": 20, "control": REALTIME,
        "rated": False, "starts_in_s": 60})
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def test_the_socket_refuses_another_sites_page_and_bounds_its_watchers(
        app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from starlette.websockets import WebSocketDisconnect

    from hexgames.web.routes import tournaments as routes

    host = named(app, "Sockhost")
    first, second = _arena(host), _arena(host)
    with pytest.raises(WebSocketDisconnect) as refused, host.websocket_connect(
            f"/ws/tournaments/{first}", headers={"origin": "https://evil.example"}) as socket:
        socket.receive_json()
    assert refused.value.code == 4403
    monkeypatch.setattr(routes, "MAX_TOTAL_WATCHERS", 1)
    with host.websocket_connect(f"/ws/tournaments/{first}") as socket:
        assert socket.receive_json()["id"] == first
        with pytest.raises(WebSocketDisconnect) as full, host.websocket_connect(
                f"/ws/tournaments/{second}") as other:
            other.receive_json()
        assert full.value.code == 1013  # the process's bound, across tournaments
    assert app.state.site.service.tournaments.watchers == {}


def test_the_socket_says_an_unknown_tournament_and_a_storage_down(app: Any) -> None:
    from starlette.websockets import WebSocketDisconnect

    from hexgames.web.storage import StorageUnavailable

    host = named(app, "Downhost")
    with host.websocket_connect("/ws/tournaments/nope") as socket:
        assert socket.receive_json() == {"type": "error", "message": "no such tournament"}
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
        assert closed.value.code == 4404
    tid = _arena(host)
    storage = app.state.site.service.storage

    def down(*args: Any) -> None:
        raise StorageUnavailable("the game storage is not answering; try again in a moment")

    original, storage.load_tournament = storage.load_tournament, down
    try:
        with host.websocket_connect(f"/ws/tournaments/{tid}") as socket:
            message = socket.receive_json()
            assert message["type"] == "error" and "storage" in message["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                socket.receive_json()
            assert closed.value.code == 1013
    finally:
        storage.load_tournament = original


def test_the_socket_sends_no_clock_tick_and_ignores_the_clients_messages(
        app: Any, time_: FakeTime) -> None:
    """The countdown moving is no change (the page counts down itself), and a client's
    message asks for no look: the next message is the next real change, a join; two
    watchers share one look and each gets its own ``you``."""
    host = named(app, "Tickhost")
    tid = _arena(host)
    joiner = named(app, "Ticker")
    with host.websocket_connect(f"/ws/tournaments/{tid}") as socket, \
            joiner.websocket_connect(f"/ws/tournaments/{tid}") as theirs:
        first = socket.receive_json()
        assert first["players"] == 0 and theirs.receive_json()["players"] == 0
        from hexgames.web.routes.tournaments import _FEEDS

        assert list(_FEEDS[app.state.site.service.tournaments]) == [tid]  # one look
        time_.ms += 5000
        for _ in range(3):
            socket.send_text("hello")
        assert joiner.post(f"/api/tournaments/{tid}/join").status_code == 200
        pushed = socket.receive_json()
        assert pushed["players"] == 1 and pushed["countdown_ms"] < first["countdown_ms"]
        assert pushed["you"]["joined"] is False
        assert theirs.receive_json()["you"]["joined"] is True


def test_a_bad_setting_is_said_in_the_visitors_language(app: Any) -> None:
    """The English ``error`` stays as API clients match it; ``message`` is translated."""
    creator = named(app, "Korean")
    answer = creator.post("/api/tournaments", headers={"accept-language": "ko"}, json={
        "game": "benediction", "control": REALTIME, "rated": False, "kind": "arena",
        "minutes": 3})
    assert answer.status_code == 400
    assert answer.json()["error"] == "minutes: must be between 10 and 360"
    assert answer.json()["message"] == "minutes: 10에서 360 사이여야 합니다"
