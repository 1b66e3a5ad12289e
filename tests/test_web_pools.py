"""Quick pairing (issue 32, item 3): pools by game and time control, matched by rating
range widening with waiting, one pool per player, leaving, bounds, and the pairing's
atomicity on both storages.

Time is injected (the service's clock is a value the test moves) and the matching waves
are run by the tests (``match_pools``), so nothing here sleeps or depends on timing.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import test_web_storage
from hexgames.web.app import create_app
from hexgames.web.lobby import pools
from hexgames.web.lobby.pools import POOL_STALE, pair_up, rating_range
from hexgames.web.routes import pairing as pairing_routes
from hexgames.web.storage import PairingTaken, PoolEntry, RatingRecord, StoredGame, open_storage
from test_web_housekeeping import wait_for
from test_web_lobby import FakeTime, play_turn, state, visitor

backend = test_web_storage.backend
postgres_cluster = test_web_storage.postgres_cluster
postgres_url = test_web_storage.postgres_url

POOL = "benediction-3+2"
STAMP = "2026-01-01T00:00:00+00:00"


def quiet_app(time_: FakeTime, **args: Any) -> Any:
    """An app whose background tasks are off: the test runs the waves itself."""
    app = create_app(ai_processes=1, **args)
    service = app.state.site.service
    service.now = time_
    service.watch_clocks = False
    service.housekeeping = False
    service.pooling = False
    service.presence = False
    return app


@pytest.fixture
def time_() -> FakeTime:
    return FakeTime()


@pytest.fixture
def client(tmp_path: Path, time_: FakeTime) -> Iterator[TestClient]:
    with TestClient(quiet_app(time_, data_dir=tmp_path)) as test_client:
        yield test_client


def entry(entry_id: str, rating: float, joined: int, pool: str = POOL,
          rated: bool = True, origin: str | None = None) -> PoolEntry:
    """An entry; each from an address of its own unless ``origin`` is given."""
    return PoolEntry(id=entry_id, pool=pool, rated=rated, player_id=f"p-{entry_id}",
                     name=entry_id, rating=rating, token="sha256:x",
                     origin=origin or f"o-{entry_id}",
                     status="waiting", game_id=None, joined_at=joined, seen_at=joined)


def name(client: TestClient, who: str) -> str:
    """Give the visitor ``who`` a name (rated play); returns its identity's id."""
    with visitor(client, who):
        assert client.post("/api/me/name", json={"name": who}).status_code == 200
        return str(client.get("/api/me").json()["id"])


#: One client address for the tests of what an address may do.
HOME = "10.7.7.7"


@contextlib.contextmanager
def from_address(client: TestClient, address: str) -> Iterator[None]:
    """Requests of ``client`` from the client address ``address`` (the test client's
    transport names it in each request's scope)."""
    transport: Any = client._transport
    saved = transport.client
    transport.client = (address, 50000)
    try:
        yield
    finally:
        transport.client = saved


def join(client: TestClient, who: str, pool: str = POOL, address: str | None = None,
         **body: Any) -> Any:
    """``who`` joins ``pool``, from an address of its own unless ``address`` is given (a
    rated pool never pairs two entries of one address)."""
    with visitor(client, who), from_address(client, address or f"addr-{who}"):
        return client.post("/api/pools/join", json={"pool": pool, **body})


def mine(client: TestClient, who: str) -> Any:
    with visitor(client, who):
        return client.get("/api/pools").json()["entry"]


# ------------------------------------------------------------------ the matching
def test_the_range_widens_with_waiting_and_the_closest_rating_is_chosen() -> None:
    assert rating_range(0) == 100 and rating_range(30_000) == 400
    assert rating_range(60_000) == 700
    ann, bob = entry("ann", 1500, 0), entry("bob", 1800, 0)
    assert pair_up([ann, bob], 0) == []
    assert pair_up([ann, bob], 19_999) == []  # 300 apart: 20 s of waiting needed
    assert pair_up([ann, bob], 20_000) == [(ann, bob)]
    # The longer waiter's range decides: Dan just came, Ann has waited 20 s.
    dan = entry("dan", 1790, 20_000)
    assert pair_up([dan, ann], 20_000) == [(ann, dan)]
    # Of several within range, the closest rating; the rest wait.
    carl, eve = entry("carl", 1550, 5), entry("eve", 1520, 9)
    assert pair_up([ann, carl, eve], 10) == [(ann, eve)]
    # Other pools and the other rated flag are never mixed.
    other = entry("other", 1500, 0, pool="dendria-3+2")
    casual = entry("casual", 1500, 0, rated=False)
    assert pair_up([ann, other, casual], 60_000) == []


