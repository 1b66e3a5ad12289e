"""Player profiles: rating history, statistics by colour, the game search and the export.

Storage tests on both backends (SQLite, and a throwaway PostgreSQL cluster: the
``backend`` fixture of test_web_storage), then the HTTP API over both (the ``app``
fixture of test_web_players), with games played through the API (profile_support).
"""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hexgames.game import get_game
from hexgames.web.app import create_app
from hexgames.web.http.identity import hash_secret
from hexgames.web.ratings import results as game_results
from hexgames.web.ratings.games import record_rated_result
from hexgames.web.routes import profiles
from hexgames.web.storage import (
    GameQuery,
    PlayerRecord,
    SeatResult,
    Storage,
    StoredGame,
    open_storage,
)
from profile_support import name_client, play_to_the_end
from test_web_players import app, site  # noqa: F401 - fixtures
from test_web_storage import backend, postgres_cluster, postgres_url  # noqa: F401 - fixtures


# ------------------------------------------------------------------- storage
def _opening() -> list[str]:
    """Dendria actions after which each seat has acted (a rated result needs both)."""
    position, actions, seats = get_game("dendria").new(), [], set()
    while seats != {0, 1}:
        seats.add(position.current_seat)
        actions.append(str(position.legal_actions()[0]))
        position.play(position.legal_actions()[0])
    return actions


def _rated(storage: Storage, game_id: str, winner: str, stamp: str,
           players: tuple[str, str] = ("p1", "p2")) -> StoredGame:
    game = StoredGame(
        id=game_id, game="dendria", options={}, mode="online", actions=_opening(),
        players=[{"kind": "human", "player_id": players[0]},
                 {"kind": "human", "player_id": players[1]}],
        seat_tokens=[None, None], status="over", winner=winner,
        reason=f"{'Light' if winner == 'dark' else 'Dark'} resigned", created_at=stamp,
        updated_at=stamp, rated=True)
    storage.create_game(game)
    return game


def _players(storage: Storage, *ids: str) -> None:
    for player_id in ids:
        storage.create_player(PlayerRecord(player_id, f"Name{player_id}", "t"),
                              hash_secret(player_id))


def test_each_rated_result_adds_to_the_rating_history_in_order(
        backend: tuple[str, dict[str, Any]]) -> None:  # noqa: F811
    storage = open_storage(**backend[1])
    try:
        _players(storage, "p1", "p2")
        stamp = "2026-03-01T10:00:00+00:00"  # all in one second: the order is the games'
        for number, winner in enumerate(["dark", "light", "dark", "dark"]):
            record_rated_result(storage, _rated(storage, f"g{number}", winner, stamp), stamp)
        history = storage.rating_history("p1")
        assert [point.games for point in history] == [1, 2, 3, 4]
        assert [point.game_id for point in history] == ["g0", "g1", "g2", "g3"]
        ratings = [point.rating for point in history]
        assert ratings[0] > 1500 > ratings[1] and ratings[1] < ratings[2] < ratings[3]
        final = storage.ratings_of("p1")[0]
        assert history[-1].rating == final.rating and history[-1].deviation == final.deviation
        assert {point.pool for point in history} == {"dendria"}
        assert [point.games for point in storage.rating_history("p1", per_pool=2)] == [3, 4]
        assert storage.rating_history("p2")[0].rating < 1500
        assert storage.rating_history("nobody") == []
    finally:
        storage.close()


def test_the_ratings_of_several_players_are_those_of_each_in_one_read(
        backend: tuple[str, dict[str, Any]]) -> None:  # noqa: F811
    storage = open_storage(**backend[1])
    try:
        _players(storage, "p1", "p2", "p3", "p4")
        stamp = "2026-03-01T10:00:00+00:00"
        record_rated_result(storage, _rated(storage, "g0", "dark", stamp), stamp)
        record_rated_result(storage, _rated(storage, "g1", "light", stamp, ("p3", "p1")),
                            stamp)
        together = storage.ratings_of_players(["p3", "p1", "p4", "p1", "nobody"])
        assert together == [*storage.ratings_of("p1"), *storage.ratings_of("p3")]
        assert [record.games for record in together] == [2, 1]
        assert storage.ratings_of_players([]) == []
    finally:
        storage.close()


