"""Train OpenSpiel's AlphaZero on one of our games for two tiny steps, then play a game
with the saved checkpoint: ``python tests/alpha_zero_support.py GAME_STRING DIRECTORY``.

Run by ``tests/test_openspiel_alpha_zero.py`` in a subprocess of its own, because
AlphaZero starts its actors as processes (``spawn``), which re-import this file as
``__mp_main__`` (hence the ``__main__`` guard), and because its learner waits forever for
trajectories when an actor dies: the test bounds the whole run with a timeout.

Prints one JSON line last: the learner's steps, the checkpoint played, whether training
changed the weights, and the returns and length of the game played.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from open_spiel.python.algorithms.alpha_zero import alpha_zero, utils
from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib

import hexgames.integrations.openspiel  # noqa: F401  (registers the games)

STEPS = 2


def config(game: str, path: str) -> alpha_zero.Config:
    """A tiny model, few simulations and a small buffer: each step learns from one or two
    self-play games of one actor process."""
    return alpha_zero.Config(
        game=game,
        path=path,
        learning_rate=0.01,
        weight_decay=1e-4,
        decouple_weight_decay=False,
        train_batch_size=8,
        replay_buffer_size=32,
        replay_buffer_reuse=2,
        max_steps=STEPS,
        checkpoint_freq=1,
        actors=1,
        evaluators=0,
        evaluation_window=2,
        eval_levels=2,
        uct_c=2.0,
        max_simulations=4,
        policy_alpha=1.0,
        policy_epsilon=0.25,
        temperature=1.0,
        temperature_drop=4,
        nn_model="mlp",
        nn_width=8,
        nn_depth=1,
        observation_shape=None,
        output_size=None,
        verbose=False,
        quiet=True,
    )


def load_model(cfg: alpha_zero.Config, game: pyspiel.Game, step: int) -> Any:
    """The model of ``cfg`` with the weights of checkpoint ``step``."""
    model = utils.api_selector(cfg.nn_api_version).Model.build_model(
        cfg.nn_model,
        game.observation_tensor_shape(),
        game.num_distinct_actions(),
        cfg.nn_width,
        cfg.nn_depth,
        cfg.weight_decay,
        cfg.learning_rate,
        cfg.path,
    )
    model.load_checkpoint(step)
    return model


def weights(model: Any) -> list[np.ndarray]:
    return [np.asarray(leaf) for leaf in jax.tree.leaves(model._state.params)]


def main(game_string: str, path: str) -> None:
    cfg = config(game_string, path)
    alpha_zero.alpha_zero(cfg)

    game = pyspiel.load_game(game_string)
    trained = load_model(cfg, game, STEPS)
    initial = load_model(cfg, game, 0)
    changed = any(
        not np.array_equal(a, b) for a, b in zip(weights(trained), weights(initial), strict=True)
    )
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(
        game,
        cfg.uct_c,
        cfg.max_simulations,
        evaluator_lib.AlphaZeroEvaluator(game, trained),
        solve=False,
        random_state=rng,
        child_selection_fn=mcts.SearchNode.puct_value,
    )
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == 0:
            action = bot.step(state)
        else:
            action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
    steps = [
        json.loads(line)["step"] for line in (Path(path) / "learner.jsonl").read_text().splitlines()
    ]
    print(
        json.dumps(
            {
                "steps": steps,
                "checkpoint": STEPS,
                "weights_changed": changed,
                "returns": state.returns(),
                "length": len(state.history()),
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
