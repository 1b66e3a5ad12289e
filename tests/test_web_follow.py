"""Following, blocking and TV on the server (issue 42, items 3 and 4): follow and block
from a profile (the API and the forms that work without scripts), blocks that hold for
direct challenges, lobby challenges and pool pairings, the bell's ``followed`` message
(also from another server process on one PostgreSQL database) and ``/api/tv/<game>``,
which shows the highest-rated game being played and the next one when it ends.

Nothing here measures time: "no message" is checked by a ``ping`` answered after it
would have come (a socket's messages keep their order), and waits are bounded.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

import test_web_storage
from hexgames.web.app import create_app
from hexgames.web.lobby.pools import pair_up
from test_web_lobby import FakeTime, visitor
from test_web_pools import POOL, entry, join, mine, quiet_app

postgres_cluster = test_web_storage.postgres_cluster
postgres_url = test_web_storage.postgres_url

CORRESPONDENCE = {"kind": "correspondence", "days": 3}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as test_client:
        yield test_client


def named(client: TestClient, who: str) -> str:
    """The visitor ``who`` takes the name ``who``; returns its identity's id."""
    with visitor(client, who):
        answer = client.post("/api/me/name", json={"name": who})
        assert answer.status_code == 200, answer.text
        return str(answer.json()["id"])


def relate(client: TestClient, who: str, kind: str, other: str, on: bool = True) -> Any:
    with visitor(client, who):
        return client.post(f"/api/players/{other}/{kind}", json={"on": on})


def profile(client: TestClient, who: str, other: str) -> dict[str, Any]:
    with visitor(client, who):
        return dict(client.get(f"/api/players/{other}").json())


def challenge(client: TestClient, who: str, target: str | None = None,
              rated: bool = False) -> Any:
    with visitor(client, who):
        return client.post("/api/seeks", json={"game": "benediction", "target": target,
                                               "rated": rated, "control": CORRESPONDENCE})


def started(client: TestClient, creator: str, acceptor: str, rated: bool = False) -> str:
    """A game between two named players (a challenge posted and accepted): its id."""
    posted = challenge(client, creator, rated=rated)
    assert posted.status_code == 201, posted.text
    with visitor(client, acceptor):
        taken = client.post(f"/api/seeks/{posted.json()['id']}/accept")
    assert taken.status_code == 201, taken.text
    return str(taken.json()["id"])


def messages_before_pong(socket: Any) -> list[dict[str, Any]]:
    """The messages that came before the answer to a ``ping`` sent now."""
    socket.send_json({"type": "ping"})
    came = []
    while (message := socket.receive_json())["type"] != "pong":
        came.append(message)
    return came


def followed(socket: Any, timeout: float = 30.0, kind: str = "followed") -> dict[str, Any]:
    """The next ``kind`` message (``followed``, ``followed_tournament``; bounded wait: it
    may come from another process)."""
    deadline = time.monotonic() + timeout
    while True:
        for message in messages_before_pong(socket):
            if message["type"] == kind:
                return message
        assert time.monotonic() < deadline, "no followed message came"
        time.sleep(0.05)


# ------------------------------------------------------------- following
def test_follow_and_unfollow_are_idempotent_and_shown_on_the_profile(
        client: TestClient) -> None:
    named(client, "ann")
    named(client, "bob")
    assert profile(client, "ann", "bob")["following"] is False
    for _ in range(2):
        answer = relate(client, "ann", "follow", "bob")
        assert answer.status_code == 200, answer.text
        assert answer.json()["following"] is True
    shown = profile(client, "ann", "bob")
    assert (shown["following"], shown["blocked"], shown["you"]) == (True, False, False)
    assert "ratings" in shown and "playing" in shown  # the documented fields stay
    assert client.app.state.site.service.storage.related_to(
        shown["id"], "follow") == [profile(client, "ann", "ann")["id"]]
    for _ in range(2):
        assert relate(client, "ann", "follow", "bob", on=False).json()["following"] is False
    assert profile(client, "ann", "bob")["following"] is False
    assert profile(client, "bob", "ann")["following"] is False  # never the other way


