"""The Gymnasium environments (``hexgames.integrations.gym_vector``): registration,
spaces, Gymnasium's own checks, auto-reset compared step by step with Gymnasium's
``SyncVectorEnv`` in its three modes, rewards from the mover's point of view against the
engine, options, refusals."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.utils.passive_env_checker import (  # noqa: E402
    check_obs,
    env_reset_passive_checker,
)
from gymnasium.vector import AutoresetMode  # noqa: E402

import hexgames.integrations  # noqa: E402,F401  (registers the ids)
from hexgames.game import get_game  # noqa: E402
from hexgames.integrations.gym_vector import GymEnv, GymVectorEnv  # noqa: E402

IDS = {"benediction": "hexgames/Benediction-v0", "dendria": "hexgames/Dendria-v0"}
SMALL = {"benediction": {"board_side": 4, "max_turns": 12},
         "dendria": {"board_side": 4, "quiet_limit": 1}}


@pytest.mark.parametrize("name", IDS)
def test_make_vec_gives_a_gymnasium_vector_env_with_spaces(name):
    """The issue's row: spaces, ``reset`` -> ``(obs, infos)`` with ``seed`` and
    ``options``, the 5-tuple step, the autoreset mode declared (make_vec warns when a
    vector env does not), the options of the other adapters."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        envs = gym.make_vec(IDS[name], num_envs=4, **SMALL[name])
    assert isinstance(envs, gym.vector.VectorEnv) and isinstance(envs, GymVectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    game = get_game(name)
    rules = game.make_rules(**SMALL[name])
    shape = tuple(game.observation_shape(rules))
    assert envs.single_observation_space == gym.spaces.Box(0.0, 1.0, shape, np.float32)
    assert envs.observation_space.shape == (4, *shape)
    assert envs.single_action_space == gym.spaces.Discrete(game.num_distinct_actions(rules))
    assert envs.action_space.shape == (4,)
    obs, infos = env_reset_passive_checker(envs, seed=3, options=None)
    assert obs in envs.observation_space
    assert infos["action_mask"].shape == (4, game.num_distinct_actions(rules))
    assert (infos["current_player"] == 0).all() and infos["_action_mask"].all()
    obs, rewards, terminations, truncations, infos = envs.step(envs.unwrapped.random_actions())
    check_obs(obs, envs.observation_space, "step")
    assert rewards.shape == (4,) and rewards.dtype == np.float64
    assert terminations.dtype == truncations.dtype == np.bool_
    obs, infos = envs.reset(options={"reset_mask": np.array([True, False, False, True])})
    assert infos["_action_mask"].tolist() == [True, False, False, True]
    envs.close()
    relative = gym.make_vec(IDS[name], num_envs=2, player_relative=True, channels_last=True,
                            max_actions=3, **SMALL[name])
    assert relative.single_observation_space.shape == (shape[1], shape[2], shape[0])
    relative.reset(seed=0)
    for _ in range(3):
        _, _, _, truncations, _ = relative.step(relative.unwrapped.random_actions())
    assert truncations.all(), "max_actions=3 stops the games"


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.value)
@pytest.mark.parametrize("name", IDS)
def test_auto_reset_is_gymnasiums_own(name, mode):
    """Step for step, the batched environment returns what Gymnasium's SyncVectorEnv of
    single games returns (observations, rewards, ends, infos with ``final_obs`` and
    ``final_info``): the same auto-reset, in each mode."""
    ours = gym.make_vec(IDS[name], num_envs=3, autoreset_mode=mode, **SMALL[name])
    reference = gym.make_vec(IDS[name], num_envs=3, vectorization_mode="sync",
                             vector_kwargs={"autoreset_mode": mode}, **SMALL[name])
    assert data_equivalence(ours.reset(seed=5), reference.reset(seed=5), exact=True)
    ends = 0
    for _ in range(80):
        actions = ours.unwrapped.random_actions()
        mine, theirs = ours.step(actions), reference.step(actions)
        assert data_equivalence(mine, theirs, exact=True)
        ended = mine[2] | mine[3]
        ends += int(ended.sum())
        if mode == AutoresetMode.DISABLED and ended.any():
            options = {"reset_mask": ended}
            assert data_equivalence(ours.reset(options=dict(options)),
                                    reference.reset(options=dict(options)), exact=True)
    assert ends >= 3, "games ended and started again"


@pytest.mark.parametrize("name", IDS)
def test_rewards_are_the_movers_and_the_next_step_starts_again(name):
    """NEXT_STEP against the engine: the reward of a step is the returns of the seat
    that acted; the step after an end starts a fresh game whatever the action."""
    game = get_game(name)
    envs = GymVectorEnv(name, 3, **SMALL[name])
    obs, infos = envs.reset(seed=11)
    rules = envs.functional.rules
    positions = [game.new_position(rules) for _ in range(3)]
    restarting = np.zeros(3, np.bool_)
    ends = 0
    for _ in range(80):
        actions = envs.random_actions()
        movers = [p.current_seat for p in positions]
        for b, p in enumerate(positions):
            if restarting[b]:
                positions[b] = game.new_position(rules)
            else:
                p.play(game.action_from_id(p, int(actions[b])))
        obs, rewards, terminations, truncations, infos = envs.step(actions)
        for b, p in enumerate(positions):
            if restarting[b]:
                assert rewards[b] == 0 and not terminations[b] and not truncations[b]
            elif p.is_over:
                assert terminations[b] and rewards[b] == p.returns()[movers[b]]
                ends += 1
            else:
                assert rewards[b] == 0 and not terminations[b]
            assert np.array_equal(obs[b], game.observation(p, p.current_seat))
            assert infos["current_player"][b] == p.current_seat
            if not p.is_over:
                ids = sorted(game.action_to_id(p, a) for a in p.legal_actions())
                assert np.flatnonzero(infos["action_mask"][b]).tolist() == ids
        restarting = terminations | truncations
    assert ends >= 3


