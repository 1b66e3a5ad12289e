"""The MCTS searches exactly as it did before it was made faster (issue 16).

Strength ladders are measured with a given seed and iteration budget, so a speed-up must
not change what the search chooses. Two kinds of checks:

* **Recorded choices** (:data:`RECORDED`): for a few seeded random openings per game, the
  actions an :class:`MCTSPlayer` chose and its ``last_stats["iterations"]`` and reason,
  generated with main's code *before* the speed-ups (commit 1965243, by :func:`_choices`
  below). Recorded values are legitimate here: they pin behaviour against regression,
  and no straightforward reference could recompute them short of the old code itself.
* **Compiled parts against their reference**: the compiled Benediction heuristic equals
  the Python definition (:func:`evaluation.heuristic_reference`) bit for bit, the
  filtered immediate-win test equals playing every legal action, the faster action
  priors equal their first version, and Dendria's heuristic (counting on bit masks)
  equals its first version (listing groups), on positions of many random games.

``experiments/mcts_speed.py`` prints a fingerprint of the same kind over more positions.
"""

from __future__ import annotations

import random

import pytest

from hexgames.ai.knowledge import brute_force_winning_actions
from hexgames.ai.mcts import MCTSPlayer
from hexgames.benediction import Position, Rules
from hexgames.benediction import evaluation as bev
from hexgames.game import Game, GameState, get_game


def _openings(game: Game, count: int, seed: int) -> list[GameState]:
    """Seeded random positions at a turn start with at least 20 legal actions."""
    rng = random.Random(seed)
    found: list[GameState] = []
    while len(found) < count:
        position = game.new()
        for _ in range(rng.randrange(4, 40)):
            if position.is_over:
                break
            position.play(rng.choice(list(position.legal_actions())))
        for _ in range(50):
            if position.is_over or position.is_turn_start():
                break
            position.play(rng.choice(list(position.legal_actions())))
        if (
            not position.is_over
            and position.is_turn_start()
            and len(position.legal_actions()) >= 20
        ):
            found.append(position)
    return found


def _choices(name: str, positions: int = 3, iterations: int = 300, seed: int = 11) -> list[str]:
    """``opening:action:iterations:reason`` of each call of a seeded player that goes on
    choosing (its choices played) until it has made two unforced choices."""
    game = get_game(name)
    record = []
    for k, start in enumerate(_openings(game, positions, seed)):
        player = MCTSPlayer(game, iterations=iterations, seed=seed + k, tactics=True,
                            use_heuristic=True)  # the search recorded before the speed-ups
        position = start.copy()
        searched = 0
        while searched < 2 and not position.is_over:
            action = player.choose(position)
            stats = player.last_stats
            record.append(f"{k}:{action}:{stats['iterations']}:{stats['reason']}")
            position.play(action)
            searched += stats["reason"] != "forced"
    return record


#: Generated with main's code before the speed-ups (see the module docstring).
RECORDED: dict[str, list[str]] = {
    "benediction": [
        "0:h4h2:256:search",
        "0:h2-1-i1:150:search",
        "1:e8+f7:300:search",
        "1:f7d6:150:search",
        "2:@e2:300:search",
        "2:e4e5:150:search",
    ],
    "dendria": [
        "0:c8:300:search",
        "0:end:0:forced",
        "0:i7:300:search",
        "1:h6:300:search",
        "1:end:0:forced",
        "1:j4:300:search",
        "2:k2:300:search",
        "2:end:0:forced",
        "2:g9:300:search",
    ],
}


@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_choices_and_iteration_counts_are_those_recorded_before_the_speed_ups(
    name: str,
) -> None:
    assert _choices(name) == RECORDED[name]


def _random_positions(games: int, seed: int) -> list[Position]:
    """Every position of ``games`` random Benediction games on several board sides and
    stack limits (copies)."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        options: dict[str, int] = {"board_side": rng.choice([4, 5, 6, 7])}
        if rng.random() < 0.3:
            options["max_stack"] = rng.choice([2, 3, 4, 6])
        position = Position.initial(Rules(**options))
        while not position.is_over and position.ply < 300:
            out.append(position.copy())
            position.play(rng.choice(list(position.legal_actions())))
        out.append(position.copy())
    return out


def test_compiled_benediction_heuristic_equals_the_python_definition() -> None:
    positions = _random_positions(40, seed=3)
    assert len(positions) > 2000
    for position in positions:
        fast, reference = bev.heuristic(position), bev.heuristic_reference(position)
        assert type(fast) is float
        assert fast == reference, position.to_text()


def test_filtered_immediate_wins_equal_playing_every_action() -> None:
    positions = _random_positions(40, seed=4)
    found = 0
    for position in positions:
        wins = position.immediate_wins()
        assert wins == brute_force_winning_actions(position), position.to_text()
        found += bool(wins)
    assert found > 100  # the test saw many positions with a win


def test_benediction_priors_equal_the_first_version() -> None:
    rng = random.Random(6)
    for position in _random_positions(15, seed=5):
        actions = list(position.legal_actions())
        rng.shuffle(actions)
        assert bev.action_priors(position, actions) == bev.action_priors_reference(
            position, actions
        ), position.to_text()


def test_dendria_heuristic_equals_the_first_version() -> None:
    from hexgames.dendria import evaluation as dev

    game = get_game("dendria")
    rng = random.Random(8)
    seen = 0
    for options in ({}, {"board_side": 5}, {"quiet_limit": 4, "pie": False}):
        for _ in range(4):
            position = game.new(**options)
            while True:
                assert dev.heuristic(position) == dev.heuristic_reference(position)
                seen += 1
                if position.is_over or position.ply >= 400:
                    break
                position.play(rng.choice(list(position.legal_actions())))
    assert seen > 1000
