"""Lessons, puzzles and the score breakdown: every lesson's intended solution solves it,
wrong tries get an explanation (the checks are neither trivially true nor false), the
engine's reason comes back for illegal tries, puzzles are real wins, and the learn API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hexgames.game import game_names, get_game
from hexgames.tutorial import Lesson, attempt, lessons, puzzles
from hexgames.web.app import create_app

ALL_LESSONS = [
    pytest.param(name, lesson, id=f"{name}-{lesson.id}")
    for name in game_names()
    for lesson in lessons(get_game(name))
]
#: A sample of each shipped set, spread over it (tests/test_puzzles.py checks more of it
#: with the search; the sets hold hundreds).
SOME_PUZZLES = [
    pytest.param(name, puzzle, id=f"{name}-{puzzle.id}")
    for name in game_names()
    for puzzle in puzzles(get_game(name))[::97]
]


def tries(name: str, lesson: Lesson, limit: int = 4000) -> Iterator[tuple[list[str], str, str]]:
    """Every finished try of legal actions (depth-first, bounded): (actions, status, message)."""
    game = get_game(name)
    stack: list[list[str]] = [[]]
    seen = 0
    while stack and seen < limit:
        prefix = stack.pop()
        verdict = attempt(game, lesson, prefix)
        if verdict.status == "continue":
            stack.extend([*prefix, str(a)] for a in verdict.position.legal_actions())
            continue
        seen += 1
        yield prefix, verdict.status, str(verdict.message)


def test_every_game_has_lessons() -> None:
    for name in game_names():
        assert len(lessons(get_game(name))) >= 5


@pytest.mark.parametrize(("name", "lesson"), ALL_LESSONS)
def test_the_intended_solution_solves_the_lesson(name: str, lesson: Lesson) -> None:
    game = get_game(name)
    verdict = attempt(game, lesson, lesson.solution)
    assert verdict.status == "solved", verdict.message
    assert verdict.message == lesson.success
    # The task is not done before the player acts (not trivially true).
    start = lesson.start(game)
    assert not lesson.goal(start, [])
    assert len(lesson.solution) <= lesson.moves


@pytest.mark.parametrize(("name", "lesson"), ALL_LESSONS)
def test_wrong_tries_are_explained(name: str, lesson: Lesson) -> None:
    """Over the legal tries (bounded): each one is judged solved or wrong, some are
    wrong, and every wrong one gets a lesson-specific explanation."""
    statuses: dict[str, int] = {}
    for actions, status, message in tries(name, lesson):
        statuses[status] = statuses.get(status, 0) + 1
        assert status in ("solved", "wrong"), (actions, status, message)
        if status == "wrong":
            assert message and message != lesson.success
            assert len(message) > 30
    assert statuses.get("wrong", 0) >= 1  # the check is not trivially true


@pytest.mark.parametrize(("name", "lesson"), ALL_LESSONS)
def test_illegal_tries_get_the_engines_reason(name: str, lesson: Lesson) -> None:
    game = get_game(name)
    verdict = attempt(game, lesson, ["zz99"])
    assert verdict.status == "illegal" and not verdict.parsed
    assert str(verdict.message).startswith("zz99: ")
    # A legal action followed by junk keeps the legal part.
    first = str(lesson.start(game).legal_actions()[0])
    verdict = attempt(game, lesson, [first, "zz99"])
    assert verdict.status in ("illegal", "wrong", "solved")
    if verdict.status == "illegal":
        assert verdict.played == 1


def test_an_unplantable_cell_is_explained_by_the_engine() -> None:
    dendria = get_game("dendria")
    plant = next(lesson for lesson in lessons(dendria) if lesson.id == "plant")
    verdict = attempt(dendria, plant, ["d5"])
    assert verdict.status == "illegal" and verdict.parsed
    assert "nutrientless root" in str(verdict.message)


def test_a_locked_man_is_explained_by_the_engine() -> None:
    benediction = get_game("benediction")
    merge = next(lesson for lesson in lessons(benediction) if lesson.id == "merge")
    verdict = attempt(benediction, merge, ["c4c5", "c5c6"])
    assert verdict.status == "illegal" and verdict.played == 1
    assert "lock" in str(verdict.message)


@pytest.mark.parametrize(("name", "puzzle"), SOME_PUZZLES)
def test_puzzles_are_forced_wins_not_already_won(name: str, puzzle: Lesson) -> None:
    game = get_game(name)
    start = puzzle.start(game)
    assert start.outcome() is None and start.is_turn_start()
    verdict = attempt(game, puzzle, puzzle.solution)
    assert verdict.status == "solved"
    outcome = verdict.position.outcome()
    assert outcome is not None and outcome.winner_seat == start.current_seat
    # Doing nothing useful does not win: a wrong try exists.
    assert any(status == "wrong" for _, status, _ in tries(name, puzzle, limit=300))


def test_dendria_score_breakdown_adds_up() -> None:
    dendria = get_game("dendria")
    position = dendria.position_from_text(
        "Dendria v1: size=5 to-move=dark\ndark trees: a1 a2 a3 c1 e9\n"
        "light trees: e5 e4 e3 e2 i1\n",
        dendria.make_rules(board_side=5),
    )
    assert dendria.score_breakdown is not None
    lines = dendria.score_breakdown(position)
    score = position.score()
    for color in ("dark", "light"):
        assert sum(line.points[color] for line in lines) == score[color]
    labels = [line.label for line in lines]
    assert labels == ["Forests of size 4", "Forests of size 3", "Forests of size 1",
                      "Largest forest"]
    size_one = lines[2]
    assert size_one.detail == "Dark 2 forests, Light 1 forest: Dark holds size 1 (+1)"
    assert lines[-1].points == {"dark": 0.0, "light": 0.5}
    assert get_game("benediction").score_breakdown is None


def test_swap_gesture_is_explained() -> None:
    dendria = get_game("dendria")
    position = dendria.new(board_side=5)
    position.play("e5")
    position.play("end")
    swap = next(a for a in position.legal_actions() if str(a) == "swap")
    explanation = dendria.gesture(position, swap).explanation
    assert "colour" in explanation and "Dark" in explanation


# ------------------------------------------------------------------------------ API
@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(data_dir=tmp_path_factory.mktemp("learn"), ai_processes=1)
    with TestClient(app) as test_client:
        yield test_client


def test_learn_api(client: TestClient) -> None:
    listing = client.get("/api/learn/dendria").json()
    assert [entry["id"] for entry in listing["lessons"]][:2] == ["plant", "sprout"]
    detail = client.get("/api/learn/dendria/grow").json()
    assert detail["task"] and detail["rule"] and detail["hint"] and "<svg" in detail["svg"]
    assert any(entry["action"] == "e5-b2" for entry in detail["legal"])
    step = client.post("/api/learn/dendria/grow/try", json={"actions": ["e5-b2"]}).json()
    assert step["status"] == "continue" and step["actions"] == ["e5-b2"]
    assert any(entry["action"] == "+a1" for entry in step["legal"])
    done = client.post("/api/learn/dendria/grow/try", json={"actions": ["e5-b2", "+a1"]})
    assert done.json()["status"] == "solved"
    wrong = client.post("/api/learn/dendria/grow/try", json={"actions": ["e5-c3", "end"]})
    assert wrong.json()["status"] == "wrong" and "not fertilized" in wrong.json()["message"]
    illegal = client.post("/api/learn/benediction/move/try", json={"actions": ["e3e6"]})
    body = illegal.json()
    assert body["status"] == "illegal" and body["played"] == 0 and body["actions"] == []


def test_learn_api_errors_and_page(client: TestClient) -> None:
    assert client.get("/api/learn/chess").status_code == 400
    assert client.get("/api/learn/dendria/nope").status_code == 400
    assert client.post("/api/learn/dendria/grow/try", json={"actions": "e5"}).status_code == 400
    too_long = client.post("/api/learn/dendria/grow/try", json={"actions": ["pass"] * 50})
    assert too_long.status_code == 400
    page = client.get("/learn/dendria")
    assert page.status_code == 200 and "learn.js" in page.text
    assert client.get("/learn/chess").status_code == 404


def test_final_state_carries_the_breakdown(client: TestClient) -> None:
    created = client.post("/api/games", json={"game": "dendria", "mode": "hotseat",
                                              "options": {"board_side": 5}}).json()
    game_id, token = created["id"], created["token"]
    for action in ("e5", "end"):
        client.post(f"/api/games/{game_id}/actions", json={"token": token, "action": action})
    state = client.get(f"/api/games/{game_id}", params={"token": token}).json()
    swap = next(entry for entry in state["legal"] if entry["action"] == "swap")
    assert "colour" in swap["explanation"]
    for action in ("pass", "pass"):
        client.post(f"/api/games/{game_id}/actions", json={"token": token, "action": action})
    state = client.get(f"/api/games/{game_id}").json()
    assert state["is_over"]
    lines = state["final"]["breakdown"]
    assert lines[-1]["label"] == "Largest forest"


def test_puzzle_generation_is_reproducible() -> None:
    from hexgames.puzzles import generate

    benediction = get_game("benediction")
    first = generate(benediction, {}, seed=7, count=1, depth=2, min_length=2, max_games=20)
    again = generate(benediction, {}, seed=7, count=1, depth=2, min_length=2, max_games=20)
    assert first and first == again
    assert len(first[0]["solution"]) == 2


def test_shipped_puzzles_say_how_they_were_made() -> None:
    import json
    from importlib import resources

    from hexgames.game import REGISTRY

    for name in game_names():
        module = REGISTRY[name].split(":")[0]
        data = json.loads(resources.files(module).joinpath("puzzles.json").read_text())
        assert data["generated_by"].startswith(f"python -m hexgames.puzzles {name} --seed")
        assert len(data["puzzles"]) >= 3


def test_a_try_is_judged_where_it_ends() -> None:
    """Actions after the try was judged are not looked at; long input is bounded."""
    game = get_game("benediction")
    lesson = next(lesson for lesson in lessons(game) if lesson.id == "move")
    verdict = attempt(game, lesson, ["e3e4", "e5e4"])
    assert verdict.status == "wrong" and verdict.played == 1
    verdict = attempt(game, lesson, ["x" * 5000])
    assert verdict.status == "illegal" and len(str(verdict.message)) <= 300
    verdict = attempt(game, lesson, ["pass"] * 21)
    assert verdict.status == "illegal" and "at most" in str(verdict.message)


def test_refused_clicks_are_read_as_actions_for_the_engine(client: TestClient) -> None:
    """Clicks that match no legal action get the engine's reason (Game.action_for_clicks)."""
    benediction, dendria = get_game("benediction"), get_game("dendria")
    start = next(lesson for lesson in lessons(benediction) if lesson.id == "merge")
    position = start.start(benediction)
    assert benediction.action_for_clicks is not None
    assert benediction.action_for_clicks(position, None, ["c3", "c6"]) == "c3c6"
    assert benediction.action_for_clicks(position, None, ["c3", "c4"]) == "c3+c4"
    assert benediction.action_for_clicks(position, "drop", ["a1"]) == "@a1"
    assert benediction.action_for_clicks(position, "block", ["e2"]) == "Be2"
    assert benediction.action_for_clicks(position, None, ["c3"]) is None
    plant = next(lesson for lesson in lessons(dendria) if lesson.id == "plant")
    position = plant.start(dendria)
    assert dendria.action_for_clicks is not None
    assert dendria.action_for_clicks(position, None, ["d5"]) == "d5"
    assert dendria.action_for_clicks(position, None, ["e5"]) == "^e5"
    assert dendria.action_for_clicks(position, None, ["a2"]) == "=a2"
    assert dendria.action_for_clicks(position, None, ["a1"]) is None  # own tree
    assert dendria.action_for_clicks(position, None, ["e5", "e7"]) == "e5-e7"
    assert dendria.action_for_clicks(position, "drop", ["e5"]) is None
    grow = client.post("/api/learn/dendria/grow/try",
                       json={"actions": ["e5-b2"], "clicks": {"points": ["c5"]}}).json()
    assert grow["status"] == "illegal" and grow["parsed"] and grow["played"] == 1
    assert grow["message"].startswith("-c5")
    move = client.post("/api/learn/benediction/move/try",
                       json={"actions": [], "clicks": {"points": ["e3", "e6"]}}).json()
    assert move["status"] == "illegal" and "cannot reach e6" in move["message"]
    nothing = client.post("/api/learn/benediction/move/try",
                          json={"actions": [], "clicks": {"points": ["a1"]}}).json()
    assert nothing["status"] == "illegal" and not nothing["parsed"]


