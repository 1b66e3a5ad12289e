"""Per-game AI sessions in the web's worker processes (issue 14): the MCTS tree of a game
is reused across the actions of a turn, sessions are evicted and rebuilt, a ponder is
cancelled by the next request, and a dead worker is replaced. Real workers, no stubs."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from hexgames.game import get_game
from hexgames.web.app import create_app
from hexgames.web.engine.workers import AiWorkers, Answer

GAME = "benediction"
OPTIONS: dict[str, Any] = dict(get_game(GAME).rules_options(get_game(GAME).make_rules()))
LEVEL = 2  # MCTS, quick: the cheap lane (one worker)


def position_after(actions: list[str]) -> Any:
    game = get_game(GAME)
    position = game.new_position(game.make_rules(**OPTIONS))
    for action in actions:
        position.play(action)
    return position


async def first_action_of_a_turn(workers: AiWorkers, game_id: str) -> tuple[list[str], Answer]:
    """Actions up to a turn's first action that the AI searched (not a forced or found
    win), that action played: the next call is that turn's continuation."""
    actions: list[str] = []
    while True:
        position = position_after(actions)
        assert not position.is_over, "no searched first action of a two-action turn"
        at_start = position.is_turn_start()
        answer = await workers.search(GAME, OPTIONS, actions, LEVEL, seed=1, game_id=game_id)
        actions.append(answer.action)
        after = position_after(actions)
        if at_start and answer.info["reason"] == "search" and not after.is_over \
                and not after.is_turn_start():
            return actions, answer


def run(scenario):
    return asyncio.run(scenario)


def test_the_second_action_of_a_turn_reuses_the_tree_of_the_first() -> None:
    async def scenario() -> tuple[Answer, Answer]:
        workers = AiWorkers(processes=1)
        try:
            actions, first = await first_action_of_a_turn(workers, "g1")
            second = await workers.search(GAME, OPTIONS, actions, LEVEL, seed=1, game_id="g1")
            return first, second
        finally:
            workers.shutdown()

    first, second = run(scenario())
    assert second.info["session"] == "kept" and second.info["slot"] == first.info["slot"]
    assert second.info["reused"] > 0, "the continuation found its subtree"
    assert second.info["share"] == 0.5, "a reused tree: the continuation's budget is cut"
    assert second.info["searches"] == first.info["searches"] + 1


def test_an_evicted_session_is_rebuilt_with_the_full_budget() -> None:
    async def scenario() -> tuple[Answer, Answer]:
        workers = AiWorkers(processes=1, max_sessions=1)
        try:
            actions, _ = await first_action_of_a_turn(workers, "a")
            other = await workers.search(GAME, OPTIONS, [], LEVEL, seed=2, game_id="b")
            again = await workers.search(GAME, OPTIONS, actions, LEVEL, seed=1, game_id="a")
            return other, again
        finally:
            workers.shutdown()

    other, again = run(scenario())
    assert other.info["sessions"] == 1, "at most max_sessions per worker"
    assert again.info["session"] == "new" and again.info["reused"] == 0
    assert again.info["share"] == 1.0, "no tree reused: the continuation gets the full budget"


def test_idle_sessions_are_evicted() -> None:
    async def scenario() -> Answer:
        workers = AiWorkers(processes=1, idle_seconds=0.0)
        try:
            await workers.search(GAME, OPTIONS, [], LEVEL, seed=1, game_id="a")
            await workers.search(GAME, OPTIONS, [], LEVEL, seed=1, game_id="b")
            return await workers.search(GAME, OPTIONS, [], LEVEL, seed=1, game_id="a")
        finally:
            workers.shutdown()

    again = run(scenario())
    assert again.info["session"] == "new" and again.info["sessions"] == 1


def test_an_undo_replays_the_session_and_a_new_game_gets_its_own() -> None:
    async def scenario() -> list[Answer]:
        workers = AiWorkers(processes=1)
        try:
            first = await workers.search(GAME, OPTIONS, [], LEVEL, seed=1, game_id="a")
            later = await workers.search(GAME, OPTIONS, [first.action], LEVEL, game_id="a")
            undone = await workers.search(GAME, OPTIONS, [], LEVEL, seed=1, game_id="a")
            fresh = await workers.search(GAME, OPTIONS, [], LEVEL, seed=1, game_id="c")
            return [later, undone, fresh]
        finally:
            workers.shutdown()

    later, undone, fresh = run(scenario())
    assert later.info["session"] == "kept"
    assert undone.info["session"] == "replayed"
    assert fresh.info["session"] == "new" and fresh.info["sessions"] == 2