def test_an_older_database_gets_the_history_of_its_rated_games(
        backend: tuple[str, dict[str, Any]]) -> None:  # noqa: F811
    """A database written before the history was kept: its rated results' changes
    become history when a server opens it (the migration), once."""
    storage = open_storage(**backend[1])
    try:
        _players(storage, "p1", "p2")
        stamps = [f"2026-03-0{n + 1}T00:00:00+00:00" for n in range(3)]
        changes = [record_rated_result(storage, _rated(storage, f"g{n}", "dark", stamp), stamp)
                   for n, stamp in enumerate(stamps)]
        with storage._transaction() as cursor:  # as the older release left it
            cursor.execute("DROP TABLE rating_history")
    finally:
        storage.close()
    for _ in range(2):  # opened twice: the second finds nothing to add
        storage = open_storage(**backend[1])
        try:
            history = storage.rating_history("p1")
            assert [(p.game_id, p.games) for p in history] == [("g0", 1), ("g1", 2), ("g2", 3)]
            assert [p.rating for p in history] == [c[0]["after"] for c in changes]
            assert [p.deviation for p in history] == [c[0]["deviation"] for c in changes]
            assert [p.rated_at for p in history] == stamps
        finally:
            storage.close()


def _result(game_id: str, seat: int, player: str, opponent: str | None, result: str,
            ended_at: str, pool: str = "dendria", color: str = "dark",
            rated: bool = True) -> SeatResult:
    return SeatResult(game_id, seat, player, opponent, pool.partition(" ")[0], pool, rated,
                      color, result, ended_at)


def test_filed_results_are_searched_counted_and_dropped_when_a_game_reopens(
        backend: tuple[str, dict[str, Any]]) -> None:  # noqa: F811
    storage = open_storage(**backend[1])
    try:
        _players(storage, "p1", "p2", "p3")
        days = [f"2026-04-0{day}T12:00:00+00:00" for day in range(1, 6)]
        games = [_rated(storage, f"g{n}", "dark", days[n], ("p1", "p2" if n < 3 else "p3"))
                 for n in range(5)]
        assert sorted(storage.unfiled_games("p1", 10)) == [g.id for g in games]
        filed = [
            [_result("g0", 0, "p1", "p2", "win", days[0]),
             _result("g0", 1, "p2", "p1", "loss", days[0], color="light")],
            [_result("g1", 0, "p1", "p2", "loss", days[1], color="light")],  # swapped
            [_result("g2", 0, "p1", "p2", "draw", days[2], pool="dendria board_side=5",
                     rated=False)],
            [_result("g3", 0, "p1", "p3", "win", days[3])],
            [_result("g4", 0, "p1", "p3", "none", days[4])],  # aborted
        ]
        for game, rows in zip(games, filed, strict=True):
            assert storage.file_results(game.id, rows)
        assert storage.unfiled_games("p1", 10) == []
        assert storage.unfiled_games("p2", 10) == ["g2", "g1"]  # only p1's seats filed

        def ids(**query: Any) -> list[str]:
            found, total = storage.search_games("p1", GameQuery(**query), 0, 50)
            assert total == len(found)
            return [listed.result.game_id for listed in found]

        assert ids() == ["g4", "g3", "g2", "g1", "g0"]
        assert ids(opponent="namep3") == ["g4", "g3"]  # names are folded by the caller
        assert ids(opponent="nobody") == []
        assert ids(result="win") == ["g3", "g0"]
        assert ids(result="draw") == ["g2"]
        assert ids(pool="dendria board_side=5") == ["g2"]
        assert ids(game="dendria") == ["g4", "g3", "g2", "g1", "g0"]
        assert ids(game="benediction") == []
        assert ids(rated=False) == ["g2"]
        assert ids(since="2026-04-02", until="2026-04-04") == ["g2", "g1"]
        assert ids(opponent="namep2", result="loss") == ["g1"]
        page, total = storage.search_games("p1", GameQuery(), 2, 2)
        assert total == 5 and [listed.result.game_id for listed in page] == ["g2", "g1"]
        listed = storage.search_games("p1", GameQuery(result="win"), 0, 1)[0][0]
        assert listed.opponent_name == "Namep3" and listed.mode == "online"
        assert listed.reason == "Light resigned" and listed.players[1]["player_id"] == "p3"
        counts = storage.result_counts("p1")
        assert ("dendria", "dendria", 0, "light", True, "loss", 1) in counts
        assert sum(row[-1] for row in counts) == 4  # the aborted game is not counted
        assert sorted(storage.opponent_counts("p1")) == [
            ("p2", "Namep2", "draw", 1), ("p2", "Namep2", "loss", 1),
            ("p2", "Namep2", "win", 1), ("p3", "Namep3", "win", 1)]
        assert storage.finished_game_ids("p1", 3) == ["g4", "g3", "g2"]
        # Reopened (an undo after the rules ended it): its results go; filing a game
        # being played stores nothing.
        storage.finish_game("g0", None, None, "2026-04-09T00:00:00+00:00")
        assert "g0" not in ids()
        with storage._transaction() as cursor:  # gone, not just hidden while it is played
            cursor.execute("SELECT COUNT(*) FROM game_results WHERE game_id = 'g0'")
            assert cursor.fetchone()[0] == 0
        assert not storage.file_results("g0", filed[0])
        assert storage.search_games("p2", GameQuery(), 0, 50)[1] == 0
        assert not storage.file_results("missing", filed[0])
    finally:
        storage.close()


