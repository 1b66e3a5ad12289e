"""Benediction's compiled legal-action generation: where a stack can travel
(:func:`_reach`, the portal included), which merges the rules allow, and the list of
legal action codes of a position (:func:`generate`), in numba.

Actions are integer **codes** in a fixed action space per variant (``K`` =
``max_stack``, ``n`` = points of the board):

* ``(origin * n + target) * K + k``: a man action; ``k = 0`` moves the whole stack
  (a Move, or a Merge when the target holds a friendly man), ``k >= 1`` splits ``k``
  checkers off (a split or split-merge);
* ``n*n*K + target``: a Drop; ``n*n*K + n + target``: a Block.

The arrays are those of :mod:`._layout`; playing an action is :mod:`.core`'s. A leading
underscore marks a compiled helper without a Python entry (``njit_inner``), which the
package's other compiled modules call.
"""

from __future__ import annotations

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, njit, njit_inner
from hexgames.benediction import _layout, _tables
from hexgames.benediction import rules as _rules
from hexgames.benediction._layout import (
    BIG,
    M_CNT,
    M_TO,
    M_WIN,
    P_K,
    P_N,
    P_START,
    P_SUPPLY,
    P_ZLEN,
    WIN_NONE,
)
from hexgames.benediction._tables import BLESSED, BLOCK, CURSED, EMPTY, KING, LOCKED, MAX_TRAVEL
from hexgames.benediction.rules import START_CHECKERS


@njit_inner(nrt=False)
def _reach(geo, owner, i, steps, c, fnp, fp, touched):  # type: ignore[no-untyped-def]
    """Targets within ``steps`` of ``i`` for colour ``c``: fills ``fnp``/``fp`` (fewest
    steps without / through the portal) for each target listed in ``touched``."""
    rays = geo[0]
    portal = geo[1]
    nt = 0
    for d in range(6):
        pa = portal[c, i, d]
        n = 0
        for step in range(MAX_TRAVEL):
            j = rays[c, i, d, step]
            if j < 0 or n >= steps or owner[j] == BLOCK:
                break
            n += 1
            if j == i:
                continue
            if fnp[j] == BIG and fp[j] == BIG:
                touched[nt] = j
                nt += 1
            if n <= pa:
                if n < fnp[j]:
                    fnp[j] = n
            elif n < fp[j]:
                fp[j] = n
    return nt


@njit_inner(nrt=False)
def _merge_ok(f, s, ft, st, passed, max_stack):  # type: ignore[no-untyped-def]
    if f & ft & KING:
        return False
    gains = passed and not (f & CURSED)
    if f & CURSED and not (ft & BLESSED):
        return False
    if ft & CURSED and not ((f & BLESSED) or gains):
        return False
    total = s + st
    if total > 2 and not ((f & BLESSED) or (ft & BLESSED) or gains):
        return False
    return total <= max_stack


@njit_inner(nrt=False)
def _can_drop(params, meta, c):  # type: ignore[no-untyped-def]
    supply = params[P_SUPPLY]
    return supply < 0 or meta[M_CNT + c] < supply + START_CHECKERS


@njit(nrt=False)
def generate(geo, params, owner, size, flags, near, meta, out, outp, scratch):  # type: ignore[no-untyped-def]
    """Write the legal action codes to ``out`` (and whether each passed the enemy wall
    to ``outp``); return how many. ``scratch``: ``3 n`` int32, first ``2 n`` = BIG."""
    if meta[M_WIN] != WIN_NONE:
        return 0
    c = meta[M_TO]
    n = params[P_N]
    kk = params[P_K]
    ms = params[P_K]
    fnp = scratch[0:n]
    fp = scratch[n : 2 * n]
    touched = scratch[2 * n : 3 * n]
    cnt = 0
    for i in range(n):
        if owner[i] != c:
            continue
        s = size[i]
        f = flags[i]
        movable = not (f & LOCKED)
        nt = _reach(geo, owner, i, np.int64(s), c, fnp, fp, touched)
        for t in range(nt):
            j = touched[t]
            a = fnp[j]
            mp = fp[j]
            fewest = a if a < mp else mp
            fnp[j] = BIG
            fp[j] = BIG
            base = (i * n + j) * kk
            if owner[j] == c:
                fj = flags[j]
                sj = size[j]
                passed = mp <= s
                if _merge_ok(f, np.int64(s), fj, sj, passed, ms):
                    out[cnt] = base
                    outp[cnt] = passed
                    cnt += 1
                for k in range(fewest, s):
                    passed = mp <= k
                    if _merge_ok(f, np.int64(k), fj, sj, passed, ms):
                        out[cnt] = base + k
                        outp[cnt] = passed
                        cnt += 1
            else:
                if movable:
                    out[cnt] = base
                    outp[cnt] = mp <= s
                    cnt += 1
                for k in range(fewest, s):
                    out[cnt] = base + k
                    outp[cnt] = mp <= k
                    cnt += 1
    man_space = n * n * kk
    if _can_drop(params, meta, c):
        zo = P_ZLEN + 8 * (c - 1)
        for z in range(params[zo]):
            p = params[zo + 1 + z]
            if owner[p] == EMPTY:
                out[cnt] = man_space + p
                outp[cnt] = False
                cnt += 1
    s0 = params[P_START]
    s1 = params[P_START + 1]
    for i in range(n):
        if owner[i] == EMPTY and near[i] == 0 and i != s0 and i != s1:
            out[cnt] = man_space + n + i
            outp[cnt] = False
            cnt += 1
    return cnt


@njit_inner(nrt=False)
def _has_action(geo, params, owner, size, flags, near, meta, out, outp, scratch):  # type: ignore[no-untyped-def]
    n = params[P_N]
    s0 = params[P_START]
    s1 = params[P_START + 1]
    for i in range(n):
        if owner[i] == EMPTY and near[i] == 0 and i != s0 and i != s1:
            return True
    return generate(geo, params, owner, size, flags, near, meta, out, outp, scratch) > 0


@njit(nrt=False)
def passed_wall(geo, params, owner, size, meta, code, scratch):  # type: ignore[no-untyped-def]
    """Whether the man action ``code`` (legal) passes the enemy wall on its way."""
    n = params[P_N]
    kk = params[P_K]
    if code >= n * n * kk:
        return False
    k = code % kk
    j = (code // kk) % n
    i = code // kk // n
    steps = k if k > 0 else size[i]
    fnp = scratch[0:n]
    fp = scratch[n : 2 * n]
    touched = scratch[2 * n : 3 * n]
    nt = _reach(geo, owner, i, steps, meta[M_TO], fnp, fp, touched)
    result = fp[j] <= steps
    for t in range(nt):
        fnp[touched[t]] = BIG
        fp[touched[t]] = BIG
    return result



# the compiled code here has the layout's and the tables' constants built in (see
# drop_stale_cache)
drop_stale_cache(__name__, _jit.__file__, _layout.__file__, _tables.__file__, _rules.__file__)

__all__ = ["generate", "passed_wall"]
