"""The vectorized Dendria environment against the product's engine and the research
encoding: ids and mask, observation planes, seats after the pie rule's swap, rewards,
auto-reset, seeding, refusals."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexgames.dendria import Position, Rules
from hexgames.dendria.encoding import (
    action_from_id,
    action_to_id,
    num_distinct_actions,
    observation_shape,
)
from hexgames.game import get_game
from hexgames.integrations.vector import (
    DendriaVectorEnv,
    VectorEnv,
    main,
    measure,
    vector_env,
    vector_games,
)
from protocol_support import check_vector_batch


def check_against(env: Any, positions: list[Position]) -> None:
    check_vector_batch(env, get_game("dendria"), positions)


@pytest.mark.parametrize(
    ("options", "steps"),
    [({"board_side": 4, "quiet_limit": 1}, 400),
     ({"board_side": 5, "quiet_limit": 2, "pie": False}, 300),
     ({"board_side": 7, "quiet_limit": 2}, 120)],
    ids=str,
)
def test_a_batch_steps_like_the_engine_with_auto_reset(options, steps):
    """Every step of every game: the mask is the engine's legal list (no-repetition rule
    included), the planes are the encoding's, rewards and ends are the engine's."""
    env = DendriaVectorEnv(5, seed=7, **options)
    rules = Rules(**options)
    assert env.num_actions == num_distinct_actions(rules)
    assert env.observe().shape == (5, *observation_shape(rules))
    positions = [Position.initial(rules) for _ in range(5)]
    check_against(env, positions)
    ended = swapped = 0
    for _ in range(steps):
        actions = env.random_actions()
        for b, p in enumerate(positions):
            p.play(action_from_id(p, int(actions[b])))
            swapped += p.seat_of("dark") == 1
        _, rewards, terminated, truncated, info = env.step(actions)
        for b, p in enumerate(positions):
            assert not truncated[b]
            if p.is_over:
                assert terminated[b]
                assert tuple(rewards[b]) == p.returns()
                positions[b] = Position.initial(rules)
                ended += 1
            else:
                assert not terminated[b]
                assert tuple(rewards[b]) == (0.0, 0.0)
        assert info["legal_action_mask"] is env.legal_action_mask()
        assert np.array_equal(info["current_player"], env.current_player)
        check_against(env, positions)
    if options["board_side"] < 7:
        assert ended > 0, "games end and restart"
    if options["board_side"] == 4:  # short games: many first turns, some swapped
        assert swapped > 0, "some game was swapped: seats and colours part"


def test_rewards_follow_the_seats_after_a_swap():
    """Light swaps at once; the first seat now plays Light: a win of Light is +1 for it."""
    env = DendriaVectorEnv(1, seed=0, board_side=4, quiet_limit=1)
    p = Position.initial(Rules(board_side=4, quiet_limit=1))
    for notation in ("a1", "end", "swap"):
        step = p.parse_action(notation)
        action = np.array([action_to_id(p, step)])
        p.play(step)
        env.step(action)
    assert p.seat_of("light") == 0
    assert env.current_player[0] == p.current_seat == 0
    while not p.is_over:
        action = env.random_actions()
        p.play(action_from_id(p, int(action[0])))
        _, rewards, terminated, _, _ = env.step(action)
    assert terminated[0] and tuple(rewards[0]) == p.returns()


def test_random_actions_are_seeded_and_legal():
    a, b = DendriaVectorEnv(6, seed=3, board_side=5), DendriaVectorEnv(6, seed=3, board_side=5)
    for _ in range(30):
        x, y = a.random_actions(), b.random_actions()
        assert np.array_equal(x, y)
        assert a.legal_action_mask()[np.arange(6), x].all()
        a.step(x)
        b.step(y)
    assert np.array_equal(a.observe(), b.observe())
    a.init(seed=3)
    assert (a.current_player == 0).all()
    assert np.array_equal(a.random_actions(), DendriaVectorEnv(6, seed=3, board_side=5)
                          .random_actions())


def test_illegal_or_malformed_actions_are_refused_without_playing():
    env = DendriaVectorEnv(3, board_side=5)
    before = env.observe().copy()
    mask_before = env.legal_action_mask().copy()
    legal = env.random_actions()
    bad = legal.copy()
    bad[2] = int(np.flatnonzero(~env.legal_action_mask()[2])[0])
    with pytest.raises(ValueError, match="not legal in game 2"):
        env.step(bad)
    with pytest.raises(ValueError, match="shape"):
        env.step(legal[:2])
    with pytest.raises(ValueError, match="integer"):
        env.step(legal.astype(float))
    with pytest.raises(ValueError, match="not legal in game 0"):
        env.step(np.array([env.num_actions, legal[1], legal[2]]))
    assert np.array_equal(env.observe(), before)
    assert np.array_equal(env.legal_action_mask(), mask_before)
    with pytest.raises(ValueError, match="num_envs"):
        DendriaVectorEnv(0)
    with pytest.raises(ValueError, match="num_envs"):
        DendriaVectorEnv(True)


def test_position_copies_one_game_with_its_history():
    env = DendriaVectorEnv(2, seed=2, board_side=5)
    for _ in range(40):
        env.step(env.random_actions())
    state = env.position(1)
    listed = sorted(state.legal_codes().tolist())
    assert listed == np.flatnonzero(env.legal_action_mask()[1]).tolist()
    state.play_code(int(state.legal_codes()[0]))
    state.undo()


def test_vector_env_names_the_games_it_has():
    env = vector_env("dendria", 2, seed=1, board_side=5)
    assert isinstance(env, VectorEnv) and env.game.name == "dendria"
    assert env.num_envs == 2 and env.rules.board_side == 5
    assert vector_games() == ["benediction", "dendria"]
    with pytest.raises(ValueError, match="known games: benediction, dendria"):
        vector_env("chess", 2)
    with pytest.raises(ValueError, match="board_side"):
        vector_env("dendria", 2, board_side=1)
    with pytest.raises(IndexError, match="game 2"):
        env.position(2)


def test_a_game_without_a_batch_is_named():
    from test_ai_toygame import TOY

    with pytest.raises(ValueError, match="no vectorized environment; the games with one: "
                                         "benediction, dendria"):
        VectorEnv(TOY, 2)


def test_measure_and_the_speed_command(capsys):
    import json

    assert measure(4, seconds=0.01, game="dendria", board_side=5) > 0
    assert main(["4", "--game", "dendria", "--set", "board_side=5", "--runs", "1",
                 "--seconds", "0.01", "--json", "--no-anchor"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "dendria" and report["options"] == {"board_side": 5}
    assert report["batch"] == 4 and report["steps_per_s"] > 0
    with pytest.raises(SystemExit):
        main(["4", "--game", "dendria", "--set", "board_side=2"])
    assert "board_side" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["0"])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(side=st.integers(3, 6), quiet_limit=st.integers(1, 3), pie=st.booleans(),
       seed=st.integers(0, 2**31 - 1))
def test_any_variant_and_seed_steps_as_the_engine_does(side, quiet_limit, pie, seed):
    """Whatever the variant and the seed: every step the mask, the planes, the seats
    and the rewards are the engine's, and finished games start again."""
    options = {"board_side": side, "quiet_limit": quiet_limit, "pie": pie}
    env = DendriaVectorEnv(2, seed=seed, **options)
    rules = Rules(**options)
    positions = [Position.initial(rules) for _ in range(2)]
    for _ in range(40):
        actions = env.random_actions()
        for b, p in enumerate(positions):
            p.play(action_from_id(p, int(actions[b])))
        _, rewards, terminated, truncated, _ = env.step(actions)
        assert not truncated.any()
        for b, p in enumerate(positions):
            assert bool(terminated[b]) == p.is_over
            assert tuple(rewards[b]) == p.returns()
            if p.is_over:
                positions[b] = Position.initial(rules)
        check_against(env, positions)


@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_a_cold_batch_is_announced(name, tmp_path, monkeypatch):
    """With nothing compiled on disk (an empty cache directory) the first step says it
    compiles, as ``hexgames serve`` and the benchmark do; the speed command says it on
    stderr, keeping stdout for the figures."""
    said: list[str] = []
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    env = vector_env(name, 2, announce=said.append, board_side=5)
    assert said == ["compiling the rules engine, once..."]
    assert not env.batch.is_cached()