def test_guests_themselves_and_strangers_cannot_follow(client: TestClient) -> None:
    named(client, "ann")
    with visitor(client, "guest"):
        client.get("/api/me")
    answer = relate(client, "guest", "follow", "ann")
    assert answer.status_code == 400 and "choose a name" in answer.json()["error"]
    assert relate(client, "ann", "follow", "ann").status_code == 400
    assert relate(client, "ann", "follow", "nobody").status_code == 404
    with visitor(client, "ann"):
        bad = client.post("/api/players/ann/follow", json={"on": "yes"})
    assert bad.status_code == 400


def test_the_profile_forms_work_without_scripts_and_refuse_other_sites(
        client: TestClient) -> None:
    named(client, "ann")
    named(client, "bob")
    form = {"content-type": "application/x-www-form-urlencoded"}
    with visitor(client, "ann"):
        page = client.get("/player/bob").text
        assert 'action="/player/bob/follow"' in page and 'id="challenge-button"' in page
        token = re.search(r'name="form" value="([0-9a-f]+)"', page)
        assert token is not None
        body = f"on=1&form={token.group(1)}".encode()
        # The site's own form: under its no-referrer policy a browser says Origin: null.
        answer = client.post("/player/bob/follow", content=body, follow_redirects=False,
                             headers={**form, "origin": "null"})
        assert answer.status_code == 303 and answer.headers["location"] == "/player/bob"
        assert ">Unfollow<" in client.get("/player/bob").text
        # Another site's form: it cannot know the field, and may name its origin.
        for content, origin in ((b"on=1", "null"), (body.replace(b"on=1", b"on=0"),
                                                    "http://evil.example")):
            foreign = client.post("/player/bob/follow", content=content,
                                  headers={**form, "origin": origin})
            assert foreign.status_code == 403, foreign.text
        assert profile(client, "ann", "bob")["following"] is True
        assert 'id="relation"' not in client.get("/player/ann").text  # one's own page
    with visitor(client, "guest"):
        page = client.get("/player/bob").text
        assert "Choose a name on your player page" in page and "follow-form" not in page


# -------------------------------------------------------------- blocking
def test_a_block_hides_the_buttons_ends_follows_and_refuses_challenges(
        client: TestClient) -> None:
    named(client, "ann")
    named(client, "bob")
    assert relate(client, "bob", "follow", "ann").json()["following"] is True
    blocked = relate(client, "ann", "block", "bob")
    assert blocked.status_code == 200 and blocked.json()["blocked"] is True
    assert profile(client, "bob", "ann")["following"] is False  # the follow ended
    with visitor(client, "ann"):
        page = client.get("/player/bob").text
    assert 'id="challenge-button"' not in page and ">Unblock<" in page
    # Neither may challenge the other by name, whoever blocked.
    for who, target in (("ann", "bob"), ("bob", "ann")):
        refused = challenge(client, who, target)
        assert refused.status_code == 409, refused.text
        assert "blocked" in refused.json()["error"]
    refused = relate(client, "bob", "follow", "ann")
    assert refused.status_code == 409
    # An open challenge of one cannot be accepted by the other.
    posted = challenge(client, "bob")
    assert posted.status_code == 201
    with visitor(client, "ann"):
        taken = client.post(f"/api/seeks/{posted.json()['id']}/accept")
    assert taken.status_code == 409 and "blocked" in taken.json()["error"]
    named(client, "cyd")
    with visitor(client, "cyd"):  # anyone else may
        assert client.post(f"/api/seeks/{posted.json()['id']}/accept").status_code == 201
    # Unblocked: challenges go through again.
    assert relate(client, "ann", "block", "bob", on=False).json()["blocked"] is False
    assert challenge(client, "bob", "ann").status_code == 201


