"""Glicko-2 ratings of players, per game (and per variant), from finished rated games.

The maths follows Mark Glickman, *Example of the Glicko-2 system* (2013,
http://www.glicko.net/glicko/glicko2.pdf), steps 1 to 8, with the volatility found by
the "Illinois" regula falsi of step 5.1; the paper's worked example is a unit test
(``tests/test_web_ratings.py``).

How the site applies it (docs/web.md, "Ratings"):

- **Pools.** A rating belongs to a player and a *pool*: the game's name for its default
  options (``"dendria"``, ``"benediction"``), or the name followed by every option that
  differs from its default (``"dendria board_side=9"``). So Dendria on a side-9 board is
  rated apart from the standard side 7, as is any other variant; no game is named here.
- **Rating periods.** Glicko-2 updates ratings once per rating period with all of its
  games. The site updates at once after every rated game, treating the game as a rating
  period of its own (as lichess does), and counts inactivity in whole periods of
  :data:`PERIOD_DAYS` day(s): before a player's next game (and whenever a rating is
  shown), step 6 (``phi* = sqrt(phi^2 + sigma^2)``) is applied once per period elapsed
  since their last rated game, capped at the starting deviation (350). Inactivity thus
  makes a rating less certain, as in the paper.
- **Who counts.** Only games created ``rated`` (online games; the lobby sets it), which
  ended with a result (a win or a draw; an aborted game has no winner), between two
  different identities that both picked a name (no guests), in which **each side made
  at least one action of its own** (a resignation or a timeout before that is recorded
  but unrated, like an abort: no farming of 0-move wins). :func:`record_rated_result`
  applies a game once, whoever calls it and however often.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from hexgames.game import get_game
from hexgames.web.identity import GUEST_PREFIX
from hexgames.web.storage.base import RatingRecord, Storage, StoredGame, seat_holders

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
#: A rating whose deviation is above this is provisional (shown with a "?").
PROVISIONAL_DEVIATION = 110.0


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


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def current(record: RatingRecord, at: str | None = None) -> Rating:
    """A stored rating as of ``at`` (now by default): its deviation grown with the
    periods of inactivity since its last game."""
    stored = Rating(record.rating, record.deviation, record.volatility)
    return idle(stored, periods_between(record.rated_at, at or now()))


def rating_pool(game_name: str, options: Mapping[str, Any]) -> str:
    """The pool a game's ratings belong to: the game's name, followed by each option
    that differs from the game's default (``"dendria board_side=9"``)."""
    game = get_game(game_name)
    parts = [game.name]
    for option in sorted(game.options, key=lambda option: option.name):
        if option.name in options and options[option.name] != option.default:
            value = options[option.name]
            shown = "off" if value is None else str(value).lower()
            parts.append(f"{option.name}={shown}")
    return " ".join(parts)


def pool_title(pool: str) -> str:
    """A pool as people read it: ``"Dendria (board_side=9)"``."""
    name, _, rest = pool.partition(" ")
    try:
        title = get_game(name).title
    except (KeyError, ValueError):
        title = name
    return f"{title} ({rest.replace(' ', ', ')})" if rest else title


def seat_scores(match: Any) -> tuple[float, float] | None:
    """The rated result of a finished game as (seat 0, seat 1) scores, or ``None`` when
    the game has no result to rate (still playing, aborted)."""
    if not match.is_over:
        return None
    stored = match.stored
    position = match.position
    winner = stored.winner if stored.status == "over" else position.winner
    if winner is None:
        if stored.status == "over" and not position.is_over:
            return None  # ended by the site without a winner: an abort
        winner = "draw" if position.is_over else None
    if winner is None:
        return None
    if winner == "draw":
        return 0.5, 0.5
    if winner == position.color_of_seat(0):
        return 1.0, 0.0
    if winner == position.color_of_seat(1):
        return 0.0, 1.0
    return None


def record_rated_result(storage: Storage, game: Any, at: str | None = None
                        ) -> list[dict[str, Any]] | None:
    """Apply a finished rated game to its players' ratings, once.

    ``game`` is a :class:`~hexgames.web.matches.Match` (or a ``StoredGame``, replayed
    to learn which seat won). Returns the rating changes, one entry per seat
    (``{"seat", "player_id", "pool", "before", "after", "change", "deviation",
    "games"}``), also when they were applied by an earlier call (idempotent); ``None``
    when the game does not count (not rated, not over, no result, not two named
    identities, a side that made no action).
    Blocking (storage): call it from a thread.
    """
    if isinstance(game, StoredGame):
        from hexgames.web.matches import Match

        game = Match(game)
    stored = game.stored
    if not stored.rated:
        return None
    holders = dict(seat_holders(stored.players))
    if set(holders) != {0, 1} or holders[0] == holders[1]:
        return None
    if not (game.seat_has_moved(0) and game.seat_has_moved(1)):
        return None  # a side never played: no rated result (as an abort)
    scores = seat_scores(game)
    if scores is None:
        return None
    names = storage.player_names([holders[0], holders[1]])
    if any(names.get(holders[seat], GUEST_PREFIX).startswith(GUEST_PREFIX)
           for seat in (0, 1)):
        return None  # guests do not play rated games (see hexgames.web.accounts)
    pool = rating_pool(stored.game, stored.options)
    at = at or now()
    ids = (holders[0], holders[1])

    def compute(first: RatingRecord | None, second: RatingRecord | None
                ) -> tuple[RatingRecord, RatingRecord, Any]:
        before = [current(r, at) if r is not None else Rating() for r in (first, second)]
        records, changes = [], []
        for seat, record in enumerate((first, second)):
            after = update(before[seat], [(before[1 - seat], scores[seat])])
            score = scores[seat]
            games = (record.games if record else 0) + 1
            records.append(RatingRecord(
                ids[seat], pool, after.rating, after.deviation, after.volatility, games,
                (record.wins if record else 0) + (score == 1.0),
                (record.losses if record else 0) + (score == 0.0),
                (record.draws if record else 0) + (score == 0.5),
                at,
            ))
            changes.append({
                "seat": seat,
                "player_id": ids[seat],
                "pool": pool,
                "before": round(before[seat].rating, 1),
                "after": round(after.rating, 1),
                "change": round(after.rating - before[seat].rating, 1),
                "deviation": round(after.deviation, 1),
                "games": games,
            })
        return records[0], records[1], changes

    _, changes = storage.apply_rated_result(stored.id, pool, ids, at, compute)
    return changes


def rating_view(record: RatingRecord, at: str | None = None) -> dict[str, Any]:
    """A rating as the API shows it (deviation as of now)."""
    rating = current(record, at)
    return {
        "pool": record.pool,
        "title": pool_title(record.pool),
        "game": record.pool.partition(" ")[0],
        "rating": round(rating.rating, 1),
        "deviation": round(rating.deviation, 1),
        "volatility": round(rating.volatility, 6),
        "provisional": rating.deviation > PROVISIONAL_DEVIATION,
        "games": record.games,
        "wins": record.wins,
        "losses": record.losses,
        "draws": record.draws,
        "last_game_at": record.rated_at,
    }
