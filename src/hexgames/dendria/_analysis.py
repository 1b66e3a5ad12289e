"""Read-only analysis of a Dendria board: the definitions of rules section 2.

Each function takes the per-side :class:`~._tables.Tables` and the board as a list of
piece codes, so the same code serves the engine's legality checks, its cheap public
queries and its move generation. :class:`Analysis` bundles the whole-board results
(groups, fertilized cells, sproutable seeds) that several questions about one board
share; the engine caches one per board.
"""

from __future__ import annotations

from collections.abc import Iterator

from hexgames.dendria._tables import (
    COLOR_OF,
    DENDRID,
    KIND_OF,
    SEED,
    TREE,
    Tables,
    code,
)
from hexgames.hexgrid import DIRECTION_NAMES


def occupancy(cells: list[int], t: Tables) -> int:
    """Bit mask of the occupied cells."""
    mask = 0
    bit = t.bit
    for i, v in enumerate(cells):
        if v:
            mask |= bit[i]
    return mask


def is_plantable(i: int, cells: list[int], occupied: int, t: Tables) -> bool:
    """An empty cell with at least one nutrientless root (a root whose cells are all
    empty). Edge cells simply have fewer roots: a ray leaving the board at once is none."""
    if cells[i]:
        return False
    return any(not (mask & occupied) for mask in t.root_masks[i])


def nourishers(i: int, cells: list[int], t: Tables) -> list[tuple[int, int]]:
    """``(direction, nourisher cell or -1)`` for each root of ``i``: the first piece on
    the root, whatever its colour or kind, or -1 when the root is nutrientless."""
    out = []
    for d, ray in t.roots[i]:
        first = -1
        for j in ray:
            if cells[j]:
                first = j
                break
        out.append((d, first))
    return out


def sprout_refusal(i: int, cells: list[int], t: Tables) -> str | None:
    """Why the seed on ``i`` may not sprout, or ``None`` when it may.

    A seed sprouts when every root has a nutrient and strictly more of its nourishers
    share its colour than have the other colour (a tie does not suffice).
    """
    v = cells[i]
    label = t.board.labels[i]
    if not v or KIND_OF[v] != SEED:
        return f"there is no seed on {label}"
    color = COLOR_OF[v]
    own = other = 0
    for d, ray in t.roots[i]:
        for j in ray:
            w = cells[j]
            if w:
                if COLOR_OF[w] == color:
                    own += 1
                else:
                    other += 1
                break
        else:
            return (
                f"the seed on {label} is not nourished: its root towards "
                f"{DIRECTION_NAMES[d]} is nutrientless"
            )
    if own <= other:
        return (
            f"the seed on {label} may not sprout: {own} of its nourishers have its colour "
            f"and {other} the other colour (it needs more of its own)"
        )
    return None


def can_sprout(i: int, cells: list[int], t: Tables) -> bool:
    """Fast form of :func:`sprout_refusal` for move generation."""
    color = COLOR_OF[cells[i]]
    balance = 0
    for _, ray in t.roots[i]:
        for j in ray:
            w = cells[j]
            if w:
                balance += 1 if COLOR_OF[w] == color else -1
                break
        else:
            return False
    return balance > 0


def dendrid_stops(i: int, d: int, color: int, cells: list[int], t: Tables) -> Iterator[int]:
    """Cells where a ``color`` dendrid standing on ``i`` may stop moving in direction ``d``.

    It passes empty cells, seeds of either colour and friendly dendrids, may not pass
    or land on trees and enemy dendrids, and stops only on empty cells.
    """
    friend = code(color, DENDRID)
    for j in t.board.rays[i][d]:
        v = cells[j]
        if not v:
            yield j
        elif v != friend and KIND_OF[v] != SEED:
            return


def fertilized(color: int, cells: list[int], t: Tables) -> int:
    """Bit mask of the empty cells that ``color``'s dendrids see along their rays."""
    friend = code(color, DENDRID)
    bit = t.bit
    rays = t.board.rays
    mask = 0
    for i, v in enumerate(cells):
        if v == friend:
            for ray in rays[i]:
                for j in ray:
                    if cells[j]:
                        break
                    mask |= bit[j]
    return mask


