"""OpenSpiel's own PyTorch algorithms on our games through ``rl_environment`` (issue 41,
row 4: they import ``tree``, which the ``train`` extra now brings as dm-tree): DQN plays
and learns a few episodes of both games. Skipped without the ``train`` extra."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("torch", reason="OpenSpiel's PyTorch algorithms need the 'train' extra")

import pyspiel
from open_spiel.python import rl_environment
from open_spiel.python.pytorch import dqn

import hexgames.integrations.openspiel  # noqa: F401  (registers the games)


@pytest.mark.parametrize("name", ["benediction(board_side=4)", "dendria(board_side=3)"])
def test_pytorch_dqn_learns_on_our_games(name: str) -> None:
    import torch

    torch.manual_seed(0)
    env = rl_environment.Environment(pyspiel.load_game(name), seed=0)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    agents = [dqn.DQN(player_id=seat, state_representation_size=size,
                      num_actions=actions, hidden_layers_sizes=[16],
                      replay_buffer_capacity=256, batch_size=8, min_buffer_size_to_learn=8,
                      learn_every=4, epsilon_decay_duration=100)
              for seat in (0, 1)]
    steps = 0
    for _ in range(4):
        step = env.reset()
        while not step.last() and steps < 400:
            seat = step.observations["current_player"]
            output = agents[seat].step(step)
            assert step.observations["legal_actions"][seat].count(output.action) == 1
            step = env.step([output.action])
            steps += 1
        for agent in agents:
            agent.step(step)
    assert all(agent.loss is not None for agent in agents), "no learning step was taken"
