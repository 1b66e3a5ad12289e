"""Per-side lookup tables of the Dendria engine: piece codes, bit masks and Zobrist keys.

The engine keeps a board as a flat ``list[int]`` of piece codes indexed like
:mod:`hexgames.hexgrid`, and also as one bit mask per piece code. Masks use a *padded*
layout: cell ``(x, y)`` is bit ``x * W + y`` with ``W = 2n`` (one spare row per column),
so that moving a whole set of cells one step in a direction is a single shift
(N +1, NE +W+1, SE +W, and the negatives) followed by ``& valid``: a step off the board
lands on a spare bit or outside the board's rectangle and is masked away. That turns
"every cell a dendrid sees", "connected group" and "cells with an empty ray" into a few
dozen big-integer operations instead of loops over cells. Bit order equals index order,
so the lowest bit of a group is its first cell in board order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from hexgames.hexgrid import DIRECTIONS, HexBoard, board

EMPTY = 0
DARK, LIGHT = 0, 1
SEED, TREE, DENDRID = 0, 1, 2
COLOR_NAMES: tuple[str, str] = ("dark", "light")
KIND_NAMES: tuple[str, str, str] = ("seed", "tree", "dendrid")


def code(color: int, kind: int) -> int:
    """Piece code of a colour and kind: 1..6 (0 is an empty cell)."""
    return 1 + 3 * color + kind


#: Colour / kind of a piece code (-1 for an empty cell).
COLOR_OF: tuple[int, ...] = (-1, 0, 0, 0, 1, 1, 1)
KIND_OF: tuple[int, ...] = (-1, 0, 1, 2, 0, 1, 2)

_MASK64 = (1 << 64) - 1


def mix(tag: int, value: int) -> int:
    """A fixed pseudo-random 64-bit number for ``(tag, value)`` (splitmix64).

    Used for the Zobrist terms of unbounded counters (turns without a plant), so keys
    stay the same across processes and runs without a table of every possible value.
    """
    z = (tag * 0x9E3779B97F4A7C15 + value * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


@dataclass(frozen=True, eq=False)
class Tables:
    """Everything the engine looks up for one board side."""

    board: HexBoard
    #: ``bit[i]``: the padded-layout bit of cell index ``i``.
    bit: tuple[int, ...]
    #: Cell index of each padded bit position (-1 for spare or off-board positions).
    index_at: tuple[int, ...]
    #: All cells of the board.
    valid: int
    #: Bit shift that moves a mask one step in each direction (may be negative).
    offsets: tuple[int, ...]
    #: ``edge[d]``: cells with no neighbour in direction ``d`` (no root that way).
    edge: tuple[int, ...]
    #: Per cell, its roots: ``(direction, ray cells)`` for each ray that has cells.
    roots: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]
    #: ``zobrist[i][c]``: key term of piece code ``c`` on cell ``i`` (0 for empty).
    zobrist: tuple[tuple[int, ...], ...]


@cache
def tables(side: int) -> Tables:
    """The shared tables of a board side (computed once)."""
    geometry = board(side)
    rng = random.Random(f"dendria-zobrist-{side}")
    width = 2 * side
    positions = [x * width + y for x, y in geometry.coords]
    bit = tuple(1 << p for p in positions)
    index_at = [-1] * (width * (2 * side - 1))
    for i, p in enumerate(positions):
        index_at[p] = i
    edge = tuple(
        sum(bit[i] for i in range(geometry.size) if geometry.step[i][d] < 0) for d in range(6)
    )
    roots = tuple(
        tuple((d, ray) for d, ray in enumerate(geometry.rays[i]) if ray)
        for i in range(geometry.size)
    )
    zobrist = tuple(
        (0, *(rng.getrandbits(64) for _ in range(6))) for _ in range(geometry.size)
    )
    return Tables(
        board=geometry,
        bit=bit,
        index_at=tuple(index_at),
        valid=sum(bit),
        offsets=tuple(dx * width + dy for dx, dy in DIRECTIONS),
        edge=edge,
        roots=roots,
        zobrist=zobrist,
    )