def blocks(client: TestClient, who: str | None) -> dict[str, Any]:
    if who is None:
        answer = TestClient(client.app).get("/api/me/blocks")  # no cookie: no identity
    else:
        with visitor(client, who):
            answer = client.get("/api/me/blocks")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_a_player_reads_whom_they_blocked_and_who_is_kept_apart_from_them(
        client: TestClient) -> None:
    """The lobby hides the Accept button of a challenge by a player kept apart."""
    for who in ("ann", "bob", "Cyd", "dee"):
        named(client, who)
    relate(client, "ann", "block", "bob")
    relate(client, "ann", "block", "Cyd")
    relate(client, "dee", "block", "ann")
    assert blocks(client, "ann") == {"blocked": ["bob", "Cyd"],
                                     "kept_apart": ["bob", "Cyd", "dee"]}
    assert blocks(client, "bob") == {"blocked": [], "kept_apart": ["ann"]}
    assert blocks(client, None) == {"blocked": [], "kept_apart": []}
    relate(client, "ann", "block", "bob", on=False)
    assert blocks(client, "bob") == {"blocked": [], "kept_apart": []}
    assert blocks(client, "ann")["kept_apart"] == ["Cyd", "dee"]


def test_pair_up_never_pairs_players_kept_apart() -> None:
    one, two, three = entry("a", 1500, 0), entry("b", 1500, 1), entry("c", 1600, 2)
    assert [(x.id, y.id) for x, y in pair_up([one, two], 0)] == [("a", "b")]
    apart = {frozenset((one.player_id, two.player_id))}
    assert pair_up([one, two], 0, apart) == []
    assert [(x.id, y.id) for x, y in pair_up([one, two, three], 0, apart)] == [("a", "c")]


def test_pools_never_pair_two_blocked_players(tmp_path: Path) -> None:
    time_ = FakeTime()
    with TestClient(quiet_app(time_, data_dir=tmp_path)) as client:
        for who in ("ann", "bob", "cyd"):
            named(client, who)
        assert relate(client, "bob", "block", "ann").status_code == 200
        assert join(client, "ann").status_code == 201
        assert join(client, "bob").status_code == 201
        assert client.portal.call(client.app.state.site.service.match_pools) == []
        assert mine(client, "ann")["status"] == "waiting"
        assert mine(client, "bob")["status"] == "waiting"
        joined = join(client, "cyd")
        assert joined.status_code == 201
        paired_with = mine(client, "cyd")
        assert paired_with["status"] == "paired", paired_with
        # One of the two (who waited first: they joined at one moment) plays Cyd, the
        # other still waits: never each other.
        entries = [mine(client, who) for who in ("ann", "bob")]
        assert sorted(e["status"] for e in entries) == ["paired", "waiting"]
        assert [e["game"] for e in entries if e["status"] == "paired"] == [paired_with["game"]]
        assert {e["pool"] for e in entries} == {POOL}


# ------------------------------------------------------------------ the bell
@contextlib.contextmanager
def cy_and_bob_listening(client: TestClient) -> Iterator[tuple[Any, Any]]:
    """Ann, Bob and Cyd named, Cyd following Ann; Cyd's and Bob's alerts sockets open."""
    for who in ("ann", "bob", "cyd"):
        named(client, who)
    relate(client, "cyd", "follow", "ann")
    with visitor(client, "cyd"), client.websocket_connect("/ws/alerts") as cy:
        assert cy.receive_json()["type"] == "hello"
        with visitor(client, "bob"), client.websocket_connect("/ws/alerts") as bob:
            assert bob.receive_json()["type"] == "hello"
            yield cy, bob


def test_a_followed_player_starting_a_game_rings_the_followers_bell(
        client: TestClient) -> None:
    with cy_and_bob_listening(client) as (cy, bob):
        game_id = started(client, "ann", "bob", rated=True)
        message = followed(cy)
        assert (message["player"], message["game_id"], message["game"]) == \
            ("ann", game_id, "benediction")
        assert message["opponent"] == "bob" and message["rated"] is True
        assert message["url"] == f"/play/{game_id}"
        # Bob follows nobody: no message (only his own turn alerts).
        assert all(m["type"] != "followed" for m in messages_before_pong(bob))
        relate(client, "cyd", "follow", "ann", on=False)
        started(client, "ann", "bob")
        assert all(m["type"] != "followed" for m in messages_before_pong(cy))


