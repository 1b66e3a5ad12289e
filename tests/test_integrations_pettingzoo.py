"""The PettingZoo AEC environments: PettingZoo's API and seed tests, rewards,
truncation at the length bound, illegal actions and both render modes."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from hexgames import IllegalAction
from hexgames.game import get_game
from hexgames.integrations import pettingzoo as hex_pettingzoo
from hexgames.integrations.pettingzoo import benediction_v0, dendria_v0

ENVIRONMENTS = [
    pytest.param(benediction_v0, {}, id="benediction"),
    pytest.param(benediction_v0, {"board_side": 4, "max_turns": 8}, id="benediction-capped"),
    pytest.param(dendria_v0, {"board_side": 5}, id="dendria"),
]
#: Warnings PettingZoo's api_test gives every environment whose observations are dicts
#: (its own classic environments are exempted by name only).
DICT_OBSERVATION_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)


@pytest.mark.parametrize(("module", "options"), ENVIRONMENTS)
def test_pettingzoo_api_test_passes(module, options) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(module.env(**options), num_cycles=400)
    unexpected = [
        str(w.message) for w in caught
        if not str(w.message).startswith(DICT_OBSERVATION_WARNINGS)
    ]
    assert unexpected == []


@pytest.mark.parametrize(("module", "options"), ENVIRONMENTS)
def test_pettingzoo_seed_test_passes(module, options) -> None:
    seed_test(lambda: module.env(**options), num_cycles=40)


@pytest.mark.parametrize(("module", "options"), ENVIRONMENTS)
def test_a_played_game_ends_with_the_engines_result(module, options) -> None:
    env = module.raw_env(**options)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        assert seat == env.position.current_seat
        mask = observation["action_mask"]
        encode = env.game.action_to_id
        assert {encode(env.position, a) for a in env.position.legal_actions()} == set(
            np.flatnonzero(mask)
        )
        other = env.observe(env.possible_agents[1 - seat])
        assert not other["action_mask"].any(), "only the agent to act has actions"
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    position = env.position
    if position.is_over:
        assert tuple(totals[a] for a in env.possible_agents) == position.returns()
    else:
        assert steps == env.max_length and totals == {"player_0": 0.0, "player_1": 0.0}


def test_reaching_the_length_bound_truncates(monkeypatch: pytest.MonkeyPatch) -> None:
    from hexgames.benediction import encoding

    monkeypatch.setattr(encoding, "RESEARCH_TURN_CAP", 2)  # 3 actions without max_turns
    env = benediction_v0.env(board_side=4)
    env.reset()
    game = get_game("benediction")
    for _ in range(3):
        position = env.unwrapped.position
        # Blocks never win, so only the bound can stop this game.
        block = next(a for a in position.legal_actions() if a.kind == "block")
        env.step(game.action_to_id(position, block))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert not env.unwrapped.position.is_over


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    env = dendria_v0.raw_env(board_side=3)
    env.reset()
    observation = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    before = env.position.to_text()
    with pytest.raises(IllegalAction):
        env.step(illegal)
    with pytest.raises(IllegalAction, match="outside"):
        env.step(env.num_actions)
    with pytest.raises(IllegalAction, match="must choose"):
        env.step(None)
    assert env.position.to_text() == before and env.position.history == ()
    assert env.agent_selection == "player_0"


def test_agents_follow_the_seats_through_a_benediction_turn() -> None:
    env = benediction_v0.raw_env()
    env.reset()
    game = env.game
    assert env.agent_selection == "player_0"
    env.step(game.action_to_id(env.position, "e3e4"))  # Red's one-action first turn
    assert env.agent_selection == "player_1"
    env.step(game.action_to_id(env.position, "e7e6"))
    assert env.agent_selection == "player_1", "Blue's turn has a second action"


def test_observation_is_the_games_tensor_for_the_agents_seat() -> None:
    env = dendria_v0.raw_env(board_side=5)
    env.reset()
    for seat, agent in enumerate(env.possible_agents):
        observed = env.observe(agent)["observation"]
        expected = env.game.observation(env.position, seat)
        assert observed.dtype == np.float32 and np.array_equal(observed, expected)
        assert env.observation_space(agent)["observation"].contains(observed)


def test_rules_options_reach_the_engine_and_bad_ones_are_refused() -> None:
    env = benediction_v0.raw_env(board_side=6, max_stack=4)
    assert env.position.rules.board_side == 6 and env.position.rules.max_stack == 4
    assert env.action_space("player_0").n == env.game.num_distinct_actions(env.rules)
    with pytest.raises(ValueError, match="board_side"):
        benediction_v0.raw_env(board_side=12)
    with pytest.raises(ValueError, match="render_mode"):
        dendria_v0.raw_env(render_mode="video")


def test_human_rendering_prints_the_text_board(capsys: pytest.CaptureFixture[str]) -> None:
    env = dendria_v0.raw_env(board_side=3, render_mode="human")
    env.reset()
    assert env.render() is None
    assert capsys.readouterr().out.strip() == env.game.render_text(env.position).strip()


@pytest.mark.parametrize(("module", "options"), ENVIRONMENTS[::2])
def test_rgb_rendering_rasterises_the_svg(module, options) -> None:
    env = module.raw_env(render_mode="rgb_array", **options)
    env.reset()
    image = env.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8
    assert image.shape[0] > 100 and image.shape[1] > 100
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 2, "a drawing, not a blank canvas"


def test_environment_modules_are_built_once_and_pickle() -> None:
    assert hex_pettingzoo.dendria_v0 is dendria_v0
    assert dendria_v0.raw_env.metadata["name"] == "dendria_v0"
    env = dendria_v0.raw_env(board_side=3)
    env.reset()
    clone = pickle.loads(pickle.dumps(env))
    assert type(clone) is type(env) and clone.rules == env.rules
    with pytest.raises(AttributeError):
        hex_pettingzoo.chess_v0  # noqa: B018
