"""MCTS with full random playouts runs them in the game's compiled kernel
(``Game.kernel``) when the game has one, and in Python otherwise."""

from __future__ import annotations

import dataclasses

import numpy as np

from hexgames.ai.mcts import MCTSPlayer
from hexgames.benediction import Position, Rules
from hexgames.benediction.kernel import kernel
from hexgames.game import get_game


def test_kernel_playouts_choose_legal_actions_and_leave_the_position_alone():
    p = Position.initial()
    for action in ("e3e4", "e7e6", "d7d6"):
        p.play(action)
    before = (p.key, p.ply)
    m = MCTSPlayer("benediction", use_heuristic=False, iterations=60, seed=1)
    assert m._kernel is not None
    assert m.choose(p) in p.legal_actions()
    assert (p.key, p.ply) == before


def test_kernel_playouts_are_reproducible_with_a_seed():
    p = Position.initial(Rules(board_side=4))
    choices = {
        str(MCTSPlayer("benediction", use_heuristic=False, iterations=80, seed=7).choose(p))
        for _ in range(2)
    }
    assert len(choices) == 1


def test_a_game_without_kernel_plays_its_random_games_in_python():
    game = dataclasses.replace(get_game("benediction"), kernel=None)
    m = MCTSPlayer(game, use_heuristic=False, iterations=5, seed=1)
    assert m._kernel is None and m._tree is None
    assert m.choose(Position.initial()) in Position.initial().legal_actions()
    assert get_game("dendria").kernel is not None


def test_kernel_playouts_report_winner_seats():
    p = Position.initial(Rules(max_turns=60))
    seats, lengths = kernel().playouts(p, 30, seed=4, max_actions=10_000)
    assert set(seats.tolist()) <= {-1, 0, 1} and (lengths > 0).all()
    assert np.array_equal(seats, kernel().playouts(p, 30, seed=4, max_actions=10_000)[0])
