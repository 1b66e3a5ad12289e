"""The MCTS tree in flat arrays, for searches that run inside compiled code.

Game-agnostic: a game whose core can play, undo and list actions in compiled code
writes one compiled ``run`` loop (descend with :func:`select`, expand with
:func:`expand`, value a new leaf its own way, :func:`backup`) and hands
:class:`CompiledTree` to the AI through its kernel (``Kernel.tree_search()``).
:class:`hexgames.ai.mcts.MCTSPlayer` then runs its iterations there instead of in
Python, with the same algorithm as its Python tree: UCT over single actions, progressive
widening over children in the order the game's priors give, a light MCTS-solver (proven
wins and losses), and the tree kept between calls.

Why arrays: a Python tree costs about 100 µs per iteration in object handling alone,
as much as a whole random Benediction game in compiled code; the same tree in arrays
costs a few µs.

Layout: node ``i`` has integer fields ``NI[i, F_*]`` and float fields ``NV[i, V_*]``
(the summed value from its mover's point of view, and its proven value for seat 0, NaN
while unproven). An expanded node owns ``NI[i, F_NORD]`` consecutive *pool* entries
from ``NI[i, F_POOL]``: ``PA`` holds its actions (as the game's integer codes) in the
order they will be tried, ``PC`` the node of each tried one (the first ``F_NEXT``).
``CT`` counts the nodes and pool entries in use.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, njit, njit_inner, signed64

F_ACT, F_MOVER, F_SEAT, F_VISITS, F_POOL, F_NORD, F_NEXT, F_KEY = range(8)
NI_FIELDS = 8
V_VALUE, V_RESULT = 0, 1
C_NODES, C_POOL = 0, 1

#: What a game's ``run`` returns in ``CT[C_STATUS]`` when it stopped before its
#: iterations were done: the tree is full (grow it), or the game's undo room is.
C_STATUS = 2
ST_OK, ST_TREE_FULL, ST_ROOM = 0, 1, 2


@njit(nrt=False)
def new_node(NI, NV, CT, act, mover):
    """A fresh unvisited node reached by ``act`` (played by seat ``mover``); the caller
    checked that there is room (:func:`has_room`)."""
    i = CT[C_NODES]
    CT[C_NODES] = i + 1
    NI[i, F_ACT] = act
    NI[i, F_MOVER] = mover
    NI[i, F_SEAT] = -1
    NI[i, F_VISITS] = 0
    NI[i, F_POOL] = -1
    NI[i, F_NORD] = 0
    NI[i, F_NEXT] = 0
    NI[i, F_KEY] = 0
    NV[i, V_VALUE] = 0.0
    NV[i, V_RESULT] = np.nan
    return i


@njit_inner(nrt=False)
def has_room(NI, PA, CT, most_actions):
    """Whether one more iteration fits: one new node and one expansion."""
    return CT[C_NODES] + 2 <= NI.shape[0] and CT[C_POOL] + most_actions <= PA.shape[0]


@njit_inner(nrt=False)
def _order_by_prior(priors, m, order, spare):
    """``order[:m]``: the indices of ``priors[:m]`` from the highest prior down, equal
    priors in index order. A bottom-up merge sort, so stable: for finite priors it is
    ``np.argsort(-priors[:m], kind="mergesort")``, without compiling numba's generic
    sort (about 2.7 s of each game's cold warm-up)."""
    for x in range(m):
        order[x] = x
    width = 1
    in_order = True  # whether the sorted runs are in ``order`` (else in ``spare``)
    while width < m:
        src = order if in_order else spare
        dst = spare if in_order else order
        lo = 0
        while lo < m:
            mid = min(lo + width, m)
            hi = min(lo + 2 * width, m)
            a = lo
            b = mid
            k = lo
            while a < mid and b < hi:
                if priors[src[b]] > priors[src[a]]:  # only a strictly higher one jumps
                    dst[k] = src[b]
                    b += 1
                else:
                    dst[k] = src[a]
                    a += 1
                k += 1
            while a < mid:
                dst[k] = src[a]
                a += 1
                k += 1
            while b < hi:
                dst[k] = src[b]
                b += 1
                k += 1
            lo = hi
        in_order = not in_order
        width *= 2
    if not in_order:
        for x in range(m):
            order[x] = spare[x]


@njit
def expand(NI, PA, CT, node, codes, priors, m):
    """Fix the order in which ``node``'s ``m`` actions (``codes``, already shuffled for
    random tie-breaks) will be tried: highest prior first, ties in the given order."""
    start = CT[C_POOL]
    CT[C_POOL] = start + m
    order = np.empty(m, np.int64)
    _order_by_prior(priors, m, order, np.empty(m, np.int64))
    for x in range(m):
        PA[start + x] = codes[order[x]]
    NI[node, F_POOL] = start
    NI[node, F_NORD] = m
    NI[node, F_NEXT] = 0


@njit(nrt=False)
def select(NI, NV, PA, PC, CT, node, c, widen_base, widen_factor):
    """The child to descend to (UCT among those the widening allows, expanding one
    more when due), or -1 when every action is proven lost or all are proven (the node
    then holds its proven value). A child proven to win for the player to move here
    proves the node and is returned."""
    seat = NI[node, F_SEAT]
    sign = 1.0 if seat == 0 else -1.0
    visits = NI[node, F_VISITS]
    allowed = widen_base + widen_factor * math.sqrt(visits)
    log_n = math.log(visits + 1)
    pool = NI[node, F_POOL]
    live = 0
    best = -1
    best_score = -np.inf
    for k in range(NI[node, F_NEXT]):
        ch = PC[pool + k]
        n = NI[ch, F_VISITS]
        result = NV[ch, V_RESULT]
        if math.isnan(result):
            score = NV[ch, V_VALUE] / n + c * math.sqrt(log_n / n)
        else:
            exact = sign * result
            if exact > 0:  # a proven win for the player to move here
                NV[node, V_RESULT] = result
                return ch
            if exact < 0:
                continue
            score = c * math.sqrt(log_n / n)  # a proven draw: mean 0
        live += 1
        if score > best_score:
            best = ch
            best_score = score
    nxt = NI[node, F_NEXT]
    if nxt < NI[node, F_NORD] and (live < allowed or best < 0):
        ch = new_node(NI, NV, CT, np.int64(PA[pool + nxt]), seat)
        PC[pool + nxt] = ch
        NI[node, F_NEXT] = nxt + 1
        return ch
    if best < 0:
        # every action is expanded and proven: the node takes its best exact value
        top = -np.inf
        for k in range(nxt):
            r = NV[PC[pool + k], V_RESULT]
            if sign * r > top:
                top = sign * r
        NV[node, V_RESULT] = sign * top
        return -1
    return best


@njit(nrt=False)
def backup(NI, NV, path, plen, value):
    """Add one visit and ``value`` (for seat 0) to each node of the path, seen from the
    seat that chose it."""
    for x in range(plen):
        i = path[x]
        NI[i, F_VISITS] += 1
        NV[i, V_VALUE] += value if NI[i, F_MOVER] == 0 else -value


@njit
def subtree_size(NI, PC, root):
    """``(nodes, pool entries)`` of the subtree under ``root``."""
    stack = [root]
    nodes = 0
    pool = 0
    while len(stack):
        i = stack.pop()
        nodes += 1
        start = NI[i, F_POOL]
        if start >= 0:
            pool += NI[i, F_NORD]
            for k in range(NI[i, F_NEXT]):
                stack.append(PC[start + k])
    return nodes, pool


@njit
def compact(NI, NV, PA, PC, root, NI2, NV2, PA2, PC2, CT2):
    """Copy the subtree under ``root`` into the second set of arrays (node numbers in
    breadth-first order, so the root becomes node 0): what is left of the tree when the
    game has moved on, without the lines not taken."""
    queue = np.empty(NI2.shape[0], np.int64)
    queue[0] = root
    head = 0
    tail = 1
    used = 0
    while head < tail:
        old = queue[head]
        new = head
        head += 1
        NI2[new, :] = NI[old, :]
        NV2[new, :] = NV[old, :]
        pool = NI[old, F_POOL]
        if pool >= 0:
            nord = NI[old, F_NORD]
            PA2[used : used + nord] = PA[pool : pool + nord]
            for k in range(NI[old, F_NEXT]):
                PC2[used + k] = tail
                queue[tail] = PC[pool + k]
                tail += 1
            NI2[new, F_POOL] = used
            used += nord
    CT2[C_NODES] = tail
    CT2[C_POOL] = used
    CT2[C_STATUS] = 0


class CompiledTree:
    """The tree's arrays, kept between searches, with the game-agnostic bookkeeping:
    growth, re-rooting on the actions played since the last search (tree reuse), and
    reading the root's children back for the final choice.

    A game subclasses it with ``_core_of`` (the compiled core of a position's variant,
    which fixes the action codes), ``_action_code`` / ``_action_of`` (its actions as
    integer codes and back), ``_load`` (copy a position into its compiled buffers) and
    ``_run`` (its compiled iterations)."""

    #: The compiled core of the variant loaded (``None`` before the first root): a root
    #: of another variant starts a fresh tree, its action codes being others.
    _core: Any = None

    def __init__(self, nodes: int = 4096, pool: int = 65536) -> None:
        self._sizes = (nodes, pool)
        self._allocate(nodes, pool)
        self.CT = np.zeros(3, np.int64)
        self.root = -1
        self._history: tuple[Any, ...] = ()
        self._path = np.zeros(4096, np.int64)

    def _allocate(self, nodes: int, pool: int) -> None:
        self.NI = np.zeros((nodes, NI_FIELDS), np.int64)
        self.NV = np.zeros((nodes, 2), np.float64)
        self.PA = np.zeros(pool, np.int32)
        self.PC = np.zeros(pool, np.int32)

    # ------------------------------------------------------------ game's part
    def _core_of(self, position: Any) -> Any:
        """The compiled core of ``position``'s variant (called first by
        :meth:`set_root`, before :meth:`_load`)."""
        raise NotImplementedError

    def _action_code(self, action: Any) -> int:
        raise NotImplementedError

    def _action_of(self, code: int) -> Any:
        raise NotImplementedError

    def _load(self, position: Any) -> None:
        raise NotImplementedError

    def _run(self, iterations: int, seed: int, settings: np.ndarray) -> int:
        raise NotImplementedError

    def _grow_room(self) -> None:
        """Make more undo room in the game's buffers (after ``ST_ROOM``)."""
        raise NotImplementedError

    def _path_for(self, iterations: int) -> np.ndarray:
        """The buffer for a descent's path in a call of ``iterations``: a descent is at
        most as deep as the tree will be at the end of the call (which stops when its
        arrays are full)."""
        need = min(int(self.CT[C_NODES]) + iterations, len(self.NI)) + 2
        if len(self._path) < need:
            self._path = np.zeros(max(need, 2 * len(self._path)), np.int64)
        return self._path

    # ------------------------------------------------------------ driver
    def reset(self) -> None:
        """Forget the tree."""
        self.CT[:] = 0
        self.root = -1
        self._history = ()

    def set_root(self, position: Any) -> int:
        """Make ``position`` the root: the kept node for it when ``position`` continues
        the last root's game along actions in the tree, else a fresh tree. Returns the
        visits the root already has (0 for a fresh one)."""
        core = self._core_of(position)
        if core is not self._core:  # another variant: other action codes
            self.reset()
            self._core = core
        history = tuple(position.history)
        root = self.root
        if root >= 0 and history[: len(self._history)] == self._history:
            for action in history[len(self._history) :]:
                root = self._child(root, self._action_code(action))
                if root < 0:
                    break
            if root >= 0 and (
                self.NI[root, F_SEAT] != position.current_seat
                or self.NI[root, F_KEY] != signed64(position.key)
            ):
                root = -1
        else:
            root = -1
        if root < 0:
            self.CT[:] = 0
            if len(self.NI) > 4 * self._sizes[0]:  # a large tree of another game: let go
                self._allocate(*self._sizes)
            root = new_node(self.NI, self.NV, self.CT, -1, 1 - position.current_seat)
        elif root > 0:
            root = self._keep_only(root)
        self.root = root
        self._history = history
        self._load(position)
        return int(self.NI[root, F_VISITS])

    def _keep_only(self, root: int) -> int:
        """Drop everything but the subtree under ``root`` (which becomes node 0): the
        memory a game's searches hold stays that of the tree in use, as the Python
        tree's garbage collection keeps it."""
        nodes, pool = subtree_size(self.NI, self.PC, root)
        old = (self.NI, self.NV, self.PA, self.PC)
        self._allocate(max(self._sizes[0], 2 * nodes), max(self._sizes[1], 2 * pool))
        compact(*old, root, self.NI, self.NV, self.PA, self.PC, self.CT)
        return 0

    def _child(self, node: int, code: int) -> int:
        pool = self.NI[node, F_POOL]
        if pool < 0:
            return -1
        for k in range(int(self.NI[node, F_NEXT])):
            child = int(self.PC[pool + k])
            if self.NI[child, F_ACT] == code:
                return child
        return -1

    def run(self, iterations: int, seed: int, exploration: float, widen_base: float,
            widen_factor: float, tactics: bool) -> int:
        """Up to ``iterations`` iterations from the root (fewer once it is proven), with
        the compiled random sequence seeded by ``seed``; returns how many were done.
        Grows the arrays as needed."""
        settings = np.array([exploration, widen_base, widen_factor, 1.0 if tactics else 0.0])
        done = 0
        seed &= 0x7FFFFFFF
        while done < iterations and self.solved() is None:
            self.CT[C_STATUS] = ST_OK
            # after growing, go on with the same random sequence (seed -1): the search
            # does not depend on when the arrays filled up
            done += self._run(iterations - done, seed, settings)
            seed = -1
            status = self.CT[C_STATUS]
            if status == ST_TREE_FULL:
                self._grow_tree()
            elif status == ST_ROOM:
                self._grow_room()
            else:
                break
        return done

    def _grow_tree(self) -> None:
        if self.CT[C_NODES] + 2 > len(self.NI):
            self.NI = np.concatenate([self.NI, np.zeros_like(self.NI)])
            self.NV = np.concatenate([self.NV, np.zeros_like(self.NV)])
        else:
            self.PA = np.concatenate([self.PA, np.zeros_like(self.PA)])
            self.PC = np.concatenate([self.PC, np.zeros_like(self.PC)])

    # ------------------------------------------------------------ reading
    def solved(self) -> float | None:
        """The root's proven value for seat 0, or None."""
        value = float(self.NV[self.root, V_RESULT])
        return None if math.isnan(value) else value

    def root_seat(self) -> int:
        return int(self.NI[self.root, F_SEAT])

    def visits_of_children(self, node: int | None = None) -> np.ndarray:
        """Visits of the tried children of ``node`` (default the root), in order."""
        i = self.root if node is None else node
        pool = int(self.NI[i, F_POOL])
        if pool < 0:
            return np.zeros(0, np.int64)
        kids = self.PC[pool : pool + int(self.NI[i, F_NEXT])]
        return self.NI[kids, F_VISITS]

    def children(self, node: int | None = None) -> list[dict[str, Any]]:
        """The tried children of ``node`` (default the root): action, mover, seat to
        act there, visits, summed value, proven value (or None) and node number."""
        i = self.root if node is None else node
        pool = int(self.NI[i, F_POOL])
        if pool < 0:
            return []
        out = []
        for k in range(int(self.NI[i, F_NEXT])):
            ch = int(self.PC[pool + k])
            result = float(self.NV[ch, V_RESULT])
            out.append({
                "action": self._action_of(int(self.NI[ch, F_ACT])),
                "mover": int(self.NI[ch, F_MOVER]),
                "seat": int(self.NI[ch, F_SEAT]),
                "visits": int(self.NI[ch, F_VISITS]),
                "value": float(self.NV[ch, V_VALUE]),
                "result": None if math.isnan(result) else result,
                "node": ch,
            })
        return out

    def untried(self) -> list[Any]:
        """The root's actions not tried yet, in the order they would be."""
        i = self.root
        pool = int(self.NI[i, F_POOL])
        if pool < 0:
            return []
        nxt, nord = int(self.NI[i, F_NEXT]), int(self.NI[i, F_NORD])
        return [self._action_of(int(c)) for c in self.PA[pool + nxt : pool + nord]]


def drop_stale_search_cache(module: str, *dependencies: str) -> None:
    """:func:`~hexgames._jit.drop_stale_cache` for a game's compiled search ``module``,
    whose code has this tree's compiled functions and ``_jit``'s options built in as well
    as its game's ``dependencies``."""
    drop_stale_cache(module, *dependencies, __file__, _jit.__file__)


# the compile options (numba's runtime on or off per function) come from _jit, and numba
# keys its cache to this file only (see drop_stale_cache)
drop_stale_cache(__name__, _jit.__file__)
