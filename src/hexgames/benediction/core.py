"""Benediction's compiled rules core: the same rules as :mod:`.position`, in numba.

The state of one game is a handful of numpy arrays (``owner``, ``size``, ``flags``,
``near`` per point, and ``meta``: side to act, actions left, turn, result, counters and
the Zobrist key), and every rule is an ``@njit`` function over them: legal
action generation, apply with the after-action steps (rules section 6), undo, and the
position key (the same key as :attr:`Position.key`). :func:`random_playouts` plays many
whole random games inside one compiled call, which is what makes random playouts, the
random player and the benchmark's ``kernel_actions_per_s`` fast.

Actions are integer **codes** in a fixed action space per variant (``K`` =
``max_stack``, ``n`` = points of the board):

* ``(origin * n + target) * K + k``: a man action; ``k = 0`` moves the whole stack
  (a Move, or a Merge when the target holds a friendly man), ``k >= 1`` splits ``k``
  checkers off (a split or split-merge);
* ``n*n*K + target``: a Drop; ``n*n*K + n + target``: a Block.

:meth:`Core.to_action` and :meth:`Core.code_of` map codes to and from the
:class:`~hexgames.benediction.actions.Action` values of the Python engine.

The Python :class:`~hexgames.benediction.position.Position` stays the reference
(oracle): ``tests/test_benediction_core.py`` plays random games on both and compares
legal action sets, boards, keys and results at every step.

Compiled code is cached on disk (see :mod:`hexgames._jit`); the first
use on a machine compiles for a few seconds, which :func:`warm_up` announces.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, njit, njit_inner, signed64, view_as, view_nd
from hexgames.benediction._tables import (
    BLESSED,
    BLOCK,
    BLUE,
    CURSED,
    EMPTY,
    KING,
    LOCKED,
    MAX_TRAVEL,
    MERGE,
    MOVE,
    RED,
    SPLIT,
    tables,
)
from hexgames.benediction.actions import Action
from hexgames.benediction.rules import START_CHECKERS, Rules, Termination

# ------------------------------------------------------------------ layout of meta
M_TO, M_AL, M_ACTED, M_TURN, M_WIN = 0, 1, 2, 3, 4
M_CNT = 5  # M_CNT + colour: checkers of that colour on the board (6, 7); meta[5] is 0
M_BK = 7  # M_BK + colour: blessed kings of that colour (8, 9)
M_BKEY, M_NLOG, M_NFRAME, M_LOGGING = 10, 11, 12, 13
M_REASON = 14
M_FCAP, M_LCAP = 15, 16  # capacity of the frames and of the log in a Position's buffer
META_LEN = 20
# ------------------------------------------------------------------ layout of params
P_N, P_K, P_SUPPLY, P_MAXTURNS, P_FIRST, P_START = 0, 1, 2, 3, 4, 5  # starts at 6, 7
P_ZLEN = 7  # P_ZLEN + 8 * (colour - 1): zone length, then the zone points
PARAMS_LEN = 24
#: Result codes in ``meta[M_WIN]``: nobody yet, red, blue, draw (turn cap).
WIN_NONE, WIN_DRAW = 0, 3
#: Reason codes in ``meta[M_REASON]``.
REASONS: tuple[Termination | None, ...] = (
    None,
    Termination.KING_CAPTURED,
    Termination.BLESSED_KING,
    Termination.NO_LEGAL_ACTION,
    Termination.TURN_LIMIT,
)
R_KING, R_BLESSED, R_STUCK, R_LIMIT = 1, 2, 3, 4
_BIG = 1 << 20
_MASK64 = (1 << 64) - 1
FRAME_LEN = 8


# ====================================================================== kernels
@njit_inner(nrt=False)
def _put(geo, owner, size, flags, meta, log, i, o, s, f):  # type: ignore[no-untyped-def]
    """Set point ``i``; keeps key, counters and (when logging) the undo log.

    Callers pass ``i``, ``o``, ``s`` and ``f`` as int64 (``np.int64`` around constants
    and int8 reads): numba compiles a helper once per distinct set of argument types,
    and each constant argument is a type of its own, so it compiled seven copies of
    this one."""
    zman = geo[5]
    zflag = geo[6]
    old = owner[i]
    if meta[M_LOGGING]:
        k = meta[M_NLOG]
        log[k, 0] = i
        log[k, 1] = old
        log[k, 2] = size[i]
        log[k, 3] = flags[i]
        meta[M_NLOG] = k + 1
    key = meta[M_BKEY]
    if old != 0:
        os_ = size[i]
        of = flags[i]
        key ^= zman[i, old * 16 + os_] ^ zflag[i, old * 16 + of]
        if old != BLOCK:
            meta[M_CNT + old] -= os_
            if of & 3 == 3:
                meta[M_BK + old] -= 1
    if o != 0:
        key ^= zman[i, o * 16 + s] ^ zflag[i, o * 16 + f]
        if o != BLOCK:
            meta[M_CNT + o] += s
            if f & 3 == 3:
                meta[M_BK + o] += 1
    meta[M_BKEY] = key
    owner[i] = o
    size[i] = s
    flags[i] = f


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
            if fnp[j] == _BIG and fp[j] == _BIG:
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
    to ``outp``); return how many. ``scratch``: ``3 n`` int32, first ``2 n`` = _BIG."""
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
            fnp[j] = _BIG
            fp[j] = _BIG
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
        fnp[touched[t]] = _BIG
        fp[touched[t]] = _BIG
    return result


@njit(nrt=False)
def apply(geo, params, owner, size, flags, near, meta, log, frames, code, passed, out, outp, scratch):  # type: ignore[no-untyped-def]  # noqa: E501
    """Play the legal action ``code`` and settle its consequences (rules section 6).
    When ``meta[M_LOGGING]``, pushes an undo frame (``log``/``frames`` must have room)."""
    _apply_rules(geo, params, owner, size, flags, near, meta, log, frames, code, passed, scratch)
    if meta[M_WIN] == WIN_NONE and not _has_action(
        geo, params, owner, size, flags, near, meta, out, outp, scratch
    ):
        _stuck(meta)
    _settle(meta)


@njit_inner(nrt=False)
def _stuck(meta):  # type: ignore[no-untyped-def]
    """Rule 6.6: the player due to act has no legal action and loses."""
    meta[M_WIN] = 3 - meta[M_TO]
    meta[M_REASON] = R_STUCK


@njit(nrt=False)
def _settle(meta):  # type: ignore[no-untyped-def]
    """A finished game has no actions left and the loser to act (as a board text)."""
    if meta[M_WIN] != WIN_NONE:
        meta[M_AL] = 0
        if meta[M_WIN] != WIN_DRAW:
            meta[M_TO] = 3 - meta[M_WIN]


