"""Per-side lookup tables of the Dendria engine: piece codes, bit masks and Zobrist keys.

The engine keeps a board as a flat ``list[int]`` of piece codes indexed like
:mod:`hexgames.hexgrid` and sets of cells as Python ``int`` bit masks, because set
operations on one machine word per 60 cells are what make "is every fertile soil
fertilized?" cheap. Everything here is computed once per board side and shared.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from hexgames.hexgrid import HexBoard, board

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
    #: ``bit[i] == 1 << i``.
    bit: tuple[int, ...]
    #: Bit mask of the on-board neighbours of each cell.
    neighbour_mask: tuple[int, ...]
    #: Per cell, its roots: ``(direction, ray cells)`` for each ray that has cells.
    roots: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]
    #: Per cell, the bit mask of each of its roots (same order as ``roots``).
    root_masks: tuple[tuple[int, ...], ...]
    #: ``zobrist[i][c]``: key term of piece code ``c`` on cell ``i`` (0 for empty).
    zobrist: tuple[tuple[int, ...], ...]


@cache
def tables(side: int) -> Tables:
    """The shared tables of a board side (computed once)."""
    geometry = board(side)
    rng = random.Random(f"dendria-zobrist-{side}")
    bit = tuple(1 << i for i in range(geometry.size))
    neighbour_mask = tuple(
        sum(bit[j] for j in geometry.neighbours[i]) for i in range(geometry.size)
    )
    roots = tuple(
        tuple((d, ray) for d, ray in enumerate(geometry.rays[i]) if ray)
        for i in range(geometry.size)
    )
    root_masks = tuple(
        tuple(sum(bit[j] for j in ray) for _, ray in cell_roots) for cell_roots in roots
    )
    zobrist = tuple(
        (0, *(rng.getrandbits(64) for _ in range(6))) for _ in range(geometry.size)
    )
    return Tables(
        board=geometry,
        bit=bit,
        neighbour_mask=neighbour_mask,
        roots=roots,
        root_masks=root_masks,
        zobrist=zobrist,
    )


def cells_of(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