def test_two_players_of_a_pool_land_in_one_game(client: TestClient) -> None:
    ann_id, bob_id = name(client, "Ann"), name(client, "Bob")
    with visitor(client, "Ann"), client.websocket_connect("/ws/lobby") as lobby:
        assert lobby.receive_json()["type"] == "lobby"
        first = join(client, "Ann")
        assert first.status_code == 201, first.text
        waiting = first.json()["entry"]
        assert (waiting["status"], waiting["rated"], waiting["range"]) == ("waiting", True, 100)
        with visitor(client, "Ann"):
            overview = client.get("/api/pools").json()
        assert len(overview["pools"]) == 10  # two games, five controls
        counts = {pool["id"]: pool["waiting"] for pool in overview["pools"]}
        assert counts[POOL] == 1 and sum(counts.values()) == 1
        second = join(client, "Bob").json()
        game_id = second["entry"]["game"]
        assert second["entry"]["status"] == "paired" and game_id
        while (message := lobby.receive_json())["type"] != "pool_paired":
            pass
        assert message == {"type": "pool_paired", "entry": waiting["id"], "pool": POOL,
                           "game": game_id}
    assert mine(client, "Ann")["status"] == "paired" and mine(client, "Ann")["game"] == game_id
    tokens = [first.json()["token"], second["token"]]
    views = [state(client, game_id, token) for token in tokens]
    seats = {views[0]["your_seats"][0], views[1]["your_seats"][0]}
    assert seats == {0, 1}
    assert views[0]["rated"] and views[0]["control"] == {
        "kind": "realtime", "base_s": 180.0, "increment_s": 2.0}
    assert {p["player"]["id"] for p in views[0]["players"]} == {ann_id, bob_id}
    by_seat = {view["your_seats"][0]: token for view, token in zip(views, tokens, strict=True)}
    play_turn(client, game_id, by_seat[0])  # the credentials hold the seats
    play_turn(client, game_id, by_seat[1])


def test_a_rated_pool_does_not_pair_two_identities_of_one_address(
        client: TestClient) -> None:
    """Issue 39, row 8: two identities made up on one machine were paired and rated
    (+162); 12 of them from one address were all paired with each other."""
    for who in ("Sybil", "Sybel", "Ann", "Bob", "Cas", "Dee"):
        name(client, who)
    assert join(client, "Sybil", address="10.9.9.9").status_code == 201
    alone = join(client, "Sybel", address="10.9.9.9").json()["entry"]
    assert alone["status"] == "waiting"  # the same address: not paired
    assert mine(client, "Sybil")["status"] == "waiting"
    paired = join(client, "Ann", address="10.1.1.1").json()["entry"]  # another address
    assert paired["status"] == "paired"
    games = {mine(client, who)["game"] for who in ("Sybil", "Sybel")}
    assert games == {paired["game"], None}  # one of them plays Ann, the other waits
    # A casual pool still pairs players who share an address (a family at home).
    casual = {"rated": False}
    assert join(client, "Bob", address="10.2.2.2", **casual).status_code == 201
    assert join(client, "Cas", address="10.2.2.2", **casual).json()["entry"][
        "status"] == "paired"
    # The matching itself: entries of one origin, rated, never make a pair.
    one, two = entry("one", 1500, 0, origin="home"), entry("two", 1500, 0, origin="home")
    assert pair_up([one, two], 60_000) == []
    assert pair_up([replace(one, rated=False), replace(two, rated=False)], 0) != []


