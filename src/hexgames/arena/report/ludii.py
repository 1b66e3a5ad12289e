"""Ludii's metrics that read the evaluation over a game: uncertainty, stability and the
decisiveness threshold, from the heuristic at the start of every turn.

Ludii (``Evaluation/src/metrics/single/stateEvaluation`` of the Ludii player) computes
these from each player's state evaluation before every move. Here the evaluation is the
game's heuristic at the start of every turn (:attr:`hexgames.arena.replay.Replay.trace`,
seat 0's view in [-1, 1]), read as a chance for each seat: ``p0 = (1 + h) / 2`` for seat 0
and ``p1 = 1 - p0`` for seat 1. The heuristic is not a calibrated win probability, so the
figures compare variants and games with each other (see the reference table in
``docs/design.md``), not with Ludii's numbers for other games.

Definitions (one game; the report averages over games):

* **uncertainty** ``= mean over turn starts of 1 - |h| = 1 - 2|p0 - 1/2|``: 1 while the
  game looks 50/50, 0 once one side looks certain to win (Browne's uncertainty: a good
  game keeps its outcome in doubt for long);
* **stability** ``= Var(p0) + Var(p1) = Var(h) / 2`` over the turn starts (population
  variance, summed over the players as Ludii does): 0 for an evaluation that never moves;
  high for a game whose evaluation swings (low stability in Ludii's sense is a large
  number here, as in Ludii);
* **decisiveness threshold** (decisive games) ``= max over turn starts of the eventual
  loser's p``: the best the loser ever stood; once the winner stands above it, the game
  is decided in hindsight;
* **decided at** (decisive games) ``= t / T``: ``t`` the turns played before the winner's
  ``p`` first exceeds the game's threshold, ``T`` the game's turns (1 when it never does
  before the end: the game was decided by its last turn).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

__all__ = ["decided_at", "decisiveness_threshold", "stability", "uncertainty"]


def _chances(trace: Sequence[float], seat: int) -> list[float]:
    """``seat``'s chance ``(1 + h) / 2`` at each turn start (``h`` is seat 0's view)."""
    sign = 1.0 if seat == 0 else -1.0
    return [(1.0 + sign * value) / 2.0 for value in trace]


def uncertainty(turn_starts: Sequence[float]) -> float | None:
    """Mean of ``1 - |h|`` over the turn starts (``None`` for a game without one)."""
    if not turn_starts:
        return None
    return statistics.fmean(1.0 - min(1.0, abs(value)) for value in turn_starts)


def stability(turn_starts: Sequence[float]) -> float | None:
    """Each seat's variance of its chance over the turn starts, summed over the seats."""
    if not turn_starts:
        return None
    return sum(statistics.pvariance(_chances(turn_starts, seat)) for seat in (0, 1))


def decisiveness_threshold(turn_starts: Sequence[float], winning_seat: int | None
                           ) -> float | None:
    """The eventual loser's best chance over the turn starts (``None`` for a draw)."""
    if winning_seat is None or not turn_starts:
        return None
    return max(_chances(turn_starts, 1 - winning_seat))


def decided_at(turn_starts: Sequence[float], winning_seat: int | None) -> float | None:
    """Share of the turns played before the winner first stood above the threshold."""
    threshold = decisiveness_threshold(turn_starts, winning_seat)
    if threshold is None or winning_seat is None:
        return None
    for turn, chance in enumerate(_chances(turn_starts, winning_seat)):
        if chance > threshold:
            return turn / len(turn_starts)
    return 1.0
