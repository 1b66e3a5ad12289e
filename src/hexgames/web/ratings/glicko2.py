"""Glicko-2, the maths alone: a rating, its update after a rating period, inactivity.

The maths follows Mark Glickman, *Example of the Glicko-2 system* (2013,
http://www.glicko.net/glicko/glicko2.pdf), steps 1 to 8, with the volatility found by
the "Illinois" regula falsi of step 5.1; the paper's worked example is a unit test
(``tests/test_web_players.py``).

Pure: numbers in, numbers out (and ISO times for inactivity). How the site applies it to
finished games (pools, who counts, once per game) is :mod:`hexgames.web.ratings.games`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

#: Glicko-2 scale factor (400 / ln 10).
SCALE = 173.7178
START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
#: The system constant tau (the paper suggests 0.3 to 1.2; its example uses 0.5).
TAU = 0.5
#: Convergence tolerance of the volatility iteration (the paper's epsilon).
EPSILON = 0.000001
#: Length of a rating period for inactivity, in days.
PERIOD_DAYS = 1.0


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale (rating, deviation) with its volatility."""

    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period with ``results`` ((opponent, score)
    pairs, score 1 for a win, 0.5 a draw, 0 a loss). No results: only the deviation grows
    (step 6)."""
    mu = (player.rating - START_RATING) / SCALE  # step 2
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        return Rating(player.rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)
    opponents = [((o.rating - START_RATING) / SCALE, o.deviation / SCALE, s) for o, s in results]
    v_inverse = 0.0  # step 3
    delta_sum = 0.0  # step 4 (without the factor v)
    for mu_j, phi_j, score in opponents:
        g, e = _g(phi_j), _expected(mu, mu_j, phi_j)
        v_inverse += g * g * e * (1.0 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inverse
    delta = v * delta_sum
    sigma_new = _volatility(phi, sigma, v, delta, tau)  # step 5
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)  # step 6
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)  # step 7
    mu_new = mu + phi_new * phi_new * delta_sum
    return Rating(SCALE * mu_new + START_RATING, SCALE * phi_new, sigma_new)  # step 8


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex)
                / (2.0 * (phi * phi + v + ex) ** 2)) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def idle(rating: Rating, periods: int) -> Rating:
    """The rating after ``periods`` rating periods without games (step 6 repeated),
    the deviation capped at the starting one."""
    if periods <= 0:
        return rating
    phi = rating.deviation / SCALE
    phi = math.sqrt(phi * phi + periods * rating.volatility * rating.volatility)
    return Rating(rating.rating, min(phi * SCALE, START_DEVIATION), rating.volatility)


def periods_between(since: str, until: str) -> int:
    """Whole rating periods from the ISO time ``since`` to ``until``."""
    try:
        seconds = (datetime.fromisoformat(until) - datetime.fromisoformat(since)).total_seconds()
    except ValueError:
        return 0
    return max(0, int(seconds // (PERIOD_DAYS * 86400)))
