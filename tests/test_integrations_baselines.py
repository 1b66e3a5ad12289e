"""Our players as OpenSpiel bots and PettingZoo agents, and the heuristic MCTS evaluator
(issue 15, item 8)."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402

from hexgames.game import get_game  # noqa: E402
from hexgames.integrations import baselines  # noqa: E402
from hexgames.integrations import openspiel as _registers  # noqa: E402, F401
from hexgames.integrations.pettingzoo import benediction_v0, dendria_v0  # noqa: E402

SPECS = ["dendria(board_side=3)", "benediction(board_side=4,max_turns=30)"]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("level", ["L1", "L2", "L3", "L4", "L5"])
def test_levels_are_pyspiel_bots_that_play_whole_games(spec: str, level: str) -> None:
    game = pyspiel.load_game(spec)
    ours = baselines.bot(game, level, seed=1)
    if level in ("L4", "L5"):  # the strong levels search by time: keep the test short
        ours.player.time_limit = None
        ours.player.iterations = 20
    assert isinstance(ours, pyspiel.Bot)
    rng = np.random.RandomState(0)
    returns = evaluate_bots.evaluate_bots(
        game.new_initial_state(), [ours, pyspiel.make_uniform_random_bot(1, 2)], rng
    )
    assert returns[0] == -returns[1] and returns[0] in (-1.0, 0.0, 1.0)


def test_bots_act_in_turned_ids_when_the_view_is_player_relative() -> None:
    game = pyspiel.load_game("benediction(board_side=4,max_turns=30,player_relative=true)")
    rng = np.random.RandomState(4)
    bots = [baselines.bot(game, "greedy", seed=1), baselines.bot(game, "L1", seed=2)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert returns[0] in (-1.0, 0.0, 1.0)


def test_a_bot_chooses_a_legal_action_without_changing_the_state() -> None:
    game = pyspiel.load_game("dendria(board_side=4)")
    state = game.new_initial_state()
    before = str(state), state.position.key
    action = baselines.bot(game, "greedy", seed=0).step(state)
    assert action in state.legal_actions()
    assert (str(state), state.position.key) == before


@pytest.mark.parametrize("spec", SPECS)
def test_openspiel_mcts_plays_with_the_heuristic_evaluator(spec: str) -> None:
    game = pyspiel.load_game(spec)
    evaluator = baselines.HeuristicEvaluator()
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    value = evaluator.evaluate(state)
    hex_game = get_game(spec.split("(")[0])
    assert value[0] == pytest.approx(hex_game.heuristic(state.position)) == -value[1]
    rng = np.random.RandomState(3)
    bot = mcts.MCTSBot(game, 2.0, 10, evaluator, random_state=rng)
    returns = evaluate_bots.evaluate_bots(
        game.new_initial_state(), [bot, pyspiel.make_uniform_random_bot(1, 5)], rng
    )
    assert returns[0] in (-1.0, 0.0, 1.0)


@pytest.mark.parametrize(
    ("module", "options"),
    [
        (dendria_v0, {"board_side": 3}),
        (benediction_v0, {"board_side": 4}),
        (benediction_v0, {"board_side": 4, "player_relative": True}),
    ],
)
def test_levels_are_pettingzoo_agents(module, options) -> None:
    env = module.env(**options)
    env.reset(seed=0)
    policies = {name: baselines.agent(env, spec, seed=i)
                for i, (name, spec) in enumerate(zip(env.possible_agents, ("L1", "greedy"),
                                                     strict=True))}
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        action = policies[name](observation, name)
        assert observation["action_mask"][action] == 1
        env.step(action)
    assert env.unwrapped.position.is_over or env.unwrapped.truncations
