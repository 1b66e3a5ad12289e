"""Tournaments in storage (issue 42), on SQLite and PostgreSQL: creation under the per-day
bound, joins that refuse an ended or full tournament, pauses and leaves, lists, results
recorded once, and the claim of a step that one process of several wins."""

from __future__ import annotations

import threading
from typing import Any

import pytest

import test_web_storage
from hexgames.web.storage import (
    PlayerRecord,
    TournamentClosed,
    TournamentGame,
    TournamentQuota,
    TournamentRecord,
    TournamentUnknown,
    open_storage,
)
from test_web_storage import postgres_cluster, postgres_url  # noqa: F401 - fixtures

where = test_web_storage.where  # a fixture: open_storage arguments of each backend

DAY = 24 * 3600 * 1000


def _players(storage: Any, *names: str) -> None:
    for name in names:
        storage.create_player(PlayerRecord(name, name, "2026-01-01T00:00:00+00:00"),
                              f"secret-{name}")


def _tournament(tid: str = "t1", creator: str = "ann", at: int = 1000, size: int = 4,
                kind: str = "swiss") -> TournamentRecord:
    settings = {"kind": kind, "rounds": 3} if kind == "swiss" else {"kind": kind,
                                                                    "minutes": 30}
    return TournamentRecord(tid, creator, "benediction", kind, {"side": 5}, settings,
                            {"kind": "clock", "initial_s": 180}, at, at + 60_000, size,
                            at + 60_000 + 30 * 60_000 if kind == "arena" else None)


def test_a_tournament_round_trips_and_the_creator_is_bounded_per_day(
        where: dict[str, object]) -> None:
    storage: Any = open_storage(**where)
    _players(storage, "ann", "bob")
    for n in range(3):
        storage.create_tournament(_tournament(f"t{n}", at=1000 + n), daily_limit=3)
    with pytest.raises(TournamentQuota, match="3 tournaments in the last 24 hours"):
        storage.create_tournament(_tournament("t9", at=5000), daily_limit=3)
    assert storage.load_tournament("t9") is None  # nothing stored
    storage.create_tournament(_tournament("t9", creator="bob", at=5000), daily_limit=3)
    storage.create_tournament(_tournament("t10", at=1000 + DAY), daily_limit=3)  # a day on
    state = storage.load_tournament("t0")
    assert state.tournament == _tournament("t0", at=1000)
    assert state.players == () and state.games == ()
    assert [t.id for t in storage.list_tournaments("upcoming")] == [
        "t0", "t1", "t2", "t9", "t10"]
    assert storage.list_tournaments("running") == []
    with pytest.raises(ValueError, match="upcoming"):
        storage.list_tournaments("someday")
    storage.close()


def test_joins_leaves_and_pauses(where: dict[str, object]) -> None:
    storage: Any = open_storage(**where)
    _players(storage, "ann")
    storage.create_tournament(_tournament(size=2), daily_limit=5)
    assert storage.join_tournament("t1", "bob", 1500.0, 10)
    assert not storage.join_tournament("t1", "bob", 1600.0, 11)  # in already: nothing new
    assert storage.join_tournament("t1", "cy", 1400.0, 12)
    with pytest.raises(TournamentClosed, match="full: 2 players"):
        storage.join_tournament("t1", "dan", 1400.0, 13)
    with pytest.raises(TournamentUnknown, match="no tournament 'nope'"):
        storage.join_tournament("nope", "dan", 1400.0, 13)
    assert storage.pause_tournament("t1", "bob", True)
    assert not storage.pause_tournament("t1", "bob", True)
    assert storage.leave_tournament("t1", "cy") and not storage.leave_tournament("t1", "cy")
    assert storage.join_tournament("t1", "dan", 1300.0, 14)  # cy's place is free
    players = {p.player_id: p for p in storage.load_tournament("t1").players}
    assert players["bob"].paused and players["bob"].rating == 1500.0
    assert storage.tournaments_of("bob")[0].id == "t1" and storage.tournaments_of("zed") == []
    storage.close()


