"""Benediction's compiled rules core: playing an action with the after-action rules
(rules section 6), undo, the position key and whole random games, in numba, and the two
Python classes over them: :class:`Core` (one variant's compiled tables and the mapping
between action codes and :class:`~hexgames.benediction.actions.Action` values) and
:class:`CoreState` (one game on the core, with make/unmake).

The state of one game is a handful of numpy arrays (``owner``, ``size``, ``flags``,
``near`` per point, and ``meta``: side to act, actions left, turn, result, counters and
the Zobrist key; see :mod:`._layout`), and every rule is an ``@njit`` function over them:
legal action generation (:mod:`._legal_actions`), apply with the after-action steps,
undo, and the position key (the same key as :attr:`Position.key`). :func:`random_playouts`
plays many whole random games inside one compiled call, which is what makes random
playouts, the random player and the benchmark's ``kernel_actions_per_s`` fast.

:meth:`Core.to_action` and :meth:`Core.code_of` map action codes (see
:mod:`._legal_actions`) to and from the :class:`~hexgames.benediction.actions.Action`
values of the Python engine.

The pure-Python engine this replaced lives on in the tests as the reference (oracle):
``tests/test_benediction_core.py`` plays random games on both and compares legal action
sets, boards, keys and results at every step.

Compiled code is cached on disk (see :mod:`hexgames._jit`); the first use on a machine
compiles for a few seconds, which :func:`.kernel.warm_up` announces. A leading
underscore marks a compiled helper without a Python entry (``njit_inner``), which the
package's other compiled modules call.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, njit, njit_inner
from hexgames.benediction import _layout, _legal_actions, _tables
from hexgames.benediction import rules as _rules
from hexgames.benediction._layout import (
    BIG,
    FRAME_LEN,
    G_LAYOUT,
    M_ACTED,
    M_AL,
    M_BK,
    M_BKEY,
    M_CNT,
    M_LOGGING,
    M_NFRAME,
    M_NLOG,
    M_REASON,
    M_TO,
    M_TURN,
    M_WIN,
    MASK64,
    META_LEN,
    P_FIRST,
    P_K,
    P_MAXTURNS,
    P_N,
    P_START,
    P_SUPPLY,
    P_ZLEN,
    PARAMS_LEN,
    R_BLESSED,
    R_KING,
    R_LIMIT,
    R_STUCK,
    REASONS,
    WIN_DRAW,
    WIN_NONE,
    pack_geometry,
)
from hexgames.benediction._legal_actions import _has_action, generate, passed_wall
from hexgames.benediction._tables import (
    BLESSED,
    BLOCK,
    BLUE,
    CURSED,
    EMPTY,
    KING,
    LOCKED,
    MERGE,
    MOVE,
    RED,
    SPLIT,
    tables,
)
from hexgames.benediction.actions import Action
from hexgames.benediction.rules import Rules, Termination


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
    scratch = np.full(5 * n, BIG, np.int32)
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


@njit(nrt=False)
def recount(geo, owner, size, flags, near, meta):  # type: ignore[no-untyped-def]
    """Recompute what follows from the board (the key of the men and blocks, checkers
    and blessed kings per colour, block adjacency) after the board was written whole."""
    badj = geo[3]
    zman = geo[5]
    zflag = geo[6]
    n = owner.shape[0]
    for i in range(n):
        near[i] = 0
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


# ====================================================================== Python side
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
        cw, glen, self.geo = pack_geometry(params, self.rules.board_side, wlen + wblen)
        cw[G_LAYOUT : G_LAYOUT + 5] = (glen, glen, wlen, glen + wlen, wblen)
        self.CW = cw
        self.G = cw[:glen]
        self.params = self.G[:PARAMS_LEN]
        self.W = cw[glen : glen + wlen].view(np.int32)
        self.W[:] = BIG
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
        self.set_up(s.owner, s.size, s.flags)
        recount(self.geo, s.owner, s.size, s.flags, s.near, s.meta)
        s.meta[M_TO] = RED
        s.meta[M_AL] = self.rules.first_turn_actions
        s.meta[M_TURN] = 1
        s.meta[M_LOGGING] = 1
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
        self.scratch = np.full(5 * n, BIG, np.int32)

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
        return int(state_key(self.core.geo, self.meta)) & MASK64

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


__all__ = ["Core", "CoreState", "core_for", "random_playouts", "recount"]

# the compiled code here has the generation's compiled functions and the layout's and
# the tables' constants built in (see drop_stale_cache)
drop_stale_cache(__name__, _jit.__file__, _layout.__file__, _legal_actions.__file__,
                 _tables.__file__, _rules.__file__)
