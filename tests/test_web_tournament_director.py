"""The tournament director (issue 42) on real storage (SQLite, and the suite's throwaway
PostgreSQL), with a fake clock and a ``make_game`` that records the pairings: an arena of
eight, a Swiss of five with byes and hand-computed tiebreaks, the bounds, blocks, and two
directors on one PostgreSQL pairing each round and wave once."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import test_web_storage
from hexgames.web.storage import (
    PlayerRecord,
    TournamentClosed,
    TournamentGame,
    TournamentQuota,
    TournamentRecord,
    TournamentState,
    TournamentUnknown,
    open_storage,
)
from hexgames.web.tournaments import arena
from hexgames.web.tournaments import director as director_module
from hexgames.web.tournaments.director import (
    PENDING_MS,
    RECONCILE_AFTER_MS,
    RECONCILE_MS,
    START_GRACE_MS,
    GuestsRefused,
    TournamentDirector,
)
from hexgames.web.tournaments.ledger import crosstable, in_live_game
from hexgames.web.tournaments.model import SettingsError
from test_web_storage import postgres_cluster, postgres_url  # noqa: F401 - fixtures

where = test_web_storage.where  # a fixture: open_storage arguments of each backend

START = 1_000_000_000
MINUTE = 60_000


class Clock:
    """The directors' time: moved by the test only."""

    def __init__(self) -> None:
        self.ms = START

    def __call__(self) -> int:
        return self.ms


class Games:
    """The site's ``make_game``: records each pairing and names its game."""

    def __init__(self) -> None:
        self.made: list[tuple[str, str, str]] = []
        self._lock = threading.Lock()

    async def __call__(self, tournament: TournamentRecord, first: str, second: str) -> str:
        with self._lock:
            self.made.append((tournament.id, first, second))
            return f"g{len(self.made)}"


async def _thread_call(function: Callable[..., Any], *args: Any) -> Any:
    return await asyncio.to_thread(function, *args)


@pytest.fixture
def storage(where: dict[str, object]) -> Iterator[Any]:
    store: Any = open_storage(**where)
    yield store
    store.close()


def _players(storage: Any, *names: str) -> None:
    for name in names:
        storage.create_player(PlayerRecord(name, name, "2026-01-01T00:00:00+00:00"),
                              f"secret-{name}")


def _director(storage: Any, clock: Clock | None = None,
              games: Games | None = None) -> tuple[TournamentDirector, Clock, Games]:
    clock = clock or Clock()
    games = games or Games()
    return TournamentDirector(storage, _thread_call, games, clock), clock, games


def _live(state: TournamentState) -> list[Any]:
    return [game for game in state.games if game.live]


ARENA = {"kind": "arena", "minutes": 30, "starts_in_s": 60}
SWISS = {"kind": "swiss", "rounds": 3, "starts_in_s": 60}


async def _create(director: TournamentDirector, settings: dict[str, object],
                  players: dict[str, float]) -> TournamentRecord:
    record = await director.create("boss", False, "benediction", {"side": 5},
                                   {"kind": "clock", "initial_s": 180}, settings)
    for player, rating in players.items():
        assert await director.join(record.id, player, False, rating)
    return record