def test_the_waiting_counts_reach_the_lobby_when_they_change(client: TestClient) -> None:
    """Issue 39, row 17: the other player's "N waiting" lagged 5-10 s (the page's poll).
    A join and a leave now push the lobby, counts included, to every lobby socket."""
    name(client, "Ann")
    name(client, "Bob")
    messages: queue.Queue[dict[str, Any]] = queue.Queue()
    with visitor(client, "Ann"), client.websocket_connect("/ws/lobby") as lobby:
        first = lobby.receive_json()
        assert first["type"] == "lobby" and {p["pool"]: p["waiting"]
                                              for p in first["pools"]}[POOL] == 0

        def receive() -> None:
            with contextlib.suppress(Exception):  # the socket closes at the end
                while True:
                    messages.put(lobby.receive_json())

        threading.Thread(target=receive, daemon=True).start()

        def next_count() -> int:
            while True:
                message = messages.get(timeout=10)  # bounded: a push, or the test fails
                if message["type"] == "lobby":
                    return {p["pool"]: p["waiting"] for p in message["pools"]}[POOL]

        assert join(client, "Bob").status_code == 201
        assert next_count() == 1
        with visitor(client, "Bob"):
            assert client.post("/api/pools/leave").status_code == 200
        while next_count() != 0:  # a count read before the leave may come first
            pass


def test_ratings_far_apart_are_paired_once_the_range_is_wide_enough(
        client: TestClient, time_: FakeTime) -> None:
    ann_id, bob_id = name(client, "Ann"), name(client, "Bob")
    storage = client.app.state.site.service.storage

    def seed(first: Any, second: Any) -> tuple[RatingRecord, RatingRecord, Any]:
        return (RatingRecord(ann_id, "benediction", 1900.0, 60.0, 0.06, 20, 20, 0, 0, STAMP),
                RatingRecord(bob_id, "benediction", 1500.0, 60.0, 0.06, 20, 10, 10, 0, STAMP),
                [])

    storage.apply_rated_result("seed", "benediction", (ann_id, bob_id), STAMP, seed)
    assert join(client, "Ann").json()["entry"]["rating"] == 1900
    assert join(client, "Bob").json()["entry"]["status"] == "waiting"  # 400 apart
    service = client.app.state.site.service
    for step in (29_000, 1_000):
        time_.ms += step
        for who in ("Ann", "Bob"):  # their pages' polls keep their places
            assert mine(client, who)["status"] == "waiting"
        made = client.portal.call(service.match_pools)
        assert len(made) == (0 if step == 29_000 else 1)  # ±390, then ±400
    assert mine(client, "Ann")["game"] == mine(client, "Bob")["game"] == made[0]


# ----------------------------------------------------------------- leaving
def test_a_player_waits_in_one_pool_at_most_and_may_leave(client: TestClient) -> None:
    other = "benediction-5+3"
    join(client, "Ann")
    moved = join(client, "Ann", other).json()["entry"]
    assert moved["pool"] == other and mine(client, "Ann")["id"] == moved["id"]
    with visitor(client, "Ann"):
        counts = {p["id"]: p["waiting"] for p in client.get("/api/pools").json()["pools"]}
    assert counts[POOL] == 0 and counts[other] == 1
    assert join(client, "Bob").json()["entry"]["status"] == "waiting"  # Ann left POOL
    with visitor(client, "Ann"):
        assert client.post("/api/pools/leave").json() == {"left": True}
        assert client.post("/api/pools/leave").json() == {"left": False}
    assert mine(client, "Ann")["status"] == "left"
    assert join(client, "Carol", other).json()["entry"]["status"] == "waiting"
    assert client.post("/api/pools/leave").json() == {"left": False}  # never joined


def test_closing_the_lobby_socket_leaves_the_pool(client: TestClient) -> None:
    storage = client.app.state.site.service.storage
    with visitor(client, "Ann"):
        ann = client.get("/api/me").json()["id"]  # (the jar keeps the cookie on leaving)
    with visitor(client, "Ann"), client.websocket_connect("/ws/lobby") as one:
        one.receive_json()
        with client.websocket_connect("/ws/lobby") as two:
            two.receive_json()
            join(client, "Ann")
        # One of Ann's two lobby sockets closed: she still waits (no leave was started).
        service = client.app.state.site.service
        wait_for(lambda: len(service.lobby._players) == 1, client)
        assert not service.pools._tasks
        client.portal.call(service.match_pools)
        assert storage.latest_pool_entry(ann).status == "waiting"
    wait_for(lambda: storage.latest_pool_entry(ann).status == "left", client)
    assert join(client, "Bob").json()["entry"]["status"] == "waiting"


