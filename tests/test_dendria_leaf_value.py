"""Dendria's leaf value (:mod:`hexgames.dendria.leaf_value`): its compiled features
against the position's public analysis, its training data against the games' results,
the fit, the committed weights on fresh games, and the compiled search's use of it."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from hexgames.dendria import Position, Rules, leaf_value
from hexgames.dendria import _search as search
from hexgames.dendria.board_analysis import DENDRID, SEED, TREE


def random_position(seed: int, rules: Rules) -> Position:
    """A position of seeded random play, not over, after 0 to 250 steps."""
    rng = random.Random(seed)
    while True:
        p = Position.initial(rules)
        for _ in range(rng.randrange(0, 250)):
            if p.is_over:
                break
            p.play(rng.choice(list(p.legal_actions())))
        if not p.is_over:
            return p


def expected_features(p: Position) -> list[float]:
    """The features, counted from :meth:`Position.analysis` and :meth:`Position.score`."""
    a = p.analysis()
    score = p.score()

    def diff(kind: int) -> int:
        return a.pieces(0, kind).bit_count() - a.pieces(1, kind).bit_count()

    growable = sum(len(g.cells) * (1 if g.color == 0 else -1) for g in a.growable())
    convertible = (sum(len(g.cells) for g in a.convertible(0))
                   - sum(len(g.cells) for g in a.convertible(1)))
    to_move = 1.0 if p.to_move == "dark" else -1.0
    raw = [
        score["dark"] - score["light"], diff(TREE), diff(SEED), diff(DENDRID),
        a.fertilized(0).bit_count() - a.fertilized(1).bit_count(), growable, convertible,
        to_move, to_move * (1 - p.quiet_turns / p.rules.quiet_turns),
    ]
    n = len(p.cells)
    filled = 1 - a.empty.bit_count() / n
    return [*raw, *(x * filled for x in raw), 1.0]


@pytest.mark.parametrize("rules", [Rules(board_side=4), Rules(board_side=5, pie=False),
                                   Rules()], ids=["side4", "side5-nopie", "standard"])
def test_features_equal_the_public_analysis(rules: Rules) -> None:
    """Every third position of random games; each feature is seen non-zero."""
    rng = random.Random(rules.board_side)
    seen_nonzero = np.zeros(leaf_value.NUM_FEATURES, bool)
    for _ in range(4):
        p = Position.initial(rules)
        step = 0
        while not p.is_over:
            if step % 3 == 0:
                text = p.to_text()
                features = leaf_value.position_features(p)
                assert features.tolist() == pytest.approx(expected_features(p))
                assert p.to_text() == text
                seen_nonzero |= features != 0
            p.play(rng.choice(list(p.legal_actions())))
            step += 1
    assert seen_nonzero.all(), [name for name, seen in zip(
        leaf_value.feature_labels(), seen_nonzero, strict=True) if not seen]


def test_the_value_is_the_logistic_model_for_seat_0() -> None:
    for seed in range(12):
        p = random_position(100 + seed, Rules(board_side=5))
        z = float(leaf_value.WEIGHTS @ leaf_value.position_features(p))
        dark = math.tanh(z / 2)
        expected = dark if p.seat_of("dark") == 0 else -dark
        assert leaf_value.position_value(p) == pytest.approx(expected)
        assert -1 < leaf_value.position_value(p) < 1
    weights = np.zeros(leaf_value.NUM_FEATURES)
    assert leaf_value.position_value(random_position(7, Rules()), weights) == 0.0


def test_a_finished_game_is_valued_by_its_result() -> None:
    rng = random.Random(3)
    p = Position.initial(Rules(board_side=4))
    while not p.is_over:
        p.play(rng.choice(list(p.legal_actions())))
    assert leaf_value.position_value(p) == p.returns()[0]


def test_the_value_follows_the_pie_swap() -> None:
    rng = random.Random(5)
    for _ in range(200):
        p = Position.initial(Rules(board_side=5))
        swapped = None
        for _ in range(rng.randrange(4, 60)):
            steps = list(p.legal_actions())
            choice = next((s for s in steps if str(s) == "swap"), None) or rng.choice(steps)
            p.play(choice)
            if p.is_over:
                break
        if not p.is_over and p.seat_of("dark") == 1:
            swapped = p
            break
    assert swapped is not None
    z = float(leaf_value.WEIGHTS @ leaf_value.position_features(swapped))
    assert leaf_value.position_value(swapped) == pytest.approx(-math.tanh(z / 2))


def test_training_rows_carry_their_games_result() -> None:
    """With every position kept, a game's last row is the position before its last step,
    a turn end that leaves the board as it is: Dark's result is the sign of that row's
    score difference."""
    X, y, steps, game = leaf_value.training_data(Rules(board_side=5), games=40, seed=3,
                                                 every=1)
    starts = np.flatnonzero(steps == 0)
    assert (game[starts] == np.arange(40)).all()
    assert len(starts) == 40
    ends = [*(starts[1:] - 1), len(steps) - 1]
    initial = leaf_value.position_features(Position.initial(Rules(board_side=5)))
    for first, last in zip(starts, ends, strict=True):
        assert X[first].tolist() == pytest.approx(initial.tolist())
        assert (np.diff(steps[first : last + 1]) == 1).all()
        assert (y[first : last + 1] == y[first]).all()
        assert y[first] == np.sign(X[last, 0])


def test_training_data_keeps_every_nth_position_and_is_seeded() -> None:
    X, y, steps, game = leaf_value.training_data(Rules(board_side=4), games=30, seed=9,
                                                 every=7)
    starts = np.r_[0, np.flatnonzero(np.diff(game) != 0) + 1]
    assert (game[starts] == np.arange(30)).all()
    assert len(starts) == 30
    for first, nxt in zip(starts, [*starts[1:], len(steps)], strict=True):
        assert (np.diff(steps[first:nxt]) == 7).all()
        assert steps[first] < 7
    again = leaf_value.training_data(Rules(board_side=4), games=30, seed=9, every=7)
    assert np.array_equal(X, again[0]) and np.array_equal(y, again[1])
    with pytest.raises(ValueError, match="at least 1"):
        leaf_value.training_data(Rules(board_side=4), games=0)


def test_fit_recovers_the_weights_of_a_logistic_model() -> None:
    rng = np.random.default_rng(1)
    X = np.c_[rng.normal(size=(20_000, 3)), np.ones(20_000)]
    truth = np.array([1.5, -0.7, 0.2, 0.3])
    wins = rng.random(20_000) < 1 / (1 + np.exp(-(X @ truth)))
    w = leaf_value.fit(X, np.where(wins, 1.0, -1.0))
    assert w == pytest.approx(truth, abs=0.08)
    assert leaf_value.log_loss(X, np.where(wins, 1.0, -1.0), w) < leaf_value.log_loss(
        X, np.where(wins, 1.0, -1.0), np.zeros(4))


def test_the_committed_weights_predict_fresh_random_games() -> None:
    """Games the weights were not fitted on (another seed): better than a coin (0.693)
    and than the best constant, on the standard board and a smaller one."""
    for rules in (Rules(), Rules(board_side=5)):
        X, y, _, _ = leaf_value.training_data(rules, games=400, seed=424_242, every=15)
        coin = leaf_value.log_loss(X, y, np.zeros(leaf_value.NUM_FEATURES))
        constant = np.zeros(leaf_value.NUM_FEATURES)
        constant[-1] = leaf_value.fit(X[:, -1:], y)[0]
        assert leaf_value.log_loss(X, y, leaf_value.WEIGHTS) < min(
            coin, leaf_value.log_loss(X, y, constant)) - 0.03


def test_the_compiled_search_values_a_new_leaf_by_the_estimate() -> None:
    """With no random steps before it, a new leaf's value is :func:`position_value` of
    the position after its step, from the side of the seat that chose it."""
    p = random_position(11, Rules())
    tree = search.TreeSearch(leaf_steps=0)
    tree.set_root(p)
    assert tree.run(1, 1, 0.6, 3.0, 1.0, False) == 1
    (child,) = [c for c in tree.children() if c["visits"]]
    after = p.copy()
    after.play(child["action"])
    seat0 = leaf_value.position_value(after)
    assert child["value"] == pytest.approx(seat0 if child["mover"] == 0 else -seat0)


def test_a_negative_count_of_random_steps_is_refused() -> None:
    with pytest.raises(ValueError, match="leaf_steps must be at least 0"):
        search.TreeSearch(leaf_steps=-1)
