"""The PUCT search (:mod:`hexgames.ai.puct`): it finds a forced win on priors and exact
values alone, its root read is a distribution over the legal research ids, root noise
stays at the root, virtual loss spreads a round's leaves, and batched self-play plays
the very games it would play one at a time."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hexgames.ai.evaluator import CheckedEvaluator
from hexgames.ai.puct import (
    PuctConfig,
    PuctNode,
    PuctPlayer,
    PuctTree,
    SelfPlayConfig,
    run_round,
    search,
    self_play,
)
from hexgames.game import Game, GameState, get_game

#: Red to act with both actions of its turn; one first action (of 34) lets it win with
#: its second (found by random play on the 4-side board; checked below).
TWO_ACTION_WIN = "Benediction v1: R D2 B-D6\nR:C13D2k3E1+F1c2c\nB:B3+C5k6cD7kE6kF4\nX:A3B1E24G1"


def zero(observations: np.ndarray, masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Knows nothing: value 0, no policy (uniform priors)."""
    return np.zeros(len(seats))


class Scored:
    """A fixed, leaf-by-leaf evaluator: a value from the observation and a logit per
    research id, each leaf computed alone (so its answer never depends on the batch)."""

    def __init__(self, num_actions: int, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.logits = self.rng.standard_normal(num_actions)
        self.weights: np.ndarray | None = None
        self.calls: list[int] = []

    def __call__(self, observations: np.ndarray, masks: np.ndarray, seats: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
        self.calls.append(len(seats))
        if self.weights is None:
            self.weights = self.rng.standard_normal(observations.shape[1:])
        values = np.array([0.5 * np.tanh(0.1 * float(np.sum(o * self.weights)))
                           for o in observations])
        policy = np.stack([self.logits + 0.1 * float(o.sum()) for o in observations])
        return values, policy


def _dendria() -> tuple[Game, Any]:
    game = get_game("dendria")
    return game, game.rules(board_side=3)


def _own_wins_after(game: Game, position: GameState) -> list[Any]:
    """The first actions after which the same seat wins at once."""
    wins = game.ai_hooks().winning_actions  # type: ignore[misc]
    found = []
    for action in position.legal_actions():
        seat = position.current_seat
        position.play(action)
        if not position.is_over and position.current_seat == seat and wins(position):
            found.append(action)
        position.undo()
    return found


def test_uniform_priors_and_exact_results_find_a_win_in_two_actions() -> None:
    game = get_game("benediction")
    position = game.position_from_text(TWO_ACTION_WIN, game.rules(board_side=4))
    assert not game.ai_hooks().winning_actions(position)  # type: ignore[misc]
    good = _own_wins_after(game, position)
    assert len(good) == 1 and len(position.legal_actions()) == 34
    tree = PuctTree(game, position, PuctConfig(simulations=1000), np.random.default_rng(0))
    search([tree], CheckedEvaluator(zero))
    assert tree.choose(0.0) == good[0]
    best = tree.root.actions.index(good[0])
    assert tree.root.w[best] / tree.root.n[best] > 0.8  # the backed-up wins, for Red
    player = PuctPlayer(game, zero, PuctConfig(simulations=1000), seed=1)
    assert player.choose(position) == good[0]
    assert position.to_text() == TWO_ACTION_WIN  # the player's position is untouched


def test_the_root_policy_target_is_a_distribution_over_legal_ids() -> None:
    game, rules = _dendria()
    position = game.new_position(rules)
    evaluator = Scored(game.num_distinct_actions(rules))
    tree = PuctTree(game, position, PuctConfig(simulations=40), np.random.default_rng(0))
    search([tree], CheckedEvaluator(evaluator))
    target = tree.policy_target()
    legal = np.zeros(game.num_distinct_actions(rules), np.bool_)
    legal[[game.action_to_id(position, a) for a in position.legal_actions()]] = True
    assert target.shape == legal.shape
    assert target[legal].sum() == pytest.approx(1.0)
    assert not target[~legal].any()
    counts = tree.visit_counts()
    assert counts.sum() == 39  # every simulation but the root's own evaluation
    assert np.allclose(target, counts / counts.sum())


def _expanded(node: PuctNode) -> list[PuctNode]:
    found = [node] if node.expanded else []
    for child in node.children:
        if child is not None:
            found += _expanded(child)
    return found


def test_dirichlet_noise_changes_the_priors_at_the_root_only() -> None:
    game, rules = _dendria()
    position = game.new_position(rules)
    evaluator = Scored(game.num_distinct_actions(rules))
    noisy = PuctConfig(simulations=60, dirichlet_eps=0.25, dirichlet_alpha=0.5)
    tree = PuctTree(game, position, noisy, np.random.default_rng(3))
    search([tree], CheckedEvaluator(evaluator))
    root = tree.root
    assert root.priors is not None and root.raw_priors is not None
    assert not np.allclose(root.priors, root.raw_priors)
    assert root.priors.sum() == pytest.approx(1.0)
    below = _expanded(root)[1:]
    assert len(below) > 10
    for node in below:
        assert node.priors is node.raw_priors  # the evaluator's softmax, untouched
    plain = PuctTree(game, position, PuctConfig(simulations=60), np.random.default_rng(3))
    search([plain], CheckedEvaluator(evaluator))
    assert plain.root.priors is plain.root.raw_priors
    assert np.allclose(plain.root.raw_priors, root.raw_priors)


@pytest.mark.parametrize(("virtual_loss", "leaves"), [(1, 8), (0, 1)])
def test_virtual_loss_spreads_a_rounds_leaves(virtual_loss: int, leaves: int) -> None:
    game, rules = _dendria()
    config = PuctConfig(simulations=50, virtual_loss=virtual_loss, leaves_per_round=8)
    tree = PuctTree(game, game.new_position(rules), config, np.random.default_rng(0))
    evaluator = Scored(game.num_distinct_actions(rules))
    checked = CheckedEvaluator(evaluator)
    run_round([tree], checked)  # the root alone
    pending = tree.descend(50)
    assert len(pending) == leaves
    assert len({id(leaf.node) for leaf in pending}) == leaves  # distinct leaves
    assert tree.root.n.sum() == virtual_loss * leaves  # each path charged
    for leaf in pending:
        tree.settle(leaf, 0.0, None)
    assert tree.root.n.sum() == leaves  # the charges taken back, one visit each
    assert np.all(tree.root.w[tree.root.n > 0] == 0.0)


def test_bad_search_settings_are_refused() -> None:
    for bad, message in [({"simulations": 0}, "simulations"), ({"dirichlet_eps": 2}, "eps"),
                         ({"virtual_loss": -1}, "virtual_loss"),
                         ({"leaves_per_round": 0}, "leaves_per_round")]:
        with pytest.raises(ValueError, match=message):
            PuctConfig(**bad)


def test_batched_self_play_plays_the_games_played_one_at_a_time() -> None:
    game, rules = _dendria()
    config = SelfPlayConfig(search=PuctConfig(simulations=12, dirichlet_eps=0.25,
                                              leaves_per_round=4), temperature_moves=4)
    seeds = [11, 12, 13, 14]
    evaluator = Scored(game.num_distinct_actions(rules))
    together = self_play(game, rules, evaluator, seeds, config)
    assert max(evaluator.calls) > 4  # leaves of several games shared a call
    for seed, batched in zip(seeds, together, strict=True):
        alone = self_play(game, rules, Scored(game.num_distinct_actions(rules)), [seed],
                          config)[0]
        assert alone.actions == batched.actions
        assert alone.result == batched.result
        assert np.array_equal(np.stack(alone.policies), np.stack(batched.policies))
    assert len({tuple(map(str, g.actions)) for g in together}) > 1  # the seeds matter


def test_self_play_records_what_a_learner_needs() -> None:
    game, rules = _dendria()
    evaluator = Scored(game.num_distinct_actions(rules))
    config = SelfPlayConfig(search=PuctConfig(simulations=8), max_moves=300)
    (record,) = self_play(game, rules, evaluator, [5], config)
    position = game.new_position(rules)
    searched = 0
    for action in record.actions:
        actions = list(position.legal_actions())
        if len(actions) > 1:  # single legal actions are played without a sample
            observation = game.observation(position, position.current_seat)
            assert np.array_equal(record.observations[searched], observation)
            assert record.seats[searched] == position.current_seat
            ids = sorted(game.action_to_id(position, a) for a in actions)
            assert sorted(np.flatnonzero(record.masks[searched])) == ids
            assert record.policies[searched][ids].sum() == pytest.approx(1.0)
            searched += 1
        position.play(action)
    assert position.is_over and searched == len(record.seats)
    assert record.result == position.returns()[0]
    assert np.array_equal(record.value_targets(),
                          [record.result if s == 0 else -record.result for s in record.seats])


def test_the_tree_is_kept_for_the_next_move() -> None:
    game, rules = _dendria()
    evaluator = CheckedEvaluator(Scored(game.num_distinct_actions(rules)))
    tree = PuctTree(game, game.new_position(rules), PuctConfig(simulations=60),
                    np.random.default_rng(0))
    search([tree], evaluator)
    action = tree.choose(0.0)
    child = tree.root.children[tree.root.actions.index(action)]
    assert child is not None and child.n.sum() > 0
    tree.advance(action)
    assert tree.root is child
    kept = child.n.sum()
    search([tree], evaluator)
    assert tree.root.n.sum() == kept + 60