def test_the_profile_queries_have_their_indexes(
        backend: tuple[str, dict[str, Any]]) -> None:  # noqa: F811
    """The indexes exist on both backends; SQLite's planner uses them for the search's
    usual shapes (newest first, by variant, by opponent, by result) and the graph."""
    kind, arguments = backend
    storage = open_storage(**arguments)
    wanted = {"game_results_by_player", "game_results_by_pool", "game_results_by_opponent",
              "game_results_by_result", "rating_history_by_player"}
    try:
        with storage._transaction() as cursor:
            if kind == "sqlite":
                cursor.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
            else:
                cursor.execute("SELECT indexname FROM pg_indexes")
            assert wanted <= {row[0] for row in cursor.fetchall()}
            if kind != "sqlite":
                return
            plans = {
                "game_results_by_player":
                    "SELECT * FROM game_results WHERE player_id = ? ORDER BY ended_at DESC",
                "game_results_by_pool": "SELECT * FROM game_results WHERE player_id = ? "
                                        "AND pool = ? ORDER BY ended_at DESC",
                "game_results_by_opponent": "SELECT * FROM game_results WHERE player_id = ? "
                                            "AND opponent_id = ? ORDER BY ended_at DESC",
                "game_results_by_result": "SELECT * FROM game_results WHERE player_id = ? "
                                          "AND result = ? ORDER BY ended_at DESC",
                "rating_history_by_player": "SELECT * FROM rating_history WHERE player_id = ? "
                                            "AND pool = ? ORDER BY games",
            }
            for index, statement in plans.items():
                cursor.execute("EXPLAIN QUERY PLAN " + statement,
                               ("p",) * statement.count("?"))
                plan = " ".join(str(row[-1]) for row in cursor.fetchall())
                assert f"INDEX {index}" in plan, (index, plan)
    finally:
        storage.close()


# ---------------------------------------------------------------------- HTTP
def players(app: Any, *names: str) -> list[TestClient]:  # noqa: F811
    return [name_client(TestClient(app), name) for name in names]


