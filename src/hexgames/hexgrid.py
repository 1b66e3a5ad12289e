"""Hex-hex boards: coordinates, labels, directions and precomputed tables.

Both games are played on a hexagon of side ``n`` made of ``3n(n-1)+1`` cells (Dendria's
soils) or points (Benediction's grid intersections); the geometry is the same. Each cell
has a flat **index** ``0..size-1`` so that engines can keep their state in plain lists,
and every neighbour, ray and line end is looked up in tables computed once per side.

Coordinates are axial, as in both rules documents: ``x`` is the column index (``a`` = 0),
``y`` is ``row-1`` in the left half and the centre column and ``row-1+(x-(n-1))`` in the
right half. A cell exists iff ``0 <= x, y <= 2n-2`` and ``|x-y| <= n-1``.

Indices run column by column, bottom to top (a1, a2, ..., b1, ...), which is also the
order the board-text formats list cells in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

#: The six directions as (dx, dy), in clockwise order starting north. ``(d + 3) % 6`` is
#: the opposite of ``d``.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 1), (1, 0), (0, -1), (-1, -1), (-1, 0))
DIRECTION_NAMES: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")
N, NE, SE, S, SW, NW = range(6)

MIN_SIDE = 2
MAX_SIDE = 13
COLUMN_LETTERS = "abcdefghijklmnopqrstuvwxy"


def opposite(direction: int) -> int:
    """The direction pointing the other way."""
    return (direction + 3) % 6


@dataclass(frozen=True, eq=False)
class HexBoard:
    """Immutable geometry of a hex-hex board of a given side.

    Use :func:`board` to get the shared, cached instance for a side instead of
    constructing one yourself: the tables are computed once.
    """

    side: int
    #: (x, y) of each index.
    coords: tuple[tuple[int, int], ...]
    #: label ("e5") of each index.
    labels: tuple[str, ...]
    #: ``step[i][d]``: index of the neighbour of ``i`` in direction ``d``, or -1 off board.
    step: tuple[tuple[int, ...], ...]
    #: ``neighbours[i]``: indices of the on-board neighbours of ``i``.
    neighbours: tuple[tuple[int, ...], ...]
    #: ``rays[i][d]``: indices from the neighbour of ``i`` in direction ``d`` to the edge.
    rays: tuple[tuple[tuple[int, ...], ...], ...]
    _index_of_label: dict[str, int]
    _index_of_coord: dict[tuple[int, int], int]

    @property
    def size(self) -> int:
        """Number of cells."""
        return len(self.coords)

    @property
    def columns(self) -> int:
        return 2 * self.side - 1

    def __len__(self) -> int:
        return len(self.coords)

    def __repr__(self) -> str:
        return f"HexBoard(side={self.side})"

    # ----------------------------------------------------------------- lookups
    def index(self, label: str) -> int:
        """Index of a label such as ``"e5"`` (case-insensitive).

        Raises ``ValueError`` naming the label when it is not a cell of this board.
        """
        key = label.strip().lower()
        try:
            return self._index_of_label[key]
        except KeyError:
            raise ValueError(f"{label!r} is not a point of a side-{self.side} board") from None

    def is_label(self, label: str) -> bool:
        return label.strip().lower() in self._index_of_label

    def label(self, index: int) -> str:
        return self.labels[index]

    def index_at(self, x: int, y: int) -> int:
        """Index at axial ``(x, y)`` or -1 when off the board."""
        return self._index_of_coord.get((x, y), -1)

    def contains(self, x: int, y: int) -> bool:
        n1 = self.side - 1
        return 0 <= x <= 2 * n1 and 0 <= y <= 2 * n1 and abs(x - y) <= n1

    def row_of(self, index: int) -> int:
        """1-based row of a cell within its column."""
        x, y = self.coords[index]
        return row_from_axial(self.side, x, y)

    def line_end(self, index: int, direction: int) -> int:
        """The last cell of the grid line from ``index`` in ``direction`` (itself at the edge)."""
        ray = self.rays[index][direction]
        return ray[-1] if ray else index

    def center(self) -> int:
        n1 = self.side - 1
        return self._index_of_coord[(n1, n1)]

    def distance(self, a: int, b: int) -> int:
        """Hex distance in steps between two cells."""
        (ax, ay), (bx, by) = self.coords[a], self.coords[b]
        dx, dy = bx - ax, by - ay
        if (dx >= 0) == (dy >= 0):
            return max(abs(dx), abs(dy))
        return abs(dx) + abs(dy)

    # ------------------------------------------------------------- line slots
    @property
    def line_slots(self) -> int:
        """Number of slots of :meth:`line_slot`: three grid lines of ``2n-1`` places each.

        Research encodings give every (origin, destination-on-a-line) pair a fixed id from
        it; both games only ever join points that share a grid line (Benediction's portal
        keeps a man on its line).
        """
        return 3 * self.columns

    def line_slot(self, origin: int, target: int) -> int:
        """Slot of ``target`` among the cells of the three grid lines through ``origin``.

        The N-S line is numbered by ``y``, the NW-SE line by ``x`` (offset ``2n-1``) and the
        SW-NE line by ``x`` (offset ``2(2n-1)``). -1 when the two cells are the same or
        share no grid line.
        """
        if origin == target:
            return -1
        width = self.columns
        (ox, oy), (tx, ty) = self.coords[origin], self.coords[target]
        if tx == ox:
            return ty
        if ty == oy:
            return width + tx
        if tx - ty == ox - oy:
            return 2 * width + tx
        return -1

    def from_line_slot(self, origin: int, slot: int) -> int:
        """Inverse of :meth:`line_slot`: the cell in ``slot`` of ``origin``'s lines, or -1."""
        if not 0 <= slot < self.line_slots:
            return -1
        axis, c = divmod(slot, self.columns)
        ox, oy = self.coords[origin]
        x, y = ((ox, c), (c, oy), (c, c - (ox - oy)))[axis]
        target = self.index_at(x, y)
        return -1 if target == origin else target

    # ------------------------------------------------------------------ sides
    def side_cells(self, name: str) -> tuple[int, ...]:
        """Cells of one of the six sides of the hexagon.

        ``name`` is one of ``bottom-left`` (y=0), ``bottom-right`` (x-y=n-1),
        ``top-left`` (y-x=n-1), ``top-right`` (y=2n-2), ``left`` (x=0), ``right`` (x=2n-2).
        Corners belong to both sides that meet there.
        """
        n1 = self.side - 1
        tests: dict[str, Callable[[int, int], bool]] = {
            "bottom-left": lambda x, y: y == 0 and x <= n1,
            "bottom-right": lambda x, y: x - y == n1,
            "top-left": lambda x, y: y - x == n1,
            "top-right": lambda x, y: y == 2 * n1 and x >= n1,
            "left": lambda x, y: x == 0,
            "right": lambda x, y: x == 2 * n1,
        }
        try:
            test = tests[name]
        except KeyError:
            raise ValueError(f"unknown side {name!r}; expected one of {sorted(tests)}") from None
        return tuple(i for i, (x, y) in enumerate(self.coords) if test(x, y))


