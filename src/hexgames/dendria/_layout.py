"""The layout of the arrays Dendria's compiled code works on: what each entry of a
game's ``meta``, of an undo frame and of a variant's ``params`` holds, the step kinds,
the key terms of turn state, and the board tables as the kernels index them
(:func:`geometry`).

The bottom of the compiled engine: the rules (:mod:`.core`), the earlier-positions table
(:mod:`._repetition`), the sight counts (:mod:`._sight`), the search, the leaf values and
the research batch all read these names, and each is defined here once. Compiled code
has the values built in, so every compiled module lists this file among the sources
whose change drops its cached code (see :func:`hexgames._jit.drop_stale_cache`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from hexgames._jit import signed64
from hexgames.dendria._tables import mix, tables
from hexgames.dendria.rules import Termination
from hexgames.hexgrid import opposite

# ------------------------------------------------------------------ layout of meta
M_TO, M_PHASE, M_MOVER, M_DIR, M_PIE, M_SWAPPED, M_QUIET, M_PASSES, M_OVER, M_TURN = range(10)
M_HASH, M_NLOG, M_NFRAME, M_EPOCH, M_USED = 10, 11, 12, 13, 14
#: ``meta[M_SCANNED]``: the scan in ``scratch`` is of the board whose hash is
#: ``meta[M_SCANHASH]`` (an ``end`` or ``pass`` leaves the board as it was: no new scan).
M_SCANNED, M_SCANHASH = 15, 16
META_LEN = 18
#: Saved per step: meta[0:10], the hash, the log length, whether a key was remembered
#: and which.
F_HASH, F_NLOG, F_REM, F_KEY = 10, 11, 12, 13
FRAME_LEN = 14
# ------------------------------------------------------------------ layout of params
P_N, P_QT, P_A, P_LS = 0, 1, 2, 3
PARAMS_LEN = 8
# ------------------------------------------------------------------ step kinds
A_END, A_PASS, A_SWAP, A_PLANT, A_CONT, A_SPROUT, A_GROW, A_CONVERT, A_LEG = range(9)
# ------------------------------------------------------------------ key constants (zk)
Z_TO, Z_PHASE, Z_PIE, Z_SWAPPED, Z_PASSES = 0, 2, 5, 8, 9
#: ``meta[M_OVER]``: 0 while the game goes on, then how it ended.
REASONS: tuple[Termination | None, ...] = (None, Termination.BOTH_PASSED,
                                           Termination.QUIET_LIMIT)
MASK64 = (1 << 64) - 1
#: What a line from a cell adds to the cell's packed ``sight`` counts (see
#: :func:`._sight._scan_once`), by the code of the first piece on it: 0 none (a nutrientless
#: root), 1-3 Dark's seed, tree, dendrid, 4-6 Light's (a dendrid also fertilizes).
SIGHT_UNITS = np.array([1, 1 << 9, 1 << 9, (1 << 3) + (1 << 9),
                        1 << 12, 1 << 12, (1 << 6) + (1 << 12)], np.int16)


def signed_array(values: Any) -> np.ndarray:
    """64-bit keys (Python ints) as the signed int64 array the compiled code reads."""
    return np.array([signed64(v) for v in values], np.int64)


@cache
def geometry(side: int) -> tuple[Any, ...]:
    """The read-only tables of a board side, as the kernels index them (``tab[k]``;
    :class:`.core.Core` appends ``tab[14]``, the quiet-counter key terms of its rules):

    0 ``nbr[i, d]`` neighbour or -1; 1 ``rays[i, d, k]`` and 2 ``raylen[i, d]``;
    3 ``seq[x, d]`` every grid line from its edge cell that way back, and 12 ``keep[x, d]``
    (0 where a line starts); 4 ``zob[i, code]`` Zobrist terms (signed); 5 ``legid[i, d, k]``
    the leg code to the k-th cell of a ray; 6-9 per code: kind (``A_*``), target, origin,
    direction; 10 the key terms of turn state (``Z_*``); 11 the moving dendrid's key term
    per ``cell * 6 + direction``; 13 the sight units per piece code (:data:`SIGHT_UNITS`).
    """
    t = tables(side)
    b = t.board
    n = b.size
    rl = max(1, 2 * side - 2)
    nbr = np.array(b.step, np.int16).reshape(n, 6)
    rays = np.full((n, 6, rl), -1, np.int16)
    raylen = np.zeros((n, 6), np.int16)
    for i in range(n):
        for d in range(6):
            ray = b.rays[i][d]
            rays[i, d, : len(ray)] = ray
            raylen[i, d] = len(ray)
    # per direction: every grid line, from its cell at the edge that way back
    seq = np.zeros((6, n), np.int16)
    keep = np.ones((6, n), np.int8)
    for d in range(6):
        x = 0
        for i in range(n):
            if b.step[i][d] < 0:
                keep[d, x] = 0
                j = i
                while j >= 0:
                    seq[d, x] = j
                    x += 1
                    j = b.step[j][opposite(d)]
    zob = np.stack([signed_array(row) for row in t.zobrist])
    ls = b.line_slots
    num = 3 + 5 * n + n * ls
    legid = np.full((n, 6, rl), -1, np.int32)
    kind = np.zeros(num, np.int8)
    target = np.full(num, -1, np.int16)
    origin = np.full(num, -1, np.int16)
    direction = np.full(num, -1, np.int8)
    kind[0:3] = (A_END, A_PASS, A_SWAP)
    for k, step_kind in enumerate((A_PLANT, A_CONT, A_SPROUT, A_GROW, A_CONVERT)):
        kind[3 + k * n : 3 + (k + 1) * n] = step_kind
        target[3 + k * n : 3 + (k + 1) * n] = np.arange(n)
    kind[3 + 5 * n :] = A_LEG
    for i in range(n):
        for d in range(6):
            for k, j in enumerate(b.rays[i][d]):
                code = 3 + 5 * n + i * ls + b.line_slot(i, j)
                legid[i, d, k] = code
                target[code] = j
                origin[code] = i
                direction[code] = d
    zk = signed_array([
        mix(1, 0), mix(1, 1), mix(2, 0), mix(2, 1), mix(2, 2), mix(4, 0), mix(4, 1),
        mix(4, 2), mix(5, 1), 0, mix(7, 1), mix(7, 2),
    ])
    zmover = signed_array([mix(3, k) for k in range(n * 6)])
    geo = (nbr, rays, raylen, np.ascontiguousarray(seq.T), zob, legid, kind, target, origin,
           direction, zk, zmover, np.ascontiguousarray(keep.T), SIGHT_UNITS.copy())
    for array in geo:
        array.setflags(write=False)
    return geo