# ------------------------------------------------------------------ arena
def test_an_arena_of_eight_repairs_at_once_scores_streaks_and_never_pairs_twice(
        storage: Any) -> None:
    _players(storage, "boss")
    director, clock, games = _director(storage)
    ratings = {f"p{n}": 1500.0 + 37 * n for n in range(8)}

    async def run() -> None:
        record = await _create(director, ARENA, ratings)
        await director.tick()
        assert games.made == [] and (await director.view(record.id))["countdown_ms"] == 60_000
        clock.ms += 60_000
        await director.tick()
        state = storage.load_tournament(record.id)
        assert state.tournament.status == "running" and len(_live(state)) == 4
        log: dict[str, list[arena.ArenaGame]] = {player: [] for player in ratings}
        ended = 0
        while clock.ms < record.ends_at:
            clock.ms += 20_000
            for game in _live(storage.load_tournament(record.id)):
                if (clock.ms - game.paired_at) // 20_000 < 1 + (game.step + game.board) % 3:
                    continue  # still being played
                outcome = ("first", "first", "second", "first", "draw")[ended % 5]
                turns = (24, 64, 12)[ended % 3]
                berserk = (ended % 4 == 0, False)
                ended += 1
                seat = {"first": 0, "second": 1, "draw": None}[outcome]
                assert await director.game_ended(str(game.game_id), seat, turns, berserk)
                assert not await director.game_ended(str(game.game_id), seat, turns)  # once
                for player, other, won, mine, went in (
                        (game.first_id, game.second_id, 0, (turns + 1) // 2, berserk[0]),
                        (game.second_id, game.first_id, 1, turns // 2, berserk[1])):
                    result = "draw" if seat is None else "win" if seat == won else "loss"
                    log[player].append(arena.ArenaGame(result, turns, mine, went,
                                                       ratings[other]))
            await director.tick()
            state = storage.load_tournament(record.id)
            if state.tournament.status != "running":
                break
            playing = [p for g in _live(state) for p in (g.first_id, g.second_id)]
            assert len(playing) == len(set(playing))  # never in two live games
            assert sorted(playing) == sorted(ratings)  # everyone waiting was paired at once
        state = storage.load_tournament(record.id)
        assert state.tournament.status == "finished" and ended > 20
        for game in _live(state):  # the games in progress still count
            assert await director.game_ended(str(game.game_id), 0, 30)
            log[game.first_id].append(arena.ArenaGame("win", 30, 15, False,
                                                      ratings[str(game.second_id)]))
            log[str(game.second_id)].append(arena.ArenaGame("loss", 30, 15, False,
                                                            ratings[game.first_id]))
        await director.tick()
        assert len(storage.load_tournament(record.id).games) == len(games.made)  # no new
        view = await director.view(record.id)
        expected = {player: arena.total(sheet) for player, sheet in log.items()}
        assert {line["player"]: line["score"] for line in view["standings"]} == expected
        assert expected != {p: arena.total(sheet, streaks=False) for p, sheet in log.items()}
        assert [line["score"] for line in view["standings"]] == sorted(expected.values(),
                                                                       reverse=True)
        assert view["podium"] == view["standings"][:3] and view["status"] == "finished"
        assert sum(line["games"] for line in view["standings"]) == 2 * len(games.made)

    asyncio.run(run())


def test_an_arena_scores_streaks_berserk_and_draws_as_hand_computed(storage: Any) -> None:
    _players(storage, "boss")
    director, clock, _ = _director(storage)

    async def run() -> None:
        record = await _create(director, ARENA, {"ann": 1600.0, "bob": 1400.0})
        clock.ms += 60_000
        script = [  # (ann's seat when she wins, turns, berserk of the first mover)
            ("ann", 30, True),  # ann 2, +1 if she moved first (berserk, 15 own turns)
            ("ann", 30, False),  # ann 2: 4
            ("ann", 30, False),  # on fire: ann 4: 8
            ("draw", 40, False),  # still on fire: ann 2: 10; bob 1
            ("draw", 40, False),  # a draw streak, under 60 turns: 0 to both
            ("bob", 12, False),  # bob 2: 3
        ]
        for winner, turns, berserk in script:
            await director.tick()
            (game,) = _live(storage.load_tournament(record.id))
            seat = None if winner == "draw" else (0 if game.first_id == winner else 1)
            await director.game_ended(str(game.game_id), seat, turns, (berserk, False))
        lines = {line.player: line for line in await director.standings(record.id)}
        first_berserk = storage.load_tournament(record.id).games[0].first_id == "ann"
        assert lines["ann"].score == (11 if first_berserk else 10)
        assert lines["bob"].score == 3 and lines["ann"].rank == 1 and lines["ann"].games == 6
        assert not lines["ann"].on_fire
        assert lines["ann"].tiebreaks["performance"] == pytest.approx(
            (3 * 1900 + 2 * 1400 + 900) / 6)

    asyncio.run(run())


def test_a_pairing_whose_game_is_not_created_is_void_and_its_players_free(
        storage: Any) -> None:
    """``make_game`` fails once (the pairing is void at once); then a process stores a
    pairing and dies before creating its game (voided by the next tick a minute on)."""
    _players(storage, "boss")
    director, clock, games = _director(storage)
    failing = [True]

    async def make(tournament: TournamentRecord, first: str, second: str) -> str:
        if failing.pop() if failing else False:
            raise RuntimeError("the game service is down")
        return await games(tournament, first, second)

    director = TournamentDirector(storage, _thread_call, make, clock)

    async def run() -> None:
        record = await _create(director, ARENA, {"ann": 1500.0, "bob": 1500.0})
        clock.ms += 60_000
        await director.tick()
        (void,) = storage.load_tournament(record.id).games
        assert void.result == "void" and games.made == []
        await director.tick()  # paired again, and this time the game exists
        state = storage.load_tournament(record.id)
        assert [g.game_id for g in _live(state)] == ["g1"]
        await director.game_ended("g1", 0, 30)
        step = storage.load_tournament(record.id).tournament.step
        orphan = TournamentGame(record.id, step + 1, 1, "ann", "bob", clock.ms)
        assert storage.store_pairing(record.id, step, [orphan], clock.ms)  # and no game
        await director.tick()
        assert len(_live(storage.load_tournament(record.id))) == 1  # not yet void
        clock.ms += PENDING_MS
        await director.tick()  # void, and the two are paired again at once
        state = storage.load_tournament(record.id)
        assert [g.result for g in state.games if g.step == step + 1] == ["void"]
        assert [g.game_id for g in _live(state)] == ["g2"]
        view = await director.view(record.id)
        assert [line["games"] for line in view["standings"]] == [1, 1]

    asyncio.run(run())


# ------------------------------------------------------------------ Swiss
def test_a_swiss_of_five_gives_one_bye_each_round_and_ends_with_fide_tiebreaks(
        storage: Any) -> None:
    _players(storage, "boss")
    director, clock, games = _director(storage)
    ratings = {"a": 2000.0, "b": 1900.0, "c": 1800.0, "d": 1700.0, "e": 1600.0}

    async def run() -> None:
        record = await _create(director, SWISS, ratings)
        clock.ms += 60_000
        byes: list[str] = []
        for number in (1, 2, 3):
            await director.tick()
            state = storage.load_tournament(record.id)
            this_round = [game for game in state.games if game.step == number]
            (bye,) = [game.first_id for game in this_round if game.second_id is None]
            byes.append(bye)
            await director.tick()  # nothing while the round is played
            assert len(storage.load_tournament(record.id).games) == len(state.games)
            for game in _live(state):  # the higher rated wins, but a v c is a draw
                pair = {game.first_id, game.second_id}
                higher = min(pair)
                seat = None if pair == {"a", "c"} else (0 if game.first_id == higher else 1)
                await director.game_ended(str(game.game_id), seat, 40)
            clock.ms += 1000
        assert len(set(byes)) == 3  # never two byes to one player
        await director.tick()
        view = await director.view(record.id)
        assert view["status"] == "finished" and view["round"] == 3 and len(games.made) == 6
        table = {(g["round"], g["first"], g["second"], g["result"]) for g in view["games"]}
        assert table == EXPECTED_SWISS_GAMES
        lines = {line["player"]: line for line in view["standings"]}
        assert {p: (line["rank"], line["score"], line["tiebreaks"]["buchholz"],
                    line["tiebreaks"]["sonneborn_berger"], line["games"])
                for p, line in lines.items()} == EXPECTED_SWISS_STANDINGS
        assert [line["player"] for line in view["podium"]] == ["a", "c", "b"]

    asyncio.run(run())


def test_a_swiss_waits_for_a_second_player_then_starts_or_ends_alone(
        storage: Any) -> None:
    """A Swiss whose start comes with one player waits for a second (joining it is
    still open), a while; a Swiss still alone after START_GRACE_MS ends without games."""
    _players(storage, "boss")
    director, clock, games = _director(storage)

    async def run() -> None:
        waiting = await _create(director, SWISS, {"a": 1500.0})
        alone = await _create(director, SWISS, {"z": 1500.0})
        clock.ms += 60_000
        await director.tick()
        for record in (waiting, alone):
            view = await director.view(record.id)
            assert view["status"] == "created" and view["countdown_ms"] == 0
        assert await director.join(waiting.id, "b", False, 1500.0)
        await director.tick()
        assert (await director.view(waiting.id))["round"] == 1 and len(games.made) == 1
        clock.ms += START_GRACE_MS
        await director.tick()
        ended = await director.view(alone.id)
        assert ended["status"] == "finished" and ended["games"] == []

    asyncio.run(run())


def test_a_swiss_counts_a_late_joiner_and_a_withdrawn_player_as_absent(
        storage: Any) -> None:
    _players(storage, "boss")
    director, clock, games = _director(storage)

    async def run() -> None:
        record = await _create(director, SWISS, {"a": 2000.0, "b": 1900.0, "c": 1800.0,
                                                 "d": 1700.0})
        clock.ms += 60_000
        await director.tick()
        for game in _live(storage.load_tournament(record.id)):
            await director.game_ended(str(game.game_id), 0, 30)
        assert await director.leave(record.id, "d")
        assert await director.join(record.id, "e", False, 1600.0)  # late, in round 2
        await director.tick()
        state = storage.load_tournament(record.id)
        assert [r.kind for r in crosstable(state)["e"]] == ["absent", "absent"]  # live: not yet
        for game in _live(state):
            await director.game_ended(str(game.game_id), 1, 30)
        table = crosstable(storage.load_tournament(record.id))
        assert [r.kind for r in table["e"]] == ["absent", "game"]
        assert [r.kind for r in table["d"]] == ["game", "absent"]  # left: not paired
        assert [r.kind for r in table["a"]] == ["game", "game"]
        assert len(games.made) == 4  # 2 + 2: a, b, c and e in round 2, no bye

    asyncio.run(run())


#: The pairings the Swiss above makes (round, first, second or None, result). Round 1:
#: ranked by rating, e has the bye; a v c, b v d (board 2: the higher rated second).
#: Round 2: d, lowest without a bye, has it; b v e and a v c would be a rematch, so
#: b v a, c v e. Round 3: e and d had byes, so b; a v c is a rematch: a v e, c v d.
EXPECTED_SWISS_GAMES = {
    (1, "a", "c", "draw"), (1, "d", "b", "second"), (1, "e", None, "bye"),
    (2, "b", "a", "second"), (2, "c", "e", "first"), (2, "d", None, "bye"),
    (3, "e", "a", "second"), (3, "c", "d", "first"), (3, "b", None, "bye"),
}
#: player -> (rank, score, Buchholz, Sonneborn-Berger, games played), by hand (FIDE
#: C.07: a bye counts as a game against a dummy opponent with the player's own score).
#: Scores: a 0.5+1+1 = 2.5, c 0.5+1+1 = 2.5, b 1+0+1 = 2, d 0+1+0 = 1, e 1+0+0 = 1.
#: Buchholz: a c+b+e = 2.5+2+1 = 5.5; c a+e+d = 2.5+1+1 = 4.5; b d+a+dummy(2) = 5.5;
#: d b+dummy(1)+c = 5.5; e dummy(1)+c+a = 6.
#: Sonneborn-Berger: a 0.5*2.5 + 2 + 1 = 4.25; c 0.5*2.5 + 1 + 1 = 3.25; b 1 + 1*2 = 3;
#: d 1*1 = 1; e 1*1 = 1. Ties on points: a over c (Buchholz), e over d (Buchholz).
EXPECTED_SWISS_STANDINGS = {
    "a": (1, 2.5, 5.5, 4.25, 3), "c": (2, 2.5, 4.5, 3.25, 3), "b": (3, 2.0, 5.5, 3.0, 2),
    "e": (4, 1.0, 6.0, 1.0, 2), "d": (5, 1.0, 5.5, 1.0, 2),
}


# ------------------------------------------------------------------ bounds
def test_the_bounds_refuse_with_a_clear_error(storage: Any) -> None:
    _players(storage, "boss")
    director, clock, _ = _director(storage)
    director.daily_limit = 2

    async def run() -> None:
        with pytest.raises(GuestsRefused, match="guests cannot create"):
            await director.create("guest-1", True, "benediction", {}, {}, ARENA)
        with pytest.raises(SettingsError) as bad:
            await director.create("boss", False, "benediction", {}, {},
                                  {"kind": "arena", "minutes": 2})
        assert bad.value.field == "minutes"
        small = await _create(director, {**SWISS, "max_players": 2}, {"a": 1500, "b": 1500})
        assert not await director.join(small.id, "a", False, 1500)  # in already
        with pytest.raises(TournamentClosed, match="is full"):
            await director.join(small.id, "c", False, 1500)
        with pytest.raises(GuestsRefused, match="guests cannot join"):
            await director.join(small.id, "guest-2", True, 1500)
        await _create(director, ARENA, {})
        with pytest.raises(TournamentQuota, match="2 tournaments in the last 24 hours"):
            await _create(director, ARENA, {})
        with pytest.raises(TournamentUnknown):
            await director.view("nope")
        clock.ms += 24 * 3600 * 1000  # a day later: the count starts again
        alone = await _create(director, {**SWISS, "starts_in_s": 0}, {"a": 1500})
        clock.ms += START_GRACE_MS  # one player, all along: nobody to play, it ends
        await director.tick()
        assert storage.load_tournament(alone.id).tournament.status == "finished"
        with pytest.raises(TournamentClosed, match="has ended"):
            await director.join(alone.id, "b", False, 1500)

    asyncio.run(run())


def test_players_who_block_each_other_are_never_paired(storage: Any) -> None:
    names = ("boss", "a", "b", "c", "d")
    _players(storage, *names)
    storage.set_relation("a", "b", "block", True, 1)
    director, clock, games = _director(storage)

    async def run() -> None:
        # a and b are neighbours in the standings: the natural pairing, refused.
        close = {"a": 1900.0, "b": 1890.0, "c": 1500.0, "d": 1400.0}
        arena_t = await _create(director, ARENA, close)
        swiss_t = await _create(director, {**SWISS, "rounds": 3}, close)
        pair_only = await _create(director, ARENA, {"a": 1500.0, "b": 1500.0})
        clock.ms += 60_000
        for _ in range(12):
            await director.tick()
            for tid in (arena_t.id, swiss_t.id):
                for game in _live(storage.load_tournament(tid)):
                    await director.game_ended(str(game.game_id), 0, 30)
            clock.ms += 1000
        for tid in (arena_t.id, swiss_t.id, pair_only.id):
            pairs = {frozenset((f, s)) for (t, f, s) in games.made if t == tid}
            assert frozenset("ab") not in pairs
        assert len([m for m in games.made if m[0] == arena_t.id]) >= 12
        assert storage.load_tournament(swiss_t.id).tournament.status == "finished"
        assert not [m for m in games.made if m[0] == pair_only.id]

    asyncio.run(run())


def test_paused_and_withdrawn_players_are_not_paired(storage: Any) -> None:
    _players(storage, "boss")
    director, clock, games = _director(storage)

    async def run() -> None:
        record = await _create(director, ARENA, {"ann": 1500.0, "bob": 1500.0, "cy": 1500.0})
        assert [t["id"] for t in await director.listing("upcoming")] == [record.id]
        assert await director.pause(record.id, "ann") and await director.leave(record.id, "cy")
        clock.ms += 60_000
        await director.tick()
        assert games.made == [] and await director.listing("running") != []
        assert await director.pause(record.id, "ann", paused=False)
        await director.tick()
        assert sorted(games.made[0][1:]) == ["ann", "bob"]
        clock.ms = int(record.ends_at or 0)
        await director.tick()
        assert [t["id"] for t in await director.listing("recent")] == [record.id]
        assert (await director.view(record.id))["round"] == 1  # one wave

    asyncio.run(run())


# --------------------------------------------------------- two processes
def _race(url: str, settings: dict[str, object], players: dict[str, float],
          steps: int, end_all: bool) -> tuple[Any, TournamentRecord, Games, list[str]]:
    """Two directors, each on its own storage (its own connection: two server processes)
    and its own event loop in a thread, tick at the same instants (a barrier); between
    ticks the first ends the live games (all, or every other one)."""
    setup: Any = open_storage(database_url=url)
    _players(setup, "boss")
    clock, games = Clock(), Games()
    stores = [open_storage(database_url=url) for _ in range(2)]
    directors = [TournamentDirector(store, _thread_call, games, clock) for store in stores]
    record = asyncio.run(_create(directors[0], settings, players))
    clock.ms += 60_000
    barrier = threading.Barrier(2, timeout=60)
    failures: list[str] = []

    async def play(index: int) -> None:
        director = directors[index]
        for _ in range(steps):
            await asyncio.to_thread(barrier.wait)
            await director.tick()
            await asyncio.to_thread(barrier.wait)
            if index == 0:
                state = stores[0].load_tournament(record.id)
                playing = [p for g in _live(state) for p in (g.first_id, g.second_id)]
                if len(playing) != len(set(playing)):
                    failures.append(f"a player in two live games: {sorted(playing)}")
                for number, game in enumerate(sorted(_live(state),
                                                     key=lambda g: (g.step, g.board))):
                    if end_all or number % 2 == 0:
                        await director.game_ended(str(game.game_id), number % 2, 30)
                clock.ms += 1000

    def run(index: int) -> None:
        try:
            asyncio.run(play(index))
        except BaseException as error:  # reported below
            failures.append(repr(error))
            barrier.abort()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads)
    for store in stores:
        store.close()
    return setup, record, games, failures


def test_two_directors_on_one_postgres_pair_each_swiss_round_once(
        postgres_url: str) -> None:  # noqa: F811
    players = {f"p{n}": 1500.0 + 10 * n for n in range(5)}
    setup, record, games, failures = _race(postgres_url, SWISS, players, 6, True)
    assert not failures
    state = setup.load_tournament(record.id)
    assert state.tournament.status == "finished"
    assert Counter(game.step for game in state.games) == {1: 3, 2: 3, 3: 3}  # 2 games, a bye
    assert len(games.made) == 6 == len({game.game_id for game in state.games if game.game_id})
    setup.close()


def test_two_directors_on_one_postgres_pair_each_arena_wave_once(
        postgres_url: str) -> None:  # noqa: F811
    players = {f"p{n}": 1500.0 + 10 * n for n in range(8)}
    setup, record, games, failures = _race(postgres_url, ARENA, players, 12, False)
    assert not failures
    state = setup.load_tournament(record.id)
    made = [game for game in state.games if game.second_id is not None]
    assert len(made) == len(games.made) > 12
    assert {game.game_id for game in made} == {f"g{n}" for n in range(1, len(made) + 1)}
    assert len({(game.step, game.board) for game in state.games}) == len(state.games)
    steps = sorted({game.step for game in state.games})
    assert len(in_live_game(state)) == 2 * len([g for g in state.games if g.live])
    assert steps == list(range(steps[0], steps[0] + len(steps)))  # one claim per wave
    setup.close()


def test_every_due_tournament_gets_its_turn_when_more_are_due_than_a_tick_takes(
        storage: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tick looks at TICK_LIMIT tournaments from where the last one stopped: with two
    a tick and five due, all five start within three ticks (never only the same two)."""
    monkeypatch.setattr(director_module, "TICK_LIMIT", 2)
    _players(storage, "boss")
    director, clock, games = _director(storage)

    async def run() -> None:
        records = [await _create(director, ARENA, {"a": 1500.0, "b": 1400.0})
                   for _ in range(5)]
        clock.ms += 60_000
        for _ in range(3):
            await director.tick()
        statuses = [(await director.view(record.id))["status"] for record in records]
        assert statuses == ["running"] * 5
        assert {made[0] for made in games.made} == {record.id for record in records}

    asyncio.run(run())


def test_a_game_whose_end_was_never_reported_is_recorded_by_a_later_tick(
        storage: Any) -> None:
    """A result lost on the way (``game_ended`` never called) would leave a Swiss waiting
    for its round forever: a tick asks ``ended_game`` about live pairings older than
    RECONCILE_AFTER_MS, records what is over, and pairs the next round."""
    _players(storage, "boss")
    over: dict[str, tuple[int | None, int]] = {}
    asked: list[str] = []

    async def ended_game(game_id: str) -> tuple[int | None, int] | None:
        asked.append(game_id)
        return over.get(game_id)

    clock, games = Clock(), Games()
    director = TournamentDirector(storage, _thread_call, games, clock, ended_game=ended_game)

    async def run() -> None:
        record = await _create(director, {**SWISS, "rounds": 2}, {"a": 1600.0, "b": 1500.0})
        clock.ms += 60_000
        await director.tick()
        (game,) = _live(storage.load_tournament(record.id))
        assert asked == [game.game_id]  # once as its id was attached: being played
        await director.tick()
        assert asked == [game.game_id]  # too young to be asked after
        clock.ms += RECONCILE_AFTER_MS
        await director.tick()
        assert asked == [game.game_id] * 2  # still played: nothing recorded
        over[str(game.game_id)] = (0, 31)
        clock.ms += 1000
        await director.tick()
        assert asked == [game.game_id] * 2  # asked at most every RECONCILE_MS
        clock.ms += RECONCILE_MS
        await director.tick()
        state = storage.load_tournament(record.id)
        first = next(g for g in state.games if g.step == 1)
        assert (first.result, first.turns) == ("first", 31)
        assert (await director.view(record.id))["round"] == 2 and len(_live(state)) == 1

    asyncio.run(run())


def test_a_game_that_ends_before_its_id_is_attached_is_recorded_at_once(
        storage: Any) -> None:
    """A player resigns in the moment between the game's creation and its id reaching the
    pairing: ``game_ended`` cannot find the pairing then, so the director asks once the
    id is attached, and records the result without waiting for the reconciliation."""
    _players(storage, "boss")
    over: dict[str, tuple[int | None, int]] = {}
    reports: list[bool] = []
    clock = Clock()
    director: TournamentDirector

    class ResignedAtOnce(Games):
        async def __call__(self, tournament: TournamentRecord, first: str,
                           second: str) -> str:
            game_id = await super().__call__(tournament, first, second)
            over[game_id] = (1, 0)  # the first player resigned before moving
            reports.append(await director.game_ended(game_id, 1, 0))
            return game_id

    async def ended_game(game_id: str) -> tuple[int | None, int] | None:
        return over.get(game_id)

    director = TournamentDirector(storage, _thread_call, ResignedAtOnce(), clock,
                                  ended_game=ended_game)

    async def run() -> None:
        record = await _create(director, {**SWISS, "rounds": 2}, {"a": 1600.0, "b": 1500.0})
        clock.ms += 60_000
        await director.tick()
        assert reports == [False]  # reported while the pairing had no game yet
        state = storage.load_tournament(record.id)
        first = next(g for g in state.games if g.step == 1)
        assert (first.result, first.turns) == ("second", 0)
        await director.tick()  # the next round, with no time gone by
        assert (await director.view(record.id))["round"] == 2

    asyncio.run(run())
