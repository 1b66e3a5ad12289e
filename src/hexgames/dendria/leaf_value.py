"""What a random game from a Dendria position would give, estimated without playing it.

Dendria's MCTS values its leaves by the result of random games: its hand-written
heuristic misled a deeper search (docs/ai.md, "Dendria's search and its heuristic"),
while random games are unbiased. But a whole random side-7 game is about 500 steps and a
millisecond, so a search could afford few of them, and cutting them short and scoring
the board as it stood played much worse ("Cut-off random games: 5x the iterations, and
weaker").

This module estimates the same quantity, **the expected result of a random game from
here**, by a logistic model over a few board features, fitted on the positions and the
results of many random games (:func:`training_data`, :func:`fit`;
``experiments/fit_dendria_leaf_value.py`` refits and reports). It is not a judgement of
what good play would do, only of what the random games the search used to play would
say on average, without their noise: one evaluation costs a few microseconds where a
game cost a millisecond. The search plays 20 random steps from a leaf and takes this
estimate there: at equal time it beat the search with whole random games 39 of 40, and
the level 5 issue 16 was filed against 100 of 100 (docs/ai.md, "A fitted value of the
random game").

Features are Dark minus Light (:data:`FEATURE_NAMES`), each also multiplied by how full
the board is (a lead means more late in the game), and a constant; the value is
``tanh(w . f / 2)`` = ``2 * sigmoid(w . f) - 1``, Dark's expected result in [-1, 1].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, njit, njit_inner
from hexgames.dendria import _layout, _repetition, _sight, core
from hexgames.dendria._layout import (
    M_EPOCH,
    M_NFRAME,
    M_NLOG,
    M_OVER,
    M_QUIET,
    M_SCANNED,
    M_SWAPPED,
    M_TO,
    M_USED,
    P_N,
    P_QT,
)
from hexgames.dendria._sight import FED_BY_DARK, FED_BY_LIGHT, _scan_once
from hexgames.dendria.core import (
    _apply_step,
    copy_state,
    core_for,
    generate,
    scores,
    winner_seat,
)
from hexgames.dendria.rules import Rules

#: The board features, Dark minus Light unless said otherwise.
FEATURE_NAMES: tuple[str, ...] = (
    "score",  # the score as it stands (rules section 4)
    "trees",  # cells of trees
    "seeds",  # cells of seeds
    "dendrids",
    "fertilized",  # empty cells a side's dendrids fertilize
    "growable",  # cells of seedbeds that may grow now
    "convertible",  # cells of the other side's forests one may convert now
    "to_move",  # +1 Dark to move, -1 Light
    "to_move_quiet",  # to_move, fading as the quiet count nears its limit
)
_NF = len(FEATURE_NAMES)
#: Length of a feature vector: the features, each times the board's filled share, and 1.
NUM_FEATURES = 2 * _NF + 1

#: The fitted weights (the order of :func:`feature_labels`). Fitted by
#: ``python experiments/fit_dendria_leaf_value.py --games 6000 --every 15 --seed 1``
#: (board sides 5 to 9, 6,000 random games each; see docs/ai.md for its report).
WEIGHTS = np.array([
    0.00357, 0.04240, 0.06911, 0.04001, -0.01509, -0.09631, 0.05570, -0.04409, 0.04800,
    0.20411, -0.01646, 0.03489, 0.12722, 0.02731, 0.20043, 0.24995, 0.11360, -0.14195,
    -0.01716,
])


def feature_labels() -> list[str]:
    """The name of each entry of a feature vector."""
    return [*FEATURE_NAMES, *(f"{name}*filled" for name in FEATURE_NAMES), "constant"]


# ====================================================================== compiled


@njit_inner(nrt=False)
def _fed_groups(nbr, cells, sight, n, v, need, owner, convert, visited, stack):  # type: ignore[no-untyped-def]
    """Cells of the groups of piece code ``v`` that have an adjacent empty cell and all
    of whose adjacent empty cells colour ``need`` fertilizes: the seedbeds that may grow
    (``need`` the owner) or, with ``convert``, the forests that colour ``need`` may
    convert (one adjacent empty cell at least not fertilized by their ``owner``). The
    conditions of the core's grow and convert steps (:func:`.core._raw_follow_ups`)."""
    for i in range(n):
        visited[i] = 0
    total = 0
    need_bits = FED_BY_DARK << 3 * need
    owner_bits = FED_BY_DARK << 3 * owner
    for i in range(n):
        if cells[i] != v or visited[i]:
            continue
        visited[i] = 1
        stack[0] = i
        sp = 1
        size = 0
        fertile = False
        fed = True
        unfed_by_owner = False
        while sp:
            sp -= 1
            c = stack[sp]
            size += 1
            for d in range(6):
                j = nbr[c, d]
                if j < 0:
                    continue
                w = cells[j]
                if w == 0:
                    fertile = True
                    if not sight[j] & need_bits:
                        fed = False
                    if not sight[j] & owner_bits:
                        unfed_by_owner = True
                elif w == v and not visited[j]:
                    visited[j] = 1
                    stack[sp] = j
                    sp += 1
        if fertile and fed and (convert == 0 or unfed_by_owner):
            total += size
    return total


