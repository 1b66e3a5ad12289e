"""Elo fitting and the Wilson interval used by the arena and the balance report."""

from __future__ import annotations

import math
import random

import pytest

from hexgames.arena.report.stats import wilson
from hexgames.arena.tournament.elo import Game1v1, expected_score, fit


def simulate(true: dict[str, float], games: int, first_move: float, seed: int) -> list[Game1v1]:
    rng = random.Random(seed)
    names = list(true)
    out = []
    for _ in range(games):
        a, b = rng.sample(names, 2)
        p = expected_score(true[a] - true[b] + first_move)
        out.append(Game1v1(a, b, 1.0 if rng.random() < p else 0.0))
    return out


def test_fit_recovers_ratings_and_first_move_advantage_within_their_intervals():
    true = {"weak": -200.0, "middle": 0.0, "strong": 200.0}
    ratings = fit(simulate(true, 4000, first_move=60.0, seed=1))
    for name, elo in true.items():
        rating = ratings.of(name)
        assert abs(rating.elo - elo) < max(rating.margin, 1.0) * 1.5
        assert 5 < rating.margin < 60
    assert abs(ratings.first_move - 60.0) < 1.5 * ratings.first_move_margin
    assert sum(r.elo for r in ratings.players) == pytest.approx(0.0, abs=1e-6)


def test_even_results_give_equal_ratings():
    games = [Game1v1("a", "b", 1.0), Game1v1("b", "a", 1.0)] * 10
    ratings = fit(games)
    assert ratings.of("a").elo == pytest.approx(ratings.of("b").elo, abs=1e-6)
    assert ratings.first_move > 100  # seat 0 won every game


def test_a_clean_sweep_stays_finite_and_positive():
    games = [Game1v1("a", "b", 1.0), Game1v1("b", "a", 0.0)] * 10
    ratings = fit(games)
    gap = ratings.of("a").elo - ratings.of("b").elo
    assert 200 < gap < 2000 and math.isfinite(gap)


def test_intervals_shrink_with_more_games():
    true = {"x": 0.0, "y": 100.0}
    few = fit(simulate(true, 100, 0.0, seed=2)).of("y").margin
    many = fit(simulate(true, 1600, 0.0, seed=2)).of("y").margin
    assert many < few / 2.5


def test_draws_count_half():
    ratings = fit([Game1v1("a", "b", 0.5), Game1v1("b", "a", 0.5)] * 5)
    assert ratings.of("a").elo == pytest.approx(0.0, abs=1e-6)


def test_fit_needs_players():
    with pytest.raises(ValueError, match="no players"):
        fit([])


def test_wilson_interval_matches_its_formula_and_stays_in_range():
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-3)
    low, high = wilson(10, 10)
    assert high == pytest.approx(1.0) and low == pytest.approx(0.7225, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)
