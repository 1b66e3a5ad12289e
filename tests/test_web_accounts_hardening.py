"""Issue 31, rows 5, 7-10, 16 and 17 of the attack table: accounts and fair play.

- row 7: login guesses under every spelling of a name share the account's one budget,
  whatever the client address;
- row 8: no state-changing API request from another site's page (another port of the
  same host included), challenge accept among them; scripts without cookies still work;
- row 9: a password change logs the player's other browsers out (this one stays);
- row 10: no rated result without a move from each side, no rated play for guests, a
  cap on rated games per hour (lower in an identity's first day);
- row 16: no engine analysis of a position on the board of an online game in progress
  (evaluate, graph, hint, a game against the computer from there);
- row 17: look-alike names (``AIice`` beside ``Alice``) refused, at naming and renaming.

Everything runs in the test client (no server, no sleeping, no timing).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from hexgames.web.accounts.rated_play import NEW_RATED_PER_HOUR
from hexgames.web.app import create_app
from hexgames.web.http.identity import COOKIE, hash_secret
from hexgames.web.play.live_positions import FOLLOW_PLIES, OPENING_PLIES
from hexgames.web.ratings.games import record_rated_result
from hexgames.web.storage import StoredGame, open_storage
from hexgames.web.storage.confusables import skeleton
from test_web_app_wiring import app_routes

FOREIGN = "http://testserver:8001"  # the same host, another port: another origin


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Any]:
    """An app whose lifespan runs once; each browser is a client of its own."""
    application = create_app(data_dir=tmp_path, ai_processes=1)
    with TestClient(application) as driver:
        application.state.driver = driver
        yield application


def browser(app: Any, address: str = "testclient") -> TestClient:
    return TestClient(app, client=(address, 50000))


def named(app: Any, name: str, address: str = "testclient") -> TestClient:
    client = browser(app, address)
    answer = client.post("/api/me/name", json={"name": name})
    assert answer.status_code == 200, answer.text
    return client


def state(client: TestClient, game_id: str, token: str | None = None) -> dict[str, Any]:
    answer = client.get(f"/api/games/{game_id}", params={"token": token} if token else {})
    assert answer.status_code == 200, answer.text
    return answer.json()


def online_game(creator: TestClient, friend: TestClient, rated: bool,
                game: str = "dendria") -> tuple[str, list[str]]:
    """An online game: the creator in seat 0, the friend claims seat 1's invitation."""
    made = creator.post("/api/games", json={"game": game, "mode": "online", "rated": rated})
    assert made.status_code == 201, made.text
    body = made.json()
    claimed = friend.post(f"/api/games/{body['id']}/claim", json={"token": body["tokens"][1]})
    assert claimed.status_code == 200, claimed.text
    assert claimed.json()["seats"] == [1]
    return body["id"], [body["token"], claimed.json()["token"]]


def each_side_moves(client: TestClient, game_id: str, tokens: list[str],
                    plies: int = 0) -> None:
    """The seat to act plays its first legal action until both seats have acted, at
    least ``plies`` actions were played and a turn is complete (a turn start)."""
    match = client.app.state.site.service.games.matches[game_id]  # type: ignore[attr-defined]
    moved: set[int] = set()
    for _ in range(40):
        if (moved == {0, 1} and len(match.plies) >= plies
                and match.position.is_turn_start()):
            return
        seat = next(s for s, token in enumerate(tokens) if state(client, game_id, token)
                    ["your_turn"])
        view = state(client, game_id, tokens[seat])
        answer = client.post(f"/api/games/{game_id}/actions",
                             json={"token": tokens[seat], "action": view["legal"][0]["action"]})
        assert answer.status_code == 200, answer.text
        moved.add(seat)
    raise AssertionError("both seats did not get to act")