def test_a_full_tournament_refuses_a_comeback_and_an_ended_one_refuses_everyone(
        where: dict[str, object]) -> None:
    storage: Any = open_storage(**where)
    _players(storage, "ann")
    storage.create_tournament(_tournament(size=2), daily_limit=5)
    storage.join_tournament("t1", "bob", 1500.0, 10)
    storage.join_tournament("t1", "cy", 1500.0, 10)
    storage.leave_tournament("t1", "cy")
    storage.join_tournament("t1", "dan", 1500.0, 11)
    with pytest.raises(TournamentClosed, match="full"):
        storage.join_tournament("t1", "cy", 1500.0, 12)
    assert storage.claim_tournament_step("t1", 0, 20, "running")
    assert storage.claim_tournament_step("t1", 1, 30, "finished")
    with pytest.raises(TournamentClosed, match="has ended"):
        storage.join_tournament("t1", "eve", 1500.0, 40)
    state = storage.load_tournament("t1")
    assert state.tournament.status == "finished" and state.tournament.ends_at == 30
    assert not storage.claim_tournament_step("t1", 2, 50)  # nothing moves a finished one
    assert [t.id for t in storage.list_tournaments("recent")] == ["t1"]
    storage.close()


def _pair(step: int, board: int, first: str, second: str | None,
          game_id: str | None = None) -> TournamentGame:
    return TournamentGame("t1", step, board, first, second, 100, game_id,
                          None if second else "bye")


def test_a_pairing_is_stored_with_its_claim_and_results_once(
        where: dict[str, object]) -> None:
    storage: Any = open_storage(**where)
    _players(storage, "ann")
    storage.create_tournament(_tournament(), daily_limit=5)
    games = [_pair(1, 1, "bob", "cy"), _pair(1, 2, "dan", "eve"), _pair(1, 3, "fay", None)]
    assert storage.due_tournaments(60_000) == [] and storage.due_tournaments(61_000) == ["t1"]
    assert storage.store_pairing("t1", 0, games, 100, "running")
    assert not storage.store_pairing("t1", 0, games[:1], 100, "running")  # lost: nothing
    assert storage.attach_tournament_game("t1", 1, 1, "g1", 110)
    assert not storage.attach_tournament_game("t1", 1, 1, "g9", 110)  # once
    assert storage.attach_tournament_game("t1", 1, 2, None, 110)  # could not be created
    with pytest.raises(ValueError, match="belong to the step"):
        storage.store_pairing("t1", 1, [_pair(5, 1, "bob", "dan")], 120)
    assert storage.load_tournament("t1").tournament.step == 1  # the failed claim rolled back
    assert storage.record_tournament_result("g1", "second", 31, True, False, 200)
    assert not storage.record_tournament_result("g1", "first", 40, False, False, 210)
    assert not storage.record_tournament_result("g-other", "draw", 40, False, False, 210)
    with pytest.raises(ValueError, match="result"):
        storage.record_tournament_result("g1", "bye", 1, False, False, 1)
    state = storage.load_tournament("t1")
    assert state.tournament.status == "running" and state.tournament.step == 1
    first, void, bye = state.games
    assert (first.game_id, first.result, first.turns, first.first_berserk,
            first.ended_at) == ("g1", "second", 31, True, 200)
    assert void.result == "void" and not void.live and bye.second_id is None
    assert storage.tournament_game("g1") == first and storage.tournament_game("x") is None
    assert [t.id for t in storage.list_tournaments("running")] == ["t1"]
    assert storage.due_tournaments(0) == ["t1"]
    storage.close()


def test_of_two_processes_claiming_one_step_at_once_exactly_one_stores(
        postgres_url: str) -> None:  # noqa: F811
    """Two connections (two server processes) store 30 steps in a race, each trying every
    step with its own games: each step is won once, and holds the winner's games only."""
    setup: Any = open_storage(database_url=postgres_url)
    _players(setup, "ann")
    setup.create_tournament(_tournament(), daily_limit=5)
    stores = [open_storage(database_url=postgres_url) for _ in range(2)]
    start = threading.Barrier(2, timeout=30)
    won: list[list[int]] = [[], []]
    failures: list[BaseException] = []

    def claim(index: int) -> None:
        try:
            for step in range(30):
                start.wait()
                games = [_pair(step + 1, board, f"p{index}-{board}", f"q{index}-{board}")
                         for board in (1, 2)]
                if stores[index].store_pairing("t1", step, games, step):
                    won[index].append(step)
        except BaseException as error:  # reported below
            failures.append(error)

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not failures and not any(t.is_alive() for t in threads)
    assert sorted(won[0] + won[1]) == list(range(30))
    games = setup.load_tournament("t1").games
    assert len(games) == 60
    for step in range(30):
        winner = 0 if step in won[0] else 1
        assert {g.first_id for g in games if g.step == step + 1} == {
            f"p{winner}-1", f"p{winner}-2"}
    for storage in (*stores, setup):
        storage.close()
