"""Players and ratings: identities, names, passwords, Glicko-2, player pages, leaderboards.

Unit tests of the pure parts (Glicko-2 against the paper's worked example, name rules,
password hashing, the rate limiter), then the HTTP API over both storages (SQLite and a
throwaway PostgreSQL cluster, as in test_web_storage).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from fastapi import WebSocket
from fastapi.testclient import TestClient

from hexgames.web.app import create_app
from hexgames.web.http.identity import (
    COOKIE,
    InvalidName,
    Player,
    hash_password,
    hash_secret,
    known_player,
    validate_name,
    verify_password,
)
from hexgames.web.http.rate_limit import RateLimiter
from hexgames.web.ratings.games import rating_pool, record_rated_result
from hexgames.web.ratings.glicko2 import Rating, idle, periods_between, update
from hexgames.web.storage import StoredGame, open_storage
from test_web_storage import postgres_cluster, postgres_url  # noqa: F401 - fixtures


# ------------------------------------------------------------------ Glicko-2
def test_glicko2_reproduces_the_papers_worked_example() -> None:
    """Glickman, "Example of the Glicko-2 system", section "Example calculation"."""
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    after = update(player, results, tau=0.5)
    # The paper rounds its intermediate values (mu' = -0.2069) before converting back,
    # which gives 1464.06; unrounded the same formulas give 1464.0507.
    mu = (after.rating - 1500) / 173.7178
    assert round(mu, 4) == -0.2069
    assert round(173.7178 * round(mu, 4) + 1500, 2) == 1464.06
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert round(after.deviation, 2) == 151.52
    assert 0.05999 <= after.volatility < 0.06  # the paper prints 0.05999 (= 0.059996)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    player = Rating(1600, 50, 0.06)
    after = update(player, [])
    assert after.rating == 1600 and after.volatility == 0.06 and after.deviation > 50
    assert idle(player, 1) == after
    assert idle(player, 0) == player
    assert idle(player, 10**6).deviation == 350.0  # capped at the starting deviation
    assert periods_between("2026-01-01T00:00:00+00:00", "2026-01-03T12:00:00+00:00") == 2
    assert periods_between("2026-01-03T00:00:00+00:00", "2026-01-01T00:00:00+00:00") == 0


def test_a_win_against_an_equal_moves_both_by_the_same_amount() -> None:
    winner = update(Rating(), [(Rating(), 1.0)])
    loser = update(Rating(), [(Rating(), 0.0)])
    draw = update(Rating(), [(Rating(), 0.5)])
    assert winner.rating > 1500 > loser.rating
    assert round(winner.rating - 1500, 6) == round(1500 - loser.rating, 6)
    assert round(draw.rating, 6) == 1500


def test_rating_pools_are_per_game_and_variant() -> None:
    assert rating_pool("dendria", {"board_side": 7, "pie": True, "quiet_limit": 10}) == "dendria"
    assert rating_pool("dendria", {"board_side": 9, "pie": True}) == "dendria board_side=9"
    assert rating_pool("benediction", {}) == "benediction"
    assert rating_pool("benediction", {"supply": 20}) == "benediction supply=20"


# --------------------------------------------------------------------- names
@pytest.mark.parametrize("name", ["Ann", "alice_2", "Bob-the-builder", "Z" * 20, "  Carol  "])
def test_good_names_are_accepted(name: str) -> None:
    assert validate_name(name) == name.strip()


@pytest.mark.parametrize("name", [
    "", "ab", "Z" * 21, "1abc", "_abc", "has space", "émile", "Аlice",  # Cyrillic А
    "admin", "ADMIN", "Guest-abc123", "guest", "Computer7", "you", "a<b>c", 42, None,
])
def test_bad_names_are_refused(name: Any) -> None:
    with pytest.raises(InvalidName):
        validate_name(name)


# ---------------------------------------------------------------- passwords
def test_passwords_are_salted_scrypt_hashes_checked_exactly() -> None:
    stored = hash_password("correct horse")
    assert stored.startswith("scrypt$16384$8$1$") and "correct horse" not in stored
    assert hash_password("correct horse") != stored  # a fresh salt each time
    assert verify_password("correct horse", stored)
    assert not verify_password("correct horsE", stored)
    assert not verify_password("", stored)
    assert not verify_password("correct horse", None)
    assert not verify_password("correct horse", "scrypt$garbage")
    with pytest.raises(ValueError):
        hash_password("short")


def test_the_rate_limiter_counts_per_key_in_a_sliding_window() -> None:
    now = [0.0]
    limiter = RateLimiter(3, 60.0, clock=lambda: now[0])
    assert [limiter.hit("a") for _ in range(3)] == [None, None, None]
    assert limiter.hit("a") == 60.0
    assert limiter.hit("b") is None  # another key is not affected
    now[0] = 59.0
    assert limiter.hit("a") == pytest.approx(1.0)
    now[0] = 60.5
    assert limiter.hit("a") is None


# ------------------------------------------------------------------ HTTP API
@pytest.fixture(params=["sqlite", "postgres"])
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """Keyword arguments of ``create_app`` for a fresh store of each kind."""
    if request.param == "sqlite":
        yield {"data_dir": tmp_path}
    else:
        yield {"database_url": request.getfixturevalue("postgres_url"), "data_dir": tmp_path}


@pytest.fixture
def app(site: dict[str, Any]) -> Iterator[Any]:
    """An app whose lifespan runs once; each browser is a client of its own (cookies)
    that does not run the lifespan again (leaving would close the storage)."""
    application = create_app(ai_processes=1, **site)
    with TestClient(application) as driver:
        application.state.driver = driver  # its portal runs coroutines on the app's loop
        yield application


def named(app: Any, name: str) -> TestClient:
    """A browser (a client with its own cookies) whose player is called ``name``."""
    client = TestClient(app)
    answer = client.post("/api/me/name", json={"name": name})
    assert answer.status_code == 200, answer.text
    return client


def test_a_visitor_gets_a_lasting_identity_whose_secret_is_stored_hashed(tmp_path: Path) -> None:
    app = create_app(data_dir=tmp_path, ai_processes=1)
    with TestClient(app) as client:
        first = client.get("/")
        cookie = first.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie
        assert "SameSite=Lax" in cookie and "Secure" not in cookie  # plain http here
        secret = client.cookies[COOKIE]
        assert len(secret) >= 43  # 32 random bytes
        me = client.get("/api/me").json()
        assert me["guest"] and me["name"].startswith("Guest-")
        assert "set-cookie" not in client.get("/api/me").headers  # known: no new cookie
        assert client.get("/api/me").json()["id"] == me["id"]
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as again:  # a restart
        again.cookies[COOKIE] = secret
        assert again.get("/api/me").json()["id"] == me["id"]
    raw = (tmp_path / "hexgames.sqlite3").read_bytes()
    assert secret.encode() not in raw
    with sqlite3.connect(tmp_path / "hexgames.sqlite3") as db:
        stored = [row[0] for row in db.execute("SELECT secret_hash FROM player_sessions")]
    assert stored == [hash_secret(secret)]


def test_an_https_site_sends_a_secure_cookie(tmp_path: Path) -> None:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1),
                    base_url="https://testserver") as client:
        assert "; Secure" in client.get("/api/me").headers["set-cookie"]


def test_names_are_unique_ignoring_case_and_can_change(app: Any) -> None:
    ann = named(app, "Ann")
    other = TestClient(app)
    taken = other.post("/api/me/name", json={"name": "ANN"})
    assert taken.status_code == 409 and "taken" in taken.json()["error"]
    bad = other.post("/api/me/name", json={"name": "no way"})
    assert bad.status_code == 400 and "letters" in bad.json()["error"]
    assert other.post("/api/me/name", json={"name": "admin"}).status_code == 400
    assert ann.post("/api/me/name", json={"name": "Annie"}).json()["name"] == "Annie"
    assert other.post("/api/me/name", json={"name": "ann"}).status_code == 200  # free now
    assert ann.get("/api/players/ANNIE").json()["name"] == "Annie"
    assert ann.get("/api/players/nobody").status_code == 404
    assert ann.get("/player/nobody").status_code == 404


def test_a_password_lets_another_browser_claim_the_identity(app: Any) -> None:
    guest = TestClient(app)
    refused = guest.post("/api/me/password", json={"password": "a long secret"})
    assert refused.status_code == 400 and "name" in refused.json()["error"]
    ann = named(app, "Ann")
    me = ann.get("/api/me").json()
    assert ann.post("/api/me/password", json={"password": "short"}).status_code == 400
    assert ann.post("/api/me/password", json={"password": "a long secret"}).json()["has_password"]
    change = ann.post("/api/me/password", json={"password": "another one", "current": "wrong!!!"})
    assert change.status_code == 403
    phone = TestClient(app)
    wrong = phone.post("/api/login", json={"name": "ann", "password": "a long secreT"})
    assert wrong.status_code == 401
    assert phone.post("/api/login", json={"name": "nobody", "password": "a long secret"}
                      ).status_code == 401
    good = phone.post("/api/login", json={"name": "ann", "password": "a long secret"})
    assert good.status_code == 200 and good.json()["id"] == me["id"]
    assert phone.get("/api/me").json()["id"] == me["id"]
    assert ann.get("/api/me").json()["id"] == me["id"]  # still logged in there too
    forged = phone.post("/api/login", json={"name": "ann", "password": "a long secret"},
                        headers={"Origin": "https://evil.example"})
    assert forged.status_code == 403
    assert phone.post("/api/logout").json() == {"ok": True}
    assert phone.get("/api/me").json()["id"] != me["id"]  # a fresh guest now


def test_logins_are_rate_limited(tmp_path: Path) -> None:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        codes = [client.post("/api/login", json={"name": "ann", "password": "whatever1"}
                             ).status_code for _ in range(11)]
        assert codes[:10] == [401] * 10 and codes[10] == 429


def online_game(creator: TestClient, friend: TestClient, rated: bool = True,
                options: dict[str, Any] | None = None) -> tuple[str, str, str]:
    """An online Dendria game: the creator dark (seat 0), the friend claims light."""
    made = creator.post("/api/games", json={"game": "dendria", "mode": "online",
                                            "rated": rated, "options": options or {}})
    assert made.status_code == 201, made.text
    game = made.json()
    claimed = friend.post(f"/api/games/{game['id']}/claim",
                          json={"token": game["tokens"][1]}).json()
    assert claimed["seats"] == [1]
    return game["id"], game["token"], claimed["token"]


def each_side_moves(client: TestClient, game_id: str, tokens: list[str]) -> None:
    """The seat to act plays its first legal action until each seat has acted (a rated
    result needs a move from each side: issue 31, row 10)."""
    moved: set[int] = set()
    for _ in range(40):
        if moved == {0, 1}:
            return
        views = [client.get(f"/api/games/{game_id}", params={"token": token}).json()
                 for token in tokens]
        seat = next(seat for seat, view in enumerate(views) if view["your_turn"])
        answer = client.post(f"/api/games/{game_id}/actions", json={
            "token": tokens[seat], "action": views[seat]["legal"][0]["action"]})
        assert answer.status_code == 200, answer.text
        moved.add(seat)
    raise AssertionError("both seats did not get to act")


def test_seats_belong_to_identities_and_games_show_both_names(app: Any) -> None:
    ann, bob = named(app, "Ann"), named(app, "Bob")
    game_id, _, _ = online_game(ann, bob, rated=False)
    state = ann.get(f"/api/games/{game_id}").json()
    assert [p["player"]["name"] for p in state["players"]] == ["Ann", "Bob"]
    assert [p["name"] for p in state["players"]] == ["Player 1", "Player 2"]  # unchanged
    assert state["rated"] is False and state["rating_changes"] is None
    # Ann on another device (same identity, no token): claim gives back her seat.
    laptop = TestClient(app)
    laptop.cookies[COOKIE] = ann.cookies[COOKIE]
    again = laptop.post(f"/api/games/{game_id}/claim", json={}).json()
    assert again["role"] == "player" and again["seats"] == [0]
    assert again["token"].startswith("id.")
    view = laptop.get(f"/api/games/{game_id}", params={"token": again["token"]}).json()
    assert view["your_seats"] == [0] and view["your_turn"]
    with laptop.websocket_connect(f"/ws/games/{game_id}?token={again['token']}") as ws:
        assert ws.receive_json()["your_seats"] == [0]
    # A stranger cannot use or forge it for another game or seat.
    stranger = TestClient(app)
    assert stranger.post(f"/api/games/{game_id}/claim", json={}).json()["role"] == "spectator"
    forged = stranger.get(f"/api/games/{game_id}",
                          params={"token": again["token"][:-2] + "AA"}).json()
    assert forged["your_seats"] == []
    # A rename shows in the game at once.
    bob.post("/api/me/name", json={"name": "Robert"})
    state = ann.get(f"/api/games/{game_id}").json()
    assert [p["player"]["name"] for p in state["players"]] == ["Ann", "Robert"]
    page = ann.get("/api/players/robert").json()
    assert [g["id"] for g in page["playing"]] == [game_id] and page["finished"] == []
    assert page["playing"][0]["your_seats"] == [1]
    # Ann (seat 0) is to move: her page marks the game as her turn, Robert's does not.
    assert page["playing"][0]["your_turn"] is False
    assert ann.get("/api/players/ann").json()["playing"][0]["your_turn"] is True
    # Both pages say which seat is to move (the page names that player).
    assert page["playing"][0]["turn"] == 0
    assert ann.get("/api/players/ann").json()["playing"][0]["turn"] == 0
    # The public games list names both seats.
    listed = next(g for g in ann.get("/api/games").json()["games"] if g["id"] == game_id)
    assert listed["names"] == ["Ann", "Robert"]


def test_a_rated_game_updates_ratings_once_and_shows_the_change(app: Any) -> None:
    ann, bob = named(app, "Ann"), named(app, "Bob")
    game_id, ann_token, bob_token = online_game(ann, bob)
    each_side_moves(ann, game_id, [ann_token, bob_token])
    with bob.websocket_connect(f"/ws/games/{game_id}") as watcher:
        watcher.receive_json()
        over = ann.post(f"/api/games/{game_id}/resign", json={"token": ann_token}).json()
        pushed = watcher.receive_json()
    assert over["rated"] and over["is_over"]
    changes = over["rating_changes"]
    assert [c["seat"] for c in changes] == [0, 1]
    assert changes[0]["change"] < 0 < changes[1]["change"]
    assert changes[0]["before"] == changes[1]["before"] == 1500.0
    assert pushed["rating_changes"] == changes
    board = ann.get("/api/leaderboard").json()
    assert board["pool"] == "dendria"
    assert [(p["rank"], p["name"]) for p in board["players"]] == [(1, "Bob"), (2, "Ann")]
    assert board["players"][0]["rating"] == changes[1]["after"]
    profile = ann.get("/api/players/ann").json()
    assert profile["ratings"][0]["pool"] == "dendria"
    assert profile["ratings"][0]["losses"] == 1 and profile["ratings"][0]["games"] == 1
    assert [g["id"] for g in profile["finished"]] == [game_id]
    # Idempotent: applying the same game again changes nothing and answers the same.
    storage = app.state.site.service.storage
    match = app.state.site.service.games.matches[game_id]
    assert record_rated_result(storage, match) == changes
    assert record_rated_result(storage, storage.load_game(game_id)) == changes
    assert ann.get("/api/leaderboard").json()["players"] == board["players"]
    # Another variant is another pool; a casual game changes nothing.
    casual, token, _ = online_game(ann, bob, rated=False)
    assert ann.post(f"/api/games/{casual}/resign", json={"token": token}
                    ).json()["rating_changes"] is None
    big, token, other = online_game(ann, bob, options={"board_side": 9})
    each_side_moves(ann, big, [token, other])
    ann.post(f"/api/games/{big}/resign", json={"token": token})
    pools = [p["pool"] for p in ann.get("/api/leaderboard").json()["pools"]]
    assert pools == ["dendria", "dendria board_side=9"]
    assert ann.get("/api/players/bob").json()["ratings"][0]["wins"] == 1


def test_games_without_two_identities_or_a_result_are_not_rated(tmp_path: Path) -> None:
    storage = open_storage(data_dir=tmp_path)
    try:
        base = dict(game="dendria", options={}, mode="online", seat_tokens=[None, None],
                    created_at="t", updated_at="t", rated=True)
        lone = StoredGame(id="a", players=[{"kind": "human", "player_id": "p1"},
                                           {"kind": "human"}],
                          status="over", winner="dark", reason="Light resigned", **base)
        same = StoredGame(id="b", players=[{"kind": "human", "player_id": "p1"},
                                           {"kind": "human", "player_id": "p1"}],
                          status="over", winner="dark", reason="Light resigned", **base)
        aborted = StoredGame(id="c", players=[{"kind": "human", "player_id": "p1"},
                                              {"kind": "human", "player_id": "p2"}],
                             status="over", winner=None, reason="aborted", **base)
        playing = StoredGame(id="d", players=aborted.players, status="playing", winner=None,
                             reason=None, **base)
        for game in (lone, same, aborted, playing):
            assert record_rated_result(storage, game) is None
        assert storage.rating_pools() == []
    finally:
        storage.close()


def test_an_older_database_gains_the_new_tables_and_keeps_its_games(tmp_path: Path) -> None:
    path = tmp_path / "hexgames.sqlite3"
    with sqlite3.connect(path) as db:  # the schema before identities
        db.execute("""CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL,
            options TEXT NOT NULL, mode TEXT NOT NULL, players TEXT NOT NULL,
            seat_tokens TEXT NOT NULL, status TEXT NOT NULL, winner TEXT, reason TEXT,
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL, start TEXT)""")
        db.execute("""CREATE TABLE moves (game_id TEXT NOT NULL, ply INTEGER NOT NULL,
            action TEXT NOT NULL, played_at TEXT NOT NULL, PRIMARY KEY (game_id, ply))""")
        db.execute("INSERT INTO games VALUES ('old', 'dendria', '{}', 'hotseat', "
                   "'[{\"kind\": \"human\"}, {\"kind\": \"human\"}]', '[null, null]', "
                   "'playing', NULL, NULL, 't', 't', NULL)")
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        state = client.get("/api/games/old").json()
        assert state["rated"] is False and state["players"][0]["player"] is None
        assert client.get("/api/me").status_code == 200


def test_the_lobby_can_pair_two_identities_and_a_websocket_knows_its_player(app: Any) -> None:
    """What the lobby builds on: ``GameService.create(player=, opponent=, rated=)`` seats
    both identities without an invitation; each browser gets its seat through ``claim``;
    ``known_player`` works on a WebSocket handshake; ``on_game_over`` rates the result."""

    @app.websocket("/ws/test-who")
    async def who(websocket: WebSocket) -> None:
        await websocket.accept()
        player = await known_player(websocket)
        await websocket.send_json(player.public() if player else None)
        await websocket.close()

    ann, bob = named(app, "Ann"), named(app, "Bob")
    with TestClient(app).websocket_connect("/ws/test-who") as anonymous:
        assert anonymous.receive_json() is None
    with ann.websocket_connect("/ws/test-who") as socket:
        assert socket.receive_json()["name"] == "Ann"
    players = [Player(me["id"], me["name"]) for me in
               (ann.get("/api/me").json(), bob.get("/api/me").json())]
    service, driver = app.state.site.service, app.state.driver
    match, _ = driver.portal.call(partial(
        service.create, "dendria", {}, "online", seat=1, player=players[0],
        opponent=players[1], rated=True))
    tokens = [client.post(f"/api/games/{match.id}/claim", json={}).json()
              for client in (ann, bob)]
    assert [t["seats"] for t in tokens] == [[1], [0]]
    state = ann.get(f"/api/games/{match.id}", params={"token": tokens[0]["token"]}).json()
    assert [p["player"]["name"] for p in state["players"]] == ["Bob", "Ann"]
    assert state["rated"] and state["your_seats"] == [1]
    assert "invite" not in str(match.stored.players)
    each_side_moves(ann, match.id, [tokens[1]["token"], tokens[0]["token"]])
    # A flag fall, as the clocks will store it: the end, then on_game_over.
    loser = match.position.color_of_seat(0)
    match.stored.status, match.stored.winner = "over", match.position.color_of_seat(1)
    match.stored.reason = f"{loser.capitalize()} ran out of time"
    driver.portal.call(service.on_game_over, match)
    assert [c["change"] > 0 for c in match.rating_changes] == [False, True]
    driver.portal.call(service.on_game_over, match)  # once only
    board = ann.get("/api/leaderboard").json()["players"]
    assert [(p["name"], p["games"]) for p in board] == [("Ann", 1), ("Bob", 1)]
    with pytest.raises(ValueError):
        driver.portal.call(partial(service.create, "dendria", {}, "ai", rated=True))


def test_two_processes_rating_at_once_apply_each_game_exactly_once(
        postgres_url: str,  # noqa: F811
) -> None:
    """Two PostgreSQL connections (two server processes) rate the same games at the same
    moment: each game counts once, and no update of a player's rating is lost."""
    import threading

    from hexgames.web.storage import PlayerRecord

    stores = [open_storage(database_url=postgres_url) for _ in range(2)]
    try:
        for player_id in ("p1", "p2", "p3"):
            stores[0].create_player(PlayerRecord(player_id, f"Name{player_id}", "t"),
                                    hash_secret(player_id))

        from hexgames.game import get_game

        position, opening, seats = get_game("dendria").new(), [], set()
        while seats != {0, 1}:  # a rated result needs an action from each side
            seats.add(position.current_seat)
            opening.append(str(position.legal_actions()[0]))
            position.play(position.legal_actions()[0])

        def rated(game_id: str, first: str, second: str) -> StoredGame:
            game = StoredGame(
                id=game_id, game="dendria", options={}, mode="online", actions=opening,
                players=[{"kind": "human", "player_id": first},
                         {"kind": "human", "player_id": second}],
                seat_tokens=[None, None], status="over", winner="dark",
                reason="Light resigned", created_at="t", updated_at="t", rated=True)
            stores[0].create_game(game)
            return game

        games = [rated("same", "p1", "p2"), rated("other", "p1", "p3")]
        results: dict[tuple[int, str], Any] = {}
        barrier = threading.Barrier(4)

        def rate(index: int, game: StoredGame) -> None:
            barrier.wait()
            results[index, game.id] = record_rated_result(stores[index], game)

        threads = [threading.Thread(target=rate, args=(index, game))
                   for index in (0, 1) for game in games]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert results[0, "same"] == results[1, "same"] is not None
        assert results[0, "other"] == results[1, "other"] is not None
        ratings = {r.player_id: r for r in stores[1].ratings_of("p1")}
        assert ratings["p1"].games == 2 and ratings["p1"].wins == 2  # both games, once each
        assert [r.games for r in stores[1].ratings_of("p2")] == [1]
    finally:
        for store in stores:
            store.close()