def row_from_axial(side: int, x: int, y: int) -> int:
    n1 = side - 1
    return y + 1 if x <= n1 else y - (x - n1) + 1


@cache
def board(side: int) -> HexBoard:
    """The shared geometry of a board of ``side`` (computed once, then cached)."""
    if not isinstance(side, int) or isinstance(side, bool):
        raise ValueError(f"board side must be an integer, got {side!r}")
    if not MIN_SIDE <= side <= MAX_SIDE:
        raise ValueError(f"board side must be between {MIN_SIDE} and {MAX_SIDE}, got {side}")
    n1 = side - 1
    coords: list[tuple[int, int]] = []
    for x in range(2 * n1 + 1):
        for y in range(2 * n1 + 1):
            if abs(x - y) <= n1:
                coords.append((x, y))
    index_of_coord = {c: i for i, c in enumerate(coords)}
    labels = tuple(
        f"{COLUMN_LETTERS[x]}{row_from_axial(side, x, y)}" for (x, y) in coords
    )
    step = tuple(
        tuple(index_of_coord.get((x + dx, y + dy), -1) for dx, dy in DIRECTIONS)
        for (x, y) in coords
    )
    neighbours = tuple(tuple(j for j in row if j >= 0) for row in step)
    rays = []
    for i in range(len(coords)):
        per_dir = []
        for d in range(6):
            ray = []
            j = step[i][d]
            while j >= 0:
                ray.append(j)
                j = step[j][d]
            per_dir.append(tuple(ray))
        rays.append(tuple(per_dir))
    return HexBoard(
        side=side,
        coords=tuple(coords),
        labels=labels,
        step=step,
        neighbours=neighbours,
        rays=tuple(rays),
        _index_of_label={label: i for i, label in enumerate(labels)},
        _index_of_coord=index_of_coord,
    )