def test_the_history_shows_each_rated_game_per_game_and_variant(app: Any) -> None:  # noqa: F811
    ann, bob = players(app, "Ann", "Bob")
    for loser in (1, 0, 1):
        play_to_the_end(ann, bob, loser=loser)
    play_to_the_end(ann, bob, options={"board_side": 5}, loser=0)
    play_to_the_end(ann, bob, rated=False, loser=0)  # casual: no point
    history = bob.get("/api/players/ANN/history").json()
    assert history["name"] == "Ann"
    assert [pool["pool"] for pool in history["pools"]] == ["dendria", "dendria board_side=5"]
    main, side = history["pools"]
    assert main["title"] == "Dendria" and side["title"] == "Dendria (board_side=5)"
    assert [point["games"] for point in main["points"]] == [1, 2, 3]
    ratings = [point["rating"] for point in main["points"]]
    assert ratings[0] > 1500 and ratings[1] < ratings[0] and ratings[2] > ratings[1]
    assert len(side["points"]) == 1 and side["points"][0]["rating"] < 1500
    current = {r["pool"]: r for r in ann.get("/api/players/ann").json()["ratings"]}
    assert ratings[-1] == current["dendria"]["rating"]
    assert all(point["at"] and point["game_id"] for point in main["points"])
    assert bob.get("/api/players/nobody/history").status_code == 404
    assert bob.get("/api/players/Bob/history").json()["pools"][0]["points"][0]["rating"] < 1500


def test_statistics_count_wins_draws_and_losses_by_colour_and_seat(
        app: Any) -> None:  # noqa: F811
    ann, bob, cat = players(app, "Ann", "Bob", "Cat")
    play_to_the_end(ann, bob, loser=1)  # Ann dark (seat 0) wins
    play_to_the_end(ann, bob, loser=1, prefer="swap")  # Bob swaps: Ann plays light, wins
    play_to_the_end(bob, ann, loser=1)  # Ann light (seat 1) loses
    play_to_the_end(ann, cat, game="benediction", options={"max_turns": 2}, loser=None)
    made = ann.post("/api/games", json={"game": "dendria", "mode": "ai", "level": 1}).json()
    assert ann.post(f"/api/games/{made['id']}/resign",
                    json={"token": made["token"]}).status_code == 200  # vs the computer
    aborted = ann.post("/api/games", json={"game": "dendria", "mode": "online"}).json()
    assert ann.post(f"/api/games/{aborted['id']}/abort",
                    json={"token": aborted["token"]}).status_code == 200
    stats = ann.get("/api/players/ann/stats").json()
    assert stats["complete"] and stats["total"] == {"games": 5, "wins": 2, "draws": 1,
                                                    "losses": 2}
    dendria = next(entry for entry in stats["games"] if entry["game"] == "dendria")
    assert dendria["colors"] == ["dark", "light"]
    assert dendria["all"] == {"games": 4, "wins": 2, "draws": 0, "losses": 2}
    assert dendria["rated"] == {"games": 3, "wins": 2, "draws": 0, "losses": 1}
    colours = {entry["color"]: entry for entry in dendria["by_color"]}
    assert (colours["dark"]["games"], colours["dark"]["wins"]) == (2, 1)  # + the AI game
    assert (colours["light"]["wins"], colours["light"]["losses"]) == (1, 1)
    seats = {entry["seat"]: entry for entry in dendria["by_seat"]}
    assert seats[0]["color"] == "dark" and (seats[0]["games"], seats[0]["wins"]) == (3, 2)
    assert (seats[1]["games"], seats[1]["losses"]) == (1, 1)
    benediction = next(entry for entry in stats["games"] if entry["game"] == "benediction")
    assert benediction["all"]["draws"] == 1 and benediction["colors"] == ["red", "blue"]
    assert [v["pool"] for v in benediction["by_variant"]] == ["benediction max_turns=2"]
    assert [(o["name"], o["games"], o["wins"], o["losses"]) for o in stats["opponents"]] == [
        ("Bob", 3, 2, 1), ("Cat", 1, 0, 0)]
    cat_stats = cat.get("/api/players/cat/stats").json()
    assert cat_stats["total"] == {"games": 1, "wins": 0, "draws": 1, "losses": 0}
    assert cat_stats["games"][0]["by_color"][1] == {"color": "blue", "games": 1, "wins": 0,
                                                    "draws": 1, "losses": 0}
    assert ann.get("/api/players/nobody/stats").status_code == 404


def test_a_game_is_filed_when_it_ends(app: Any) -> None:  # noqa: F811
    """Filed by the end itself (no profile read needed), from the game in memory."""
    ann, bob = players(app, "Ann", "Bob")
    game_id = play_to_the_end(ann, bob, loser=0)
    storage = app.state.site.service.storage
    ann_id = ann.get("/api/me").json()["id"]
    assert storage.unfiled_games(ann_id, 10) == []
    found, _ = storage.search_games(ann_id, GameQuery(), 0, 10)
    assert [(f.result.game_id, f.result.result, f.result.color) for f in found] == [
        (game_id, "loss", "dark")]


