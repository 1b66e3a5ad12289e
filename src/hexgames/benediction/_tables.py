"""Precomputed Benediction geometry per board side: walls, portal rays, block adjacency,
Zobrist keys and cached action objects.

Everything the move generator asks about the board's shape is answered by a table
lookup, computed once per side (:func:`tables`), so that the hot loop only reads lists.

Colour codes used by the engine (and these tables): ``EMPTY=0, RED=1, BLUE=2, BLOCK=3``.
Man flags are a bit mask: ``KING=1, BLESSED=2, CURSED=4, LOCKED=8``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cache

from hexgames.benediction.actions import KINDS, Action, cached
from hexgames.hexgrid import NE, NW, SE, SW, HexBoard, N, S, board, opposite

EMPTY, RED, BLUE, BLOCK = 0, 1, 2, 3
#: Action kind codes (index in :data:`actions.KINDS`).
MOVE, MERGE, SPLIT, DROP, PLACE_BLOCK = range(5)
KING, BLESSED, CURSED, LOCKED = 1, 2, 4, 8
COLOR_NAMES = ("", "red", "blue")
#: Longest travel any stack can make (the largest allowed ``max_stack``).
MAX_TRAVEL = 15
#: Forward directions per colour: the only directions in which the portal works.
FORWARD = {RED: (N, NE, NW), BLUE: (S, SW, SE)}


@dataclass(eq=False)
class Tables:
    """Shape tables of one board side (see the module docstring for the codes)."""

    board: HexBoard
    #: ``wall[c][i]``: point ``i`` is on colour ``c``'s own wall.
    wall: tuple[tuple[bool, ...], ...]
    #: ``wall_points[c]``: the points of colour ``c``'s wall.
    wall_points: tuple[tuple[int, ...], ...]
    #: ``rays[c][i]``: for each direction with at least one step, ``(points, portal_at)``:
    #: the points a stack of colour ``c`` at ``i`` passes, step by step (up to
    #: :data:`MAX_TRAVEL` steps, the portal included, blocks ignored), and the 0-based
    #: step index from which the path has passed the enemy wall (``len(points)`` if never).
    rays: tuple[tuple[tuple[tuple[tuple[int, ...], int], ...], ...], ...]
    #: ``block_adjacent[i]``: neighbours of ``i`` plus, where ``i`` ends a grid line, the
    #: point at the other end of that line.
    block_adjacent: tuple[tuple[int, ...], ...]
    #: Zobrist numbers: ``zman[i][owner*16+size] ^ zflag[i][owner*16+flags]``.
    zman: tuple[tuple[int, ...], ...]
    zflag: tuple[tuple[int, ...], ...]
    zblue: int
    ztwo: int
    zwin: tuple[int, ...]
    index: dict[str, int]
    #: ``raymask[(c * size + i) << 4 | steps]``: bit mask of the points on the rays of a
    #: colour-``c`` stack at ``i`` within ``steps`` steps (the blocks that matter to it).
    raymask: list[int]
    actions: dict[int, Action] = field(default_factory=dict)
    #: Reach results shared by all positions of this side (the tests' oracle engine fills it).
    reach_cache: dict[int, tuple[tuple[int, int, int], ...]] = field(default_factory=dict)
    #: Rows of shared action instances, filled on first use: ``moves[i][j]``,
    #: ``merges[i][j]``, ``splits[i][j][k]`` (index 0 unused), ``drops[j]``, ``blocks[j]``.
    moves: list[list[Action] | None] = field(default_factory=list)
    merges: list[list[Action] | None] = field(default_factory=list)
    splits: list[list[tuple[Action, ...] | None] | None] = field(default_factory=list)
    drops: tuple[Action, ...] = ()
    blocks: tuple[Action, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.board.labels)
        self.moves = [None] * n
        self.merges = [None] * n
        self.splits = [None] * n
        self.drops = tuple(self.action(DROP, -1, j) for j in range(n))
        self.blocks = tuple(self.action(PLACE_BLOCK, -1, j) for j in range(n))

    def action(self, kind: int, origin: int, target: int, count: int = 0) -> Action:
        """The shared :class:`Action` for integer arguments (kind = index in KINDS)."""
        n = len(self.board.labels)
        code = ((kind * n + origin + 1) * n + target) * 16 + count
        act = self.actions.get(code)
        if act is not None:
            return act
        labels = self.board.labels
        return cached(
            self.actions, code, KINDS[kind], labels[origin] if origin >= 0 else None,
            labels[target], count,
        )

    def move_row(self, origin: int) -> list[Action]:
        """Moves from ``origin`` indexed by target (created on first use)."""
        row = self.moves[origin]
        if row is None:
            row = self.moves[origin] = [
                self.action(MOVE, origin, j) for j in range(len(self.board.labels))
            ]
        return row

    def merge_row(self, origin: int) -> list[Action]:
        """Merges from ``origin`` indexed by target (created on first use)."""
        row = self.merges[origin]
        if row is None:
            row = self.merges[origin] = [
                self.action(MERGE, origin, j) for j in range(len(self.board.labels))
            ]
        return row

    def split_row(self, origin: int) -> list[tuple[Action, ...] | None]:
        """Per target, ``None`` or the splits of ``k = 0..MAX_TRAVEL`` checkers (see
        :meth:`split_counts`); created on first use."""
        row = self.splits[origin]
        if row is None:
            row = self.splits[origin] = [None] * len(self.board.labels)
        return row

    def split_counts(self, origin: int, target: int) -> tuple[Action, ...]:
        """Splits from ``origin`` to ``target`` indexed by count (index 0 is a
        placeholder, the move, never listed)."""
        row = self.split_row(origin)
        counts = row[target]
        if counts is None:
            counts = row[target] = (
                self.action(MOVE, origin, target),
                *(self.action(SPLIT, origin, target, k) for k in range(1, MAX_TRAVEL + 1)),
            )
        return counts


def wall_of(b: HexBoard, color: int, index: int) -> bool:
    """Red's wall is the two bottom sides, Blue's the two top sides (rules section 1)."""
    n1 = b.side - 1
    x, y = b.coords[index]
    if color == RED:
        return y == 0 or x - y == n1
    return y - x == n1 or y == 2 * n1


def portal_ray(b: HexBoard, color: int, start: int, direction: int) -> tuple[tuple[int, ...], int]:
    """Points passed by a stack of ``color`` leaving ``start`` in ``direction``.

    The portal: stepping off the board from a point of the enemy wall in a forward
    direction lands on the other end of the same grid line (one step), and the line goes
    on. Any other way off the board ends the line.
    """
    enemy = BLUE if color == RED else RED
    forward = direction in FORWARD[color]
    points: list[int] = []
    portal_at = -1
    cur = start
    while len(points) < MAX_TRAVEL:
        nxt = b.step[cur][direction]
        if nxt < 0:
            if not (forward and wall_of(b, enemy, cur)):
                break
            nxt = b.line_end(cur, opposite(direction))
            if portal_at < 0:
                portal_at = len(points)
        points.append(nxt)
        cur = nxt
    return tuple(points), (portal_at if portal_at >= 0 else len(points))


def _block_adjacent(b: HexBoard, index: int) -> tuple[int, ...]:
    near = set(b.neighbours[index])
    for d in range(6):
        if b.step[index][d] < 0:
            near.add(b.line_end(index, opposite(d)))
    near.discard(index)
    return tuple(sorted(near))


@cache
def tables(side: int) -> Tables:
    """The shared tables for a board side (computed once)."""
    b = board(side)
    size = len(b.labels)
    wall = tuple(
        tuple(c != EMPTY and wall_of(b, c, i) for i in range(size)) for c in (EMPTY, RED, BLUE)
    )
    rays = tuple(
        tuple(
            tuple(
                ray
                for ray in (portal_ray(b, c, i, d) for d in range(6))
                if ray[0]
            )
            for i in range(size)
        )
        if c != EMPTY
        else ()
        for c in (EMPTY, RED, BLUE)
    )
    rng = random.Random(0xBE4ED1C7 + side)

    def block() -> tuple[int, ...]:
        return tuple(rng.getrandbits(64) for _ in range(64))

    raymask = [0] * (3 * size << 4)
    for c in (RED, BLUE):
        for i in range(size):
            for steps in range(MAX_TRAVEL + 1):
                mask = 0
                for points, _ in rays[c][i]:
                    for j in points[:steps]:
                        mask |= 1 << j
                raymask[(c * size + i) << 4 | steps] = mask
    return Tables(
        board=b,
        raymask=raymask,
        wall=wall,
        wall_points=tuple(tuple(i for i in range(size) if wall[c][i]) for c in range(3)),
        rays=rays,
        block_adjacent=tuple(_block_adjacent(b, i) for i in range(size)),
        zman=tuple(block() for _ in range(size)),
        zflag=tuple(block() for _ in range(size)),
        zblue=rng.getrandbits(64),
        ztwo=rng.getrandbits(64),
        zwin=(0, rng.getrandbits(64), rng.getrandbits(64), rng.getrandbits(64)),
        index={label: i for i, label in enumerate(b.labels)},
    )


@cache
def wall_distance(side: int) -> tuple[tuple[int, ...], ...]:
    """``dist[c][i]``: hex steps from point ``i`` to the nearest point of the wall that
    colour ``c`` must pass (the enemy's wall); row 0 (no colour) is empty. The one
    definition: the heuristic, its compiled twin and the search's priors all read it."""
    t = tables(side)
    b = t.board
    out: list[tuple[int, ...]] = [()]
    for c in (RED, BLUE):
        enemy_wall = t.wall_points[3 - c]
        out.append(tuple(min(b.distance(i, w) for w in enemy_wall) for i in range(b.size)))
    return tuple(out)
