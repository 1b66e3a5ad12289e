"""Strength levels and player specs (``L3``, ``mcts:400``, ...)."""

from __future__ import annotations

import pytest

from hexgames.ai import LEVELS, GreedyPlayer, MCTSPlayer, RandomPlayer, from_spec, player
from test_ai_toygame import TOY, ToyPosition


def test_levels_one_to_five_exist_and_grow_in_budget():
    assert sorted(LEVELS) == [1, 2, 3, 4, 5]
    budgets = [LEVELS[n].iterations for n in (2, 3, 4, 5)]
    assert budgets == sorted(budgets) and len(set(budgets)) == 4
    # No time caps: on a busy machine a capped level fell below the one under it.
    assert all(player(TOY, n).time_limit is None for n in (2, 3, 4, 5))


def test_level_players_have_the_documented_kind_and_name():
    beginner = player(TOY, 1, seed=1)
    assert isinstance(beginner, GreedyPlayer) and beginner.noise > 0 and beginner.name == "L1"
    club = player(TOY, 3, seed=1)
    assert isinstance(club, MCTSPlayer) and club.iterations == LEVELS[3].iterations
    strongest = player(TOY, 5)
    assert isinstance(strongest, MCTSPlayer) and strongest.time_limit is None


@pytest.mark.parametrize("level", [0, 6, "3"])
def test_unknown_levels_are_refused(level):
    with pytest.raises(ValueError, match="level must be one of"):
        player(TOY, level)


def test_specs_build_the_named_players():
    assert isinstance(from_spec(TOY, "random"), RandomPlayer)
    assert isinstance(from_spec(TOY, " Greedy "), GreedyPlayer)
    assert from_spec(TOY, "L2").name == "L2"
    assert from_spec(TOY, "level4").name == "L4"
    assert from_spec(TOY, "mcts:250").iterations == 250
    timed = from_spec(TOY, "mcts:0.5s")
    assert timed.time_limit == 0.5 and timed.iterations is None
    assert from_spec(TOY, "mcts").iterations == 1000


@pytest.mark.parametrize("spec", ["wizard", "mcts:1.5", "mcts:-3", "L", ""])
def test_bad_specs_name_the_accepted_forms(spec):
    with pytest.raises(ValueError, match="player spec"):
        from_spec(TOY, spec)


def test_a_seeded_level_is_reproducible():
    position = ToyPosition()
    position.play("c3")
    first = [player(TOY, 2, seed=9).choose(position) for _ in range(2)]
    assert first[0] == first[1]


def test_game_names_are_accepted():
    assert player("benediction", 2).name == "L2"
    with pytest.raises(ValueError, match="unknown game"):
        player("chess", 2)


def test_every_search_level_has_the_whole_tactical_layer():
    """Levels without parts of it fell to level 1's strength (docs/ai.md, "Levels");
    level 2 differs in its smaller tactical budget, the others in iterations."""
    budgets = []
    for level in (2, 3, 4, 5):
        p = player(TOY, level, seed=1)
        assert (p.tactics, p.safety, p.threat_depth) == (True, True, p.tactics_depth)
        budgets.append(p.tactics_budget)
    assert budgets[0] < budgets[1] == budgets[2] == budgets[3]


def test_the_tactical_budget_decides_whether_a_threat_is_seen():
    """An exhausted budget answers "not shown unsafe": with one position the block of a
    two-action threat is not found, with level 2's budget it is (the toy game's checks
    are small; Benediction's often need more than 100 positions)."""
    from test_ai_players import TWO_ACTION_THREAT

    blind = MCTSPlayer(TOY, iterations=25, tactics_budget=1, seed=1)
    assert blind.choose(ToyPosition.from_text(TWO_ACTION_THREAT)) != "b4"
    assert player(TOY, 2, seed=1).choose(ToyPosition.from_text(TWO_ACTION_THREAT)) == "b4"


def test_level_5_plays_random_games_at_its_leaves_where_a_kernel_plays_them():
    """Level 5 values leaves by whole random games (it beat level 4's heuristic search in
    Benediction; docs/ai.md, "Levels"); lower levels keep what the game asks; a game
    without a compiled kernel (the toy game) keeps its heuristic at every level."""
    assert not player("benediction", 5).use_heuristic
    assert player("benediction", 4).use_heuristic
    assert not player("dendria", 4).use_heuristic  # Dendria asks for playouts everywhere
    assert all(player(TOY, level).use_heuristic for level in (2, 3, 4, 5))