def test_an_entry_nobody_asks_about_leaves(client: TestClient, time_: FakeTime) -> None:
    join(client, "Ann")
    time_.ms += POOL_STALE * 1000 - 1
    assert mine(client, "Ann")["status"] == "waiting"  # the poll: a sign of life
    time_.ms += POOL_STALE * 1000 + 1
    assert join(client, "Bob").json()["entry"]["status"] == "waiting"
    assert mine(client, "Ann")["status"] == "left"


# ------------------------------------------------------------ rules and bounds
def test_rated_by_default_for_named_players_and_casual_for_guests(client: TestClient) -> None:
    name(client, "Ann")
    assert join(client, "Ann").json()["entry"]["rated"] is True
    guest = join(client, "guest").json()["entry"]
    assert guest["rated"] is False and guest["status"] == "waiting"  # not paired with Ann
    refused = join(client, "other-guest", rated=True)
    assert refused.status_code == 403 and "named players" in refused.json()["error"]
    casual = join(client, "Ann", rated=False).json()["entry"]
    assert casual["rated"] is False and casual["status"] == "paired"  # with the guest
    for bad in ({"pool": "benediction-2+1"}, {"pool": 3}, {"pool": POOL, "rated": "yes"},
                {}):
        answer = client.post("/api/pools/join", json=bad)
        assert answer.status_code == 400, bad


def test_pools_are_bounded_per_address_per_pool_and_in_rate(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pools, "MAX_POOL_WAITING_PER_ADDRESS", 2)
    assert join(client, "a1", address=HOME).status_code == 201
    assert join(client, "a2", "dendria-3+2", address=HOME).status_code == 201
    refused = join(client, "a3", "dendria-5+3", address=HOME)
    assert refused.status_code == 409 and "your address" in refused.json()["error"]
    moved = join(client, "a1", "dendria-5+3", address=HOME)
    assert moved.status_code == 201  # moving is not one more
    monkeypatch.setattr(pools, "MAX_POOL_WAITING_PER_ADDRESS", 100)
    monkeypatch.setattr(pools, "MAX_POOL_WAITING", 1)
    name(client, "Dora")  # rated: never paired with a1's casual entry
    full = join(client, "Dora", "dendria-5+3")
    assert full.status_code == 503 and "full" in full.json()["error"]


def test_pool_joins_are_rate_limited(tmp_path: Path, time_: FakeTime,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pairing_routes, "POOL_JOINS_PER_ADDRESS", 3)
    with TestClient(quiet_app(time_, data_dir=tmp_path)) as client:
        codes = [join(client, "Ann", pool, address=HOME).status_code
                 for pool in (POOL, "benediction-5+3", POOL, "benediction-5+3")]
        assert codes == [201, 201, 201, 429]
        limited = join(client, "Bob", address=HOME)
        assert limited.status_code == 429 and int(limited.headers["Retry-After"]) > 0


# --------------------------------------------------------- several processes
def _game(game_id: str) -> StoredGame:
    return StoredGame(id=game_id, game="benediction", options={}, mode="online",
                      players=[{"kind": "human"}, {"kind": "human"}], seat_tokens=["a", "b"],
                      status="playing", winner=None, reason=None, created_at=STAMP,
                      updated_at=STAMP)