def test_older_games_are_filed_a_bounded_number_per_read(
        app: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    ann, bob = players(app, "Ann", "Bob")
    ids = [play_to_the_end(ann, bob, loser=n % 2, rated=False) for n in range(3)]
    storage = app.state.site.service.storage
    with storage._transaction() as cursor:  # as a database of an earlier release
        cursor.execute("DELETE FROM game_results")
    monkeypatch.setattr(game_results, "FILE_PER_CALL", 2)
    first = ann.get("/api/players/ann/stats").json()
    assert not first["complete"] and first["total"]["games"] == 2
    second = ann.get("/api/players/ann/games").json()
    assert second["complete"] and second["total"] == 3
    assert sorted(game["id"] for game in second["games"]) == sorted(ids)
    assert ann.get("/api/players/ann/stats").json()["total"] == {
        "games": 3, "wins": 1, "draws": 0, "losses": 2}


def test_the_game_search_filters_and_pages(app: Any) -> None:  # noqa: F811
    ann, bob, cat = players(app, "Ann", "Bob", "Cat")
    wins = [play_to_the_end(ann, bob, loser=1, rated=False) for _ in range(3)]
    loss = play_to_the_end(ann, cat, loser=0, rated=False)
    side = play_to_the_end(ann, bob, options={"board_side": 5}, loser=0)
    draw = play_to_the_end(cat, ann, game="benediction", options={"max_turns": 2},
                           loser=None, rated=False)
    playing = ann.post("/api/games", json={"game": "dendria", "mode": "ai"}).json()["id"]

    def search(**query: Any) -> dict[str, Any]:
        answer = bob.get("/api/players/ann/games", params=query)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def found(**query: Any) -> set[str]:
        return {game["id"] for game in search(**query)["games"]}

    everything = search()
    assert everything["total"] == 6 and playing not in found()
    line = next(game for game in everything["games"] if game["id"] == loss)
    assert line["opponent"] == {"name": "Cat", "player": True}
    assert (line["result"], line["color"], line["seat"], line["rated"]) == ("loss", "dark",
                                                                           0, False)
    assert line["reason"] == "Dark resigned" and line["title"] == "Dendria"
    assert found(opponent="bob") == {*wins, side}  # names ignore case
    assert found(opponent="cAT") == {loss, draw}
    assert found(opponent="Nobody") == set()
    assert found(result="win") == set(wins)
    assert found(result="draw") == {draw}
    assert found(result="loss", opponent="bob") == {side}
    assert found(game="benediction") == {draw}
    assert found(pool="dendria board_side=5") == {side}
    assert next(g for g in search(pool="dendria board_side=5")["games"])["variant"] == (
        "Dendria (board_side=5)")
    assert found(rated="true") == {side} and len(found(rated="false")) == 5
    today = datetime.now(UTC).date()
    assert len(found(since=today.isoformat(), until=today.isoformat())) == 6
    assert found(since=(today + timedelta(days=1)).isoformat()) == set()
    assert found(until=(today - timedelta(days=1)).isoformat()) == set()
    # Pages: bounded, disjoint, in order (newest first).
    pages = [search(per_page=4, page=number) for number in (1, 2, 3)]
    assert [len(page["games"]) for page in pages] == [4, 2, 0]
    assert all(page["total"] == 6 and page["pages"] == 2 for page in pages)
    listed = [game["id"] for page in pages for game in page["games"]]
    assert sorted(listed) == sorted(game["id"] for game in everything["games"])
    stamps = [game["ended_at"] for page in pages for game in page["games"]]
    assert stamps == sorted(stamps, reverse=True)
    assert search()["per_page"] == 20
    assert bob.get("/api/players/nobody/games").status_code == 404


BAD_QUERIES: list[dict[str, Any]] = [
    {"per_page": 0}, {"per_page": 51}, {"page": 0}, {"page": 1001}, {"page": "two"},
    {"result": "won"}, {"since": "2026-02-30"}, {"since": "20260101"}, {"until": "yesterday"},
    {"since": "2026-05-02", "until": "2026-05-01"}, {"game": "chess"}, {"pool": "chess x=1"},
    {"opponent": "a b"}, {"opponent": "x" * 41}, {"opponent": "<script>"}, {"rated": "maybe"},
    {"pool": "dendria " + "x" * 300}, {"since": "2026-01-01\x00"},
]


def test_bad_search_input_is_a_400_naming_the_problem(tmp_path: Path) -> None:
    from hexgames.web.app import create_app

    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        name_client(client, "Ann")
        for query in BAD_QUERIES:
            answer = client.get("/api/players/ann/games", params=query)
            assert answer.status_code == 400, (query, answer.text)
            assert answer.json()["error"], query
        assert client.get("/api/players/ann/games", params={"since": ""}).status_code == 200


def test_the_export_is_a_zip_of_every_finished_record(
        app: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    ann, bob = players(app, "Ann", "Bob")
    finished = [play_to_the_end(ann, bob, loser=1),
                play_to_the_end(bob, ann, game="benediction", loser=0, rated=False)]
    ann.post("/api/games", json={"game": "dendria", "mode": "ai"})  # being played: left out
    answer = bob.get("/api/players/ann/export")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/zip"
    assert answer.headers["content-disposition"] == 'attachment; filename="hexgames-Ann.zip"'
    archive = zipfile.ZipFile(io.BytesIO(answer.content))
    assert archive.testzip() is None
    names = archive.namelist()
    assert sorted(names) == sorted([f"dendria-{finished[0]}.txt",
                                    f"benediction-{finished[1]}.txt"])
    for name in names:
        game_id = name.split("-", 1)[1].removesuffix(".txt")
        record = bob.get(f"/api/games/{game_id}/record")
        assert archive.read(name).decode() == record.text  # as the download gives it
    # Bounded: the most recent games only, and a note saying so.
    monkeypatch.setattr(profiles, "MAX_EXPORT_GAMES", 1)
    small = zipfile.ZipFile(io.BytesIO(bob.get("/api/players/ann/export").content))
    newest = app.state.site.service.storage.finished_game_ids(ann.get("/api/me").json()["id"], 1)
    assert [name.split("-", 1)[-1] for name in small.namelist()] == [f"{newest[0]}.txt",
                                                                     "README.txt"]
    assert "most recent" in small.read("README.txt").decode()
    assert bob.get("/api/players/nobody/export").status_code == 404


def test_exports_are_rate_limited_and_bounded_at_once(app: Any) -> None:  # noqa: F811
    (ann,) = players(app, "Ann")
    exports = app.state.site.profile_exports
    exports.rate.attempts = 2
    assert [ann.get("/api/players/ann/export").status_code for _ in range(2)] == [200, 200]
    refused = ann.get("/api/players/ann/export")
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    assert "exports" in refused.json()["error"]
    exports.rate.attempts = 10
    exports.active = profiles.MAX_EXPORTS  # others are being written
    busy = ann.get("/api/players/ann/export")
    assert busy.status_code == 503 and busy.headers["retry-after"]
    exports.active = 0
    empty = zipfile.ZipFile(io.BytesIO(ann.get("/api/players/ann/export").content))
    assert empty.namelist() == []
    assert exports.active == 0  # released after each stream


def test_the_export_limit_is_the_sites_not_each_processs(postgres_url: str) -> None:  # noqa: F811
    """Two server processes on one PostgreSQL: a client that alternates between them gets
    the site's number of exports, not that number on each."""
    with TestClient(create_app(ai_processes=1, database_url=postgres_url)) as one, \
            TestClient(create_app(ai_processes=1, database_url=postgres_url)) as two:
        assert one.post("/api/me/name", json={"name": "Ann"}).status_code == 200
        for client in (one, two):
            client.app.state.site.profile_exports.rate.attempts = 2  # type: ignore[attr-defined]
        answers = [client.get("/api/players/ann/export").status_code
                   for client in (one, two, one, two)]
        assert answers == [200, 200, 429, 429]
