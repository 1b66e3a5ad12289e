""":mod:`mcts_variants`: the experiments' MCTS knobs still do what their measurements
describe, and with none of them set the variant searches exactly as the product's player
(so a harness comparing a knob against the levels compares that knob alone)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from hexgames.ai import levels
from hexgames.ai.mcts import MCTSPlayer
from hexgames.benediction import Position
from hexgames.game import get_game
from mcts_variants import MCTSVariant, choose_as_before_sessions, variant_of

BENEDICTION = get_game("benediction")


def opening(game_name: str, seed: int = 7, plies: int = 12) -> Any:
    """A turn start reached by seeded random play."""
    game = get_game(game_name)
    position = game.new(board_side=5) if game_name == "dendria" else game.new()
    rng = random.Random(seed)
    for _ in range(plies):
        position.play(rng.choice(list(position.legal_actions())))
    while not position.is_turn_start():
        position.play(rng.choice(list(position.legal_actions())))
    return position


@pytest.mark.parametrize(("game_name", "settings"), [
    ("benediction", {"iterations": 80}),
    ("dendria", {"iterations": 80}),  # the compiled tree with the fitted leaf value
])
def test_with_no_knob_set_it_searches_as_the_player(game_name: str,
                                                    settings: dict[str, Any]) -> None:
    position = opening(game_name)
    player = MCTSPlayer(game_name, seed=3, **settings)
    variant = MCTSVariant(game_name, seed=3, **settings)
    assert (variant._tree is None) == (player._tree is None)
    assert variant.choose(position) == player.choose(position)
    assert variant.last_stats == {**player.last_stats, "seconds": variant.last_stats["seconds"]}


def test_variant_of_copies_a_levels_settings() -> None:
    level = levels.player("benediction", 5, seed=4)
    assert isinstance(level, MCTSPlayer)
    copy = variant_of(level, compiled_tree=False)
    for name in ("iterations", "time_limit", "use_heuristic", "tactics_budget", "name",
                 "exploration", "threat_depth", "continuation_share"):
        assert getattr(copy, name) == getattr(level, name), name
    assert level._tree is not None and copy._tree is None


def test_kernel_playouts_average_several_games_or_none() -> None:
    p = Position.initial()
    for action in ("e3e4", "e7e6", "d7d6"):
        p.play(action)
    before = (p.key, p.ply)
    several = MCTSVariant("benediction", use_heuristic=False, iterations=60, seed=1,
                          kernel_playouts=4)
    assert several._kernel is not None and several._tree is None  # the tree plays one
    assert several.choose(p) in p.legal_actions()
    assert (p.key, p.ply) == before
    python = MCTSVariant("benediction", use_heuristic=False, iterations=5, seed=1,
                         kernel_playouts=0)
    assert python._kernel is None and python._tree is None
    assert python.choose(p) in p.legal_actions()
    # without a kernel the game's wish for random games at the leaves cannot be met
    assert MCTSVariant("dendria", kernel_playouts=0).use_heuristic
    with pytest.raises(ValueError, match="kernel_playouts"):
        MCTSVariant("benediction", kernel_playouts=-1)


def test_compiled_tree_can_be_refused_or_required() -> None:
    assert MCTSVariant("benediction", use_heuristic=False, compiled_tree=False)._tree is None
    assert MCTSVariant("dendria", compiled_tree=False)._tree is None
    assert MCTSVariant("dendria", compiled_tree=True)._tree is not None
    with pytest.raises(ValueError, match="compiled_tree"):
        MCTSVariant("benediction", use_heuristic=True, compiled_tree=True)
    with pytest.raises(ValueError, match="compiled_tree"):
        MCTSVariant("benediction", use_heuristic=False, kernel_playouts=2, compiled_tree=True)
    with pytest.raises(ValueError, match="compiled_tree"):
        MCTSVariant("dendria", use_heuristic=True, compiled_tree=True)


@pytest.mark.parametrize("game_name", ["benediction", "dendria"])
@pytest.mark.parametrize("finish_turn", [False, True])
def test_finish_turn_values_every_leaf_at_a_turn_start(game_name: str,
                                                       finish_turn: bool) -> None:
    """``finish_turn=True``: each cut-off playout plays on to the end of the turn, so the
    heuristic is only asked at turn starts; without it, mid-turn leaves are valued too
    (notes/dendria-leaf-values.md)."""
    position = opening(game_name)
    player = MCTSVariant(game_name, iterations=60, seed=1, playout_depth=1,
                         finish_turn=finish_turn, tactics=False, use_heuristic=True)
    asked: list[bool] = []
    original = player._know.heuristic

    def recording(pos: Any) -> float:
        asked.append(pos.is_turn_start())
        return original(pos)

    player._know = dataclasses.replace(player._know, heuristic=recording)
    # the root's ordering asks the heuristic one action later (mid-turn) by design: only
    # the playouts are counted
    player._by_heuristic = lambda node, pos, actions: actions  # type: ignore[method-assign]
    before = position.to_text()
    assert player.choose(position) in position.legal_actions()
    assert position.to_text() == before
    assert asked
    assert all(asked) if finish_turn else not all(asked)


def turn_in_progress(player: MCTSPlayer) -> Any:
    """A position in the middle of a turn, reached by ``player``'s own searched first
    action (it keeps the tree of that search)."""
    position = BENEDICTION.new()
    while True:
        at_start = position.is_turn_start()
        action = player.choose(position)
        searched = player.last_stats["reason"] == "search"
        position.play(action)
        if at_start and searched and not position.is_over and not position.is_turn_start():
            return position


def test_the_budget_before_sessions_cut_a_continuation_without_a_kept_tree() -> None:
    position = turn_in_progress(MCTSPlayer(BENEDICTION, iterations=60, seed=1))
    fresh = MCTSPlayer(BENEDICTION, iterations=60, seed=1)
    fresh.choose(position)
    assert fresh.last_stats["reused"] == 0 and fresh.last_stats["share"] == 1.0
    old_rule = MCTSVariant(BENEDICTION, iterations=60, seed=1, continuation_needs_reuse=False)
    old_rule.choose(position)
    assert old_rule.last_stats["reused"] == 0 and old_rule.last_stats["share"] == 0.5
    assert old_rule.last_stats["iterations"] <= 30
    start = BENEDICTION.new()
    old_rule.choose(start)
    assert old_rule.last_stats["share"] == 1.0, "a turn's first action keeps its budget"


def test_choose_as_before_sessions_answers_in_notation() -> None:
    position = opening("benediction", seed=2)
    actions = [str(action) for action in position.history]
    answer = choose_as_before_sessions("benediction", {}, actions, 2, 5)
    assert answer in {str(action) for action in position.legal_actions()}