@njit(nrt=False)
def features(tab, prm, cells, meta, scratch, f):  # type: ignore[no-untyped-def]
    """The feature vector of the state into ``f`` (:data:`NUM_FEATURES` entries). Uses
    ``scratch`` as the core does (its sight counts are brought up to date) and its cells
    ``8n:10n``, which the rules leave alone."""
    n = prm[P_N]
    _scan_once(tab, cells, meta, n, scratch)
    sight = scratch[0:n]
    visited = scratch[8 * n : 9 * n]
    stack = scratch[9 * n : 10 * n]
    empty = 0
    seeds = 0
    trees = 0
    dendrids = 0
    fed_dark = 0
    fed_light = 0
    for i in range(n):
        v = cells[i]
        if v == 0:
            empty += 1
            s = sight[i]
            if s & FED_BY_DARK:
                fed_dark += 1
            if s & FED_BY_LIGHT:
                fed_light += 1
        elif v == 1:
            seeds += 1
        elif v == 2:
            trees += 1
        elif v == 3:
            dendrids += 1
        elif v == 4:
            seeds -= 1
        elif v == 5:
            trees -= 1
        else:
            dendrids -= 1
    dark, light = scores(tab, prm, cells, scratch)
    nbr = tab[0]
    # arguments as np.int64: a constant argument would compile a copy per call site
    # (piece code, the colour that must fertilize, the owner, converting or growing)
    growable = (
        _fed_groups(nbr, cells, sight, n, np.int64(1), np.int64(0), np.int64(0),
                    np.int64(0), visited, stack)
        - _fed_groups(nbr, cells, sight, n, np.int64(4), np.int64(1), np.int64(1),
                      np.int64(0), visited, stack))
    convertible = (
        _fed_groups(nbr, cells, sight, n, np.int64(5), np.int64(0), np.int64(1),
                    np.int64(1), visited, stack)
        - _fed_groups(nbr, cells, sight, n, np.int64(2), np.int64(1), np.int64(0),
                      np.int64(1), visited, stack))
    to_move = 1.0 if meta[M_TO] == 0 else -1.0
    f[0] = dark - light
    f[1] = trees
    f[2] = seeds
    f[3] = dendrids
    f[4] = fed_dark - fed_light
    f[5] = growable
    f[6] = convertible
    f[7] = to_move
    f[8] = to_move * (1.0 - meta[M_QUIET] / prm[P_QT])
    filled = 1.0 - empty / n
    for k in range(9):
        f[9 + k] = f[k] * filled
    f[18] = 1.0
    return 0


@njit(nrt=False)
def dark_value(tab, prm, cells, meta, scratch, weights, f):  # type: ignore[no-untyped-def]
    """Dark's expected random-game result (-1 to 1) by ``weights``; ``f``: room for the
    features."""
    features(tab, prm, cells, meta, scratch, f)
    z = 0.0
    for k in range(f.shape[0]):
        z += weights[k] * f[k]
    return np.tanh(0.5 * z)


@njit(nrt=False)
def seat_value(tab, prm, cells, meta, scratch, weights, f):  # type: ignore[no-untyped-def]
    """:func:`dark_value` for seat 0 (after the pie rule's swap, seat 0 plays Light)."""
    v = dark_value(tab, prm, cells, meta, scratch, weights, f)
    return -v if meta[M_SWAPPED] else v