@pytest.mark.parametrize("name", game_names())
def test_any_clicks_read_as_notation_or_nothing(name: str) -> None:
    """Over positions of a seeded game and every click of one or two points (and each
    tool), the reading is None or notation the engine parses (or refuses with a reason)."""
    import contextlib
    import random

    from hexgames.ai import player

    game = get_game(name)
    assert game.action_for_clicks is not None and game.board is not None
    position = game.new()
    rng = random.Random(3)
    bots = [player(game, 1, seed=1), player(game, 1, seed=2)]
    labels = list(game.board(position.rules).labels)
    tools = sorted({game.gesture(position, a).tool or "" for a in position.legal_actions()})
    for _ in range(30):
        if position.is_over:
            break
        for _ in range(40):
            tool = rng.choice([*tools, ""]) or None
            points = rng.sample(labels, rng.choice((1, 2)))
            text = game.action_for_clicks(position, tool, points)
            if text is None:
                continue
            with contextlib.suppress(ValueError):  # IllegalAction: the engine's reason
                position.parse_action(text)
        position.play(bots[position.current_seat].choose(position))


def test_the_puzzles_command_writes_a_set(tmp_path: Path) -> None:
    import json

    from hexgames.puzzles import main

    out = tmp_path / "puzzles.json"
    assert main(["benediction", "--seed", "7", "--count", "1", "--min-length", "2",
                 "--max-games", "20", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["generated_by"].startswith("python -m hexgames.puzzles benediction --seed 7")
    assert len(data["puzzles"]) == 1 and len(data["puzzles"][0]["solution"]) == 2
