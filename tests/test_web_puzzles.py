"""The puzzle API over both storages (SQLite and a throwaway PostgreSQL cluster, as in
test_web_storage): the server judges every try, a named player's first finished try
rates the player and the puzzle (solved: player up, puzzle down; failed or given up: the
other way), later tries change nothing, guests are unrated; the choice of puzzles (near
the rating, untried, by theme); streaks judged once per puzzle with the best kept; the
daily puzzle (the same in every process); bad input refused, never a 500."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hexgames.game import get_game
from hexgames.tutorial import Puzzle, attempt, find_puzzle, puzzle_set
from hexgames.web.app import create_app
from hexgames.web.ratings.puzzles import (
    PLAYER_START,
    choose,
    daily_puzzle,
    record_attempt,
    streak_puzzles,
    today,
)
from hexgames.web.storage import open_storage
from test_web_storage import postgres_cluster, postgres_url  # noqa: F401 - fixtures

GAME = "benediction"


@pytest.fixture(params=["sqlite", "postgres"])
def site(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    """Keyword arguments of ``create_app`` for a fresh store of each kind."""
    if request.param == "sqlite":
        return {"data_dir": tmp_path}
    return {"database_url": request.getfixturevalue("postgres_url"), "data_dir": tmp_path}


@pytest.fixture
def app(site: dict[str, Any]) -> Iterator[Any]:
    application = create_app(ai_processes=1, **site)
    with TestClient(application):
        yield application


def browser(app: Any, name: str | None = None) -> TestClient:
    """A client with cookies of its own: a guest, or a player called ``name``."""
    client = TestClient(app)
    client.get("/api/me")
    if name is not None:
        assert client.post("/api/me/name", json={"name": name}).status_code == 200
    return client


def shipped(puzzle_id: str) -> Puzzle:
    return find_puzzle(get_game(GAME), puzzle_id)


def wrong_try(puzzle: Puzzle) -> list[str]:
    """Legal actions that do not win (judged ``wrong`` by the engine)."""
    game = get_game(GAME)
    start = puzzle.lesson.start(game)
    for first in start.legal_actions():
        start.play(first)
        seconds = [str(a) for a in start.legal_actions()] if not start.is_over else []
        start.undo()
        for second in seconds[:20]:
            actions = [str(first), second]
            if attempt(game, puzzle.lesson, actions).status == "wrong":
                return actions
    raise AssertionError("no wrong try")


def try_puzzle(client: TestClient, puzzle_id: str, actions: list[str]) -> dict[str, Any]:
    answer = client.post(f"/api/puzzles/{GAME}/{puzzle_id}/try", json={"actions": actions})
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def me(client: TestClient) -> dict[str, Any]:
    body: dict[str, Any] = client.get(f"/api/puzzles/{GAME}").json()
    return body


# ----------------------------------------------------------------- ratings
def test_a_first_try_rates_the_player_and_the_puzzle_once(app: Any) -> None:
    alice = browser(app, "Alice")
    assert me(alice)["rated"] and me(alice)["me"]["attempts"] == 0
    first = alice.get(f"/api/puzzles/{GAME}/next").json()
    assert "solution" not in first and "hint" not in first  # never before the end
    puzzle = shipped(first["id"])
    # A try that goes on is judged and not rated.
    going = try_puzzle(alice, first["id"], list(puzzle.lesson.solution[:1]))
    assert going["status"] == "continue" and "result" not in going
    solved = try_puzzle(alice, first["id"], list(puzzle.lesson.solution))
    assert solved["status"] == "solved" and solved["result"]["rated"]
    changes = solved["result"]["changes"]
    assert changes["player"]["before"] == 1500.0 and changes["player"]["change"] > 0
    assert changes["puzzle"]["before"] == round(puzzle.rating, 1)
    assert changes["puzzle"]["change"] < 0
    rating = me(alice)["me"]
    assert rating["rating"] == changes["player"]["after"]
    assert (rating["attempts"], rating["solved"]) == (1, 1)
    after = alice.get(f"/api/puzzles/{GAME}/{first['id']}").json()
    assert after["rating"] == round(changes["puzzle"]["after"]) and after["plays"] == 1
    # Only the first try counts: a failed second try changes nothing.
    again = try_puzzle(alice, first["id"], wrong_try(puzzle))
    assert again["status"] == "wrong" and not again["result"]["rated"]
    assert me(alice)["me"] == rating
    # A failed first try: the player goes down, the puzzle up.
    second = alice.get(f"/api/puzzles/{GAME}/next").json()
    assert second["id"] != first["id"]  # a tried puzzle is not offered again
    failed = try_puzzle(alice, second["id"], wrong_try(shipped(second["id"])))
    assert failed["result"]["rated"] and failed["result"]["solution"] == list(
        shipped(second["id"]).lesson.solution)
    assert failed["result"]["changes"]["player"]["change"] < 0
    assert failed["result"]["changes"]["puzzle"]["change"] > 0
    # Giving up is a failed first try too.
    third = alice.get(f"/api/puzzles/{GAME}/next").json()
    gave_up = alice.post(f"/api/puzzles/{GAME}/{third['id']}/solution").json()
    assert gave_up["solution"] == list(shipped(third["id"]).lesson.solution)
    assert gave_up["result"]["rated"] and gave_up["result"]["changes"]["player"]["change"] < 0
    final = me(alice)["me"]
    assert (final["attempts"], final["solved"]) == (3, 1)


def test_guests_are_judged_but_not_rated(app: Any) -> None:
    guest = browser(app)
    catalogue = me(guest)
    assert catalogue["rated"] is False and catalogue["me"] is None
    first = guest.get(f"/api/puzzles/{GAME}/next").json()
    solved = try_puzzle(guest, first["id"], list(shipped(first["id"]).lesson.solution))
    assert solved["status"] == "solved" and solved["result"] == {
        "win": True, "rated": False, "solution": list(shipped(first["id"]).lesson.solution)}
    stats = app.state.site.service.storage.puzzle_stats(GAME)
    assert first["id"] not in stats  # the puzzle's rating did not move either
    # A client without cookies is judged too.
    assert TestClient(app).post(f"/api/puzzles/{GAME}/{first['id']}/try",
                                json={"actions": []}).json()["status"] == "continue"


def test_two_processes_rating_one_first_try_apply_it_once(
        postgres_url: str) -> None:  # noqa: F811
    stores = [open_storage(database_url=postgres_url) for _ in range(2)]
    try:
        from hexgames.web.storage import PlayerRecord

        stores[0].create_player(PlayerRecord("p1", "Alice", "2026-01-01T00:00:00+00:00"),
                                "sha256:x")
        puzzle = puzzle_set(get_game(GAME))[0]
        answers: list[dict[str, Any]] = []
        threads = [threading.Thread(target=lambda s=store: answers.append(
            record_attempt(s, "p1", GAME, puzzle, True))) for store in stores * 2]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert sorted(answer["first"] for answer in answers) == [False, False, False, True]
        assert len({str(answer["player"]) for answer in answers}) == 1
        record = stores[1].puzzle_rating("p1", GAME)
        assert record is not None and record.attempts == 1
    finally:
        for store in stores:
            store.close()


# ----------------------------------------------------------------- choosing
def test_the_next_puzzle_is_near_the_rating_untried_and_of_the_theme(app: Any) -> None:
    puzzles = puzzle_set(get_game(GAME))
    guest = browser(app)
    for theme in ("portal", "merge", "blessing"):
        for _ in range(3):
            chosen = guest.get(f"/api/puzzles/{GAME}/next", params={"theme": theme}).json()
            assert theme in [item["name"] for item in chosen["themes"]]
    # Near the asked rating (a guest): among the closest puzzles of the set.
    low = guest.get(f"/api/puzzles/{GAME}/next", params={"near": 600}).json()
    high = guest.get(f"/api/puzzles/{GAME}/next", params={"near": 3000}).json()
    ordered = sorted(p.rating for p in puzzles)
    assert low["rating"] <= ordered[20] and high["rating"] >= ordered[-21]
    # A guest's skip list is honoured.
    skipped = {p.id for p in puzzles if p.rating <= ordered[40]}
    again = guest.get(f"/api/puzzles/{GAME}/next",
                      params={"near": 600, "skip": ",".join(sorted(skipped)[:150])}).json()
    assert again["id"] not in sorted(skipped)[:150]


def test_only_themes_that_pick_some_puzzles_are_offered(app: Any) -> None:
    """Issue 39, row 15: themes tagging no puzzle (Bridge, Drop; Long journey, Both
    pass) were offered, and Dendria's "Quiet limit" tagged all 400 puzzles. A theme is
    offered, and shown on a puzzle, only when it picks some puzzles but not all."""
    guest = browser(app)
    for name, left_out in (("benediction", {"bridge", "drop"}),
                           ("dendria", {"journey", "double-pass", "quiet-limit"})):
        vocabulary = {theme.name for theme in get_game(name).puzzle_themes.themes}
        assert left_out <= vocabulary
        catalogue = guest.get(f"/api/puzzles/{name}").json()
        offered = {theme["name"] for theme in catalogue["themes"]}
        assert offered == vocabulary - left_out
        assert all(0 < theme["count"] < catalogue["count"] for theme in catalogue["themes"])
        puzzle = guest.get(f"/api/puzzles/{name}/next").json()
        assert {theme["name"] for theme in puzzle["themes"]} <= offered
        refused = guest.get(f"/api/puzzles/{name}/next", params={"theme": sorted(left_out)[0]})
        assert refused.status_code == 400
    shipped_dendria = puzzle_set(get_game("dendria"))
    assert all("quiet-limit" in puzzle.themes for puzzle in shipped_dendria)
    for daily in guest.get("/api/puzzles/daily").json()["puzzles"]:
        assert "quiet-limit" not in daily["themes"]


def test_choose_prefers_untried_puzzles_and_falls_back_to_all() -> None:
    import random

    puzzles = puzzle_set(get_game(GAME))[:30]
    rng = random.Random(1)
    tried = {p.id for p in puzzles[:29]}
    assert choose(puzzles, {}, 1500, tried, None, rng) == puzzles[29]
    everything = {p.id for p in puzzles}
    assert choose(puzzles, {}, 1500, everything, None, rng) in puzzles
    assert choose(puzzles, {}, 1500, set(), "no-such-theme", rng) is None
    # The current ratings (stored) decide, not the shipped ones: twelve puzzles moved
    # down to 500 are the only ones offered to a player rated 500.
    moved = {p.id: 3000.0 for p in puzzles}
    near = {p.id for p in puzzles[10:22]}
    moved.update({i: 500.0 for i in near})
    assert {choose(puzzles, moved, 500, set(), None, random.Random(seed)).id  # type: ignore[union-attr]
            for seed in range(40)} <= near


# ----------------------------------------------------------------- streaks
def test_streak_puzzles_get_harder() -> None:
    import random

    puzzles = puzzle_set(get_game(GAME))
    ids = streak_puzzles(puzzles, random.Random(3))
    assert len(ids) == min(50, len(puzzles)) and len(set(ids)) == len(ids)
    ratings = [find_puzzle(get_game(GAME), i).rating for i in ids]
    assert ratings == sorted(ratings) and ratings[-1] - ratings[0] >= 500
    assert streak_puzzles(puzzles[:7], random.Random(3), 50) == sorted(
        streak_puzzles(puzzles[:7], random.Random(3), 50),
        key=lambda i: (find_puzzle(get_game(GAME), i).rating, i))


def streak_try(client: TestClient, streak: dict[str, Any], actions: list[str],
               index: int | None = None) -> Any:
    return client.post(f"/api/puzzles/{GAME}/streak/{streak['id']}/try",
                       json={"index": streak["solved"] if index is None else index,
                             "actions": actions})


def test_a_streak_goes_on_until_the_first_mistake_and_keeps_the_best(app: Any) -> None:
    bob = browser(app, "Bob")
    streak = bob.post(f"/api/puzzles/{GAME}/streak").json()
    assert (streak["solved"], streak["status"], streak["best"]) == (0, "playing", 0)
    stored = app.state.site.service.storage.load_streak(streak["id"])
    ratings = [shipped(i).rating for i in stored.puzzles]
    assert ratings == sorted(ratings)
    for number in range(2):
        puzzle = shipped(streak["puzzle"]["id"])
        answer = streak_try(bob, streak, list(puzzle.lesson.solution))
        assert answer.status_code == 200, answer.text
        streak = answer.json()["streak"]
        assert (streak["solved"], streak["status"]) == (number + 1, "playing")
        assert streak["puzzle"]["id"] == stored.puzzles[number + 1]
    # A stale page (the index of a puzzle already solved) is refused, not judged.
    assert streak_try(bob, streak, [], index=0).status_code == 409
    # A mistake ends it: the best streak is kept, the solution shown.
    puzzle = shipped(streak["puzzle"]["id"])
    ended = streak_try(bob, streak, wrong_try(puzzle)).json()
    assert ended["status"] == "wrong" and ended["solution"] == list(puzzle.lesson.solution)
    assert (ended["streak"]["solved"], ended["streak"]["status"]) == (2, "over")
    assert ended["streak"]["puzzle"] is None and ended["streak"]["best"] == 2
    assert streak_try(bob, ended["streak"], []).status_code == 409  # over: no more tries
    assert me(bob)["me"]["best_streak"] == 2
    # A shorter streak leaves the best as it was; streaks are unrated.
    short = bob.post(f"/api/puzzles/{GAME}/streak").json()
    lost = streak_try(bob, short, wrong_try(shipped(short["puzzle"]["id"]))).json()
    assert lost["streak"]["solved"] == 0 and lost["streak"]["best"] == 2
    assert me(bob)["me"]["best_streak"] == 2 and me(bob)["me"]["attempts"] == 0
    # Someone else's streak is not theirs to play; an unknown one does not exist.
    carol = browser(app, "Carol")
    mine = bob.post(f"/api/puzzles/{GAME}/streak").json()
    assert streak_try(carol, mine, []).status_code == 403
    assert carol.get(f"/api/puzzles/{GAME}/streak/{mine['id']}").status_code == 403
    assert bob.get(f"/api/puzzles/{GAME}/streak/{mine['id']}").json()["solved"] == 0
    assert bob.get(f"/api/puzzles/{GAME}/streak/nope").status_code == 404
    assert bob.get(f"/api/puzzles/dendria/streak/{mine['id']}").status_code == 404


def test_a_guest_streak_is_judged_and_its_best_not_stored(app: Any) -> None:
    guest = browser(app)
    streak = guest.post(f"/api/puzzles/{GAME}/streak").json()
    assert streak["best"] is None
    solved = streak_try(guest, streak, list(shipped(streak["puzzle"]["id"]).lesson.solution))
    streak = solved.json()["streak"]
    lost = streak_try(guest, streak, wrong_try(shipped(streak["puzzle"]["id"]))).json()
    assert lost["streak"]["solved"] == 1 and lost["streak"]["status"] == "over"
    assert app.state.site.service.storage.puzzle_rating(
        guest.get("/api/me").json()["id"], GAME) is None


def test_old_streaks_are_forgotten(tmp_path: Path) -> None:
    from hexgames.web.storage.records import PuzzleStreak

    storage = open_storage(data_dir=tmp_path)
    try:
        for number, stamp in enumerate(("2026-01-01T00:00:00+00:00",
                                        "2026-01-03T00:00:00+00:00")):
            storage.create_streak(PuzzleStreak(f"s{number}", None, GAME, ("a", "b"), 0,
                                               "playing", stamp, stamp))
        assert storage.delete_streaks("2026-01-02T00:00:00+00:00") == 1
        assert storage.load_streak("s0") is None and storage.load_streak("s1") is not None
        moved = storage.advance_streak("s1", 0, True, "2026-01-03T00:00:01+00:00",
                                       PLAYER_START, False)
        assert moved is not None and moved.solved == 1
        # The same puzzle judged again (a second process, a double click): refused.
        assert storage.advance_streak("s1", 0, True, "2026-01-03T00:00:02+00:00",
                                      PLAYER_START, False) is None
        last = storage.advance_streak("s1", 1, True, "2026-01-03T00:00:03+00:00",
                                      PLAYER_START, False)
        assert last is not None and (last.solved, last.status) == (2, "over")
    finally:
        storage.close()


# ----------------------------------------------------------------- daily puzzle
def test_the_daily_puzzle_is_the_same_for_everyone_and_changes_with_the_day(app: Any) -> None:
    puzzles = puzzle_set(get_game(GAME))
    day = date(2026, 12, 3)
    chosen = daily_puzzle(puzzles, GAME, day)
    assert chosen is not None and chosen == daily_puzzle(puzzles, GAME, day)
    assert 1100 <= chosen.rating <= 1800
    # Another process (another hash seed) picks the same one.
    code = ("from datetime import date; from hexgames.game import get_game; "
            "from hexgames.tutorial import puzzle_set; "
            "from hexgames.web.ratings.puzzles import daily_puzzle; "
            f"print(daily_puzzle(puzzle_set(get_game('{GAME}')), '{GAME}', date(2026, 12, 3)).id)")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=120, env={"PYTHONHASHSEED": "12345", "PATH": "/usr/bin"},
                           check=True)
    assert other.stdout.strip() == chosen.id
    month = {getattr(daily_puzzle(puzzles, GAME, day + timedelta(days=n)), "id", None)
             for n in range(30)}
    assert len(month) >= 20
    answer = browser(app).get("/api/puzzles/daily").json()
    assert answer["date"] == today().isoformat()
    by_game = {entry["game"]: entry for entry in answer["puzzles"]}
    assert set(by_game) == {"benediction", "dendria"}
    for name, entry in by_game.items():
        expected = daily_puzzle(puzzle_set(get_game(name)), name, today())
        assert expected is not None and entry["id"] == expected.id
        assert entry["url"] == f"/puzzles/{name}/{expected.id}" and "<svg" in entry["svg"]


# ----------------------------------------------------------------- bad input
def test_bad_input_is_refused_never_a_500(app: Any) -> None:
    client = browser(app, "Dora")
    some = puzzle_set(get_game(GAME))[0].id
    refused = {
        ("GET", "/api/puzzles/chess"): 404,
        ("GET", f"/api/puzzles/{GAME}/nosuchid"): 404,
        ("GET", f"/api/puzzles/{GAME}/next?theme=nope"): 400,
        ("GET", f"/api/puzzles/{GAME}/next?near=5"): 400,
        ("GET", f"/api/puzzles/{GAME}/next?near=abc"): 400,
        ("GET", f"/api/puzzles/{GAME}/next?skip=a;b"): 400,
        ("GET", f"/api/puzzles/{GAME}/next?skip=" + ",".join(["a"] * 3000)): 400,
        ("POST", f"/api/puzzles/{GAME}/nosuchid/solution"): 404,
        ("POST", "/api/puzzles/chess/streak"): 404,
        ("GET", f"/api/puzzles/{GAME}/streak/" + "x" * 500): 404,
        ("GET", "/puzzles/chess"): 404,
        ("GET", f"/puzzles/{GAME}/nosuchid"): 404,
    }
    for (method, path), status in refused.items():
        answer = client.request(method, path)
        assert answer.status_code == status, (path, answer.status_code, answer.text[:200])
        if path.startswith("/api/"):
            assert "error" in answer.json()
    bodies = [{"actions": "e3e4"}, {"actions": [1, 2]}, {"actions": ["pass"] * 50},
              {"actions": [], "clicks": {"points": ["a1"] * 9}}]
    for body in bodies:
        answer = client.post(f"/api/puzzles/{GAME}/{some}/try", json=body)
        assert answer.status_code == 400, (body, answer.text)
    junk = client.post(f"/api/puzzles/{GAME}/{some}/try", json={"actions": ["zz99"]}).json()
    assert junk["status"] == "illegal" and "result" not in junk  # not a finished try
    streak = client.post(f"/api/puzzles/{GAME}/streak").json()
    for body in [{"actions": []}, {"index": -1, "actions": []}, {"index": "0", "actions": []}]:
        answer = client.post(f"/api/puzzles/{GAME}/streak/{streak['id']}/try", json=body)
        assert answer.status_code == 400, (body, answer.text)
    assert client.post(f"/api/puzzles/{GAME}/streak/{streak['id']}/try",
                       json={"index": 7, "actions": []}).status_code == 409
    assert me(client)["me"]["attempts"] == 0  # nothing refused was rated


def test_an_older_database_gains_the_puzzle_tables(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "hexgames.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, "
                           "options TEXT NOT NULL, mode TEXT NOT NULL, players TEXT NOT NULL, "
                           "seat_tokens TEXT NOT NULL, status TEXT NOT NULL, winner TEXT, "
                           "reason TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)")
    storage = open_storage(data_dir=tmp_path)
    try:
        assert storage.puzzle_stats(GAME) == {}
        assert storage.attempted_puzzles("nobody", GAME) == set()
    finally:
        storage.close()
