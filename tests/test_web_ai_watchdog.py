"""The web app's AI never freezes the site (issue 31, row 0).

Level 5 is played through the web app for several turns of both games with pondering on
(Dendria's ponder after the computer's first turn hung its worker for good, and every
hint, analysis and level 3-5 game behind it). And a worker stuck in a search or a ponder
that ignores its stop signal is replaced, its request answered by a fresh worker, while
other games go on. Real worker processes, real searches; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hexgames.game import get_game
from hexgames.web.app import create_app
from hexgames.web.engine.workers import AiStuck, AiWorkers

AI_TURN_BOUND = 180.0  # seconds for one computer turn, far above level 5's
PERSON_THINKS = 3.0  # seconds between the computer's answer and the person's move


def _wait_for_human_turn(client: TestClient, view: str, token: str) -> dict[str, Any]:
    deadline = time.monotonic() + AI_TURN_BOUND
    while True:
        state = client.get(view, params={"token": token}).json()
        assert state["ai_error"] is None, state["ai_error"]
        if state["is_over"] or (state["your_turn"] and not state["thinking"]):
            return state
        assert time.monotonic() < deadline, "the computer did not answer in time"
        time.sleep(0.05)


@pytest.mark.parametrize("game", ["dendria", "benediction"])
def test_level_5_answers_turn_after_turn_while_pondering(tmp_path: Path, game: str) -> None:
    """A person plays level 5 for several turns; the computer pondered after its turns
    and still answered every one (on the old code the second Dendria answer never came)."""
    app = create_app(data_dir=tmp_path)
    with TestClient(app) as client:
        created = client.post("/api/games", json={"game": game, "mode": "ai", "seat": 0,
                                                  "level": 5})
        assert created.status_code == 201, created.text
        game_id, token = created.json()["id"], created.json()["token"]
        view = f"/api/games/{game_id}"
        workers = app.state.site.service.workers
        computer_turns = 0
        state = _wait_for_human_turn(client, view, token)
        while computer_turns < 4 and not state["is_over"]:
            # the person plays the first legal action until the computer is to move
            while state["your_turn"] and not state["is_over"]:
                played = client.post(f"{view}/actions", json={
                    "token": token, "action": state["legal"][0]["action"],
                    "ply": state["ply"]})
                assert played.status_code == 200, played.text
                state = client.get(view, params={"token": token}).json()
            if state["is_over"]:
                break
            state = _wait_for_human_turn(client, view, token)
            computer_turns += 1
            # the person thinks: the computer ponders meanwhile (Dendria's search table
            # filled after about 20,000 iterations of one ponder, a second or two)
            time.sleep(PERSON_THINKS)
        assert computer_turns >= 3 or state["is_over"]
        # a ponder follows each computer turn that leaves the person to move (level 5
        # may also win outright: Benediction's first-legal-action player loses fast)
        assert workers.ponders >= 1, "level 5 pondered on the person's time"
        assert workers.replaced_workers() == 0, "no search needed its worker replaced"


def test_a_stuck_analysis_is_bounded_and_its_worker_replaced() -> None:
    """A function that never returns (standing in for a search that does not stop) is
    given up after the bound on two fresh workers in turn, and the lane then serves the
    next request from a new worker."""
    async def scenario() -> tuple[list[int], list[int], str]:
        workers = AiWorkers(processes=1, search_seconds=3.0)
        try:
            await workers.run(time.sleep, 0, level=3)
            first = workers.worker_pids()
            with pytest.raises(AiStuck):
                await workers.run(time.sleep, 10_000, level=3)
            assert workers.replaced_workers() == 2
            workers.search_seconds = 300.0  # a real, cold search next
            game = get_game("dendria")
            options = dict(game.rules_options(game.make_rules(board_side=5)))
            action = await workers.choose("dendria", options, [], 3, seed=1, game_id="g")
            return first, workers.worker_pids(), action
        finally:
            workers.shutdown()

    first, after, action = asyncio.run(scenario())
    assert first and after and set(first).isdisjoint(after), "the stuck worker was replaced"
    assert action


def test_a_ponder_that_ignores_its_stop_signal_does_not_hold_other_games() -> None:
    """A ponder that never looks at its stop event holds its worker; the next game's
    search waits at most the grace period, then gets a fresh worker and its answer."""
    async def scenario() -> tuple[str, int]:
        workers = AiWorkers(processes=1, cancel_grace=2.0)
        try:
            game = get_game("dendria")
            options = dict(game.rules_options(game.make_rules(board_side=5)))
            await workers.choose("dendria", options, [], 3, seed=1, game_id="a")
            slot = workers.lane(3).slots[0]
            assert slot.pool is not None
            slot.pondering = slot.pool.submit(time.sleep, 10_000)  # deaf to the event
            slot.ponder_game = "a"
            action = await workers.choose("dendria", options, [], 3, seed=1, game_id="b")
            return action, workers.replaced_workers()
        finally:
            workers.shutdown()

    action, replaced = asyncio.run(scenario())
    assert action
    assert replaced == 1


def _gone(pid: int) -> bool:
    """Whether no process ``pid`` exists any more (it was stopped and reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_stuck_worker_and_at_shutdown_every_worker_process_is_stopped() -> None:
    """The pool's workers are known without the executor's private attributes: the
    stuck worker's process is terminated when it is replaced (a search that does not stop
    is not left behind the server), and shutdown stops the fresh one."""
    async def scenario() -> tuple[list[int], list[int]]:
        workers = AiWorkers(processes=1, search_seconds=2.0)
        try:
            await workers.run(time.sleep, 0, level=3)
            stuck = workers.worker_pids()
            with pytest.raises(AiStuck):
                await workers.run(time.sleep, 10_000, level=3)
            assert all(_gone(pid) for pid in stuck), "the stuck worker still runs"
            await workers.run(time.sleep, 0, level=3)
            return stuck, workers.worker_pids()
        finally:
            workers.shutdown()

    stuck, fresh = asyncio.run(scenario())
    assert len(stuck) == 1 and len(fresh) == 1 and stuck != fresh
    assert _gone(fresh[0]), "shutdown left a worker running"
