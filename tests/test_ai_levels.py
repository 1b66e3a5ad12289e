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
    assert all(LEVELS[n].time_limit is None for n in LEVELS)


def test_level_players_have_the_documented_kind_and_name():
    beginner = player(TOY, 1, seed=1)
    assert isinstance(beginner, GreedyPlayer) and beginner.noise > 0 and beginner.name == "L1"
    club = player(TOY, 3, seed=1)
    assert isinstance(club, MCTSPlayer) and club.iterations == LEVELS[3].iterations
    strongest = player(TOY, 5)
    assert isinstance(strongest, MCTSPlayer) and strongest.time_limit == LEVELS[5].time_limit


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


def test_each_level_adds_a_tactical_skill():
    """Level 2 takes single-action wins, 3 also wins within its turn, 4 also refuses
    single-action winning replies, 5 also replies of several actions (docs/ai.md)."""
    skills = []
    for level in (2, 3, 4, 5):
        p = player(TOY, level, seed=1)
        checks = p.tactics and p.safety
        skills.append((p.tactics_depth, p.threat_depth if checks else 0))
    full = player(TOY, 5).tactics_depth
    assert full > 1
    assert skills == [(1, 0), (full, 0), (full, 1), (full, full)]


def test_level_two_misses_the_win_of_two_actions_that_level_three_takes():
    from test_ai_players import WIN_IN_TWO

    for level, wins in ((2, False), (3, True)):
        chosen = player(TOY, level, seed=1)
        chosen.iterations = 1  # no search: only the tactical layer can see the win
        chosen.choose(ToyPosition.from_text(WIN_IN_TWO))
        assert (chosen.last_stats["reason"] == "win") is wins


def test_level_four_lets_a_two_action_threat_through_and_level_five_does_not():
    from test_ai_players import TWO_ACTION_THREAT

    for level, blocks in ((3, False), (4, False), (5, True)):
        chosen = player(TOY, level, seed=1)
        chosen.iterations = 30  # a small search: its favourite here does not block
        action = chosen.choose(ToyPosition.from_text(TWO_ACTION_THREAT))
        assert (action == "b4") is blocks, (level, action)