def test_a_pairing_is_atomic_and_a_player_waits_once_in_storage(
        backend: tuple[str, dict]) -> None:
    """Two storages (two processes on PostgreSQL; one file's connection shared by two
    threads on SQLite) pair overlapping couples at once, many times: each entry is
    paired once, and the loser stores no game."""
    kind, args = backend
    first = open_storage(**args)
    second = open_storage(**args) if kind == "postgres" else first
    try:
        first.join_pool(entry("x", 1500, 1))
        first.join_pool(replace(entry("x2", 1500, 2), player_id="p-x"))  # the same player
        assert [e.id for e in first.waiting_pool_entries(10)] == ["x2"]  # one per player
        for round_ in range(10):
            ids = [f"r{round_}-{n}" for n in range(3)]
            for n, entry_id in enumerate(ids):
                first.join_pool(entry(entry_id, 1500, 10 + n))
            barrier = threading.Barrier(2)
            results: list[str] = []

            def pair(storage: Any, a: str, b: str, game_id: str, barrier: Any = barrier,
                     results: list[str] = results) -> None:
                barrier.wait()
                try:
                    storage.pair_pool_entries(a, b, _game(game_id))
                    results.append(game_id)
                except PairingTaken:
                    results.append("taken")

            threads = [threading.Thread(target=pair, args=(first, ids[0], ids[1], f"{ids[0]}g")),
                       threading.Thread(target=pair, args=(second, ids[1], ids[2], f"{ids[2]}g"))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert sorted(results)[-1] == "taken" and len(results) == 2, results
            won = sorted(results)[0]
            lost = f"{ids[2]}g" if won == f"{ids[0]}g" else f"{ids[0]}g"
            assert first.load_game(won) is not None and first.load_game(lost) is None
            paired = [first.pool_entry(i) for i in ids]
            assert sorted(e.status for e in paired) == ["paired", "paired", "waiting"]
            assert {e.game_id for e in paired if e.status == "paired"} == {won}
            alone = next(e.id for e in paired if e.status == "waiting")
            with pytest.raises(PairingTaken):  # paired entries, or one with itself: no
                first.pair_pool_entries(ids[1], alone, _game(f"{won}-again"))
            with pytest.raises(PairingTaken):
                first.pair_pool_entries(alone, alone, _game(f"{won}-self"))
            assert first.pool_entry(alone).status == "waiting"
            assert first.load_game(f"{won}-again") is None
    finally:
        first.close()
        if second is not first:
            second.close()


def test_two_processes_matching_at_once_start_one_game(postgres_url: str,
                                                       time_: FakeTime) -> None:
    """Two apps on one PostgreSQL (two server processes) run a wave at the same moment
    over the same two waiting players: one game."""
    from concurrent.futures import ThreadPoolExecutor

    with (TestClient(quiet_app(time_, database_url=postgres_url)) as one,
          TestClient(quiet_app(time_, database_url=postgres_url)) as two):
        storage = one.app.state.site.service.storage
        for round_ in range(5):
            for n in range(2):
                storage.join_pool(entry(f"w{round_}-{n}", 1500, int(time_.ms)))
            with ThreadPoolExecutor(2) as executor:
                futures = [executor.submit(client.portal.call,
                                           client.app.state.site.service.match_pools)
                           for client in (one, two)]
                made = [game for future in futures for game in future.result()]
            assert len(made) == 1, made
            assert storage.load_game(made[0]) is not None


def test_the_waves_run_by_themselves(tmp_path: Path, time_: FakeTime,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The service's own wave task pairs players once their range is wide enough (its
    period shortened; the wait for it is bounded)."""
    monkeypatch.setattr(pools, "POOL_WAVE", 0.01)
    app = quiet_app(time_, data_dir=tmp_path)
    app.state.site.service.pooling = True
    with TestClient(app) as client:
        ann_id, bob_id = name(client, "Ann"), name(client, "Bob")

        def seed(first: Any, second: Any) -> tuple[RatingRecord, RatingRecord, Any]:
            return (RatingRecord(ann_id, "benediction", 2000.0, 60.0, 0.06, 9, 9, 0, 0, STAMP),
                    RatingRecord(bob_id, "benediction", 1500.0, 60.0, 0.06, 9, 0, 9, 0, STAMP),
                    [])

        client.app.state.site.service.storage.apply_rated_result(
            "seed", "benediction", (ann_id, bob_id), STAMP, seed)
        join(client, "Ann", rated=False)
        assert join(client, "Bob", rated=False).json()["entry"]["status"] == "waiting"
        for _ in range(5):  # 50 s: ±600 by then; their pages keep asking
            time_.ms += 10_000
            for who in ("Ann", "Bob"):
                mine(client, who)
        wait_for(lambda: mine(client, "Ann")["status"] == "paired", client)
        assert mine(client, "Ann")["game"] == mine(client, "Bob")["game"]