@njit(nrt=False)
def sample_random_games(tab, prm, cells0, meta0, seen0, games, seed, every, X, y, steps,  # type: ignore[no-untyped-def]
                        game_of, cells, meta, log, frames, seen, memo, out, hd, scratch):
    """Play random games from ``cells0``/``meta0``/``seen0`` (left untouched) as
    :func:`.core.random_playouts` does, writing the features of every ``every``-th
    position (from a random offset per game) to ``X``, the step it came at to ``steps``,
    its game's number to ``game_of`` and Dark's result of its game (1, 0 or -1) to
    ``y``. Stops when ``X`` is full (that
    game's rows are dropped). Returns the rows written."""
    np.random.seed(seed)
    n = prm[P_N]
    stack = scratch[7 * n : 8 * n]
    limit = (seen.shape[0] * 3) // 4
    epoch = meta[M_EPOCH]
    rows = 0
    for g in range(games):
        copy_state(cells0, meta0, seen0, cells, meta, seen)
        epoch += 1
        meta[M_EPOCH] = epoch
        meta[M_SCANNED] = 0
        meta[M_NLOG] = 0
        meta[M_NFRAME] = 0
        first = rows
        offset = np.random.randint(0, every)
        length = 0
        while meta[M_USED] < limit:
            m = generate(tab, prm, cells, meta, log, frames, seen, memo, out, hd, scratch)
            if m == 0:
                break
            if length % every == offset:
                if rows == X.shape[0]:
                    return first
                features(tab, prm, cells, meta, scratch, X[rows])
                steps[rows] = length
                game_of[rows] = g
                rows += 1
            _apply_step(tab, prm, cells, meta, log, frames, seen,
                        out[np.random.randint(0, m)], stack)
            meta[M_NLOG] = 0
            meta[M_NFRAME] = 0
            length += 1
        epoch = meta[M_EPOCH]
        result = 0.0
        if meta[M_OVER]:
            seat = winner_seat(tab, prm, cells, meta, scratch)
            if seat >= 0:
                result = 1.0 if (seat ^ meta[M_SWAPPED]) == 0 else -1.0
        for r in range(first, rows):
            y[r] = result
    return rows


# ====================================================================== Python side


def position_features(position: Any) -> np.ndarray:
    """The feature vector of a :class:`~hexgames.dendria.position.Position`."""
    state = position.core_state()
    core = state.core
    f = np.zeros(NUM_FEATURES, np.float64)
    features(core.tab, core.params, state.cells, state.meta, state.scratch, f)
    return f


def position_value(position: Any, weights: np.ndarray | None = None) -> float:
    """Seat 0's expected random-game result from ``position`` (exact once it is over)."""
    if position.is_over:
        return float(position.returns()[0])
    state = position.core_state()
    core = state.core
    w = WEIGHTS if weights is None else np.asarray(weights, np.float64)
    return float(seat_value(core.tab, core.params, state.cells, state.meta, state.scratch,
                            w, np.zeros(NUM_FEATURES, np.float64)))


def training_data(rules: Rules, games: int, seed: int = 0, every: int = 15
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X, y, steps, game)``: the features of every ``every``-th position of
    ``games`` random games from the start of ``rules``, Dark's result of each
    position's game, the step each position came at and the number of its game (0 to
    ``games - 1``). One compiled call."""
    if games < 1 or every < 1:
        raise ValueError(f"games and every must be at least 1, got {games} and {every}")
    core = core_for(rules)
    start = core.initial()
    start.widen_history()
    work = start.copy()
    work.seen = np.empty_like(start.seen)
    rows = games * (4 * core.n + 64) // every + games
    X = np.zeros((rows, NUM_FEATURES), np.float64)
    y = np.zeros(rows, np.float64)
    steps = np.zeros(rows, np.int64)
    game = np.zeros(rows, np.int64)
    got = sample_random_games(core.tab, core.params, start.cells, start.meta, start.seen,
                              np.int64(games), np.int64(seed), np.int64(every), X, y, steps,
                              game, work.cells, work.meta, work.log, work.frames, work.seen,
                              work.memo, work.out, work.hd, work.scratch)
    return X[:got], y[:got], steps[:got], game[:got]


def fit(X: np.ndarray, y: np.ndarray, ridge: float = 1e-3, rounds: int = 25) -> np.ndarray:
    """Logistic regression of ``(y + 1) / 2`` (a draw counts half) on ``X`` by Newton's
    method with a small ridge penalty; returns the weights."""
    target = (np.asarray(y, np.float64) + 1.0) / 2.0
    w = np.zeros(X.shape[1])
    for _ in range(rounds):
        q = 1.0 / (1.0 + np.exp(-(X @ w)))
        hessian = (X.T * (q * (1.0 - q))) @ X + ridge * np.eye(X.shape[1])
        step = np.linalg.solve(hessian, X.T @ (q - target) + ridge * w)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def log_loss(X: np.ndarray, y: np.ndarray, weights: np.ndarray) -> float:
    """Mean log loss (nats) of the model's win probability against ``(y + 1) / 2``;
    0.693 is a coin's."""
    target = (np.asarray(y, np.float64) + 1.0) / 2.0
    q = np.clip(1.0 / (1.0 + np.exp(-(X @ weights))), 1e-12, 1 - 1e-12)
    return float(-np.mean(target * np.log(q) + (1 - target) * np.log(1 - q)))


drop_stale_cache(__name__, core.__file__, _layout.__file__, _repetition.__file__,
                 _sight.__file__, _jit.__file__)

__all__ = ["FEATURE_NAMES", "NUM_FEATURES", "WEIGHTS", "dark_value", "feature_labels",
           "features", "fit", "log_loss", "position_features", "position_value",
           "sample_random_games", "seat_value", "training_data"]