def test_stopping_the_app_cancels_a_bell_still_being_rung(tmp_path: Path) -> None:
    """The bell's worker waits on the storage (here held back by a read that takes
    seconds): stopping the app cancels it before the storage closes under it (else the
    loop's end cancels it later, after its read failed on a closed storage)."""
    release = threading.Event()
    done_at_close: list[bool] = []
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        for who in ("ann", "bob", "cyd"):
            named(client, who)
        relate(client, "cyd", "follow", "ann")
        site = client.app.state.site  # type: ignore[attr-defined]
        storage = site.service.games.storage
        reading = threading.Event()
        real_related_to = storage.related_to

        def held_back(*args: Any) -> Any:
            reading.set()
            release.wait(timeout=30)
            return real_related_to(*args)

        storage.related_to = held_back
        real_close = storage.close

        def close() -> None:
            done_at_close.append(worker.done())
            real_close()

        storage.close = close
        with visitor(client, "cyd"), client.websocket_connect("/ws/alerts") as cy:
            assert cy.receive_json()["type"] == "hello"
            started(client, "ann", "bob")
            assert reading.wait(timeout=30)
            worker = site.follow_alerts._worker
            assert worker is not None and not worker.done()
            # The held read ends once the worker is done (cancelled by the app's stop),
            # not after a fixed time: a stop that took longer than a timer would let the
            # worker finish its read first, and the test fail on a busy machine.
            worker.add_done_callback(lambda _: release.set())
    assert done_at_close == [True] and worker.cancelled()
    release.set()


def test_a_quick_pairing_rings_the_bell_too(tmp_path: Path) -> None:
    """Any online game: a pool's pairing is a game started like an accepted challenge."""
    with TestClient(quiet_app(FakeTime(), data_dir=tmp_path)) as client:
        for who in ("ann", "bob", "cyd"):
            named(client, who)
        relate(client, "cyd", "follow", "bob")
        with visitor(client, "cyd"), client.websocket_connect("/ws/alerts") as cyd:
            assert cyd.receive_json()["type"] == "hello"
            assert join(client, "ann").status_code == 201
            assert join(client, "bob").status_code == 201
            game_id = mine(client, "bob")["game"]
            assert game_id is not None
            message = followed(cyd)
            assert (message["player"], message["game_id"], message["opponent"]) == \
                ("bob", game_id, "ann")


def test_the_bell_rings_for_a_game_started_through_another_process(
        postgres_url: str) -> None:
    """Two server processes on one PostgreSQL: Cy's alerts socket is on the second; Ann
    and Bob start their game through the first."""
    with TestClient(create_app(database_url=postgres_url, ai_processes=1)) as one, \
            TestClient(create_app(database_url=postgres_url, ai_processes=1)) as two:
        for who in ("ann", "bob", "cyd"):
            named(one, who)
        relate(one, "cyd", "follow", "ann")
        with visitor(one, "cyd"):
            two.cookies = httpx.Cookies(one.cookies)  # Cy's browser, on the other process
        with two.websocket_connect("/ws/alerts") as cy:
            assert cy.receive_json()["type"] == "hello"
            game_id = started(one, "ann", "bob")
            assert game_id not in two.app.state.site.service.games.matches
            message = followed(cy)
            assert (message["player"], message["game_id"], message["opponent"]) == \
                ("ann", game_id, "bob")


TOURNAMENT = {"game": "dendria", "options": {"board_side": 5}, "kind": "swiss", "rounds": 3,
              "control": CORRESPONDENCE, "rated": False, "starts_in_s": 600}


