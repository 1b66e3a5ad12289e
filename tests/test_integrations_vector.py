"""The vectorized Benediction environment against the Python engine and the research
encoding (ids, observation planes, rewards, auto-reset, truncation, seeding)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hexgames.benediction import Position, Rules
from hexgames.benediction.encoding import (
    action_from_id,
    max_game_length,
    num_distinct_actions,
)
from hexgames.game import get_game
from hexgames.integrations.vector import BenedictionVectorEnv
from protocol_support import check_vector_batch


def check_against(env: Any, positions: list[Position]) -> None:
    check_vector_batch(env, get_game("benediction"), positions)


@pytest.mark.parametrize(
    "options",
    [{"max_turns": 25}, {"board_side": 4, "first_turn_actions": 2, "supply": 2, "max_turns": 20},
     {"board_side": 6, "max_stack": 4}],
    ids=str,
)
def test_a_batch_steps_like_the_python_engine_with_auto_reset(options):
    env = BenedictionVectorEnv(6, seed=5, **options)
    rules = Rules(**options)
    assert env.num_actions == num_distinct_actions(rules)
    positions = [Position.initial(rules) for _ in range(6)]
    check_against(env, positions)
    ended = 0
    for _ in range(120 if "max_turns" in options else 60):
        actions = env.random_actions()
        for b, p in enumerate(positions):
            p.play(action_from_id(p, int(actions[b])))
        _, rewards, terminated, truncated, info = env.step(actions)
        for b, p in enumerate(positions):
            if p.is_over:
                assert terminated[b] and not truncated[b]
                assert tuple(rewards[b]) == p.returns()
                positions[b] = Position.initial(rules)
                ended += 1
            elif p.ply >= max_game_length(rules):
                assert truncated[b] and not terminated[b]
                positions[b] = Position.initial(rules)
            else:
                assert not terminated[b] and not truncated[b]
                assert tuple(rewards[b]) == (0.0, 0.0)
        assert info["legal_action_mask"] is env.legal_action_mask()
        check_against(env, positions)
    if "max_turns" in options:
        assert ended > 0, "games end and restart"


def test_truncation_at_the_research_length_bound():
    env = BenedictionVectorEnv(2, seed=1, board_side=4)
    bound = max_game_length(env.rules)
    truncated_seen = terminated_seen = False
    for _ in range(bound + 1):
        _, _, terminated, truncated, _ = env.step(env.random_actions())
        truncated_seen |= bool(truncated.any())
        terminated_seen |= bool(terminated.any())
    assert truncated_seen or terminated_seen


def test_random_actions_are_seeded_and_legal():
    a, b = BenedictionVectorEnv(8, seed=3), BenedictionVectorEnv(8, seed=3)
    for _ in range(20):
        x, y = a.random_actions(), b.random_actions()
        assert np.array_equal(x, y)
        assert a.legal_action_mask()[np.arange(8), x].all()
        a.step(x)
        b.step(y)
    assert np.array_equal(a.observe(), b.observe())
    a.init(seed=3)
    assert (a.current_player == 0).all()


def test_illegal_or_malformed_actions_are_refused_without_playing():
    env = BenedictionVectorEnv(3)
    before = env.observe().copy()
    legal = env.random_actions()
    bad = legal.copy()
    bad[1] = int(np.flatnonzero(~env.legal_action_mask()[1])[0])
    with pytest.raises(ValueError, match="not legal in game 1"):
        env.step(bad)
    with pytest.raises(ValueError, match="shape"):
        env.step(legal[:2])
    with pytest.raises(ValueError, match="not legal in game 0"):
        env.step(np.array([-5, legal[1], legal[2]]))
    assert np.array_equal(env.observe(), before)
    with pytest.raises(ValueError, match="num_envs"):
        BenedictionVectorEnv(0)


def test_position_copies_one_game_to_the_core():
    env = BenedictionVectorEnv(2, seed=2)
    for _ in range(5):
        env.step(env.random_actions())
    state = env.position(1)
    ids = sorted(env.batch.core_to_id[state.legal_codes()].tolist())
    assert ids == np.flatnonzero(env.legal_action_mask()[1]).tolist()
    state.play_code(int(state.legal_codes()[0]))
    state.undo()


def test_measure_reports_a_positive_rate():
    from hexgames.integrations.vector import measure

    assert measure(4, seconds=0.01, board_side=4) > 0


def test_the_speed_command_prints_json(capsys):
    import json

    from hexgames.integrations.vector import main

    assert main(["4", "--runs", "1", "--seconds", "0.01", "--json", "--no-anchor"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["batch"] == 4 and report["steps_per_s"] > 0
    assert report["anchor_actions_per_s"] is None and report["anchor_note"] == "not requested"


def test_the_speed_command_times_each_batch_and_interface(capsys):
    """Several batches and interfaces: one row each (a JSON list, or a table), wall and
    CPU rates, after the warm-up asked for."""
    import json

    from hexgames.integrations.vector import INTERFACES, main, measure

    argv = ["2", "3", *(x for i in INTERFACES for x in ("--interface", i)), "--set",
            "board_side=4", "--runs", "1", "--seconds", "0.01", "--warmup", "2", "--no-anchor"]
    assert main([*argv, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["batch"], r["interface"]) for r in rows] == [
        (b, i) for b in (2, 3) for i in INTERFACES]
    assert all(r["steps_per_s"] > 0 and r["steps_per_cpu_s"] > 0 and r["warmup"] == 2
               for r in rows)
    assert main(argv) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].startswith("| game | batch | interface |") and len(table) == 2 + len(rows)
    with pytest.raises(ValueError, match="interface 'pgx'"):
        measure(2, 0.01, interface="pgx")
