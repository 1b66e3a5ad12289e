"""A player factory with a learned evaluator, for the ``module:callable`` spec of
``tests/test_ai_evaluator.py`` (``hexgames arena --players
random,evaluated_players:mcts_with_a_value``)."""

from __future__ import annotations

import numpy as np

from hexgames.ai.mcts import MCTSPlayer
from hexgames.game import Game


def piece_count_value(observations: np.ndarray, masks: np.ndarray,
                      seats: np.ndarray) -> np.ndarray:
    """A stand-in for a trained value: more filled cells in the first plane than in the
    second is good for the first seat (a number in [-1, 1] for the seat to act)."""
    lead = observations[:, 0].sum(axis=(1, 2)) - observations[:, 1].sum(axis=(1, 2))
    return np.tanh(0.3 * lead) * np.where(seats == 0, 1.0, -1.0)


def mcts_with_a_value(game: Game, seed: int | None) -> MCTSPlayer:
    return MCTSPlayer(game, iterations=30, seed=seed, evaluator=piece_count_value,
                      evaluator_batch=4)
