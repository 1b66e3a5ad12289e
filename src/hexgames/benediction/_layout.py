"""The layout of the arrays Benediction's compiled code works on: what each entry of a
game's ``meta`` and of a variant's ``params`` holds, the undo frames, the result and
reason codes, and the flat buffers (a variant's geometry packed into one int64 array, a
position's board and ``meta`` in one int8 array).

The bottom of the compiled engine: the rules kernels (:mod:`._legal_actions`,
:mod:`.core`), the position's entry points (:mod:`._position_kernels`), the search and
the research batch all read these names, and each is defined here once. Compiled code
has the values built in, so every compiled module lists this file among the sources
whose change drops its cached code (see :func:`hexgames._jit.drop_stale_cache`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from hexgames._jit import signed64
from hexgames.benediction._tables import BLUE, MAX_TRAVEL, RED, tables
from hexgames.benediction.rules import Termination

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
#: "Not reached" in the reach scratch arrays (farther than any travel).
BIG = 1 << 20
MASK64 = (1 << 64) - 1
FRAME_LEN = 8  # an undo frame: meta[0:6] before the action, the log length, the block


#: Where the geometry starts in a core's flat ``G`` buffer: ``G[:PARAMS_LEN]`` are the
#: parameters, then one header entry (offset and four dimensions) per geometry array.
G_HEADER = PARAMS_LEN
GEO_ARRAYS = 9
#: Where a core's ``CW`` buffer says where its parts are (in int64 words): the length of
#: ``G``, then offset and length of ``W`` (int32 work) and of ``WB`` (bool work).
G_LAYOUT = G_HEADER + 5 * GEO_ARRAYS
G_DATA = G_LAYOUT + 5


@cache
def geometry_arrays(side: int) -> tuple[np.ndarray, ...]:
    """The geometry of a board side as the kernels index it (``geo[k]``): 0 ``rays[c, i,
    d, step]`` and 1 ``portal[c, i, d]`` (:attr:`._tables.Tables.rays`, -1 past the
    end), 2 ``nbr[i]`` neighbours and 3 ``badj[i]`` block-adjacent points (-1 padded),
    4 ``wall[c, i]``, 5 ``zman`` and 6 ``zflag`` (the Zobrist numbers, signed), 7 the
    key constants (blue to act, two actions left, the three results) and 8
    ``wall_pts[c]`` (-1 padded)."""
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
        return np.array([signed64(v) for v in values], np.int64)

    zman = np.stack([signed(row) for row in t.zman])
    zflag = np.stack([signed(row) for row in t.zflag])
    zconst = signed([t.zblue, t.ztwo, t.zwin[1], t.zwin[2], t.zwin[3], 0])
    wall_pts = np.full((3, n), -1, np.int64)
    for c in (RED, BLUE):
        wall_pts[c, : len(t.wall_points[c])] = t.wall_points[c]
    return (rays, portal, nbr, badj, wall, zman, zflag, zconst, wall_pts)


def pack_geometry(
    params: np.ndarray, side: int, extra: int = 0
) -> tuple[np.ndarray, int, tuple[np.ndarray, ...]]:
    """One flat int64 buffer ``G`` holding the parameters and the geometry (so that a
    compiled call takes one argument for both), and the geometry as views of it."""
    arrays = geometry_arrays(side)
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


def meta_at(n: int) -> int:
    """Where ``meta`` starts in a position's one buffer ``PB`` of ``n`` points (int8:
    owner, size, flags and block adjacency, ``n`` each, padded to 8 bytes, then ``meta``
    as int64; see :mod:`._position_kernels`)."""
    return (4 * n + 7) // 8 * 8


def pb_len(n: int) -> int:
    """Bytes of a position's one buffer ``PB`` of ``n`` points."""
    return meta_at(n) + 8 * META_LEN