@njit_inner(nrt=False)
def _apply_rules(geo, params, owner, size, flags, near, meta, log, frames, code, passed, scratch):  # type: ignore[no-untyped-def]
    """:func:`apply` up to the no-legal-action test (6.6), which the caller makes (by a
    generation it needs anyway, in the batched kernels), followed by :func:`_settle`."""
    n = params[P_N]
    kk = params[P_K]
    badj = geo[3]
    nbr = geo[2]
    wall = geo[4]
    c = meta[M_TO]
    e = 3 - c
    logging = meta[M_LOGGING]
    if logging:
        fr = meta[M_NFRAME]
        frames[fr, 0] = meta[M_TO]
        frames[fr, 1] = meta[M_AL]
        frames[fr, 2] = meta[M_ACTED]
        frames[fr, 3] = meta[M_TURN]
        frames[fr, 4] = meta[M_WIN]
        frames[fr, 5] = meta[M_REASON]
        frames[fr, 6] = meta[M_NLOG]
        frames[fr, 7] = -1
        meta[M_NFRAME] = fr + 1
    man_space = n * n * kk
    captured_king = False
    pend0 = -1
    pend1 = -1
    if code >= man_space + n:  # block
        t = code - man_space - n
        _put(geo, owner, size, flags, meta, log, t, np.int64(BLOCK), np.int64(0), np.int64(0))
        for q in badj[t]:
            if q < 0:
                break
            near[q] += 1
        if logging:
            frames[meta[M_NFRAME] - 1, 7] = t
    elif code >= man_space:  # drop
        t = code - man_space
        _put(geo, owner, size, flags, meta, log, t, c, np.int64(1), np.int64(LOCKED))
    else:
        k = code % kk
        t = (code // kk) % n
        o = code // kk // n
        s = size[o]
        f = flags[o]
        if k == 0 and owner[t] != c:  # move
            captured_king = owner[t] == e and (flags[t] & KING) != 0
            nf = f | LOCKED
            if passed and not (f & CURSED):
                nf |= BLESSED
            _put(geo, owner, size, flags, meta, log, o, np.int64(EMPTY), np.int64(0), np.int64(0))
            _put(geo, owner, size, flags, meta, log, t, c, np.int64(s), nf)
        elif k == 0:  # merge
            nf = (f | flags[t]) & KING
            if f & KING and passed:
                nf |= BLESSED
            st = size[t]
            _put(geo, owner, size, flags, meta, log, o, np.int64(EMPTY), np.int64(0), np.int64(0))
            _put(geo, owner, size, flags, meta, log, t, c, s + st, nf)
        elif owner[t] == c:  # split-merge
            nf = (f | flags[t]) & KING
            if f & KING and passed:
                nf |= BLESSED
            _put(geo, owner, size, flags, meta, log, t, c, k + size[t], nf)
            _put(geo, owner, size, flags, meta, log, o, c, s - k, f & (KING | LOCKED))
        else:  # split onto an empty point or an enemy man
            captured_king = owner[t] == e and (flags[t] & KING) != 0
            sub = (f & (KING | CURSED)) | LOCKED
            if passed and not (f & CURSED):
                sub |= BLESSED
            elif not (f & (KING | CURSED)):
                pend0 = t
            if not (f & (KING | CURSED)):
                pend1 = o
            _put(geo, owner, size, flags, meta, log, t, c, k, sub)
            _put(geo, owner, size, flags, meta, log, o, c, s - k, f & (KING | LOCKED | CURSED))
    # crowning
    for h in range(2):
        p = params[P_START + h]
        op = owner[p]
        if EMPTY < op < BLOCK and not (flags[p] & KING):
            _put(geo, owner, size, flags, meta, log, p, np.int64(op), np.int64(size[p]),
                 KING | (flags[p] & LOCKED))
    # bridges: only a colour with a man on the enemy wall can have one
    wall_pts = geo[8]
    mark = scratch[3 * n : 4 * n]
    queue = scratch[4 * n : 5 * n]
    for col in range(1, 3):
        en = 3 - col
        any_on = False
        for p in wall_pts[en]:
            if p < 0:
                break
            if owner[p] == col:
                any_on = True
                break
        if not any_on:
            continue
        for p in range(n):
            mark[p] = 0
        for seed in wall_pts[col]:
            if seed < 0:
                break
            if owner[seed] != col or mark[seed]:
                continue
            mark[seed] = 1
            queue[0] = seed
            qn = 1
            head = 0
            touches = False
            while head < qn:
                q = queue[head]
                head += 1
                if wall[en, q]:
                    touches = True
                for r in nbr[q]:
                    if r < 0:
                        break
                    if owner[r] == col and not mark[r]:
                        mark[r] = 1
                        queue[qn] = r
                        qn += 1
            if touches:
                for x in range(qn):
                    q = queue[x]
                    fq = flags[q]
                    if not (fq & (CURSED | BLESSED)):
                        _put(geo, owner, size, flags, meta, log, np.int64(q), col,
                             np.int64(size[q]), fq | BLESSED)
    if captured_king:
        meta[M_WIN] = c
        meta[M_REASON] = R_KING
    elif meta[M_BK + c] > 0:
        meta[M_WIN] = c
        meta[M_REASON] = R_BLESSED
    elif meta[M_BK + e] > 0:
        meta[M_WIN] = e
        meta[M_REASON] = R_BLESSED
    for p in (pend0, pend1):
        if p >= 0:
            fp_ = flags[p]
            if owner[p] == c and not (fp_ & (KING | BLESSED | CURSED)):
                _put(geo, owner, size, flags, meta, log, p, c, np.int64(size[p]), fp_ | CURSED)
    meta[M_ACTED] += 1
    meta[M_AL] -= 1
    if meta[M_WIN] == WIN_NONE and meta[M_AL] == 0:
        for p in range(n):
            fp_ = flags[p]
            if fp_ & LOCKED and owner[p] != BLOCK:
                _put(geo, owner, size, flags, meta, log, p, np.int64(owner[p]), np.int64(size[p]),
                     fp_ & ~LOCKED)
        meta[M_TO] = e
        meta[M_AL] = 2
        meta[M_ACTED] = 0
        meta[M_TURN] += 1
        cap = params[P_MAXTURNS]
        if cap >= 0 and meta[M_TURN] - 1 >= cap:
            meta[M_WIN] = WIN_DRAW
            meta[M_REASON] = R_LIMIT


@njit
def play_and_generate(geo, params, owner, size, flags, near, meta, log, frames, code, out, outp, scratch):  # type: ignore[no-untyped-def]  # noqa: E501
    """Play the legal action ``code`` (logged for undo) and list the next legal actions
    in ``out``; returns how many. One call per action for a Python loop driving the core."""
    passed = passed_wall(geo, params, owner, size, meta, code, scratch)
    _apply_rules(geo, params, owner, size, flags, near, meta, log, frames, code, passed, scratch)
    m = 0
    if meta[M_WIN] == WIN_NONE:
        m = generate(geo, params, owner, size, flags, near, meta, out, outp, scratch)
        if m == 0:
            _stuck(meta)
    _settle(meta)
    return m


@njit(nrt=False)
def undo(geo, params, owner, size, flags, near, meta, log, frames):  # type: ignore[no-untyped-def]
    """Take back the last action applied with logging on (the caller checks there is one)."""
    badj = geo[3]
    fr = meta[M_NFRAME] - 1
    start = frames[fr, 6]
    logging = meta[M_LOGGING]
    meta[M_LOGGING] = 0
    for x in range(meta[M_NLOG] - 1, start - 1, -1):
        _put(geo, owner, size, flags, meta, log, log[x, 0], log[x, 1], log[x, 2], log[x, 3])
    meta[M_LOGGING] = logging
    meta[M_NLOG] = start
    t = frames[fr, 7]
    if t >= 0:
        for q in badj[t]:
            if q < 0:
                break
            near[q] -= 1
    meta[M_TO] = frames[fr, 0]
    meta[M_AL] = frames[fr, 1]
    meta[M_ACTED] = frames[fr, 2]
    meta[M_TURN] = frames[fr, 3]
    meta[M_WIN] = frames[fr, 4]
    meta[M_REASON] = frames[fr, 5]
    meta[M_NFRAME] = fr


@njit(nrt=False)
def state_key(geo, meta):  # type: ignore[no-untyped-def]
    """The Zobrist key (as a signed 64-bit integer; same bits as :attr:`Position.key`)."""
    z = geo[7]
    w = meta[M_WIN]
    if w != WIN_NONE:
        skey = z[1 + w]
    else:
        skey = 0
        if meta[M_TO] == BLUE:
            skey ^= z[0]
        if meta[M_AL] == 2:
            skey ^= z[1]
    return meta[M_BKEY] ^ skey


@njit_inner(nrt=False)
def _reset_state(owner0, size0, flags0, near0, meta0, owner, size, flags, near, meta):  # type: ignore[no-untyped-def]
    """Copy a start state into a game's arrays. Loops, not ``owner[:] = owner0``: numba
    compiles an array-to-array slice copy with its shape-mismatch error, whose message
    formatting (``str`` of ints, string concatenation) cost about 3 s of a cold
    warm-up."""
    for i in range(owner0.shape[0]):
        owner[i] = owner0[i]
        size[i] = size0[i]
        flags[i] = flags0[i]
    for i in range(near0.shape[0]):
        near[i] = near0[i]
    for i in range(meta0.shape[0]):
        meta[i] = meta0[i]


@njit
def random_playouts(geo, params, owner0, size0, flags0, near0, meta0, games, seed, max_actions, winners, lengths):  # type: ignore[no-untyped-def]  # noqa: E501
    """Play ``games`` uniformly random games from the given state inside compiled code
    (each action after a full legal-action generation). Fills ``winners`` (result codes,
    0 when ``max_actions`` ran out) and ``lengths``; returns the actions played."""
    np.random.seed(seed)
    n = params[P_N]
    cap = n * n * params[P_K] + 2 * n
    out = np.empty(cap, np.int32)
    outp = np.empty(cap, np.bool_)
    scratch = np.full(5 * n, _BIG, np.int32)
    log = np.empty((1, 4), np.int64)
    frames = np.empty((1, FRAME_LEN), np.int64)
    owner = owner0.copy()
    size = size0.copy()
    flags = flags0.copy()
    near = near0.copy()
    meta = meta0.copy()
    total = 0
    for g in range(games):
        _reset_state(owner0, size0, flags0, near0, meta0, owner, size, flags, near, meta)
        meta[M_LOGGING] = 0
        length = 0
        m = generate(geo, params, owner, size, flags, near, meta, out, outp, scratch)
        while meta[M_WIN] == WIN_NONE and length < max_actions:
            x = np.random.randint(0, m)
            _apply_rules(geo, params, owner, size, flags, near, meta, log, frames, np.int64(out[x]),
                         outp[x], scratch)
            length += 1
            if meta[M_WIN] == WIN_NONE:
                # the generation for the next action is also rule 6.6's test
                m = generate(geo, params, owner, size, flags, near, meta, out, outp, scratch)
                if m == 0:
                    _stuck(meta)
            _settle(meta)
        winners[g] = meta[M_WIN]
        lengths[g] = length
        total += length
    return total


@njit
def observe(params, coords, owner, size, flags, meta, seat, cap_turns, out):  # type: ignore[no-untyped-def]
    """Fill ``out`` (``(18, W, W)`` float32) with the planes of
    :func:`hexgames.benediction.encoding.observation` for ``seat``."""
    out[:] = 0.0
    n = params[P_N]
    ms = params[P_K]
    for i in range(n):
        x = coords[i, 0]
        y = coords[i, 1]
        out[10, x, y] = 1.0
        o = owner[i]
        if EMPTY < o < BLOCK:
            out[o - 1, x, y] = 1.0
            v = size[i] / ms
            out[2, x, y] = v if v < 1.0 else 1.0
            f = flags[i]
            if f & KING:
                out[3, x, y] = 1.0
            if f & BLESSED:
                out[4, x, y] = 1.0
            if f & CURSED:
                out[5, x, y] = 1.0
            if f & LOCKED:
                out[6, x, y] = 1.0
        elif o == BLOCK:
            out[7, x, y] = 1.0
    for h in range(2):
        p = params[P_START + h]
        out[8 + h, coords[p, 0], coords[p, 1]] = 1.0
    supply = params[P_SUPPLY]
    owned = START_CHECKERS + (supply if supply > 0 else 0)
    values = np.zeros(7, np.float64)
    values[0] = 1.0 if meta[M_TO] == RED else 0.0
    values[1] = 1.0 if meta[M_ACTED] != 0 else 0.0
    values[2] = 1.0 if meta[M_AL] == 1 else 0.0
    values[3] = 1.0 if seat == 0 else 0.0
    for c in range(1, 3):
        if supply < 0:
            values[3 + c] = 1.0
        else:
            left = supply + START_CHECKERS - meta[M_CNT + c]
            values[3 + c] = (left if left > 0 else 0) / owned
    v = (meta[M_TURN] - 1) / cap_turns
    values[6] = v if v < 1.0 else 1.0
    for q in range(7):
        if values[q] != 0.0:
            for i in range(n):
                out[11 + q, coords[i, 0], coords[i, 1]] = values[q]


@njit
def vector_step(geo, params, owners, sizes, flagss, nears, metas, start, actions, lengths, max_len, id_to_core, core_to_id, rewards, terminated, truncated, mask, legal, nlegal, obs, coords, cap_turns, scratch, out, outp):  # type: ignore[no-untyped-def]  # noqa: E501
    """One step of a batch of games (research ids in ``actions``; ``-1`` = no step, used
    to reset): play, score, auto-reset finished games, then fill the legal-action mask
    and list and the observation of the player to act."""
    owner0, size0, flags0, near0, meta0 = start
    log = np.empty((1, 4), np.int64)
    frames = np.empty((1, FRAME_LEN), np.int64)
    for b in range(owners.shape[0]):
        owner = owners[b]
        size = sizes[b]
        flags = flagss[b]
        near = nears[b]
        meta = metas[b]
        rewards[b, 0] = 0.0
        rewards[b, 1] = 0.0
        terminated[b] = False
        truncated[b] = False
        done = actions[b] < 0
        m = 0
        if not done:
            code = np.int64(id_to_core[actions[b]])
            passed = passed_wall(geo, params, owner, size, meta, code, scratch)
            _apply_rules(geo, params, owner, size, flags, near, meta, log, frames, code,
                         passed, scratch)
            if meta[M_WIN] == WIN_NONE:
                # the list for the mask is also rule 6.6's test
                m = generate(geo, params, owner, size, flags, near, meta, out, outp, scratch)
                if m == 0:
                    _stuck(meta)
            _settle(meta)
            lengths[b] += 1
            w = meta[M_WIN]
            if w != WIN_NONE:
                terminated[b] = True
                done = True
                if w == RED:
                    rewards[b, 0] = 1.0
                    rewards[b, 1] = -1.0
                elif w == BLUE:
                    rewards[b, 0] = -1.0
                    rewards[b, 1] = 1.0
            elif lengths[b] >= max_len:
                truncated[b] = True
                done = True
        if done:
            _reset_state(owner0, size0, flags0, near0, meta0, owner, size, flags, near, meta)
            lengths[b] = 0
            m = generate(geo, params, owner, size, flags, near, meta, out, outp, scratch)
        for x in range(nlegal[b]):
            mask[b, legal[b, x]] = False
        for x in range(m):
            a = core_to_id[out[x]]
            legal[b, x] = a
            mask[b, a] = True
        nlegal[b] = m
        observe(params, coords, owner, size, flags, meta, meta[M_TO] - 1, cap_turns, obs[b])


# ====================================================================== Position drivers
# The entry points of :class:`hexgames.benediction.position.Position`: few arguments
# (each costs at the call boundary), the geometry unpacked from ``G`` inside compiled code.
# A position's state is ``S8`` (int8: owner, size, flags, near; ``n`` each), ``meta``,
# ``FL`` (int64: ``meta[M_FCAP]`` undo frames of FRAME_LEN, then ``meta[M_LCAP]`` log
# entries of 4) and ``lx`` (its legal action list as *extended* codes: a merge is its
# code plus the size of the action space, so that an extended code names one Action).
# ``W`` (int32: the generation's output, then the scratch) and ``WB`` (bool) are work
# buffers shared by the positions of a core (a compiled call holds the GIL).
@njit_inner
def _v2(G, h):  # type: ignore[no-untyped-def]
    """The 2-d geometry array whose header entry is at ``G[h]`` (offset, dimensions), as
    a view (``view_nd``: no checks, no copy; the header was written by :func:`_pack`)."""
    o = G[h]
    return view_nd(G[o : o + G[h + 1] * G[h + 2]], (G[h + 1], G[h + 2]))


@njit_inner
def _unpack(G):  # type: ignore[no-untyped-def]
    h = G_HEADER
    o = G[h]
    d1, d2, d3, d4 = G[h + 1], G[h + 2], G[h + 3], G[h + 4]
    rays = view_nd(G[o : o + d1 * d2 * d3 * d4], (d1, d2, d3, d4))
    h += 5
    o = G[h]
    d1, d2, d3 = G[h + 1], G[h + 2], G[h + 3]
    portal = view_nd(G[o : o + d1 * d2 * d3], (d1, d2, d3))
    h += 5
    nbr = _v2(G, h)
    badj = _v2(G, h + 5)
    wall = _v2(G, h + 10)
    zman = _v2(G, h + 15)
    zflag = _v2(G, h + 20)
    o = G[h + 25]
    zconst = G[o : o + G[h + 26]]
    wall_pts = _v2(G, h + 30)
    geo = (rays, portal, nbr, badj, wall, zman, zflag, zconst, wall_pts)
    return geo, G[0:PARAMS_LEN]


@njit
def _fill(params, owner, meta, out, m, lx):  # type: ignore[no-untyped-def]
    """Copy the ``m`` codes of ``out`` into ``lx`` as extended codes; returns ``m``, or
    ``-3 - m`` when ``lx`` is too short (the caller grows it and generates again)."""
    if m > lx.shape[0]:
        return -3 - m
    n = params[P_N]
    kk = params[P_K]
    man_space = n * n * kk
    na = man_space + 2 * n
    c = meta[M_TO]
    for x in range(m):
        code = out[x]
        if code < man_space and code % kk == 0 and owner[(code // kk) % n] == c:
            code += na
        lx[x] = code
    return m


@njit_inner
def _core_parts(CW):  # type: ignore[no-untyped-def]
    """``G``, ``W`` and ``WB`` of a core's one buffer ``CW`` (see :meth:`Core.__init__`)."""
    L = G_LAYOUT
    return (CW[0 : CW[L]], view_as(CW[CW[L + 1] : CW[L + 1] + CW[L + 2]], np.int32),
            view_as(CW[CW[L + 3] : CW[L + 3] + CW[L + 4]], np.bool_))


@njit_inner
def _pos_parts(PB, n):  # type: ignore[no-untyped-def]
    """``S8`` and ``meta`` of a position's one buffer ``PB`` (int8: ``4 n`` board bytes,
    padded to 8, then ``meta`` as int64)."""
    mo = (4 * n + 7) // 8 * 8
    return PB[0 : 4 * n], view_as(PB[mo : mo + 8 * META_LEN], np.int64)


@njit
def pos_generate(CW, PB, lx):  # type: ignore[no-untyped-def]
    """List the legal actions into ``lx``; returns how many (see :func:`_fill`)."""
    G, W, WB = _core_parts(CW)
    geo, params = _unpack(G)
    S8, meta = _pos_parts(PB, params[P_N])
    n = params[P_N]
    na = n * n * params[P_K] + 2 * n
    owner = S8[0:n]
    m = generate(geo, params, owner, S8[n : 2 * n], S8[2 * n : 3 * n], S8[3 * n : 4 * n],
                 meta, W[0:na], WB, W[na : na + 5 * n])
    return _fill(params, owner, meta, W, m, lx)


@njit
def pos_play(CW, PB, FL, lx, out, nleg, ext):  # type: ignore[no-untyped-def]
    """Play the action with extended code ``ext`` if it is among the ``nleg`` listed in
    ``lx`` (else return -1, changing nothing; -2 when ``FL`` needs room first), log it for
    undo, settle its consequences and list the next legal actions in ``out`` (which may
    be ``lx``); returns how many (see :func:`_fill`)."""
    G, W, WB = _core_parts(CW)
    geo, params = _unpack(G)
    n = params[P_N]
    S8, meta = _pos_parts(PB, n)
    found = False
    for x in range(nleg):
        if lx[x] == ext:
            found = True
            break
    if not found:
        return -1
    fcap = meta[M_FCAP]
    lcap = meta[M_LCAP]
    if meta[M_NFRAME] + 1 >= fcap or meta[M_NLOG] + 3 * n + 16 > lcap:
        return -2
    frames = view_nd(FL[0 : fcap * FRAME_LEN], (fcap, FRAME_LEN))
    log = view_nd(FL[fcap * FRAME_LEN : fcap * FRAME_LEN + lcap * 4], (lcap, 4))
    na = n * n * params[P_K] + 2 * n
    code = ext - na if ext >= na else ext
    owner = S8[0:n]
    size = S8[n : 2 * n]
    flags = S8[2 * n : 3 * n]
    near = S8[3 * n : 4 * n]
    work = W[0:na]
    scratch = W[na : na + 5 * n]
    passed = passed_wall(geo, params, owner, size, meta, code, scratch)
    _apply_rules(geo, params, owner, size, flags, near, meta, log, frames, code, passed, scratch)
    m = 0
    if meta[M_WIN] == WIN_NONE:
        m = generate(geo, params, owner, size, flags, near, meta, work, WB, scratch)
        if m == 0:
            _stuck(meta)
    _settle(meta)
    return _fill(params, owner, meta, work, m, out)


@njit
def pos_undo(CW, PB, FL, lx):  # type: ignore[no-untyped-def]
    """Take back the last logged action and list the legal actions again (returns how
    many, see :func:`_fill`; -1 when there is nothing to take back)."""
    G, W, WB = _core_parts(CW)
    geo, params = _unpack(G)
    n = params[P_N]
    S8, meta = _pos_parts(PB, n)
    if meta[M_NFRAME] == 0:
        return -1
    fcap = meta[M_FCAP]
    lcap = meta[M_LCAP]
    frames = view_nd(FL[0 : fcap * FRAME_LEN], (fcap, FRAME_LEN))
    log = view_nd(FL[fcap * FRAME_LEN : fcap * FRAME_LEN + lcap * 4], (lcap, 4))
    owner = S8[0:n]
    size = S8[n : 2 * n]
    flags = S8[2 * n : 3 * n]
    near = S8[3 * n : 4 * n]
    undo(geo, params, owner, size, flags, near, meta, log, frames)
    na = n * n * params[P_K] + 2 * n
    m = generate(geo, params, owner, size, flags, near, meta, W[0:na], WB, W[na : na + 5 * n])
    return _fill(params, owner, meta, W, m, lx)


@njit
def pos_wins(CW, PB, FL, lx, nleg, out):  # type: ignore[no-untyped-def]
    """The listed actions (``lx[:nleg]``) after which the player to act has won at once
    (king captured, blessed king, or the opponent left without a legal action): writes
    their extended codes to ``out`` and returns how many (-2 when ``FL`` needs room).

    Only the actions that *can* win are tried (played and taken back inside this call;
    the position is left unchanged): the same list as :func:`pos_wins_all`, which tries
    every action. An action of colour ``c`` wins only by (rules section 6)

    * capturing an enemy king: its target holds one;
    * making a blessed king of ``c``. The acting man's new flags hold BLESSED and KING
      together only when it was a king that passed the enemy wall (crowning drops
      BLESSED; a merge keeps only KING, a split's origin neither), so that needs a king
      acting through the portal, or a bridge of ``c``
      blessing a king, which needs a man of ``c`` on the enemy wall after the action:
      one there already (then every action is tried) or the action's target there;
    * leaving the opponent without a legal action when the turn passes: a man action
      or a drop takes at most one point off the points a block could be placed on (its
      target), and a block its own point and its block-adjacent points; while one is
      left, the opponent can place a block (with fewer than two such points before the
      action, every action is tried).

    Blessed kings already on the board (a game about to be decided; only possible in a
    position read from text) also make it try every action.
    """
    G = _core_parts(CW)[0]
    geo, params = _unpack(G)
    n = params[P_N]
    S8, meta = _pos_parts(PB, n)
    owner = S8[0:n]
    flags = S8[2 * n : 3 * n]
    near = S8[3 * n : 4 * n]
    c = meta[M_TO]
    e = 3 - c
    every = meta[M_BK + c] > 0 or meta[M_BK + e] > 0
    wall = geo[4]
    if not every:
        for p in geo[8][e]:
            if p < 0:
                break
            if owner[p] == c:
                every = True
                break
    s0 = params[P_START]
    s1 = params[P_START + 1]
    free = n  # points a block could be placed on, counted when the turn ends now
    if not every and meta[M_AL] == 1:
        free = 0
        for i in range(n):
            if owner[i] == EMPTY and near[i] == 0 and i != s0 and i != s1:
                free += 1
        every = free < 2
    if every:
        return pos_wins_all(CW, PB, FL, lx, np.int64(nleg), out)
    kk = params[P_K]
    size = S8[n : 2 * n]
    man_space = n * n * kk
    na = man_space + 2 * n
    W = _core_parts(CW)[1]
    fnp = W[na : na + n]  # the scratch of generate: _BIG between calls
    fp = W[na + n : na + 2 * n]
    touched = W[na + 2 * n : na + 3 * n]
    tried = np.empty(nleg, lx.dtype)
    m = 0
    reached = -1  # the king whose reach fills fnp/fp
    nt = 0
    for x in range(nleg):
        ext = lx[x]
        code = ext - na if ext >= na else ext
        if code < man_space:
            t = (code // kk) % n
            o = code // kk // n
            if not (wall[e, t] or (owner[t] == e and flags[t] & KING)):
                if not flags[o] & KING:
                    continue
                # a king action blesses the king only when it passes the enemy wall
                # (as passed_wall finds: through the portal within its steps)
                if o != reached:
                    for y in range(nt):
                        fnp[touched[y]] = _BIG
                        fp[touched[y]] = _BIG
                    nt = _reach(geo, owner, o, np.int64(size[o]), c, fnp, fp, touched)
                    reached = o
                k = code % kk
                if fp[t] > (k if k > 0 else size[o]):
                    continue
        elif code < man_space + n:  # a drop
            if not wall[e, code - man_space]:
                continue
        else:  # a block: the opponent may be left without one
            t = code - man_space - n
            lost = 1
            for q in geo[3][t]:
                if q < 0:
                    break
                if owner[q] == EMPTY and near[q] == 0 and q != s0 and q != s1:
                    lost += 1
            if lost < free:
                continue
        tried[m] = ext
        m += 1
    for y in range(nt):
        fnp[touched[y]] = _BIG
        fp[touched[y]] = _BIG
    if m == 0:
        return 0
    return pos_wins_all(CW, PB, FL, tried, np.int64(m), out)


@njit_inner
def pos_wins_all(CW, PB, FL, lx, nleg, out):  # type: ignore[no-untyped-def]
    """:func:`pos_wins` trying every listed action (each played and taken back)."""
    G, W, WB = _core_parts(CW)
    geo, params = _unpack(G)
    n = params[P_N]
    S8, meta = _pos_parts(PB, n)
    fcap = meta[M_FCAP]
    lcap = meta[M_LCAP]
    if meta[M_NFRAME] + 1 >= fcap or meta[M_NLOG] + 3 * n + 16 > lcap:
        return -2
    frames = FL[0 : fcap * FRAME_LEN].reshape((fcap, FRAME_LEN))
    log = FL[fcap * FRAME_LEN : fcap * FRAME_LEN + lcap * 4].reshape((lcap, 4))
    na = n * n * params[P_K] + 2 * n
    owner = S8[0:n]
    size = S8[n : 2 * n]
    flags = S8[2 * n : 3 * n]
    near = S8[3 * n : 4 * n]
    work = W[0:na]
    scratch = W[na : na + 5 * n]
    c = meta[M_TO]
    logging = meta[M_LOGGING]
    meta[M_LOGGING] = 1
    k = 0
    for x in range(nleg):
        ext = lx[x]
        code = ext - na if ext >= na else ext
        passed = passed_wall(geo, params, owner, size, meta, code, scratch)
        _apply_rules(geo, params, owner, size, flags, near, meta, log, frames, code, passed,
                     scratch)
        won = meta[M_WIN] == c
        if meta[M_WIN] == WIN_NONE and meta[M_TO] != c:  # rule 6.6, for the opponent
            won = not _has_action(geo, params, owner, size, flags, near, meta, work, WB,
                                  scratch)
        undo(geo, params, owner, size, flags, near, meta, log, frames)
        if won:
            out[k] = ext
            k += 1
    meta[M_LOGGING] = logging
    return k


@njit
def pos_recount(CW, PB):  # type: ignore[no-untyped-def]
    """Recompute what follows from the board (the key of the men and blocks, checkers
    and blessed kings per colour, block adjacency) after the board was written whole."""
    G, _, _ = _core_parts(CW)
    geo, params = _unpack(G)
    n = params[P_N]
    S8, meta = _pos_parts(PB, n)
    badj = geo[3]
    zman = geo[5]
    zflag = geo[6]
    owner = S8[0:n]
    size = S8[n : 2 * n]
    flags = S8[2 * n : 3 * n]
    near = S8[3 * n : 4 * n]
    near[:] = 0
    for c in range(1, 3):
        meta[M_CNT + c] = 0
        meta[M_BK + c] = 0
    key = 0
    for i in range(n):
        o = owner[i]
        if o == 0:
            continue
        key ^= zman[i, o * 16 + size[i]] ^ zflag[i, o * 16 + flags[i]]
        if o == BLOCK:
            for q in badj[i]:
                if q < 0:
                    break
                near[q] += 1
        else:
            meta[M_CNT + o] += size[i]
            if flags[i] & 3 == 3:
                meta[M_BK + o] += 1
    meta[M_BKEY] = key


@njit
def pos_reach(CW, PB, i, steps, c, out):  # type: ignore[no-untyped-def]
    """Where a stack of colour ``c`` on ``i`` can travel in at most ``steps`` steps:
    writes ``(target, passed the enemy wall)`` pairs to ``out``; returns how many."""
    G, _, _ = _core_parts(CW)
    geo, params = _unpack(G)
    n = params[P_N]
    S8 = PB[0 : 4 * n]
    scratch = np.full(3 * n, _BIG, np.int32)
    fnp = scratch[0:n]
    fp = scratch[n : 2 * n]
    touched = scratch[2 * n : 3 * n]
    nt = _reach(geo, S8[0:n], i, steps, c, fnp, fp, touched)
    for t in range(nt):
        j = touched[t]
        out[t, 0] = j
        out[t, 1] = 1 if fp[j] <= steps else 0
    return nt


# ====================================================================== Python side
#: Where the geometry starts in a core's flat ``G`` buffer: ``G[:PARAMS_LEN]`` are the
#: parameters, then one header entry (offset and four dimensions) per geometry array.
G_HEADER = PARAMS_LEN
_GEO_ARRAYS = 9
#: Where a core's ``CW`` buffer says where its parts are (in int64 words): the length of
#: ``G``, then offset and length of ``W`` (int32 work) and of ``WB`` (bool work).
G_LAYOUT = G_HEADER + 5 * _GEO_ARRAYS
G_DATA = G_LAYOUT + 5


@cache
def _geometry_arrays(side: int) -> tuple[np.ndarray, ...]:
    t = tables(side)
    b = t.board
    n = len(b.labels)
    rays = np.full((3, n, 6, MAX_TRAVEL), -1, np.int64)
    portal = np.full((3, n, 6), MAX_TRAVEL, np.int64)
    for c in (RED, BLUE):
        for i in range(n):
            for d, (points, portal_at) in enumerate(t.rays[c][i]):
                rays[c, i, d, : len(points)] = points
                portal[c, i, d] = portal_at
    nbr = np.full((n, 6), -1, np.int64)
    badj = np.full((n, 12), -1, np.int64)
    for i in range(n):
        nbr[i, : len(b.neighbours[i])] = b.neighbours[i]
        badj[i, : len(t.block_adjacent[i])] = t.block_adjacent[i]
    wall = np.array(t.wall, np.int64)

    def signed(values: Any) -> np.ndarray:
        return np.array([v - (1 << 64) if v >= 1 << 63 else v for v in values], np.int64)

    zman = np.stack([signed(row) for row in t.zman])
    zflag = np.stack([signed(row) for row in t.zflag])
    zconst = signed([t.zblue, t.ztwo, t.zwin[1], t.zwin[2], t.zwin[3], 0])
    wall_pts = np.full((3, n), -1, np.int64)
    for c in (RED, BLUE):
        wall_pts[c, : len(t.wall_points[c])] = t.wall_points[c]
    return (rays, portal, nbr, badj, wall, zman, zflag, zconst, wall_pts)


def _pack(
    params: np.ndarray, side: int, extra: int = 0
) -> tuple[np.ndarray, int, tuple[np.ndarray, ...]]:
    """One flat int64 buffer ``G`` holding the parameters and the geometry (so that a
    compiled call takes one argument for both), and the geometry as views of it."""
    arrays = _geometry_arrays(side)
    total = G_DATA + sum(a.size for a in arrays)
    g = np.zeros(total + extra, np.int64)
    g[:PARAMS_LEN] = params
    offset = G_DATA
    views = []
    for x, array in enumerate(arrays):
        h = G_HEADER + 5 * x
        g[h] = offset
        g[h + 1 : h + 1 + array.ndim] = array.shape
        g[offset : offset + array.size] = array.ravel()
        views.append(g[offset : offset + array.size].reshape(array.shape))
        offset += array.size
    return g, total, tuple(views)


class Core:
    """The compiled rules for one variant (rules options and starting points): geometry,
    parameters, code <-> :class:`Action` mapping, and fresh states."""

    def __init__(self, rules: Rules | None = None, starts: tuple[int, int] | None = None) -> None:
        self.rules = rules if rules is not None else Rules()
        self.tables = tables(self.rules.board_side)
        board = self.tables.board
        self.n = n = len(board.labels)
        self.k = self.rules.max_stack
        if starts is None:
            side = self.rules.board_side
            starts = (board.index_at(side - 1, 1), board.index_at(side - 1, 2 * side - 3))
        self.starts = starts
        params = np.zeros(PARAMS_LEN, np.int64)
        params[P_N] = n
        params[P_K] = self.k
        params[P_SUPPLY] = -1 if self.rules.supply is None else self.rules.supply
        params[P_MAXTURNS] = -1 if self.rules.max_turns is None else self.rules.max_turns
        params[P_FIRST] = self.rules.first_turn_actions
        params[P_START], params[P_START + 1] = starts
        for c, start in ((RED, starts[0]), (BLUE, starts[1])):
            zone = (start, *board.neighbours[start])
            zo = P_ZLEN + 8 * (c - 1)
            params[zo] = len(zone)
            params[zo + 1 : zo + 1 + len(zone)] = zone
        #: Parameters and geometry in one flat buffer (see :func:`_pack`); ``params`` and
        #: ``geo`` are views of it (the compiled kernels never write them).
        #: Size of the fixed action space (codes run ``0 .. num_actions - 1``).
        self.num_actions = na = n * n * self.k + 2 * n
        # One int64 buffer ``CW`` for the Position drivers: ``G`` (parameters and
        # geometry), then ``W`` (int32: a generation's output, then the scratch), then
        # ``WB`` (bool); see _core_parts. W and WB are shared by the positions of this
        # core: a compiled call holds the GIL and copies what it lists out before it
        # returns, so threads cannot see each other's work there.
        wlen = (na + 5 * n + 1) // 2
        wblen = (na + 7) // 8
        cw, glen, self.geo = _pack(params, self.rules.board_side, wlen + wblen)
        cw[G_LAYOUT : G_LAYOUT + 5] = (glen, glen, wlen, glen + wlen, wblen)
        self.CW = cw
        self.G = cw[:glen]
        self.params = self.G[:PARAMS_LEN]
        self.W = cw[glen : glen + wlen].view(np.int32)
        self.W[:] = _BIG
        self.WB = cw[glen + wlen :].view(np.bool_)
        self.man_space = n * n * self.k
        #: Extended code -> shared :class:`Action` (filled on demand) and back by the
        #: ``id`` of those shared instances (which live as long as this table).
        self.actions = _ActionTable(self)
        self.ids: dict[int, int] = {}

    # ------------------------------------------------------------- actions
    def to_action(self, code: int, owner: Any, to_move: int) -> Action:
        """The :class:`Action` for ``code`` in a position with ``owner`` per point and
        ``to_move`` acting (a whole-stack action is a merge onto a friendly man)."""
        n, kk, t = self.n, self.k, self.tables
        code = int(code)
        if code >= self.man_space + n:
            return t.blocks[code - self.man_space - n]
        if code >= self.man_space:
            return t.drops[code - self.man_space]
        k = code % kk
        target = (code // kk) % n
        origin = code // kk // n
        if k:
            return t.action(SPLIT, origin, target, k)
        return t.action(MERGE if owner[target] == to_move else MOVE, origin, target)

    def code_of(self, action: Action | str) -> int:
        """The code of an action (notation or :class:`Action`) of this board."""
        if isinstance(action, str):
            action = Action.parse(action)
        index = self.tables.index
        target = index[action.target]
        if action.kind == "drop":
            return self.man_space + target
        if action.kind == "block":
            return self.man_space + self.n + target
        origin = index[action.origin]  # type: ignore[index]
        return (origin * self.n + target) * self.k + action.count

    # ------------------------------------------------------------- states
    def initial(self) -> CoreState:
        """The start position of this variant (as :meth:`Position.initial`)."""
        s = CoreState(self)
        n = self.n
        pb = np.zeros(_pb_len(n), np.int8)
        s8 = pb[: 4 * n]
        self.set_up(s8[:n], s8[n : 2 * n], s8[2 * n : 3 * n])
        pos_recount(self.CW, pb)
        s.meta[:] = pb[_meta_at(n) :].view(np.int64)
        s.meta[M_TO] = RED
        s.meta[M_AL] = self.rules.first_turn_actions
        s.meta[M_TURN] = 1
        s.meta[M_LOGGING] = 1
        s.owner[:], s.size[:], s.flags[:] = s8[:n], s8[n : 2 * n], s8[2 * n : 3 * n]
        return s

    def set_up(self, owner: np.ndarray, size: np.ndarray, flags: np.ndarray) -> None:
        """Put the men of the start position (each side's king on its starting point,
        a single man on each other point of its zone) on an empty board."""
        for c, start in ((RED, self.starts[0]), (BLUE, self.starts[1])):
            zo = P_ZLEN + 8 * (c - 1)
            for i in self.params[zo + 1 : zo + 1 + self.params[zo]]:
                owner[i] = c
                size[i] = 1
                flags[i] = KING if i == start else 0

    def ext_of(self, action: Action) -> int:
        """The extended code of an action of this board (a merge: its code plus
        :attr:`num_actions`; -1 for a split of ``max_stack`` or more checkers, which has
        no code and is never legal); ``KeyError`` for a point not on the board."""
        if not 0 <= action.count < self.k:  # never legal: a stack holds <= max_stack
            self.code_of(action)  # KeyError for a point off the board
            return -1
        code = self.code_of(action)
        return code + self.num_actions if action.kind == "merge" else code


def doubled_room(meta: np.ndarray, FL: np.ndarray) -> np.ndarray:
    """A position buffer's undo room doubled: a new ``FL`` holding the frames and log of
    ``FL``, with ``meta``'s capacities (``M_FCAP``, ``M_LCAP``) updated to match."""
    fcap, lcap = int(meta[M_FCAP]), int(meta[M_LCAP])
    fl = np.zeros(2 * (fcap * FRAME_LEN + lcap * 4), np.int64)
    fl[: fcap * FRAME_LEN] = FL[: fcap * FRAME_LEN]
    start = 2 * fcap * FRAME_LEN
    fl[start : start + lcap * 4] = FL[fcap * FRAME_LEN : fcap * FRAME_LEN + lcap * 4]
    meta[M_FCAP] = 2 * fcap
    meta[M_LCAP] = 2 * lcap
    return fl


def _meta_at(n: int) -> int:
    """Where ``meta`` starts in a position's buffer ``PB`` (see :func:`_pos_parts`)."""
    return (4 * n + 7) // 8 * 8


def _pb_len(n: int) -> int:
    return _meta_at(n) + 8 * META_LEN


class _ActionTable(dict[int, Action]):
    """Extended code -> :class:`Action`, decoding a code the first time it is asked for."""

    def __init__(self, core: Core) -> None:
        super().__init__()
        self.core = core

    def __missing__(self, ext: int) -> Action:
        core = self.core
        t = core.tables
        n, kk, na = core.n, core.k, core.num_actions
        if ext >= na:
            code = ext - na
            action = t.action(MERGE, code // kk // n, (code // kk) % n)
        elif ext >= core.man_space + n:
            action = t.blocks[ext - core.man_space - n]
        elif ext >= core.man_space:
            action = t.drops[ext - core.man_space]
        else:
            k = ext % kk
            action = t.action(SPLIT if k else MOVE, ext // kk // n, (ext // kk) % n, k)
        # setdefault: when two threads decode the same code at once, both keep the one
        # stored, so ``core.ids`` never holds the identity of an action that was dropped
        # (and freed: a later, unrelated object could reuse that identity)
        action = self.setdefault(ext, action)
        core.ids[id(action)] = ext
        return action


@lru_cache(maxsize=16)
def core_for(rules: Rules, starts: tuple[int, int] | None = None) -> Core:
    """The shared :class:`Core` of a variant (built once per rules and starting points).
    The 16 most recent variants are kept, not every one: the web takes rules and start
    positions from strangers, and one ``Core`` holds about 3 MB (a live position keeps
    its own core alive anyway)."""
    return Core(rules, starts)


class CoreState:
    """One game on the compiled core, with make/unmake: :meth:`legal_codes`,
    :meth:`play_code`, :meth:`undo`, :attr:`key`, :meth:`outcome_code`."""

    __slots__ = (
        "core", "flags", "frames", "log", "meta", "near", "out", "outp", "owner", "scratch",
        "size",
    )

    def __init__(self, core: Core) -> None:
        n = core.n
        self.core = core
        self.owner = np.zeros(n, np.int8)
        self.size = np.zeros(n, np.int8)
        self.flags = np.zeros(n, np.int8)
        self.near = np.zeros(n, np.int8)
        self.meta = np.zeros(META_LEN, np.int64)
        self.meta[M_LOGGING] = 1
        self.log = np.zeros((4 * n + 64, 4), np.int64)
        self.frames = np.zeros((64, FRAME_LEN), np.int64)
        self.out = np.empty(core.num_actions, np.int32)
        self.outp = np.empty(core.num_actions, np.bool_)
        self.scratch = np.full(5 * n, _BIG, np.int32)

    @classmethod
    def from_position(cls, position: Any, core: Core | None = None) -> CoreState:
        """The core state of a Python :class:`Position` (without its history)."""
        if core is None:
            board = position.board
            starts = tuple(board.index(label) for label in position.starting_points)
            core = core_for(position.rules, (starts[0], starts[1]))
        s = cls(core)
        s.owner[:] = position.owners
        s.size[:] = position.sizes
        s.flags[:] = position.flags
        badj = core.geo[3]
        for i in np.flatnonzero(s.owner == BLOCK):
            for j in badj[i]:
                if j >= 0:
                    s.near[j] += 1
        m = s.meta
        m[M_TO] = position.to_move_code
        m[M_AL] = position.actions_left
        m[M_ACTED] = 0 if position.is_turn_start() else 1
        m[M_TURN] = position.turn_number
        result = position.winner
        m[M_WIN] = {None: 0, "red": 1, "blue": 2, "draw": 3}[result]
        outcome = position.outcome()
        m[M_REASON] = 0 if outcome is None else REASONS.index(outcome.termination)
        m[M_CNT + RED], m[M_CNT + BLUE] = position.checker_counts[1:3]
        m[M_BK + RED] = int(np.sum((s.owner == RED) & ((s.flags & 3) == 3)))
        m[M_BK + BLUE] = int(np.sum((s.owner == BLUE) & ((s.flags & 3) == 3)))
        m[M_BKEY] = signed64(position.key ^ _skey(core, m))
        return s

    def copy(self) -> CoreState:
        other = object.__new__(CoreState)
        for name in CoreState.__slots__:
            value = getattr(self, name)
            setattr(other, name, value.copy() if isinstance(value, np.ndarray) else value)
        return other

    # ------------------------------------------------------------- queries
    @property
    def to_move(self) -> int:
        return int(self.meta[M_TO])

    @property
    def winner(self) -> int:
        """0 while the game goes on, 1 red, 2 blue, 3 a draw by the turn cap."""
        return int(self.meta[M_WIN])

    @property
    def reason(self) -> Termination | None:
        return REASONS[int(self.meta[M_REASON])]

    @property
    def is_over(self) -> bool:
        return bool(self.meta[M_WIN] != WIN_NONE)

    @property
    def actions_left(self) -> int:
        return int(self.meta[M_AL])

    @property
    def turn(self) -> int:
        return int(self.meta[M_TURN])

    @property
    def key(self) -> int:
        """The Zobrist key, equal to :attr:`Position.key` of the same position."""
        return int(state_key(self.core.geo, self.meta)) & _MASK64

    def legal_codes(self) -> np.ndarray:
        """The legal action codes (a fresh int32 array; empty once the game is over)."""
        c = self.core
        m = generate(c.geo, c.params, self.owner, self.size, self.flags, self.near, self.meta,
                     self.out, self.outp, self.scratch)
        return self.out[:m].copy()

    def legal_actions(self) -> list[Action]:
        """The legal actions as :class:`Action` values (for comparison with the oracle)."""
        to_action, owner, c = self.core.to_action, self.owner, self.to_move
        return [to_action(code, owner, c) for code in self.legal_codes()]

    def to_action(self, code: int) -> Action:
        return self.core.to_action(code, self.owner, self.to_move)

    # ------------------------------------------------------------- play
    def play_code(self, code: int) -> None:
        """Play a legal action code (legality is the caller's promise: check with
        :meth:`legal_codes` when unsure)."""
        c = self.core
        self._room()
        code = int(code)
        passed = passed_wall(c.geo, c.params, self.owner, self.size, self.meta, code,
                             self.scratch)
        apply(c.geo, c.params, self.owner, self.size, self.flags, self.near, self.meta,
              self.log, self.frames, code, passed, self.out, self.outp, self.scratch)

    def play(self, action: Action | str) -> None:
        self.play_code(self.core.code_of(action))

    def step(self, code: int) -> np.ndarray:
        """Play a legal action code and return the legal codes after it, in one compiled
        call (a view of an internal buffer, valid until the next call: copy to keep)."""
        c = self.core
        self._room()
        m = play_and_generate(c.geo, c.params, self.owner, self.size, self.flags, self.near,
                              self.meta, self.log, self.frames, int(code), self.out, self.outp,
                              self.scratch)
        return self.out[:m]

    def undo(self) -> None:
        if self.meta[M_NFRAME] == 0:
            raise IndexError("no action to take back")
        c = self.core
        undo(c.geo, c.params, self.owner, self.size, self.flags, self.near, self.meta,
             self.log, self.frames)

    def _room(self) -> None:
        n = self.core.n
        if self.meta[M_NLOG] + 3 * n + 16 > len(self.log):
            self.log = np.concatenate([self.log, np.zeros_like(self.log)])
        if self.meta[M_NFRAME] + 1 >= len(self.frames):
            self.frames = np.concatenate([self.frames, np.zeros_like(self.frames)])

    def random_playouts(
        self, games: int, seed: int = 0, max_actions: int = 100_000
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """``(winners, lengths, actions)`` of ``games`` random games from this state,
        played inside one compiled call (see :func:`random_playouts`)."""
        c = self.core
        winners = np.zeros(games, np.int64)
        lengths = np.zeros(games, np.int64)
        total = random_playouts(c.geo, c.params, self.owner, self.size, self.flags,
                                self.near, self.meta, games, seed, max_actions, winners,
                                lengths)
        return winners, lengths, int(total)


def _skey(core: Core, meta: np.ndarray) -> int:
    t = core.tables
    w = int(meta[M_WIN])
    if w:
        return t.zwin[w]
    return (t.zblue if meta[M_TO] == BLUE else 0) ^ (t.ztwo if meta[M_AL] == 2 else 0)


__all__ = ["Core", "CoreState", "random_playouts"]

# the compiled code here has _jit.view_nd built in (see drop_stale_cache)
drop_stale_cache(__name__, _jit.__file__)