# ------------------------------------------------------------------- row 7
def test_every_spelling_of_a_name_spends_the_one_budget_of_its_account(app: Any) -> None:
    """The attack: ``" vic"``, ``"vic\\t"``... were separate keys but one account: 59
    guesses from 6 addresses, password found. Now 10 per account, then 429 (one more
    check for each address that guessed nothing yet, answered 429 when wrong)."""
    vic = named(app, "vic")
    assert vic.post("/api/me/password", json={"password": "the secret 42"}).status_code == 200
    spellings = [" vic", "vic\t", "VIC", "Vic ", "\tvic\n", "vIc", "vic", "  VIC  "]
    codes = []
    for address in range(6):
        guesser = browser(app, f"10.0.0.{address}")
        for attempt in range(10):
            name = spellings[(address * 10 + attempt) % len(spellings)]
            codes.append(guesser.post("/api/login", json={
                "name": name, "password": f"guess {address} {attempt}"}).status_code)
    assert codes.count(401) == 10 and codes.count(429) == 50
    assert set(codes[10:]) == {429}
    # A guessing address is refused even the right password until the window passes...
    late = browser(app, "10.0.0.3").post("/api/login", json={
        "name": " Vic", "password": "the secret 42"})
    assert late.status_code == 429 and int(late.headers["Retry-After"]) > 0
    # ...but the owner, from an address that guessed nothing, is not locked out (issue
    # 39, row 4: a stranger's guesses locked the owner out for 5 min).
    owner = browser(app, "10.0.0.99").post("/api/login", json={
        "name": " Vic", "password": "the secret 42"})
    assert owner.status_code == 200 and owner.json()["name"] == "vic"
    # Another account keeps its own budget.
    named(app, "Walt").post("/api/me/password", json={"password": "walt's secret"})
    assert browser(app, "10.0.1.1").post("/api/login", json={
        "name": "walt", "password": "walt's secret"}).status_code == 200


