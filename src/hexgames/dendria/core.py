"""Dendria's compiled rules core: the same rules as :mod:`.position`, in numba, and the
two Python classes over them: :class:`Core` (one variant's tables and the mapping between
step codes and :class:`~hexgames.dendria.steps.Step` values) and :class:`CoreState` (one
game on the core, with make/unmake).

The state of one game is a handful of numpy arrays: ``cells`` (the piece code on each
cell, as :attr:`Position.cells`), ``meta`` (colour to move, turn phase, the dendrid that
moved and its direction, pie and seat state, the end counters, the result and the
incremental Zobrist hash of the board; see :mod:`._layout`), an undo ``log`` and
``frames``, and the **earlier positions** of the no-repetition rule (``seen``, see
:mod:`._repetition`). Every rule is an ``@njit`` function over them, using precomputed
neighbour and ray tables: legal-step generation (plants, dendrid legs and continuations,
sprouts, grows, converts, ``end``/``pass``/``swap``; what each cell sees is
:mod:`._sight`'s), apply and undo, groups and their fertile soils, fertilization, the
turn-finishability search of the no-repetition rule (memoised per key until the set of
earlier positions changes), scoring, and :func:`random_playouts`, which plays many whole
random games inside one compiled call.

Steps are integer **codes**: the research step ids of :mod:`.encoding` (``0, 1, 2`` end,
pass, swap; ``3 + kN + t`` plant, continue, sprout, grow, convert on cell ``t``; legs
after them by origin and line slot), so the vectorized environment and the core speak the
same numbers. :meth:`Core.to_step` and :meth:`Core.code_of` map codes to and from
:class:`~hexgames.dendria.steps.Step`.

The product's :class:`~hexgames.dendria.position.Position` is a thin layer over this
core (its state is a :class:`CoreState`). The pure-Python engine it replaced lives on in
the tests as an independent oracle (``tests/oracles/dendria_position.py``):
``tests/test_dendria_core.py`` plays random games on both and compares legal step lists,
boards, keys and results at every step. Compiled code is cached on disk (see
:mod:`hexgames._jit`); the first use on a machine compiles for some seconds, which
:func:`.kernel.warm_up` announces. A leading underscore marks a compiled helper that the
package's other compiled modules call (without a Python entry when ``njit_inner``).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, njit, njit_inner, signed64
from hexgames.dendria import _layout, _repetition, _sight
from hexgames.dendria import rules as _rules
from hexgames.dendria._layout import (
    A_CONT,
    A_CONVERT,
    A_END,
    A_GROW,
    A_LEG,
    A_PASS,
    A_PLANT,
    A_SPROUT,
    A_SWAP,
    F_HASH,
    F_KEY,
    F_NLOG,
    F_REM,
    FRAME_LEN,
    M_DIR,
    M_EPOCH,
    M_HASH,
    M_MOVER,
    M_NFRAME,
    M_NLOG,
    M_OVER,
    M_PASSES,
    M_PHASE,
    M_PIE,
    M_QUIET,
    M_SCANNED,
    M_SWAPPED,
    M_TO,
    M_TURN,
    M_USED,
    MASK64,
    META_LEN,
    P_A,
    P_LS,
    P_N,
    P_QT,
    PARAMS_LEN,
    REASONS,
    Z_PASSES,
    Z_PHASE,
    Z_PIE,
    Z_SWAPPED,
    Z_TO,
    geometry,
    signed_array,
)
from hexgames.dendria._repetition import (
    SEEN_START,
    _seen_add,
    _seen_has,
    _seen_remove,
    empty_seen,
    rehashed,
)
from hexgames.dendria._sight import FED_BY_DARK, NUTRIENTLESS, _nourished, _scan_once
from hexgames.dendria._tables import mix, tables
from hexgames.dendria.rules import (
    AFTER_PLANT,
    AFTER_STOP,
    PIE_ARMED,
    PIE_OFF,
    PIE_PENDING,
    START,
    Rules,
    Termination,
)
from hexgames.dendria.steps import Step


# ====================================================================== kernels
@njit_inner(nrt=False)
def _set(zob, cells, meta, log, i, v):  # type: ignore[no-untyped-def]
    """Put piece code ``v`` on cell ``i``, logging the old code; keeps the hash.
    Callers pass ``i`` and ``v`` as ``np.intp``: one compiled version instead of one
    per pair of integer types (each costs a compilation on a cold start)."""
    old = cells[i]
    k = meta[M_NLOG]
    log[k, 0] = i
    log[k, 1] = old
    meta[M_NLOG] = k + 1
    meta[M_HASH] ^= zob[i, old] ^ zob[i, v]
    cells[i] = v

@njit(nrt=False)
def full_key(tab, meta):  # type: ignore[no-untyped-def]
    """:func:`_full_key` for Python callers (:attr:`CoreState.key`)."""
    return _full_key(tab, meta)


@njit_inner(nrt=False)
def _full_key(tab, meta):  # type: ignore[no-untyped-def]
    """The key of :attr:`Position.key`: board hash and every term of turn state."""
    zk = tab[10]
    phase = meta[M_PHASE]
    k = meta[M_HASH] ^ zk[Z_TO + meta[M_TO]] ^ zk[Z_PHASE + phase] ^ zk[Z_PIE + meta[M_PIE]]
    if phase == AFTER_STOP:
        k ^= tab[11][meta[M_MOVER] * 6 + meta[M_DIR]]
    k ^= tab[14][meta[M_QUIET]]
    k ^= zk[Z_PASSES + meta[M_PASSES]]
    if meta[M_SWAPPED]:
        k ^= zk[Z_SWAPPED]
    return k


@njit_inner(nrt=False)
def _end_turn(tab, prm, meta, frames, f, seen, kind):  # type: ignore[no-untyped-def]
    planted = meta[M_PHASE] == AFTER_PLANT
    if kind == A_PASS:
        meta[M_PASSES] += 1
        meta[M_QUIET] += 1
    else:
        meta[M_PASSES] = 0
        meta[M_QUIET] = 0 if planted else meta[M_QUIET] + 1
    if kind == A_SWAP:
        meta[M_SWAPPED] = 1 - meta[M_SWAPPED]
    else:
        meta[M_TO] = 1 - meta[M_TO]
    if meta[M_PIE] == PIE_ARMED:
        meta[M_PIE] = PIE_PENDING if planted else PIE_OFF
    elif meta[M_PIE] == PIE_PENDING:
        meta[M_PIE] = PIE_OFF
    meta[M_PHASE] = START
    meta[M_MOVER] = -1
    meta[M_DIR] = -1
    meta[M_TURN] += 1
    if meta[M_PASSES] >= 2:
        meta[M_OVER] = 1
    elif meta[M_QUIET] >= prm[P_QT]:
        meta[M_OVER] = 2
    else:
        meta[M_OVER] = 0
    key = meta[M_HASH] ^ tab[10][Z_TO + meta[M_TO]]
    _seen_add(seen, meta, key)
    frames[f, F_REM] = 1
    frames[f, F_KEY] = key
    meta[M_EPOCH] += 1


@njit(nrt=False)
def apply(tab, prm, cells, meta, log, frames, seen, code, stack):  # type: ignore[no-untyped-def]
    """:func:`_apply_step` for Python callers (compiled code calls the inner one: this
    entry's wrapper is compiled when Python first plays, not with the first list).
    ``code`` as int32, as the legal lists hold it: the step compiles once."""
    _apply_step(tab, prm, cells, meta, log, frames, seen, np.int32(code), stack)


@njit_inner(nrt=False)
def _apply_step(tab, prm, cells, meta, log, frames, seen, code, stack):  # type: ignore[no-untyped-def]
    """Play step ``code`` (legality is the caller's promise) and push its undo frame.
    ``stack``: ``n`` int16 of scratch (the flood fill of grow and convert)."""
    nbr = tab[0]
    zob = tab[4]
    kind = tab[6][code]
    t = tab[7][code]
    f = meta[M_NFRAME]
    for q in range(10):
        frames[f, q] = meta[q]
    frames[f, F_HASH] = meta[M_HASH]
    frames[f, F_NLOG] = meta[M_NLOG]
    frames[f, F_REM] = 0
    meta[M_NFRAME] = f + 1
    to = meta[M_TO]
    if kind == A_PLANT:
        _set(zob, cells, meta, log, np.intp(t), np.intp(1 + 3 * to))
        meta[M_PHASE] = AFTER_PLANT
    elif kind == A_LEG or kind == A_CONT:  # noqa: SIM109 (plain compares for numba)
        if kind == A_LEG:
            i = tab[8][code]
            d = tab[9][code]
        else:
            i = meta[M_MOVER]
            d = meta[M_DIR]
        v = cells[i]
        _set(zob, cells, meta, log, np.intp(t), np.intp(v))
        _set(zob, cells, meta, log, np.intp(i), np.intp(0))
        meta[M_PHASE] = AFTER_STOP
        meta[M_MOVER] = t
        meta[M_DIR] = d
    elif kind == A_SPROUT:
        v = cells[t]
        # seed code + 2 = dendrid of its colour
        _set(zob, cells, meta, log, np.intp(t), np.intp(v + 2))
    elif kind == A_GROW or kind == A_CONVERT:  # noqa: SIM109
        v = cells[t]
        new = v + 1 if kind == A_GROW else 2 + 3 * to
        _set(zob, cells, meta, log, np.intp(t), np.intp(new))
        stack[0] = t
        sp = 1
        while sp:
            sp -= 1
            c = stack[sp]
            for d in range(6):
                j = nbr[c, d]
                if j >= 0 and cells[j] == v:
                    _set(zob, cells, meta, log, np.intp(j), np.intp(new))
                    stack[sp] = j
                    sp += 1
    else:
        _end_turn(tab, prm, meta, frames, f, seen, kind)


@njit(nrt=False)
def undo(cells, meta, log, frames, seen):  # type: ignore[no-untyped-def]
    """:func:`_undo_step` for Python callers."""
    _undo_step(cells, meta, log, frames, seen)


@njit_inner(nrt=False)
def _undo_step(cells, meta, log, frames, seen):  # type: ignore[no-untyped-def]
    """Take back the last applied step."""
    f = meta[M_NFRAME] - 1
    if frames[f, F_REM]:
        _seen_remove(seen, meta, frames[f, F_KEY])
        meta[M_EPOCH] += 1  # the earlier positions changed: memoised answers are stale
    start = frames[f, F_NLOG]
    for k in range(meta[M_NLOG] - 1, start - 1, -1):
        cells[log[k, 0]] = log[k, 1]
    meta[M_NLOG] = start
    for q in range(10):
        meta[q] = frames[f, q]
    meta[M_HASH] = frames[f, F_HASH]
    meta[M_NFRAME] = f


@njit_inner(nrt=False)
def _raw_follow_ups(tab, prm, cells, meta, out, hd, scratch):  # type: ignore[no-untyped-def]
    """Every follow-up the board allows (sprouts, grows, converts) and, after a stop,
    every continuation, before the no-repetition filter, in the Python engine's order;
    ``hd[x]``: how step ``out[x]`` changes the board hash. Returns how many."""
    n = prm[P_N]
    nbr = tab[0]
    zob = tab[4]
    sight = scratch[0:n]
    seeds = scratch[2 * n : 3 * n]  # the cells of seeds (either colour)
    trees = scratch[3 * n : 4 * n]  # the cells of the opponent's trees
    visited = scratch[6 * n : 7 * n]
    stack = scratch[7 * n : 8 * n]
    to = meta[M_TO]
    enemy_tree = 5 - 3 * to
    m = 0
    _scan_once(tab, cells, meta, n, scratch)
    # one pass over the board: the sprouts (in cell order), which colours fertilize
    # some empty cell, and where the seedbeds and the opponent's forests lie
    fed_somewhere = 0  # FED_BY_DARK / FED_BY_LIGHT: some empty cell is fertilized
    num_seeds = 0
    num_trees = 0
    for i in range(n):
        visited[i] = 0
        v = cells[i]
        if v == 0:
            fed_somewhere |= sight[i]
        elif v == 1 or v == 4:
            if _nourished(v, sight[i]):
                out[m] = 3 + 2 * n + i
                hd[m] = zob[i, v] ^ zob[i, v + 2]
                m += 1
            seeds[num_seeds] = i
            num_seeds += 1
        elif v == enemy_tree:
            trees[num_trees] = i
            num_trees += 1
    # grows (seedbeds of either colour), then converts (the opponent's forests), each
    # group once, from its first cell in cell order
    for kind in range(2):
        count = num_seeds if kind == 0 else num_trees
        for x in range(count):
            i = seeds[x] if kind == 0 else trees[x]
            if visited[i]:
                continue
            v = cells[i]
            if kind == 0:
                color = 0 if v == 1 else 1
                new = v + 1
                need = color
            else:
                color = 1 - to
                new = 2 + 3 * to
                need = to
            if not fed_somewhere & (FED_BY_DARK << 3 * need):
                continue  # no cell fed by the colour that must feed them all
            visited[i] = 1
            stack[0] = i
            sp = 1
            delta = 0
            fertile = False
            fed = True
            unfed_by_owner = False
            while sp:
                sp -= 1
                c = stack[sp]
                delta ^= zob[c, v] ^ zob[c, new]
                for d in range(6):
                    j = nbr[c, d]
                    if j < 0:
                        continue
                    w = cells[j]
                    if w == 0:
                        fertile = True
                        if not sight[j] & (FED_BY_DARK << 3 * need):
                            fed = False
                        if not sight[j] & (FED_BY_DARK << 3 * color):
                            unfed_by_owner = True
                    elif w == v and not visited[j]:
                        visited[j] = 1
                        stack[sp] = j
                        sp += 1
            if fertile and fed and (kind == 0 or unfed_by_owner):
                out[m] = 3 + (3 + kind) * n + i
                hd[m] = delta
                m += 1
    # continuations of the dendrid that moved
    if meta[M_PHASE] == AFTER_STOP:
        rays = tab[1]
        i = meta[M_MOVER]
        d = meta[M_DIR]
        v = cells[i]
        for k in range(tab[2][i, d]):
            j = rays[i, d, k]
            w = cells[j]
            if w == 0:
                out[m] = 3 + n + j
                hd[m] = zob[i, v] ^ zob[j, v]
                m += 1
            elif w != v and w != 1 and w != 4:
                break
    return m


@njit_inner
def can_finish(tab, prm, cells, meta, log, frames, seen, memo, scratch):  # type: ignore[no-untyped-def]
    """Whether some sequence of follow-ups, continuations and ``end`` is legal from here
    (the no-repetition rule). Memoised per key until the earlier positions change."""
    if meta[M_PHASE] != AFTER_STOP:
        return True
    zend = tab[10][Z_TO + 1 - meta[M_TO]]
    if not _seen_has(seen, meta[M_HASH] ^ zend):
        return True
    key = _full_key(tab, meta)
    slot = key & (memo.shape[0] - 1)
    if memo[slot, 0] == key and memo[slot, 1] == meta[M_EPOCH]:
        return memo[slot, 2] == 1
    n = prm[P_N]
    size = 3 * n + 2 * prm[P_LS] + 8
    out = np.empty(size, np.int32)
    hd = np.empty(size, np.int64)
    m = _raw_follow_ups(tab, prm, cells, meta, out, hd, scratch)
    result = False
    for x in range(m):
        if not _seen_has(seen, meta[M_HASH] ^ hd[x] ^ zend):
            result = True
            break
        _apply_step(tab, prm, cells, meta, log, frames, seen, out[x], scratch[7 * n : 8 * n])
        ok = can_finish(tab, prm, cells, meta, log, frames, seen, memo, scratch)
        _undo_step(cells, meta, log, frames, seen)
        if ok:
            result = True
            break
    memo[slot, 0] = key
    memo[slot, 1] = meta[M_EPOCH]
    memo[slot, 2] = 1 if result else 0
    return result


@njit(nrt=False)
def generate(tab, prm, cells, meta, log, frames, seen, memo, out, hd, scratch):  # type: ignore[no-untyped-def]
    """Write the legal step codes to ``out`` in the Python engine's order; return how
    many (0 once the game is over)."""
    if meta[M_OVER] != 0:
        return 0
    n = prm[P_N]
    to = meta[M_TO]
    zob = tab[4]
    zend = tab[10][Z_TO + 1 - to]
    stack = scratch[7 * n : 8 * n]
    m = 0
    if meta[M_PHASE] == START:
        sight = scratch[0:n]
        _scan_once(tab, cells, meta, n, scratch)
        for i in range(n):
            if cells[i] == 0 and sight[i] & NUTRIENTLESS:
                out[m] = 3 + i
                m += 1
        friend = 3 + 3 * to
        rays = tab[1]
        raylen = tab[2]
        legid = tab[5]
        for i in range(n):
            if cells[i] != friend:
                continue
            hi = meta[M_HASH] ^ zob[i, friend] ^ zend
            for d in range(6):
                for k in range(raylen[i, d]):
                    j = rays[i, d, k]
                    w = cells[j]
                    if w == 0:
                        code = legid[i, d, k]
                        ok = not _seen_has(seen, hi ^ zob[j, friend])
                        if not ok:
                            _apply_step(tab, prm, cells, meta, log, frames, seen, code, stack)
                            ok = can_finish(tab, prm, cells, meta, log, frames, seen, memo,
                                            scratch)
                            _undo_step(cells, meta, log, frames, seen)
                        if ok:
                            out[m] = code
                            m += 1
                    elif w != friend and w != 1 and w != 4:
                        break
        out[m] = A_PASS
        m += 1
        if meta[M_PIE] == PIE_PENDING:
            out[m] = A_SWAP
            m += 1
        return m
    m = _raw_follow_ups(tab, prm, cells, meta, out, hd, scratch)
    if meta[M_PHASE] == AFTER_STOP:
        kept = 0
        for x in range(m):
            code = out[x]
            ok = not _seen_has(seen, meta[M_HASH] ^ hd[x] ^ zend)
            if not ok:
                _apply_step(tab, prm, cells, meta, log, frames, seen, code, stack)
                ok = can_finish(tab, prm, cells, meta, log, frames, seen, memo, scratch)
                _undo_step(cells, meta, log, frames, seen)
            if ok:
                out[kept] = code
                kept += 1
        m = kept
    if not _seen_has(seen, meta[M_HASH] ^ zend):
        out[m] = A_END
        m += 1
    return m


@njit
def scores(tab, prm, cells, scratch):  # type: ignore[no-untyped-def]
    """Dark's and Light's scores (rules section 4) on the board as it stands."""
    n = prm[P_N]
    nbr = tab[0]
    visited = scratch[6 * n : 7 * n]
    stack = scratch[7 * n : 8 * n]
    counts = np.zeros((2, n + 1), np.int64)
    for i in range(n):
        visited[i] = 0
    for i in range(n):
        v = cells[i]
        if (v != 2 and v != 5) or visited[i]:
            continue
        visited[i] = 1
        stack[0] = i
        sp = 1
        size = 0
        while sp:
            sp -= 1
            c = stack[sp]
            size += 1
            for d in range(6):
                j = nbr[c, d]
                if j >= 0 and cells[j] == v and not visited[j]:
                    visited[j] = 1
                    stack[sp] = j
                    sp += 1
        counts[0 if v == 2 else 1, size] += 1
    total0 = 0.0
    total1 = 0.0
    largest0 = 0
    largest1 = 0
    for s in range(1, n + 1):
        a = counts[0, s]
        b = counts[1, s]
        if a:
            total0 += s
            largest0 = s
        if b:
            total1 += s
            largest1 = s
        if a > b:
            total0 += 1.0
        elif b > a:
            total1 += 1.0
    if largest0 > largest1:
        total0 += 0.5
    elif largest1 > largest0:
        total1 += 0.5
    return total0, total1


@njit(nrt=False)
def winner_seat(tab, prm, cells, meta, scratch):  # type: ignore[no-untyped-def]
    """The winning seat of a finished game (0 or 1), -1 on equal scores."""
    dark, light = scores(tab, prm, cells, scratch)
    if dark == light:
        return -1
    color = 0 if dark > light else 1
    return color ^ meta[M_SWAPPED]


@njit_inner(nrt=False)
def copy_state(cells0, meta0, seen0, cells, meta, seen):  # type: ignore[no-untyped-def]
    """Copy a game's board, turn state and earlier positions into another game's arrays
    of the same sizes (loops: a slice copy would need numba's runtime)."""
    for x in range(cells.shape[0]):
        cells[x] = cells0[x]
    for x in range(meta.shape[0]):
        meta[x] = meta0[x]
    for x in range(seen.shape[0]):
        seen[x, 0] = seen0[x, 0]
        seen[x, 1] = seen0[x, 1]


@njit(nrt=False)
def random_playouts(tab, prm, cells0, meta0, seen0, games, seed, max_actions, winners, lengths, cells, meta, log, frames, seen, memo, out, hd, scratch):  # type: ignore[no-untyped-def]  # noqa: E501
    """Play ``games`` random games (a uniformly random legal step each time) from the
    state ``cells0``/``meta0``/``seen0``, which is left untouched; ``winners[g]``: the
    winning seat, -1 for equal scores or a game cut off after ``max_actions`` steps;
    ``lengths[g]``: its steps. Returns the steps of all games."""
    np.random.seed(seed)
    n = prm[P_N]
    stack = scratch[7 * n : 8 * n]
    limit = (seen.shape[0] * 3) // 4
    total = 0
    epoch = meta[M_EPOCH]
    for g in range(games):
        copy_state(cells0, meta0, seen0, cells, meta, seen)
        epoch += 1
        meta[M_EPOCH] = epoch
        meta[M_SCANNED] = 0
        meta[M_NLOG] = 0
        meta[M_NFRAME] = 0
        length = 0
        while length < max_actions and meta[M_USED] < limit:
            m = generate(tab, prm, cells, meta, log, frames, seen, memo, out, hd, scratch)
            if m == 0:
                break
            _apply_step(tab, prm, cells, meta, log, frames, seen, out[np.random.randint(0, m)],
                  stack)
            meta[M_NLOG] = 0
            meta[M_NFRAME] = 0
            length += 1
        epoch = meta[M_EPOCH]
        lengths[g] = length
        total += length
        winners[g] = winner_seat(tab, prm, cells, meta, scratch) if meta[M_OVER] else -1
    return total


# ====================================================================== Python side
def _pow2(value: int) -> int:
    return 1 << max(0, value - 1).bit_length()


#: Guards the lazily made step tables of every :class:`Core`: two threads making them at
#: once could leave :attr:`Core.step_ids` keyed by the identities of a list that was then
#: replaced and freed, and a later, unrelated object reusing such an identity would be
#: taken for that step (a server's threads playing one variant for the first time).
_LAZY = threading.RLock()


class Core:
    """The compiled rules of one variant: tables, parameters, code <-> :class:`Step`
    mapping, and fresh states."""

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules if rules is not None else Rules()
        side = self.rules.board_side
        self.board = tables(side).board
        self.n = n = self.board.size
        self.line_slots = self.board.line_slots
        #: Size of the step-code space (the research step ids).
        self.num_actions = 3 + 5 * n + n * self.line_slots
        qt = self.rules.quiet_turns
        zq = signed_array([0, *(mix(6, q) for q in range(1, qt + 1))])
        zq.setflags(write=False)
        self.tab = (*geometry(side), zq)
        params = np.zeros(PARAMS_LEN, np.int64)
        params[P_N] = n
        params[P_QT] = qt
        params[P_A] = self.num_actions
        params[P_LS] = 2 * side
        params.setflags(write=False)
        self.params = params
        #: Slots of the earlier-positions table: twice the most turns a game can have
        #: (every turn but 2K-1 in a row plants, and at most n seeds are planted).
        self.seen_slots = min(1 << 20, max(256, _pow2(2 * (n + 1) * qt)))
        self._steps: list[Step | None] | None = None
        self._ids: dict[int, int] | None = None
        self._fields: list[tuple[int, int, int, int]] | None = None

    # ------------------------------------------------------------- steps
    def to_step(self, code: int) -> Step:
        """The :class:`Step` of ``code`` (the same object each time)."""
        step = self.step_list[int(code)]
        if step is None:
            raise ValueError(f"step code {code} names no step of this board")
        return step

    @property
    def step_list(self) -> list[Step | None]:
        """The :class:`Step` of every code (``None`` for codes naming no step), made
        once per variant."""
        steps = self._steps
        if steps is None:
            with _LAZY:  # made once: step_ids holds the identities of these very objects
                if self._steps is None:
                    self._steps = self._all_steps()
                steps = self._steps
        return steps

    @property
    def step_ids(self) -> dict[int, int]:
        """``id(step) -> code`` for the :class:`Step` objects of :attr:`step_list` (they
        live as long as this core, so their identities are stable): how a position maps
        a step it listed back to its code without parsing it."""
        ids = self._ids
        if ids is None:
            with _LAZY:
                if self._ids is None:
                    self._ids = {id(s): c for c, s in enumerate(self.step_list)
                                 if s is not None}
                ids = self._ids
        return ids

    def step_fields(self, code: int) -> tuple[int, int, int, int]:
        """``(kind, target, origin, direction)`` of ``code`` (kinds: the ``A_*``
        constants; -1 where a field does not apply)."""
        if self._fields is None:
            self._fields = list(zip(*(self.tab[k].tolist() for k in (6, 7, 8, 9)),
                                    strict=True))
        return self._fields[code]

    def _all_steps(self) -> list[Step | None]:
        kind, target, origin = self.tab[6], self.tab[7], self.tab[8]
        labels = self.board.labels
        names = {A_PLANT: "plant", A_CONT: "continue", A_SPROUT: "sprout", A_GROW: "grow",
                 A_CONVERT: "convert"}
        out: list[Step | None] = [Step("end"), Step("pass"), Step("swap")]
        for code in range(3, self.num_actions):
            k = int(kind[code])
            t = int(target[code])
            if t < 0:
                out.append(None)
            elif k == A_LEG:
                out.append(Step("leg", origin=labels[origin[code]], target=labels[t]))
            else:
                out.append(Step(names[k], target=labels[t]))
        return out

    def code_of(self, step: Step | str) -> int:
        """The code of a step (notation or :class:`Step`) of this board."""
        step = Step.parse(step)
        words = ("end", "pass", "swap")
        if step.kind in words:
            return words.index(step.kind)
        n = self.n
        t = self.board.index(step.target or "")
        cell_kinds = ("plant", "continue", "sprout", "grow", "convert")
        if step.kind in cell_kinds:
            return 3 + cell_kinds.index(step.kind) * n + t
        o = self.board.index(step.origin or "")
        slot = self.board.line_slot(o, t)
        if slot < 0:
            raise ValueError(f"{step}: the cells share no line")
        return 3 + 5 * n + o * self.line_slots + slot

    # ------------------------------------------------------------- states
    def initial(self) -> CoreState:
        """The start of a game (as :meth:`Position.initial`)."""
        # the empty board, Dark to move, itself the first earlier position
        return CoreState.from_fields(
            self, np.zeros(self.n, np.int8), 0, START, -1, -1,
            PIE_ARMED if self.rules.pie else PIE_OFF, False, 0, 0, None, 1, 0, {mix(1, 0): 1},
        )


@lru_cache(maxsize=16)
def core_for(rules: Rules) -> Core:
    """The shared :class:`Core` of a variant (built once per rules). The 16 most recent
    variants are kept, not every one: the web takes rules from strangers, and one
    ``Core`` holds some megabytes (a live position keeps its own core alive anyway)."""
    return Core(rules)


class CoreState:
    """One game on the compiled core, with make/unmake: :meth:`legal_codes`,
    :meth:`play_code`, :meth:`undo`, :attr:`key`, :meth:`scores`."""

    __slots__ = ("cells", "core", "frames", "hd", "log", "memo", "meta", "out", "scratch",
                 "seen")

    def __init__(self, core: Core, seen_slots: int = 0) -> None:
        """A blank state; its earlier-positions table starts with ``seen_slots`` slots
        (a power of two; default: a small table, which grows as turns end)."""
        n = core.n
        self.core = core
        self.cells = np.zeros(n, np.int8)
        self.meta = np.zeros(META_LEN, np.int64)
        self.log = np.zeros((8 * n + 64, 2), np.int64)
        self.frames = np.zeros((4 * n + 64, FRAME_LEN), np.int64)
        self.seen = empty_seen(seen_slots or min(SEEN_START, core.seen_slots))
        self.memo = _empty_memo()
        self.out = np.empty(core.num_actions + 8, np.int32)
        self.hd = np.empty(core.num_actions + 8, np.int64)
        self.scratch = np.zeros(10 * n, np.int16)

    @classmethod
    def from_fields(
        cls, core: Core, cells: Any, to_move: int, phase: int, mover: int, direction: int,
        pie: int, swapped: bool, quiet: int, passes: int, reason: Termination | None,
        turn: int, board_hash: int, seen_keys: Mapping[int, int],
    ) -> CoreState:
        """A state from the fields of a position (what :class:`Position` keeps): piece
        codes per cell, turn state, the board's Zobrist hash, and the keys (board hash
        with the colour to move) of the earlier positions with their counts."""
        s = cls(core, _pow2(max(SEEN_START, 4 * len(seen_keys))))
        s.cells[:] = cells
        m = s.meta
        m[M_TO], m[M_PHASE], m[M_MOVER], m[M_DIR] = to_move, phase, mover, direction
        m[M_PIE], m[M_SWAPPED], m[M_QUIET], m[M_PASSES] = pie, int(swapped), quiet, passes
        m[M_OVER] = REASONS.index(reason)
        m[M_TURN] = turn
        m[M_HASH] = signed64(board_hash)
        for key, count in seen_keys.items():
            for _ in range(count):
                _seen_add(s.seen, m, signed64(key))
        return s

    def __reduce__(self) -> tuple[Any, ...]:
        # the variant by its rules (its tables are rebuilt, or shared, where unpickled)
        return (_restore_state, (self.core.rules, self.cells, self.meta, self.log,
                                 self.frames, self.seen))

    def copy(self) -> CoreState:
        other = object.__new__(CoreState)
        for name in CoreState.__slots__:
            value = getattr(self, name)
            setattr(other, name, value.copy() if isinstance(value, np.ndarray) else value)
        other.memo = _empty_memo()
        return other

    # ------------------------------------------------------------- queries
    @property
    def to_move(self) -> int:
        """0 Dark, 1 Light."""
        return int(self.meta[M_TO])

    @property
    def phase(self) -> int:
        return int(self.meta[M_PHASE])

    @property
    def is_over(self) -> bool:
        return bool(self.meta[M_OVER])

    @property
    def undoable(self) -> int:
        """Steps :meth:`undo` can take back (those played on this state)."""
        return int(self.meta[M_NFRAME])

    @property
    def reason(self) -> Termination | None:
        return REASONS[int(self.meta[M_OVER])]

    @property
    def swapped(self) -> bool:
        return bool(self.meta[M_SWAPPED])

    @property
    def key(self) -> int:
        """The Zobrist key, equal to :attr:`Position.key` of the same position."""
        return int(full_key(self.core.tab, self.meta)) & MASK64

    def scores(self) -> tuple[float, float]:
        """Dark's and Light's scores on the board as it stands."""
        c = self.core
        dark, light = scores(c.tab, c.params, self.cells, self.scratch)
        return float(dark), float(light)

    def winner_seat(self) -> int | None:
        """The winning seat of a finished game, -1 on equal scores, ``None`` while the
        game goes on."""
        if not self.is_over:
            return None
        c = self.core
        return int(winner_seat(c.tab, c.params, self.cells, self.meta, self.scratch))

    def legal_codes(self) -> np.ndarray:
        """The legal step codes, in the Python engine's order (a fresh int32 array;
        empty once the game is over)."""
        c = self.core
        self.make_room()
        m = generate(c.tab, c.params, self.cells, self.meta, self.log, self.frames,
                     self.seen, self.memo, self.out, self.hd, self.scratch)
        return self.out[:m].copy()

    def legal_steps(self) -> list[Step]:
        to_step = self.core.to_step
        return [to_step(code) for code in self.legal_codes()]

    # ------------------------------------------------------------- play
    def play_code(self, code: int) -> None:
        """Play a legal step code (legality is the caller's promise: check with
        :meth:`legal_codes` when unsure)."""
        c = self.core
        self.make_room()
        apply(c.tab, c.params, self.cells, self.meta, self.log, self.frames, self.seen,
              int(code), self.scratch[7 * c.n : 8 * c.n])

    def play(self, step: Step | str) -> None:
        self.play_code(self.core.code_of(step))

    def undo(self) -> None:
        if self.meta[M_NFRAME] == 0:
            raise IndexError("no step to take back")
        undo(self.cells, self.meta, self.log, self.frames, self.seen)

    def make_room(self) -> None:
        """Grow the log, the frames and the earlier-positions table ahead of a step or a
        generation (whose finishability search plays steps too)."""
        n = self.core.n
        item = self.meta.item  # plain ints: cheaper than numpy scalars on this hot path
        if item(M_NLOG) + 4 * n + 64 > len(self.log):
            self.log = np.concatenate([self.log, np.zeros_like(self.log)])
        if item(M_NFRAME) + 2 * n + 64 > len(self.frames):
            self.frames = np.concatenate([self.frames, np.zeros_like(self.frames)])
        if 2 * item(M_USED) > len(self.seen):
            self._rehash(2 * len(self.seen))

    def _rehash(self, slots: int) -> None:
        """A fresh table (twice as large) without the keys whose count fell to 0."""
        self.seen, self.meta[M_USED] = rehashed(self.seen, slots)

    def widen_history(self) -> None:
        """Make the earlier-positions table as large as a whole game needs (see
        :attr:`Core.seen_slots`): compiled code that plays on this state (a search, the
        vectorized environment) never has to grow it (it cannot allocate)."""
        if len(self.seen) < self.core.seen_slots:
            self.seen, self.meta[M_USED] = rehashed(self.seen, self.core.seen_slots)

    def random_playouts(
        self, games: int, seed: int = 0, max_actions: int = 100_000
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """``(winner_seats, lengths, steps)`` of ``games`` random games from this state,
        played inside one compiled call (see :func:`random_playouts`); this state is
        left as it was."""
        c = self.core
        meta0 = self.meta.copy()
        meta0[M_NLOG] = meta0[M_NFRAME] = 0
        seen0 = self.seen
        if len(seen0) < c.seen_slots:
            # the games need room for every turn a game can have (see Core.seen_slots)
            seen0, meta0[M_USED] = rehashed(seen0, c.seen_slots)
        work = self.copy()  # the games' buffers (the kernel resets them per game)
        work.seen = np.empty_like(seen0)
        winners = np.zeros(games, np.int64)
        lengths = np.zeros(games, np.int64)
        total = random_playouts(
            c.tab, c.params, self.cells, meta0, seen0, games, seed, max_actions, winners,
            lengths, work.cells, work.meta, work.log, work.frames, work.seen, work.memo,
            work.out, work.hd, work.scratch,
        )
        return winners, lengths, int(total)


def _restore_state(rules: Rules, cells: np.ndarray, meta: np.ndarray, log: np.ndarray,
                   frames: np.ndarray, seen: np.ndarray) -> CoreState:
    s = CoreState(core_for(rules))
    s.cells[:] = cells
    s.meta[:] = meta
    s.meta[M_SCANNED] = 0  # the scan cached in scratch did not travel
    s.log, s.frames, s.seen = log, frames, seen
    return s


def _empty_memo(slots: int = 1024) -> np.ndarray:
    """An empty memo of the finishability search (:func:`can_finish`)."""
    memo = np.zeros((slots, 3), np.int64)
    memo[:, 1] = -1
    return memo


__all__ = ["Core", "CoreState", "core_for", "random_playouts"]

# the compiled code here has the table's and the sight's compiled functions and the
# layout's constants built in (see drop_stale_cache)
drop_stale_cache(__name__, _jit.__file__, _layout.__file__, _repetition.__file__,
                 _sight.__file__, _rules.__file__)
