"""Elo ratings with 95% intervals from tournament results (the arena's ratings; the web
app's player ratings are Glicko-2, :mod:`hexgames.web.ratings.glicko2`).

Model: the logistic (Bradley-Terry) model on the Elo scale with a first-move term,

    P(seat 0 scores) = 1 / (1 + 10 ** (-(R[seat0] - R[seat1] + A) / 400)),

fitted by maximum likelihood, a draw counting as half a win and half a loss. ``A`` is the
advantage of sitting in seat 0 (acting first), estimated alongside the ratings because a
game's first-move advantage would otherwise be credited to whoever happened to sit there
more often. Ratings are anchored so that their mean is 0.

Each pair of players who met gets one virtual draw (a weak prior): without it a 100-0
result would have an infinite maximum-likelihood rating gap. With the 100+ games per
pairing that the docs measure, its effect is a few Elo.

Intervals are **Wald** intervals: ``estimate +- 1.96 * standard error``, the standard
errors coming from the inverse of the Fisher information at the optimum (restricted to
ratings with mean 0). They are quick and deterministic, and adequate when each pairing has
dozens of games; with a handful of games they are rough (shown, not hidden).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ELO = 400.0 / math.log(10.0)  # natural-log units -> Elo points
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Game1v1:
    """One game's outcome for the rating fit: ``score`` is seat 0's (1, 0.5 or 0)."""

    seat0: str
    seat1: str
    score: float


@dataclass(frozen=True)
class Rating:
    name: str
    elo: float
    #: Half-width of the 95% interval (``elo +- margin``).
    margin: float


@dataclass(frozen=True)
class Ratings:
    players: tuple[Rating, ...]
    #: Elo advantage of seat 0 and its 95% half-width.
    first_move: float
    first_move_margin: float

    def of(self, name: str) -> Rating:
        for rating in self.players:
            if rating.name == name:
                return rating
        raise KeyError(name)


def fit(games: Sequence[Game1v1], names: Sequence[str] | None = None) -> Ratings:
    """Maximum-likelihood ratings (mean 0) and Wald 95% intervals for ``games``."""
    order = list(names) if names is not None else sorted({g.seat0 for g in games} |
                                                          {g.seat1 for g in games})
    if not order:
        raise ValueError("no players to rate")
    index = {name: i for i, name in enumerate(order)}
    rows = [(index[g.seat0], index[g.seat1], g.score, 1.0) for g in games]
    for a, b in sorted({tuple(sorted((index[g.seat0], index[g.seat1]))) for g in games}):
        rows.append((a, b, 0.5, 0.5))  # one virtual draw per pair, half in each seat
        rows.append((b, a, 0.5, 0.5))
    n = len(order)
    i0 = np.array([r[0] for r in rows], dtype=int)
    i1 = np.array([r[1] for r in rows], dtype=int)
    score = np.array([r[2] for r in rows])
    weight = np.array([r[3] for r in rows])
    # parameters: n ratings (natural-log units) followed by the first-move advantage
    theta = np.zeros(n + 1)
    design = np.zeros((len(rows), n + 1))
    design[np.arange(len(rows)), i0] += 1.0
    design[np.arange(len(rows)), i1] -= 1.0
    design[:, n] = 1.0
    # Identify the model: ratings sum to 0 (projection onto that subspace each step).
    projector = np.eye(n + 1)
    projector[:n, :n] -= 1.0 / n
    info = np.eye(n + 1)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(design @ theta)))
        gradient = design.T @ (weight * (score - p))
        info = design.T @ (design * (weight * p * (1.0 - p))[:, None])
        step = projector @ np.linalg.pinv(projector @ info @ projector) @ projector @ gradient
        theta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    covariance = projector @ np.linalg.pinv(projector @ info @ projector) @ projector
    errors = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    players = tuple(
        Rating(name, float(theta[i] * ELO), float(Z95 * errors[i] * ELO))
        for i, name in enumerate(order)
    )
    return Ratings(players, float(theta[n] * ELO), float(Z95 * errors[n] * ELO))


def expected_score(elo_difference: float) -> float:
    """Expected score of a player rated ``elo_difference`` above its opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))