def groups(cells: list[int], t: Tables, kind: int) -> list[tuple[int, tuple[int, ...]]]:
    """Maximal connected one-colour groups of ``kind`` pieces (seedbeds or forests), as
    ``(piece code, cells ascending)``, ordered by their first cell."""
    neighbours = t.board.neighbours
    seen = [False] * len(cells)
    out = []
    for start, v in enumerate(cells):
        if seen[start] or not v or KIND_OF[v] != kind:
            continue
        seen[start] = True
        stack = [start]
        members = []
        while stack:
            i = stack.pop()
            members.append(i)
            for j in neighbours[i]:
                if not seen[j] and cells[j] == v:
                    seen[j] = True
                    stack.append(j)
        members.sort()
        out.append((v, tuple(members)))
    return out


def fertile_soils(members: tuple[int, ...], occupied: int, t: Tables) -> int:
    """Bit mask of the empty cells adjacent to a group."""
    mask = 0
    nm = t.neighbour_mask
    for i in members:
        mask |= nm[i]
    return mask & ~occupied


class Analysis:
    """Whole-board facts about one board, computed on first use.

    The engine keeps one per distinct board (keyed by the board's bytes), so that move
    generation, legality checks and the public queries do not recompute flood fills
    and dendrid sight lines for the same board.
    """

    __slots__ = ("_fert", "_forests", "_seedbeds", "_sproutable", "cells", "occupied", "t")

    def __init__(self, cells: list[int], occupied: int, t: Tables) -> None:
        self.cells = list(cells)
        self.occupied = occupied
        self.t = t
        self._fert: list[int | None] = [None, None]
        self._seedbeds: list[tuple[int, tuple[int, ...], int]] | None = None
        self._forests: list[tuple[int, tuple[int, ...], int]] | None = None
        self._sproutable: list[int] | None = None

    def fertilized(self, color: int) -> int:
        mask = self._fert[color]
        if mask is None:
            mask = self._fert[color] = fertilized(color, self.cells, self.t)
        return mask

    def _groups(self, kind: int) -> list[tuple[int, tuple[int, ...], int]]:
        return [
            (v, members, fertile_soils(members, self.occupied, self.t))
            for v, members in groups(self.cells, self.t, kind)
        ]

    @property
    def seedbeds(self) -> list[tuple[int, tuple[int, ...], int]]:
        """``(seed code, cells, fertile-soil mask)`` of every seedbed."""
        if self._seedbeds is None:
            self._seedbeds = self._groups(SEED)
        return self._seedbeds

    @property
    def forests(self) -> list[tuple[int, tuple[int, ...], int]]:
        """``(tree code, cells, fertile-soil mask)`` of every forest."""
        if self._forests is None:
            self._forests = self._groups(TREE)
        return self._forests

    @property
    def sproutable(self) -> list[int]:
        """Seeds (either colour) that may sprout, ascending."""
        if self._sproutable is None:
            cells, t = self.cells, self.t
            self._sproutable = [
                i for i, v in enumerate(cells) if v and KIND_OF[v] == SEED
                and can_sprout(i, cells, t)
            ]
        return self._sproutable

    def group_of(self, i: int) -> tuple[int, tuple[int, ...], int] | None:
        """The seedbed or forest containing cell ``i`` (``None`` for other cells)."""
        v = self.cells[i]
        if not v or KIND_OF[v] == DENDRID:
            return None
        for group in self.seedbeds if KIND_OF[v] == SEED else self.forests:
            if i in group[1]:
                return group
        raise AssertionError("every seed and tree belongs to a group")

    def can_grow(self, seedbed: tuple[int, tuple[int, ...], int]) -> bool:
        """At least one fertile soil, each fertilized by a dendrid of the seedbed's colour."""
        v, _, fertile = seedbed
        return bool(fertile) and not fertile & ~self.fertilized(COLOR_OF[v])

    def can_convert(self, forest: tuple[int, tuple[int, ...], int], mover: int) -> bool:
        """An enemy forest of ``mover`` with a fertile soil, all fertilized by the
        mover's dendrids and at least one fertilized by none of the owner's."""
        v, _, fertile = forest
        owner = COLOR_OF[v]
        return (
            owner != mover
            and bool(fertile)
            and not fertile & ~self.fertilized(mover)
            and bool(fertile & ~self.fertilized(owner))
        )

    def growable(self) -> list[tuple[int, tuple[int, ...], int]]:
        return [g for g in self.seedbeds if self.can_grow(g)]

    def convertible(self, mover: int) -> list[tuple[int, tuple[int, ...], int]]:
        return [g for g in self.forests if self.can_convert(g, mover)]

    def forest_sizes(self, color: int) -> list[int]:
        return [len(members) for v, members, _ in self.forests if COLOR_OF[v] == color]