def test_a_ponder_is_cancelled_by_the_opponents_move_and_by_other_games() -> None:
    async def scenario() -> tuple[AiWorkers, Answer, Answer, int]:
        # Level 2 ponders here (level 5 does by default) so that the test stays quick;
        # a ponder not cancelled would run for ponder_seconds.
        workers = AiWorkers(processes=1, ponder_levels={LEVEL}, ponder_seconds=300.0)
        try:
            actions: list[str] = []
            while True:  # let the AI play until the opponent is to move after its action
                answer = await workers.search(GAME, OPTIONS, actions, LEVEL, seed=1,
                                              game_id="p")
                actions.append(answer.action)
                if answer.info["opponent_next"]:
                    break
            assert workers.ponders == 1
            reply = str(position_after(actions).legal_actions()[0])
            answer = await workers.search(GAME, OPTIONS, [*actions, reply], LEVEL, seed=1,
                                          game_id="p")
            after_reply = workers.ponders_cancelled
            actions += [reply, answer.action]
            while not answer.info["opponent_next"]:
                answer = await workers.search(GAME, OPTIONS, actions, LEVEL, seed=1,
                                              game_id="p")
                actions.append(answer.action)
            other = await workers.search(GAME, OPTIONS, [], LEVEL, seed=1, game_id="q")
            return workers, answer, other, after_reply
        finally:
            workers.shutdown()

    workers, _, other, after_reply = run(scenario())
    assert after_reply == 1, "the opponent's move stopped the ponder"
    assert workers.ponders_cancelled == 2, "another game's search stopped the second one"
    assert "ponder" not in other.info  # reported to the pondered game only


def test_the_opponents_move_finds_the_pondered_tree() -> None:
    async def scenario() -> Answer:
        workers = AiWorkers(processes=1, ponder_levels={LEVEL}, ponder_seconds=300.0)
        try:
            actions: list[str] = []
            while True:
                answer = await workers.search(GAME, OPTIONS, actions, LEVEL, seed=1,
                                              game_id="p")
                actions.append(answer.action)
                if answer.info["opponent_next"]:
                    break
            reply = str(position_after(actions).legal_actions()[0])
            return await workers.search(GAME, OPTIONS, [*actions, reply], LEVEL, seed=1,
                                        game_id="p")
        finally:
            workers.shutdown()

    answer = run(scenario())
    assert answer.info["ponder"]["stopped"] == "cancelled"
    assert answer.info["session"] == "kept"


def test_a_killed_worker_is_replaced_and_the_session_rebuilt() -> None:
    async def scenario() -> tuple[AiWorkers, Answer, Answer]:
        workers = AiWorkers(processes=1)
        try:
            actions, first = await first_action_of_a_turn(workers, "k")
            for pid in workers.worker_pids():
                os.kill(pid, signal.SIGKILL)
            await asyncio.sleep(0)  # nothing else: the pool notices on the next submit
            again = await workers.search(GAME, OPTIONS, actions, LEVEL, seed=1, game_id="k")
            return workers, first, again
        finally:
            workers.shutdown()

    workers, first, again = run(scenario())
    assert workers.lane(LEVEL).restarts == 1
    assert again.info["pid"] != first.info["pid"]
    assert again.info["session"] == "new" and again.info["share"] == 1.0


def test_the_service_sends_a_games_searches_to_its_session(tmp_path: Path) -> None:
    app = create_app(data_dir=tmp_path)
    with TestClient(app) as client:
        created = client.post("/api/games", json={"game": "dendria", "mode": "ai", "seat": 1,
                                                  "level": 1})
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        deadline = time.monotonic() + 120
        token = created.json()["token"]
        view = f"/api/games/{game_id}"
        while not client.get(view, params={"token": token}).json()["history"]:
            assert time.monotonic() < deadline, "the computer never moved"
            time.sleep(0.05)
        lane = app.state.site.service.workers.lane(1)
        assert game_id in lane.affinity, "the game is tied to the worker of its session"
