"""Compiled (numba) terms of the Benediction heuristic (:mod:`.evaluation`).

:func:`heuristic_value` computes exactly what :func:`.evaluation.heuristic_reference`
computes once the winning-action test is done -- the same terms, the same float
operations in the same order, so the same bits -- from the position's public read-only
arrays (``owners``, ``sizes``, ``flags``) and the board geometry of
:func:`._layout.geometry_arrays`. ``tests/test_mcts_identical.py`` compares the two on
many random positions.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, njit, njit_inner
from hexgames.benediction import _layout, _legal_actions, _tables
from hexgames.benediction._layout import BIG, geometry_arrays
from hexgames.benediction._legal_actions import _reach
from hexgames.benediction._tables import (
    BLESSED,
    BLOCK,
    BLUE,
    CURSED,
    EMPTY,
    KING,
    MAX_TRAVEL,
    RED,
    wall_distance,
)

# Weights of the heuristic's terms (each term lies roughly in [-1, 1]); the sum goes
# through tanh. :mod:`.evaluation` imports them for its Python definition.
W_MATERIAL = 1.0
W_KING_RACE = 1.2
W_MEN_PROGRESS = 0.6
W_BRIDGE = 0.5
W_BLESSED = 0.35
W_CURSED = 0.25
W_ATTACKED = 0.9  # per side: one of its kings can be captured by the enemy's next action
W_PORTAL = 0.9  # per side: one of its kings stands one action from a blessing


@cache
def geometry(side: int) -> tuple[np.ndarray, ...]:
    """``(rays, portal, nbr, wall_pts, dist)`` of a board side: the core's ray, portal,
    neighbour and wall tables and ``dist[c, i]``, hex steps from ``i`` to the enemy wall
    of colour ``c`` (:func:`._tables.wall_distance`)."""
    rays, portal, nbr, _badj, _wall, _zm, _zf, _zc, wall_pts = geometry_arrays(side)
    red, blue = wall_distance(side)[1:]
    dist = np.array([(0,) * len(red), red, blue], np.int64)
    return rays, portal, nbr, wall_pts, dist


@njit_inner
def _attacked(owner, size, flags, rays, portal, color, scratch):  # type: ignore[no-untyped-def]
    """Whether some man of the enemy of ``color`` reaches a king of ``color`` with one
    action (``min(1, evaluation.attackers(...))``)."""
    n = owner.shape[0]
    enemy = 3 - color
    geo = (rays, portal)
    has_king = False
    for i in range(n):
        if owner[i] == color and flags[i] & KING:
            has_king = True
            break
    if not has_king:
        return 0
    fnp = scratch[0:n]
    fp = scratch[n : 2 * n]
    touched = scratch[2 * n : 3 * n]
    for i in range(n):
        if owner[i] != enemy:
            continue
        steps = size[i]
        if steps > MAX_TRAVEL:
            steps = MAX_TRAVEL
        if steps < 1:
            continue
        nt = _reach(geo, owner, i, steps, enemy, fnp, fp, touched)
        hit = False
        for t in range(nt):
            j = touched[t]
            fnp[j] = BIG
            fp[j] = BIG
            if owner[j] == color and flags[j] & KING:
                hit = True
        if hit:
            return 1
    return 0


@njit_inner
def _portal_threat(owner, size, flags, rays, portal, color, scratch):  # type: ignore[no-untyped-def]
    """:func:`.evaluation.portal_threat`."""
    n = owner.shape[0]
    geo = (rays, portal)
    fnp = scratch[0:n]
    fp = scratch[n : 2 * n]
    touched = scratch[2 * n : 3 * n]
    for k in range(n):
        if owner[k] != color or not flags[k] & KING:
            continue
        steps = size[k]
        if steps > MAX_TRAVEL:
            steps = MAX_TRAVEL
        if steps < 1:
            continue
        nt = _reach(geo, owner, k, steps, color, fnp, fp, touched)
        hit = False
        for t in range(nt):
            j = touched[t]
            if fp[j] <= steps and (owner[j] != color or not flags[j] & KING):
                hit = True
            fnp[j] = BIG
            fp[j] = BIG
        if hit:
            return 1
    return 0


@njit_inner
def _bridge(owner, nbr, wall_pts, dist, far, color, mark, queue):  # type: ignore[no-untyped-def]
    """:func:`.evaluation._bridge_progress` for one colour."""
    n = owner.shape[0]
    for p in range(n):
        mark[p] = 0
    best = 0.0
    for start in wall_pts[color]:
        if start < 0:
            break
        if owner[start] != color or mark[start]:
            continue
        mark[start] = 1
        queue[0] = start
        qn = 1
        head = 0
        nearest = dist[color, start]
        while head < qn:
            q = queue[head]
            head += 1
            if dist[color, q] < nearest:
                nearest = dist[color, q]
            for r in nbr[q]:
                if r < 0:
                    break
                if owner[r] == color and not mark[r]:
                    mark[r] = 1
                    queue[qn] = r
                    qn += 1
        v = (far - nearest) / far
        if v > best:
            best = v
    return best


@njit
def heuristic_value(owner, size, flags, rays, portal, nbr, wall_pts, dist, far, count_red, count_blue, mover):  # type: ignore[no-untyped-def]  # noqa: E501
    """The heuristic of a position that is not over and whose side to act (``mover``)
    has no winning action: a value in [-1, 1], positive when Red stands better."""
    n = owner.shape[0]
    progress_r = 0.0
    progress_b = 0.0
    king_r = 0.0
    king_b = 0.0
    blessed_r = 0
    blessed_b = 0
    cursed_r = 0
    cursed_b = 0
    for i in range(n):
        o = owner[i]
        if o == EMPTY:
            continue
        if o == BLOCK:
            continue
        d = dist[o, i]
        s = size[i]
        step = s * (far - d) / far
        f = flags[i]
        if o == RED:
            progress_r += step
        else:
            progress_b += step
        if f & KING:
            closeness = (far - d) / far
            if o == RED:
                if closeness > king_r:
                    king_r = closeness
            elif closeness > king_b:
                king_b = closeness
        elif f & BLESSED:
            if o == RED:
                blessed_r += 1
            else:
                blessed_b += 1
        elif f & CURSED:
            if o == RED:
                cursed_r += 1
            else:
                cursed_b += 1
    total = count_red + count_blue
    if total < 1:
        total = 1
    work = np.empty(3 * n, np.int32)
    work[:] = BIG
    mark = np.zeros(n, np.int8)
    queue = np.empty(n, np.int64)
    bridge_r = _bridge(owner, nbr, wall_pts, dist, far, np.int64(RED), mark, queue)
    bridge_b = _bridge(owner, nbr, wall_pts, dist, far, np.int64(BLUE), mark, queue)
    value = (
        W_MATERIAL * (count_red - count_blue) / total
        + W_KING_RACE * (king_r * king_r - king_b * king_b)
        + W_MEN_PROGRESS * (progress_r / max(1, count_red) - progress_b / max(1, count_blue))
        + W_BRIDGE * (bridge_r - bridge_b)
        + W_BLESSED * math.tanh((blessed_r - blessed_b) / 3)
        - W_CURSED * math.tanh((cursed_r - cursed_b) / 3)
    )
    other = 3 - mover
    sign = 1.0 if mover == RED else -1.0
    danger = W_ATTACKED * _attacked(owner, size, flags, rays, portal, mover, work) + (
        W_PORTAL * _portal_threat(owner, size, flags, rays, portal, other, work)
    )
    pressure = 0.5 * (
        W_ATTACKED * _attacked(owner, size, flags, rays, portal, other, work)
        + W_PORTAL * _portal_threat(owner, size, flags, rays, portal, mover, work)
    )
    value += sign * (pressure - danger)
    return 0.9 * math.tanh(value)


# the compiled code here has the generation's compiled functions and the layout's and the
# tables' constants built in (see drop_stale_cache)
drop_stale_cache(__name__, _legal_actions.__file__, _layout.__file__, _jit.__file__,
                 _tables.__file__)