# ------------------------------------------------------------------- row 8
def test_a_form_on_another_port_cannot_accept_a_challenge(app: Any) -> None:
    attacker, victim = named(app, "Mallory"), named(app, "Victor")
    seek = attacker.post("/api/seeks", json={
        "game": "dendria", "rated": True, "control": {"kind": "correspondence", "days": 3}})
    assert seek.status_code == 201, seek.text
    seek_id = seek.json()["id"]
    for headers in ({"Origin": FOREIGN}, {"Origin": "null"},
                    {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
                    {"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "same-site"},
                    {"Sec-Fetch-Site": "cross-site"}):
        refused = victim.post(f"/api/seeks/{seek_id}/accept", headers=headers)
        assert refused.status_code == 403, (headers, refused.text)
        assert "cross-site" in refused.json()["error"]
    assert victim.get(f"/api/seeks/{seek_id}").json()["status"] == "open"
    assert victim.get("/api/me/turn").json()["games"] == []
    # The site's own page (Origin: the site; or a form of it under the site's
    # no-referrer policy: "Origin: null" and Sec-Fetch-Site same-origin) accepts.
    taken = victim.post(f"/api/seeks/{seek_id}/accept",
                        headers={"Origin": "null", "Sec-Fetch-Site": "same-origin"})
    assert taken.status_code == 201, taken.text


PROFILE_FORMS = {"/player/{name}/follow", "/player/{name}/block"}


def test_every_state_changing_api_route_refuses_another_sites_page(app: Any) -> None:
    victim = named(app, "Victor")
    routes = [(route.path, method) for route in app_routes(app.routes)
              if isinstance(route, APIRoute)
              for method in route.methods if method in {"POST", "PUT", "PATCH", "DELETE"}]
    assert ("/api/seeks/{seek_id}/accept", "POST") in routes and len(routes) >= 15
    for path, method in routes:
        # What the guard covers; the profile's plain forms (follow, block) check the
        # Origin and a key of the page's own themselves.
        assert path.startswith("/api/") or path in PROFILE_FORMS, path
        url = path.replace("{", "").replace("}", "")  # any id: refused before the route
        answer = victim.request(method, url, json={}, headers={"Origin": FOREIGN})
        assert answer.status_code == 403, (path, answer.status_code, answer.text)
    # Scripts (no cookie, no Origin) keep working, as the API documents.
    script = TestClient(app)
    made = script.post("/api/games", json={"game": "dendria", "mode": "hotseat"})
    assert made.status_code == 201 and "set-cookie" not in made.headers
    # A cookie-keeping script that sends no Origin (not a browser page) too.
    assert victim.post("/api/me/name", json={"name": "Victoria"}).status_code == 200


# ------------------------------------------------------------------- row 9
def test_a_password_change_logs_the_other_browsers_out(app: Any) -> None:
    ann = named(app, "Ann")
    assert ann.post("/api/me/password", json={"password": "first secret"}).status_code == 200
    me = ann.get("/api/me").json()
    phone = browser(app)
    assert phone.post("/api/login", json={"name": "ann", "password": "first secret"}
                      ).json()["id"] == me["id"]
    stolen = browser(app)
    stolen.cookies[COOKIE] = phone.cookies[COOKIE]  # a copy of the phone's cookie
    assert stolen.get("/api/me").json()["id"] == me["id"]
    changed = ann.post("/api/me/password", json={"password": "second secret",
                                                  "current": "first secret"})
    assert changed.status_code == 200
    assert ann.get("/api/me").json()["id"] == me["id"]  # this browser stays
    for other in (phone, stolen):
        assert other.get("/api/me").json()["id"] != me["id"]  # a fresh guest now
    storage = app.state.site.service.storage
    with storage._transaction() as cursor:
        cursor.execute("SELECT secret_hash FROM player_sessions WHERE player_id = ?",
                       (me["id"],))
        assert [row[0] for row in cursor.fetchall()] == [hash_secret(ann.cookies[COOKIE])]
    assert browser(app).post("/api/login", json={"name": "ann", "password": "second secret"}
                             ).status_code == 200


# ------------------------------------------------------------------ row 10
def test_throwaway_guests_and_zero_move_resignations_farm_no_rating(app: Any) -> None:
    farmer = named(app, "Farmer")
    # The attack: a guest claims the rated invitation and resigns. Guests play no rated
    # games: the claim is refused, and the seat stays open.
    for _ in range(2):
        made = farmer.post("/api/games", json={"game": "dendria", "mode": "online",
                                               "rated": True}).json()
        guest = browser(app)
        assert guest.get("/api/me").json()["guest"]  # a browser: its page made it a guest
        claimed = guest.post(f"/api/games/{made['id']}/claim",
                             json={"token": made["tokens"][1]})
        assert claimed.status_code == 403 and "name" in claimed.json()["error"]
    # Named throwaways resigning before any move: recorded, not rated (as an abort).
    for number in range(2):
        game_id, tokens = online_game(farmer, named(app, f"Throwaway{number}"), rated=True)
        over = farmer.post(f"/api/games/{game_id}/resign", json={"token": tokens[1]}).json()
        assert over["is_over"] and over["rated"] and over["rating_changes"] is None
        assert "resigned" in over["result"]
    # One move each by one side only: still no rated result.
    game_id, tokens = online_game(farmer, named(app, "Throwaway9"), rated=True)
    first = state(farmer, game_id, tokens[0])
    farmer.post(f"/api/games/{game_id}/actions",
                json={"token": tokens[0], "action": first["legal"][0]["action"]})
    over = farmer.post(f"/api/games/{game_id}/resign", json={"token": tokens[1]}).json()
    assert over["is_over"] and over["rating_changes"] is None
    assert farmer.get("/api/leaderboard").json()["players"] == []
    assert farmer.get("/api/players/farmer").json()["ratings"] == []
    # A real game (each side moved) counts.
    rival = named(app, "Rival")
    game_id, tokens = online_game(farmer, rival, rated=True)
    each_side_moves(farmer, game_id, tokens)
    over = rival.post(f"/api/games/{game_id}/resign", json={"token": tokens[1]}).json()
    assert [c["change"] > 0 for c in over["rating_changes"]] == [True, False]
    # Rated challenges: a guest may neither post nor accept one.
    guest = browser(app)
    guest.get("/api/me")
    assert guest.post("/api/seeks", json={"game": "dendria", "rated": True}).status_code == 403
    seek = farmer.post("/api/seeks", json={"game": "dendria", "rated": True}).json()
    assert guest.post(f"/api/seeks/{seek['id']}/accept").status_code == 403
    assert farmer.get(f"/api/seeks/{seek['id']}").json()["status"] == "open"
    casual = guest.post("/api/seeks", json={"game": "dendria"})  # casual: anyone
    assert casual.status_code == 201


def test_a_new_identity_has_a_cap_on_rated_games_an_hour(app: Any) -> None:
    newcomer = named(app, "Newcomer")
    for _ in range(NEW_RATED_PER_HOUR):
        made = newcomer.post("/api/games", json={"game": "dendria", "mode": "online",
                                                 "rated": True})
        assert made.status_code == 201, made.text
    over = newcomer.post("/api/games", json={"game": "dendria", "mode": "online",
                                             "rated": True})
    assert over.status_code == 429 and int(over.headers["Retry-After"]) > 0
    assert "rated games an hour" in over.json()["error"]
    casual = newcomer.post("/api/games", json={"game": "dendria", "mode": "online"})
    assert casual.status_code == 201


def test_a_stored_game_without_a_move_from_each_side_is_not_rated(tmp_path: Path) -> None:
    from hexgames.web.storage import PlayerRecord

    storage = open_storage(data_dir=tmp_path)
    try:
        for player_id, name in (("p1", "Ann"), ("p2", "Bob"), ("g1", "Guest-abcdef")):
            storage.create_player(PlayerRecord(player_id, name, "t"), hash_secret(player_id))
        base = dict(game="dendria", options={}, mode="online", seat_tokens=[None, None],
                    status="over", winner="dark", reason="Light resigned", created_at="t",
                    updated_at="t", rated=True)
        pair = [{"kind": "human", "player_id": "p1"}, {"kind": "human", "player_id": "p2"}]
        assert record_rated_result(storage, StoredGame(id="a", players=pair, **base)) is None
        with_guest = [pair[0], {"kind": "human", "player_id": "g1"}]
        from hexgames.game import get_game

        position = get_game("dendria").new()
        notations, seats = [], set()
        while seats != {0, 1}:  # first legal actions until each side has acted
            action = position.legal_actions()[0]
            seats.add(position.current_seat)
            notations.append(str(action))
            position.play(action)
        assert record_rated_result(storage, StoredGame(
            id="b", players=with_guest, actions=notations, **base)) is None
        changes = record_rated_result(storage, StoredGame(
            id="c", players=pair, actions=notations, **base))
        assert changes is not None and [c["seat"] for c in changes] == [0, 1]
    finally:
        storage.close()



# ------------------------------------------------------------------ row 16
def test_no_engine_analysis_of_a_position_being_played(app: Any) -> None:
    ann, bob = named(app, "Ann"), named(app, "Bob")
    game_id, tokens = online_game(ann, bob, rated=False)
    each_side_moves(ann, game_id, tokens, OPENING_PLIES)  # past the common opening
    view = state(ann, game_id)
    line = [entry["notation"] for entry in view["history"]]
    spectator = browser(app)
    body = {"game": "dendria", "actions": line, "depth": 0}
    refused = spectator.post("/api/analysis/evaluate", json=body)
    assert refused.status_code == 403 and "being played" in refused.json()["error"]
    # A continuation from the live position (a candidate move) is refused too ...
    mine = state(ann, game_id, next(t for t in tokens if state(ann, game_id, t)["your_turn"]))
    longer = {**body, "actions": [*line, mine["legal"][0]["action"]]}
    assert spectator.post("/api/analysis/evaluate", json=longer).status_code == 403
    graph = {"game": "dendria", "actions": line, "first": 0, "count": len(line) + 1}
    assert spectator.post("/api/analysis/graph", json=graph).status_code == 403
    # The opening, before the live position, is open (issue 39, row 13).
    opening = {**graph, "count": len(line) - FOLLOW_PLIES}
    assert spectator.post("/api/analysis/graph", json=opening).status_code == 200
    # ... and so are a hint in a hot-seat copy and a game against the computer from it.
    record = spectator.get(f"/api/games/{game_id}/record").text
    copy = spectator.post("/api/records", json={"text": record})
    assert copy.status_code == 201, copy.text
    hint = spectator.post(f"/api/games/{copy.json()['id']}/hint",
                          json={"token": copy.json()["token"]})
    assert hint.status_code == 403, hint.text
    text = spectator.post("/api/analysis/position", json={"game": "dendria",
                                                           "actions": line}).json()["text"]
    assert spectator.post("/api/games", json={"game": "dendria", "mode": "ai",
                                              "start": text}).status_code == 403
    # The board itself (no engine) stays open; so does the start position.
    assert spectator.post("/api/analysis/position", json={"game": "dendria",
                                                          "actions": line}).status_code == 200
    assert spectator.post("/api/analysis/evaluate", json={
        "game": "dendria", "actions": line[:0], "depth": 0}).status_code == 200
    # Once the game is over, the same line is analysed.
    ann.post(f"/api/games/{game_id}/resign", json={"token": tokens[0]})
    # The list of games is re-read (2 s cache).
    app.state.site.service.live_positions._read_at = -1e9
    answer = spectator.post("/api/analysis/evaluate", json=body)
    assert answer.status_code == 200, answer.text


# ------------------------------------------------------------------ row 17
@pytest.mark.parametrize(("first", "second"), [
    ("Alice", "AIice"), ("Alice", "A1ice"), ("alice", "aIice"), ("Bill", "BiII"),
    ("Ann0", "AnnO"), ("mike", "rnike"), ("wave", "vvave"), ("Tom_1", "Tom_l"),
])
def test_look_alike_names_share_a_skeleton(first: str, second: str) -> None:
    assert skeleton(first) == skeleton(second)


@pytest.mark.parametrize(("first", "second"), [
    ("Alice", "Alina"), ("Jim", "Jlm"), ("Ann", "Anne"), ("mike", "rnikes"),
])
def test_different_names_keep_different_skeletons(first: str, second: str) -> None:
    assert skeleton(first) != skeleton(second)


def test_unicode_look_alikes_fold_to_latin() -> None:
    assert skeleton("\u0410lice") == skeleton("Alice")  # Cyrillic A
    assert skeleton("p\u0430ul") == skeleton("paul")  # Cyrillic a
    assert skeleton("\uff21lice") == skeleton("Alice")  # full-width A (NFKC)
    assert skeleton("\u039fscar") == skeleton("Oscar")  # Greek capital omicron


def test_a_look_alike_of_another_players_name_is_refused(app: Any) -> None:
    named(app, "Alice")
    copycat = browser(app)
    refused = copycat.post("/api/me/name", json={"name": "AIice"})
    assert refused.status_code == 409
    assert "looks too much like" in refused.json()["error"] and "Alice" in refused.json()["error"]
    assert copycat.post("/api/me/name", json={"name": "A1ice"}).status_code == 409
    # A rename is checked the same way.
    bob = named(app, "Bob")
    assert bob.post("/api/me/name", json={"name": "aIice"}).status_code == 409
    assert bob.get("/api/me").json()["name"] == "Bob"
    # Names that only share letters stay free; a player may rename among them.
    alina = named(app, "Alina")
    assert alina.post("/api/me/name", json={"name": "Alinda"}).status_code == 200


def test_an_older_database_gains_the_look_alike_column(tmp_path: Path) -> None:
    path = tmp_path / "hexgames.sqlite3"
    storage = open_storage(data_dir=tmp_path)
    storage.close()
    with sqlite3.connect(path) as db:  # the players table before this change
        db.execute("DROP TABLE players")
        db.execute("""CREATE TABLE players (id TEXT PRIMARY KEY, name TEXT NOT NULL,
            name_key TEXT NOT NULL UNIQUE, password TEXT, created_at TEXT NOT NULL)""")
        db.execute("INSERT INTO players VALUES ('p1', 'Alice', 'alice', NULL, 't')")
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        assert client.post("/api/me/name", json={"name": "AIice"}).status_code == 409
        assert client.post("/api/me/name", json={"name": "Alba"}).status_code == 200
    with sqlite3.connect(path) as db:
        rows = dict(db.execute("SELECT name, name_skeleton FROM players WHERE name "
                               "IN ('Alice', 'Alba')").fetchall())
    assert rows == {"Alice": "alice", "Alba": "alba"}
