"""PettingZoo's Stable-Baselines3 action-mask tutorial runs on both games unchanged.

The wrapper below is the one from PettingZoo's tutorial "SB3: Action Masked PPO for
Connect Four" (``tutorials/SB3/connect_four/sb3_connect_four_action_mask.py``), copied as
it stands: a training stack plugs our environments in exactly as it plugs in
``pettingzoo.classic.connect_four_v3``. ``check_env`` steps unmasked random actions, so
it passes only because ``env()`` ends the game on an illegal action as the classic board
games do; MaskablePPO then trains for a few steps and plays a whole game.

Needs the ``train`` extra (torch, sb3-contrib); skipped cleanly without it.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the train extra (sb3-contrib, torch) is absent")
import pettingzoo.utils
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3.common.env_checker import check_env

from hexgames.integrations.pettingzoo import environment_module

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # SB3's image-size advice


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gym.Env):  # type: ignore[misc]
    """Wrapper to allow PettingZoo environments to be used with SB3 illegal action
    masking (PettingZoo's tutorial, verbatim)."""

    def reset(self, seed=None, options=None):  # type: ignore[no-untyped-def]
        super().reset(seed, options)
        # Strip the action mask out from the observation space
        self.observation_space = super().observation_space(self.possible_agents[0])[
            "observation"
        ]
        self.action_space = super().action_space(self.possible_agents[0])
        # Return initial observation, info (PettingZoo AEC envs do not by default)
        return self.observe(self.agent_selection), {}

    def step(self, action):  # type: ignore[no-untyped-def]
        current_agent = self.agent_selection
        super().step(action)
        next_agent = self.agent_selection
        return (
            self.observe(next_agent),
            self._cumulative_rewards[current_agent],
            self.terminations[current_agent],
            self.truncations[current_agent],
            self.infos[current_agent],
        )

    def observe(self, agent):  # type: ignore[no-untyped-def]
        return super().observe(agent)["observation"]

    def action_mask(self):  # type: ignore[no-untyped-def]
        return super().observe(self.agent_selection)["action_mask"]


def mask_fn(env):  # type: ignore[no-untyped-def]
    return env.action_mask()


def _tutorial_run(env_fn, **env_kwargs):  # type: ignore[no-untyped-def]
    """The tutorial's ``train_action_mask`` with a tiny budget, then one whole game of
    the trained policy against itself through the same wrapper."""
    env = env_fn.env(**env_kwargs)
    env = SB3ActionMaskWrapper(env)
    env.reset(seed=0)
    check_env(env)
    env = ActionMasker(env, mask_fn)
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=32, batch_size=16,
                        n_epochs=1, seed=0, verbose=0)
    model.set_random_seed(0)
    model.learn(total_timesteps=64)

    game = env_fn.env(**env_kwargs)
    game.reset(seed=1)
    steps = 0
    final: dict[str, float] = {}
    for agent in game.agent_iter():
        observation, reward, termination, truncation, _ = game.last()
        if termination or truncation:
            final[agent] = float(reward)
            game.step(None)
            continue
        mask = observation["action_mask"]
        action = int(model.predict(observation["observation"], action_masks=mask,
                                   deterministic=True)[0])
        assert mask[action] == 1, f"{agent} chose a masked action"
        game.step(action)
        steps += 1
    return steps, final


@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_the_sb3_action_mask_tutorial_trains_and_plays(name: str) -> None:
    options = {"board_side": 4, "max_actions": 200}
    steps, final = _tutorial_run(environment_module(name), **options)
    assert steps > 0
    assert set(final) == {"player_0", "player_1"}
    assert sorted(final.values()) in ([-1.0, 1.0], [0.0, 0.0])  # one result, zero-sum


def test_an_illegal_action_ends_the_game_in_env_as_in_classic_envs() -> None:
    """What lets ``check_env`` through: ``env()`` ends the game with -1 for the agent
    that chose a masked action (``raw_env`` raises ``IllegalAction`` instead)."""
    env = environment_module("dendria").env(board_side=3)
    env.reset(seed=0)
    agent = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1.0


def test_the_tutorial_also_runs_on_connect_four() -> None:
    """The control: the same code on PettingZoo's own ``connect_four_v3``."""
    pytest.importorskip("pygame", reason="connect_four_v3 imports pygame")
    from pettingzoo.classic import connect_four_v3

    steps, _ = _tutorial_run(connect_four_v3)
    assert steps > 0
