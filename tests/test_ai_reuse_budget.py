"""The MCTS cuts a continuation's budget only when it reused a tree, and ponders
(issue 14)."""

from __future__ import annotations

from typing import Any

from hexgames.ai import MCTSPlayer
from hexgames.game import get_game

GAME = get_game("benediction")


def turn_in_progress(player: MCTSPlayer) -> Any:
    """A position in the middle of a turn, reached by ``player``'s own searched first
    action (it keeps the tree of that search)."""
    position = GAME.new_position(GAME.make_rules())
    while True:
        at_start = position.is_turn_start()
        action = player.choose(position)
        searched = player.last_stats["reason"] == "search"
        position.play(action)
        if at_start and searched and not position.is_over and not position.is_turn_start():
            return position


def test_a_continuation_is_cut_only_after_a_reused_tree() -> None:
    player = MCTSPlayer(GAME, iterations=60, seed=1)
    position = turn_in_progress(player)
    player.choose(position)
    assert player.last_stats["reused"] > 0 and player.last_stats["share"] == 0.5
    fresh = MCTSPlayer(GAME, iterations=60, seed=1)
    fresh.choose(position)
    assert fresh.last_stats["reused"] == 0 and fresh.last_stats["share"] == 1.0


def test_pondering_grows_the_tree_the_next_choice_reuses() -> None:
    player = MCTSPlayer(GAME, iterations=60, seed=1)
    position = GAME.new_position(GAME.make_rules())
    assert player.ponder(position, lambda: True) == 0, "stopped at once"
    done = player.ponder(position, lambda: False, max_iterations=96)
    assert done == 96
    root = player._root
    assert root is not None and root.visits >= 96
    likely = max(root.children, key=lambda child: child.visits).action
    before = position.copy()
    position.play(likely)
    player.choose(position)
    assert player.last_stats["reused"] > 0
    assert position.history[:-1] == before.history, "ponder left the position alone"