def create_tournament(client: TestClient, who: str) -> str:
    with visitor(client, who):
        made = client.post("/api/tournaments", json=TOURNAMENT)
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def test_a_followed_player_creating_a_tournament_rings_the_followers_bell(
        client: TestClient) -> None:
    with cy_and_bob_listening(client) as (cy, bob):
        tournament_id = create_tournament(client, "ann")
        message = followed(cy, kind="followed_tournament")
        assert (message["player"], message["tournament_id"], message["game"],
                message["kind"], message["rated"]) == \
            ("ann", tournament_id, "dendria", "swiss", False)
        assert message["url"] == f"/tournament/{tournament_id}"
        assert message["title"] == "Dendria" and message["time"]
        assert isinstance(message["starts_at"], int)
        assert all(m["type"] != "followed_tournament" for m in messages_before_pong(bob))
        # Bob's tournament: nobody follows Bob
        create_tournament(client, "bob")
        assert all(m["type"] != "followed_tournament" for m in messages_before_pong(cy))


def test_the_bell_rings_for_a_tournament_created_through_another_process(
        postgres_url: str) -> None:
    with TestClient(create_app(database_url=postgres_url, ai_processes=1)) as one, \
            TestClient(create_app(database_url=postgres_url, ai_processes=1)) as two:
        for who in ("ann", "cyd"):
            named(one, who)
        relate(one, "cyd", "follow", "ann")
        with visitor(one, "cyd"):
            two.cookies = httpx.Cookies(one.cookies)
        with two.websocket_connect("/ws/alerts") as cy:
            assert cy.receive_json()["type"] == "hello"
            tournament_id = create_tournament(one, "ann")
            message = followed(cy, kind="followed_tournament")
            assert (message["player"], message["tournament_id"]) == ("ann", tournament_id)


# -------------------------------------------------------------------- TV
def set_rating(client: TestClient, player_id: str, rating: float) -> None:
    """Give a player a rating in benediction's standard pool (as a rated game would)."""
    storage = client.app.state.site.service.storage
    with storage._transaction() as cursor:
        cursor.execute(storage._sql(
            "INSERT INTO ratings (player_id, pool, rating, deviation, volatility, games, "
            "wins, losses, draws, rated_at) VALUES (?, 'benediction', ?, 60, 0.06, 10, 5, "
            "5, 0, '2026-01-01T00:00:00+00:00')"), (player_id, rating))


def tv(client: TestClient) -> dict[str, Any]:
    client.app.state.site.television.forget()  # asked again at once, not 2 s later
    answer = client.get("/api/tv/benediction")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_tv_shows_the_highest_rated_game_and_the_next_when_it_ends(
        client: TestClient) -> None:
    assert tv(client)["game_id"] is None
    assert client.get("/api/tv/chess").status_code == 404
    assert client.get("/tv/chess").status_code == 404
    ratings = {"ann": 1900, "bob": 1700, "cyd": 1600, "dany": 1500, "evie": 2400, "faye": 2400}
    for who, rating in ratings.items():
        set_rating(client, named(client, who), rating)
    low = started(client, "cyd", "dany", rated=True)       # mean 1550
    high = started(client, "ann", "bob", rated=True)     # mean 1800
    casual = started(client, "evie", "faye", rated=False)  # the best players, unrated
    shown = tv(client)
    assert shown["game_id"] == high and shown["rated"] is True
    assert sorted((p["name"], p["rating"]) for p in shown["players"]) == \
        [("ann", 1900), ("bob", 1700)]
    assert client.get("/tv/benediction").status_code == 200
    # The featured game ends (a resignation over the API): TV shows the next.
    resign(client, "ann", high)
    assert tv(client)["game_id"] == low
    resign(client, "cyd", low)
    assert tv(client)["game_id"] == casual  # unrated games after rated ones
    resign(client, "evie", casual)
    assert tv(client)["game_id"] is None


def resign(client: TestClient, who: str, game_id: str) -> None:
    """``who`` resigns ``game_id`` with the seat credential its identity claims."""
    with visitor(client, who):
        claimed = client.post(f"/api/games/{game_id}/claim", json={"token": None})
        assert claimed.status_code == 200, claimed.text
        token = claimed.json()["token"]
        answer = client.post(f"/api/games/{game_id}/resign", json={"token": token})
        assert answer.status_code == 200, answer.text
