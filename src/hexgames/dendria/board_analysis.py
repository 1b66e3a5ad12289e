"""Read-only analysis of a Dendria board: the definitions of rules section 2.

This is public: :meth:`hexgames.dendria.Position.analysis` returns the (cached)
:class:`Analysis` of the board as it stands, which the AI's evaluation reads and which
any engine built on hexgames may read too. Its vocabulary:

* a **cell** is an index ``0..n-1`` in board order (``position.board.labels[i]`` is its
  name); ``position.cells[i]`` is the **piece code** on it: 0 for empty, else
  ``code(color, kind)`` = ``1 + 3 * color + kind`` with colour ``DARK = 0``/``LIGHT = 1``
  and kind ``SEED = 0``/``TREE = 1``/``DENDRID = 2`` (``COLOR_OF[c]``/``KIND_OF[c]`` read
  them back, -1 for empty);
* a **mask** is an ``int`` with one bit per cell, in the padded layout of
  ``position.tables`` (:class:`Tables`); :func:`cells_of_mask` turns one into cell
  indices, ascending, and ``mask.bit_count()`` counts them;
* a **group** (:class:`Group`) is a seedbed or a forest.

Whole-board questions (which cells are plantable, which seeds may sprout, what each
colour's dendrids fertilize, the seedbeds and forests) are answered with the padded bit
masks of :mod:`._tables`: one mask per piece code, moved a step at a time by shifts.
:class:`Analysis` computes each answer on first use and keeps it, because move
generation, legality checks and the public queries ask several questions about the same
board; the engine caches one per board.

Questions about one cell (a dendrid's stops, a cell's nourishers, why a seed may not
sprout) walk the precomputed rays instead: they are short, and the walk is what names
the reason in an error message.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from hexgames.dendria._tables import (
    COLOR_NAMES,
    COLOR_OF,
    DARK,
    DENDRID,
    EMPTY,
    KIND_NAMES,
    KIND_OF,
    LIGHT,
    SEED,
    TREE,
    Tables,
    code,
)
from hexgames.hexgrid import DIRECTION_NAMES
from hexgames.phrases import Phrase

__all__ = [
    "COLOR_NAMES", "COLOR_OF", "DARK", "DENDRID", "EMPTY", "KIND_NAMES", "KIND_OF", "LIGHT",
    "SEED", "TREE", "Analysis", "Group", "Tables", "cells_of_mask", "code",
    "dendrid_stops", "nourishers", "sprout_refusal",
]


class Group(NamedTuple):
    """A seedbed or a forest: its piece ``code``, its ``cells`` (indices, ascending) and
    its ``fertile`` soils (mask of the empty cells next to it)."""

    code: int
    cells: tuple[int, ...]
    fertile: int

    @property
    def color(self) -> int:
        """``DARK`` (0) or ``LIGHT`` (1)."""
        return COLOR_OF[self.code]

    @property
    def kind(self) -> int:
        """``SEED`` (a seedbed) or ``TREE`` (a forest)."""
        return KIND_OF[self.code]


_new_tuple = tuple.__new__


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


def sprout_refusal(i: int, cells: list[int], t: Tables) -> Phrase | None:
    """Why the seed on ``i`` may not sprout (a translatable phrase; ``str()`` is the
    English reason), or ``None`` when it may.

    A seed sprouts when every root has a nutrient and strictly more of its nourishers
    share its colour than have the other colour (a tie does not suffice).
    """
    v = cells[i]
    label = t.board.labels[i]
    if not v or KIND_OF[v] != SEED:
        return Phrase("there is no seed on {cell}", cell=label)
    color = COLOR_OF[v]
    own = other = 0
    for d, first in nourishers(i, cells, t):
        if first < 0:
            # i18n: {direction} is a compass direction in notation (N, NE, SE, S, SW, NW)
            return Phrase(
                "the seed on {cell} is not nourished: its root towards {direction} is "
                "nutrientless", cell=label, direction=DIRECTION_NAMES[d],
            )
        if COLOR_OF[cells[first]] == color:
            own += 1
        else:
            other += 1
    if own <= other:
        return Phrase(
            "the seed on {cell} may not sprout: {own} of its nourishers have its colour "
            "and {other} the other colour (it needs more of its own)",
            cell=label, own=own, other=other,
        )
    return None


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


class Analysis:
    """Whole-board facts about one board (given as its seven piece-code masks).

    Read-only: every answer is computed on first use and then kept (as an ``int`` mask or
    a tuple, so a caller cannot change it), and the board it describes never changes (a
    position hands out a new one when its board changes). Read-only attributes:
    ``masks`` (``masks[c]``: the cells holding piece code ``c``), ``occupied`` and
    ``empty`` (masks), ``t`` (the :class:`Tables`). Masks are in the padded layout of
    :mod:`._tables` (``masks[0]`` as given is not trusted: ``empty`` is recomputed).
    """

    __slots__ = (
        "_empty", "_fert", "_first", "_forests", "_masks", "_occupied", "_plantable",
        "_seedbeds", "_sproutable", "_t",
    )

    def __init__(self, masks: tuple[int, ...], t: Tables) -> None:
        self._masks = masks
        self._t = t
        self._occupied = masks[1] | masks[2] | masks[3] | masks[4] | masks[5] | masks[6]
        self._empty = t.valid & ~self._occupied
        self._fert: list[int | None] = [None, None]
        self._first: list[tuple[int, ...] | None] = [None, None]
        self._plantable: int | None = None
        self._seedbeds: tuple[Group, ...] | None = None
        self._forests: tuple[Group, ...] | None = None
        self._sproutable: tuple[int, ...] | None = None

    # Read-only views of what the analysis was built from (no setters).
    @property
    def masks(self) -> tuple[int, ...]:
        """``masks[c]``: the cells holding piece code ``c``."""
        return self._masks

    @property
    def t(self) -> Tables:
        """The tables of the board side (mask layout, rays)."""
        return self._t

    @property
    def occupied(self) -> int:
        """Cells holding any piece."""
        return self._occupied

    @property
    def empty(self) -> int:
        """Empty cells."""
        return self._empty

    # ------------------------------------------------------------ primitives
    def dilate(self, mask: int) -> int:
        """``mask`` and every neighbour of its cells."""
        valid = self._t.valid
        out = mask
        for offset in self._t.offsets:
            out |= mask << offset if offset > 0 else mask >> -offset
        return out & valid

    def first_piece(self, color: int) -> tuple[int, ...]:
        """Per direction ``d``: the cells whose first piece along the ray ``d`` (their
        nourisher that way) is of ``color``."""
        found = self._first[color]
        if found is None:
            m = self._masks
            pieces = m[code(color, SEED)] | m[code(color, TREE)] | m[code(color, DENDRID)]
            empty = self._empty
            reaches = []
            valid = self._t.valid
            for offset in self._t.offsets:
                # Cells whose neighbour that way is a piece of ``color``, then cells whose
                # neighbour that way is empty and already known: one shift per step back.
                if offset > 0:
                    reach = (pieces >> offset) & valid
                    while True:
                        grown = reach | (((reach & empty) >> offset) & valid)
                        if grown == reach:
                            break
                        reach = grown
                else:
                    reach = (pieces << -offset) & valid
                    while True:
                        grown = reach | (((reach & empty) << -offset) & valid)
                        if grown == reach:
                            break
                        reach = grown
                reaches.append(reach)
            found = self._first[color] = tuple(reaches)
        return found

    # ------------------------------------------------------------- questions
    @property
    def plantable(self) -> int:
        """Empty cells with at least one nutrientless root (a ray with cells, all empty)."""
        if self._plantable is None:
            dark, light = self.first_piece(0), self.first_piece(1)
            edge = self._t.edge
            open_root = 0
            for d in range(6):
                open_root |= ~(dark[d] | light[d] | edge[d])
            self._plantable = self._empty & open_root
        return self._plantable

    def fertilized(self, color: int) -> int:
        """Empty cells seen by ``color``'s dendrids along their rays (until a piece)."""
        mask = self._fert[color]
        if mask is None:
            dendrids = self._masks[code(color, DENDRID)]
            empty, valid = self._empty, self._t.valid
            mask = 0
            if dendrids:
                for offset in self._t.offsets:
                    front = dendrids
                    while front:
                        front = (front << offset if offset > 0 else front >> -offset)
                        front &= valid & empty
                        mask |= front
            self._fert[color] = mask
        return mask

    def _flood(self, v: int, cells: int) -> list[Group]:
        """The groups of piece code ``v`` among ``cells`` (whole groups of that code)."""
        out = []
        pieces = self._masks[v]
        while cells:
            group = cells & -cells
            while True:
                grown = self.dilate(group) & pieces
                if grown == group:
                    break
                group = grown
            cells &= ~group
            fertile = self.dilate(group) & self._empty
            # tuple.__new__: a Group without a Python-level __new__ call (hot in search).
            out.append(_new_tuple(Group, (v, tuple(cells_of_mask(group, self._t)), fertile)))
        return out

    def _groups(self, kind: int) -> list[Group]:
        out = self._flood(code(0, kind), self._masks[code(0, kind)])
        out += self._flood(code(1, kind), self._masks[code(1, kind)])
        out.sort(key=lambda g: g.cells[0])
        return out

    def _groups_fed_by(self, v: int, fed: int) -> list[Group]:
        """The groups of code ``v`` that have a fertile soil and all of them in ``fed``.

        Move generation asks only this, so instead of flood-filling every group it first
        drops every group that touches an empty cell outside ``fed`` (flood-filling from
        those pieces), which usually leaves few or none.
        """
        pieces = self._masks[v]
        spoiled = self.dilate(self._empty & ~fed) & pieces
        while True:
            grown = self.dilate(spoiled) & pieces
            if grown == spoiled:
                break
            spoiled = grown
        return [g for g in self._flood(v, pieces & ~spoiled) if g.fertile]

    @property
    def seedbeds(self) -> tuple[Group, ...]:
        """Every seedbed, ordered by its first cell."""
        if self._seedbeds is None:
            self._seedbeds = tuple(self._groups(SEED))
        return self._seedbeds

    @property
    def forests(self) -> tuple[Group, ...]:
        """Every forest, ordered by its first cell."""
        if self._forests is None:
            self._forests = tuple(self._groups(TREE))
        return self._forests

    @property
    def sproutable(self) -> tuple[int, ...]:
        """Seeds (either colour) that may sprout, ascending."""
        if self._sproutable is None:
            first = (self.first_piece(0), self.first_piece(1))
            edge = self._t.edge
            nourished = self._t.valid
            for d in range(6):
                nourished &= first[0][d] | first[1][d] | edge[d]
            out = []
            for color in (0, 1):
                own, other = first[color], first[1 - color]
                for i in cells_of_mask(self._masks[code(color, SEED)] & nourished, self._t):
                    b = self._t.bit[i]
                    balance = 0
                    for d in range(6):
                        if own[d] & b:
                            balance += 1
                        elif other[d] & b:
                            balance -= 1
                    if balance > 0:
                        out.append(i)
            out.sort()
            self._sproutable = tuple(out)
        return self._sproutable

    def group_of(self, i: int) -> Group | None:
        """The seedbed or forest containing cell ``i`` (``None`` for other cells)."""
        b = self._t.bit[i]
        for v in (1, 2, 4, 5):  # seed and tree codes
            if self._masks[v] & b:
                return self._flood(v, b)[0]
        return None

    def growable(self) -> list[Group]:
        """Seedbeds (either colour) that may grow, by first cell: at least one fertile
        soil, each fertilized by a dendrid of the seedbed's colour."""
        out = self._groups_fed_by(code(0, SEED), self.fertilized(0))
        out += self._groups_fed_by(code(1, SEED), self.fertilized(1))
        out.sort(key=lambda g: g.cells[0])
        return out

    def convertible(self, mover: int) -> list[Group]:
        """Enemy forests ``mover`` may convert, by first cell: at least one fertile soil,
        each fertilized by a dendrid of ``mover``, one or more by none of the owner's."""
        owner = 1 - mover
        theirs = self.fertilized(owner)
        return [
            g for g in self._groups_fed_by(code(owner, TREE), self.fertilized(mover))
            if g.fertile & ~theirs
        ]

    def forest_sizes(self, color: int) -> list[int]:
        """Sizes of ``color``'s forests, by first cell."""
        return [len(g.cells) for g in self.forests if COLOR_OF[g.code] == color]

    def pieces(self, color: int, kind: int) -> int:
        """Mask of the cells holding ``color``'s pieces of ``kind``."""
        return self._masks[code(color, kind)]


def cells_of_mask(mask: int, t: Tables) -> list[int]:
    """Cell indices of a padded-layout mask, ascending (board order)."""
    out = []
    index_at = t.index_at
    while mask:
        low = mask & -mask
        out.append(index_at[low.bit_length() - 1])
        mask ^= low
    return out
