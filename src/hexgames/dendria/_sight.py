"""What each cell of a Dendria board sees along its six lines, in compiled code: the
counts behind plants (a nutrientless root), sprouts (nourishers) and fertilization (a
dendrid at the end of a line).

Per cell, a packed int16 (:func:`_scan_once`) counts the lines from it that hold no
piece, that end at a Dark / Light dendrid, and that end at a Dark / Light piece. The
counts are kept up to date step by step (a step changes a few lines), which is what
makes legal-step generation (:mod:`.core`) and the leaf values (:mod:`.leaf_value`) cheap.
A leading underscore marks a compiled helper without a Python entry (``njit_inner``),
which the other compiled modules call.
"""

from __future__ import annotations

from hexgames import _jit
from hexgames._jit import drop_stale_cache, njit_inner
from hexgames.dendria import _layout
from hexgames.dendria._layout import M_HASH, M_SCANHASH, M_SCANNED


@njit_inner(nrt=False)
def _first_unit(tab, board, i, d):  # type: ignore[no-untyped-def]
    """The sight unit (``tab[13]``) of the first piece on ``board`` along the ray from
    cell ``i`` in direction ``d`` (``tab[13][0]`` when the ray holds no piece)."""
    rays = tab[1]
    units = tab[13]
    for k in range(tab[2][i, d]):
        v = board[rays[i, d, k]]
        if v != 0:
            return units[v]
    return units[0]


@njit_inner(nrt=False)
def _sight_all(tab, cells, n, board, sight):  # type: ignore[no-untyped-def]
    """Count from scratch what every cell sees (see :func:`_scan_once`) and copy the
    board they were counted on to ``board``: one walk along every grid line in each
    direction, from the edge back, carrying the sight unit of the last piece passed."""
    seq = tab[3]
    keep = tab[12]
    units = tab[13]
    for c in range(n):
        board[c] = cells[c]
        sight[c] = 0
    # ``seq.shape[1]`` (6) rather than a constant, so that the compiler keeps one loop
    # instead of six unrolled copies (this function's code was 2,300 lines of LLVM IR,
    # compiled into every caller: about a second of a cold start); it runs once per
    # fresh state only
    for d in range(seq.shape[1]):
        unit = 0
        for x in range(n):
            c = seq[x, d]
            if keep[x, d]:  # not the line's first cell: it sees what lies before it
                sight[c] += unit
            else:
                unit = units[0]
            v = cells[c]
            if v != 0:
                unit = units[v]
    return 0


@njit_inner(nrt=False)
def _sight_change(tab, board, sight, x, b):  # type: ignore[no-untyped-def]
    """Cell ``x`` of ``board`` becomes piece code ``b``: only the cells that see ``x``
    along a line (up to and including the next piece back) count differently."""
    a = board[x]
    units = tab[13]
    rays = tab[1]
    raylen = tab[2]
    for d in range(6):
        # what the cells behind x (looking in direction d) see there, before and after
        beyond = _first_unit(tab, board, x, d) if a == 0 or b == 0 else 0
        old = units[a] if a != 0 else beyond
        new = units[b] if b != 0 else beyond
        diff = new - old
        if diff == 0:
            continue
        back = (d + 3) % 6  # hexgrid.opposite(d)
        for k in range(raylen[x, back]):
            c = rays[x, back, k]
            sight[c] += diff
            if board[c] != 0:
                break
    board[x] = b
    return 0


#: Bits of a cell's packed ``sight`` (see :func:`_scan_once`): some line from it holds no
#: piece (a nutrientless root), some line ends at a Dark / Light dendrid (it fertilizes
#: the cell when empty).
NUTRIENTLESS, FED_BY_DARK, FED_BY_LIGHT = 7, 7 << 3, 7 << 6


@njit_inner(nrt=False)
def _scan_once(tab, cells, meta, n, scratch):  # type: ignore[no-untyped-def]
    """Bring ``sight`` (``scratch[0:n]``) up to the board as it stands: per cell, over
    the six directions, how many lines from it hold cells but no piece (bits 0-2:
    :data:`NUTRIENTLESS`; an empty cell with one is plantable, a seed with one is not
    nourished), end at a Dark / Light dendrid (bits 3-5 / 6-8: :data:`FED_BY_DARK` /
    :data:`FED_BY_LIGHT`, the dendrid fertilizes the cell when it is empty), or end at a
    Dark / Light piece (bits 9-11 / 12-14: a seed's nourishers), packed in one int16
    (each count is at most 6).

    ``sight`` is of the board copied in ``scratch[n:2n]`` and is brought up to date
    cell by cell where the board differs (:func:`_sight_change`: a step changes a few
    lines), so a step costs a few short walks instead of a walk along every line of the
    board; it is counted from scratch only when ``meta[M_SCANNED]`` says the scratch
    holds no count yet (a new or rebuilt state, or the next game of a batch). Nothing to
    do when the board is the one last brought up to date (``meta[M_SCANHASH]``: an
    ``end`` or ``pass`` leaves the board as it was)."""
    if meta[M_SCANNED] and meta[M_SCANHASH] == meta[M_HASH]:
        return 0
    sight = scratch[0:n]
    board = scratch[n : 2 * n]
    if meta[M_SCANNED]:
        for x in range(n):
            if board[x] != cells[x]:
                _sight_change(tab, board, sight, x, cells[x])
    else:
        _sight_all(tab, cells, n, board, sight)
    meta[M_SCANNED] = 1
    meta[M_SCANHASH] = meta[M_HASH]
    return 0


@njit_inner(nrt=False)
def _nourished(v, s):  # type: ignore[no-untyped-def]
    """Whether a seed of code ``v`` whose packed sight is ``s`` may sprout: no
    nutrientless root, and more nourishers of its colour than of the other."""
    if s & NUTRIENTLESS:
        return False
    dark = (s >> 9) & 7
    light = (s >> 12) & 7
    return dark > light if v == 1 else light > dark


__all__ = ["FED_BY_DARK", "FED_BY_LIGHT", "NUTRIENTLESS"]

# the compiled code here has the layout's constants built in (see drop_stale_cache)
drop_stale_cache(__name__, _jit.__file__, _layout.__file__)