def test_copies_and_buffers():
    """``copy=True`` (Gymnasium's default) returns fresh arrays; ``copy=False`` the
    environment's buffers (the fastest loop)."""
    copying, sharing = GymVectorEnv("dendria", 2, board_side=4), GymVectorEnv(
        "dendria", 2, copy=False, board_side=4)
    a, infos_a = copying.reset(seed=1)
    b, infos_b = sharing.reset(seed=1)
    a2, *_, infos_a2 = copying.step(copying.random_actions())
    b2, *_, infos_b2 = sharing.step(sharing.random_actions())
    assert not np.shares_memory(a, a2) and not np.shares_memory(infos_a["action_mask"],
                                                                infos_a2["action_mask"])
    assert b is b2 and infos_b["action_mask"] is infos_b2["action_mask"]
    assert np.array_equal(a2, b2)


def test_the_single_game_passes_gymnasiums_passive_checker():
    """``gymnasium.make`` wraps it in the PassiveEnvChecker, which checks the spaces,
    ``reset`` and the first ``step``; warnings are errors here."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gym.make("hexgames/Dendria-v0", board_side=4)
        obs, info = env.reset(seed=2)
        assert obs in env.observation_space and info["action_mask"].any()
        obs, reward, terminated, truncated, info = env.step(env.unwrapped.random_action())
        assert isinstance(reward, float) and isinstance(terminated, bool)
        assert isinstance(truncated, bool) and obs in env.observation_space
    assert isinstance(env.unwrapped, GymEnv)


def test_refusals():
    envs = GymVectorEnv("benediction", 2, board_side=4)
    with pytest.raises(gym.error.ResetNeeded):
        envs.step(np.zeros(2, np.int64))
    _, infos = envs.reset(seed=0)
    bad = np.array([envs.random_actions()[0],
                    int(np.flatnonzero(~infos["action_mask"][1])[0])])
    with pytest.raises(ValueError, match="not legal in game 1"):
        envs.step(bad)
    with pytest.raises(ValueError, match="unknown reset options"):
        envs.reset(options={"colour": "red"})
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": np.array([1, 0])})
    with pytest.raises(ValueError, match="autoreset_mode"):
        GymVectorEnv("benediction", 2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="num_envs"):
        GymVectorEnv("benediction", 0)
    disabled = GymVectorEnv("benediction", 1, autoreset_mode=AutoresetMode.DISABLED,
                            board_side=4, max_actions=1)
    disabled.reset(seed=0)
    disabled.step(disabled.random_actions())
    with pytest.raises(ValueError, match="has ended"):
        disabled.step(disabled.random_actions())
    single = GymEnv("benediction", board_side=4, illegal_action="raise")
    _, info = single.reset(seed=0)
    from hexgames import IllegalAction

    before = single.state.observation.copy()
    with pytest.raises(IllegalAction):
        single.step(int(np.flatnonzero(~info["action_mask"])[0]))
    assert (single.state.observation == before).all()  # nothing played
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        GymEnv("benediction", illegal_action="ignore")


@pytest.mark.parametrize("game", ["Benediction", "Dendria"])
def test_gymnasiums_own_checker_passes(game: str) -> None:
    """``check_env`` samples ``action_space`` unmasked (issue 41, row 2): an illegal id
    loses the game by default, as PettingZoo's ``env()`` rules it."""
    from gymnasium.utils.env_checker import check_env

    env = gym.make(f"hexgames/{game}-v0", board_side=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "the environment is wrapped": we check both
        check_env(env)
    check_env(env.unwrapped)


def test_an_illegal_id_loses_the_game_by_default() -> None:
    env = GymEnv("dendria", board_side=4)
    _, info = env.reset(seed=3)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    before = env.state.observation.copy()
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert (obs == before[0]).all()  # nothing was played
    assert env.step(env.random_action())[1:3] == (0.0, True)  # over, as by its rules
    _, info = env.reset(seed=3)
    assert "illegal_action" not in info and env.step(env.random_action())[2] is False


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout.strip()


def test_registration_and_a_cheap_import():
    """``import hexgames`` registers the ids when gymnasium is loaded, and imports no
    gymnasium otherwise; ``import hexgames.integrations`` registers them in any order."""
    assert run_python("import sys, hexgames; print('gymnasium' in sys.modules)") == "False"
    assert run_python("import gymnasium, hexgames; "
                      "print(sorted(k for k in gymnasium.registry if 'hexgames' in k))"
                      ) == "['hexgames/Benediction-v0', 'hexgames/Dendria-v0']"
    assert run_python("import hexgames.integrations, gymnasium; "
                      "print('hexgames/Dendria-v0' in gymnasium.registry)") == "True"
