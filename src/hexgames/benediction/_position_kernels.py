"""The compiled entry points of :class:`hexgames.benediction.position.Position` (and of
the compiled search, :mod:`._search`), on a position's one-buffer layout.

Few arguments per call (each costs at the call boundary), the geometry unpacked from
the variant's flat buffer ``G`` inside compiled code. A position's state is ``PB``
(int8: ``S8`` = owner, size, flags, near, ``n`` each, padded to 8 bytes, then ``meta``
as int64; see :func:`._layout.meta_at`), ``FL`` (int64: ``meta[M_FCAP]`` undo frames of
``FRAME_LEN``, then ``meta[M_LCAP]`` log entries of 4) and ``lx`` (its legal action list
as *extended* codes: a merge is its code plus the size of the action space, so that an
extended code names one Action). A variant's ``CW`` (see :class:`.core.Core`) holds
``G`` (parameters and geometry), then ``W`` (int32: a generation's output, then the
scratch) and ``WB`` (bool): work buffers shared by the positions of a core (a compiled
call holds the GIL). The rules themselves are :mod:`._legal_actions`' and :mod:`.core`'s.
"""

from __future__ import annotations

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, njit, njit_inner, view_as, view_nd
from hexgames.benediction import _layout, _legal_actions, _tables, core
from hexgames.benediction._layout import (
    BIG,
    FRAME_LEN,
    G_HEADER,
    G_LAYOUT,
    M_AL,
    M_BK,
    M_FCAP,
    M_LCAP,
    M_LOGGING,
    M_NFRAME,
    M_NLOG,
    M_TO,
    M_WIN,
    META_LEN,
    P_K,
    P_N,
    P_START,
    PARAMS_LEN,
    WIN_NONE,
    meta_at,
    pb_len,
)
from hexgames.benediction._legal_actions import _has_action, _reach, generate, passed_wall
from hexgames.benediction._tables import EMPTY, KING
from hexgames.benediction.core import CoreState, _apply_rules, _settle, _stuck, recount, undo


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
    fnp = W[na : na + n]  # the scratch of generate: BIG between calls
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
                        fnp[touched[y]] = BIG
                        fp[touched[y]] = BIG
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
        fnp[touched[y]] = BIG
        fp[touched[y]] = BIG
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
    """:func:`.core.recount` of the board in ``PB``."""
    G, _, _ = _core_parts(CW)
    geo, params = _unpack(G)
    n = params[P_N]
    S8, meta = _pos_parts(PB, n)
    recount(geo, S8[0:n], S8[n : 2 * n], S8[2 * n : 3 * n], S8[3 * n : 4 * n], meta)


@njit
def pos_reach(CW, PB, i, steps, c, out):  # type: ignore[no-untyped-def]
    """Where a stack of colour ``c`` on ``i`` can travel in at most ``steps`` steps:
    writes ``(target, passed the enemy wall)`` pairs to ``out``; returns how many."""
    G, _, _ = _core_parts(CW)
    geo, params = _unpack(G)
    n = params[P_N]
    S8 = PB[0 : 4 * n]
    scratch = np.full(3 * n, BIG, np.int32)
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


def buffer_of(state: CoreState) -> np.ndarray:
    """A new position buffer ``PB`` holding ``state``'s board and ``meta`` (the undo
    counters and capacities left for the caller to set)."""
    n = state.core.n
    pb = np.zeros(pb_len(n), np.int8)
    pb[:n], pb[n : 2 * n], pb[2 * n : 3 * n], pb[3 * n : 4 * n] = (
        state.owner, state.size, state.flags, state.near)
    pb[meta_at(n) :].view(np.int64)[:] = state.meta
    return pb


__all__ = ["buffer_of", "doubled_room", "pos_generate", "pos_play", "pos_reach",
           "pos_recount", "pos_undo", "pos_wins"]

# the compiled code here has the rules' compiled functions and the layout's and the
# tables' constants built in (see drop_stale_cache)
drop_stale_cache(__name__, _jit.__file__, _layout.__file__, _legal_actions.__file__,
                 _tables.__file__, core.__file__)
