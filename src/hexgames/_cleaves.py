"""Batches of leaves for the compiled MCTS tree (:mod:`hexgames._ctree`), valued by a
learned evaluator (:mod:`hexgames.ai.evaluator`) between two compiled calls.

Game-agnostic. A network is worth calling on many positions at once, so a search
valued by one runs in rounds: a game's compiled ``gather`` descends up to K times,
each descent ending at a proven node (backed up at once, as :func:`_ctree.backup`
does) or at a new **pending** leaf, whose observation (the research planes of the
game's vector environment), legal-id mask and seat it writes into
:class:`LeafBuffers`; Python calls the evaluator on the batch; :func:`settle` backs the
K values up and expands each leaf in the order of the evaluator's policy.

K distinct leaves: :func:`pend` puts a **virtual loss** on each pending leaf's path
(one visit and a loss for its mover), so UCT steers the next descents elsewhere;
:func:`settle` trades it for the value. A descent that reaches a pending leaf (a
*collision*) ends the round: the tree has not changed since the last descent that
pended, so every further descent would collide again.

A game's tree class adds :class:`LeafBatches` to its :class:`~hexgames._ctree.CompiledTree`
and writes ``_gather`` (its compiled descent), ``_variant_layout`` (its layout of a
variant, cached by :data:`variant_cache`) and ``_list_size``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from hexgames import _ctree, _jit
from hexgames._ctree import (
    C_NODES,
    C_POOL,
    C_STATUS,
    F_MOVER,
    F_POOL,
    F_VISITS,
    ST_OK,
    ST_ROOM,
    ST_TREE_FULL,
    V_VALUE,
    CompiledTree,
    drop_stale_search_cache,
    expand,
)
from hexgames._jit import drop_stale_cache, njit, njit_inner

#: ``CT[C_STATUS]`` of a round stopped because the paths of its leaves filled
#: :attr:`LeafBuffers.paths` (grow it and go on).
ST_PATH = 3

#: ``NI[i, F_POOL]`` of a pending leaf: a descent that reaches it stops (a collision).
PENDING = -2

#: How a game's ``gather`` descent ended.
END_EXACT, END_LEAF, END_COLLISION, END_STOP = range(4)

#: How a game caches its layout of a variant (``rules -> layout``, see
#: :meth:`LeafBatches._variant_layout`): rules are immutable values and a process plays
#: few variants at once.
variant_cache = lru_cache(maxsize=16)

Evaluate = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray | None]]


@njit_inner(nrt=False)
def write_mask(masks, j, codes, m, code_ids):
    """Row ``j`` of ``masks``: True at the research ids (``code_ids``) of ``codes[:m]``."""
    for a in range(masks.shape[1]):
        masks[j, a] = False
    for x in range(m):
        masks[j, code_ids[codes[x]]] = True


@njit_inner(nrt=False)
def has_room(NI, PA, CT, most, pending):
    """Whether one more descent fits: one new node, and the pool entries of the
    expansions of the ``pending`` leaves and one more (``most`` actions each)."""
    return (CT[C_NODES] + 2 <= NI.shape[0]
            and CT[C_POOL] + (pending + 1) * most <= PA.shape[0])


@njit_inner(nrt=False)
def pend(NI, NV, path, plen, paths, starts, j):
    """Make the descent's leaf (``path[plen - 1]``) leaf ``j`` of the batch: its path
    copied to ``paths`` from ``starts[j]`` (the caller checked the room), a virtual loss
    on each node of it (one visit and a loss for its mover, which :func:`settle` turns
    into the leaf's value) and the leaf marked :data:`PENDING`."""
    start = starts[j]
    for x in range(plen):
        i = path[x]
        paths[start + x] = i
        NI[i, F_VISITS] += 1
        NV[i, V_VALUE] -= 1.0
    starts[j + 1] = start + plen
    NI[path[plen - 1], F_POOL] = PENDING


@njit
def settle(NI, NV, PA, CT, paths, starts, count, codes, counts, priors, policy, code_ids,
           values, seats, scratch):
    """Back up the values of the ``count`` pending leaves (``values[j]`` for the seat to
    act there, ``seats[j]``): each node of a leaf's path trades its virtual loss for the
    value, and the leaf is expanded, its children in the order of ``policy[j]`` at their
    research ids when ``policy`` has rows, else of the game's ``priors[j]`` (equal ones
    in the shuffled order of ``codes[j]``). The caller checked the pool's room."""
    use_policy = policy.shape[0] > 0
    for j in range(count):
        m = counts[j]
        row = codes[j]
        for x in range(m):
            scratch[x] = policy[j, code_ids[row[x]]] if use_policy else priors[j, x]
        start = starts[j]
        plen = starts[j + 1] - start
        leaf = paths[start + plen - 1]
        expand(NI, PA, CT, leaf, row, scratch, m)
        value = values[j] if seats[j] == 0 else -values[j]
        for x in range(plen):
            i = paths[start + x]
            NV[i, V_VALUE] += 1.0 + (value if NI[i, F_MOVER] == 0 else -value)


class LeafBuffers:
    """What one round fills and :func:`settle` reads: the evaluator's inputs
    (``observations``, ``masks``, ``seats``), each leaf's legal codes (``codes``,
    ``counts``) and the game's priors for them, the leaves' paths (``paths`` from
    ``starts[j]`` to ``starts[j + 1]``) and ``code_ids`` (the game's action code ->
    research id)."""

    def __init__(self, batch: int, observation_shape: tuple[int, ...], num_actions: int,
                 list_size: int, code_ids: np.ndarray) -> None:
        self.batch = batch
        self.observations = np.zeros((batch, *observation_shape), np.float32)
        self.masks = np.zeros((batch, num_actions), np.bool_)
        self.seats = np.zeros(batch, np.int32)
        self.codes = np.zeros((batch, list_size), np.int32)
        self.counts = np.zeros(batch, np.int64)
        self.priors = np.zeros((batch, list_size), np.float64)
        self.scratch = np.zeros(list_size, np.float64)
        self.paths = np.zeros(64 * batch, np.int64)
        self.starts = np.zeros(batch + 1, np.int64)
        self.no_policy = np.zeros((0, num_actions), np.float64)
        self.code_ids = np.ascontiguousarray(code_ids, np.int64)

    def grow_paths(self) -> None:
        self.paths = np.concatenate([self.paths, np.zeros_like(self.paths)])


class LeafBatches(CompiledTree):
    """A :class:`CompiledTree` that also searches with a learned evaluator
    (:meth:`run_evaluated`). A game writes:

    * ``_variant_layout()``: ``(observation_shape, num_actions, code_ids, *extras)`` of
      the variant loaded (by :meth:`set_root`), from its function of the rules cached by
      :data:`variant_cache` (``code_ids``: the game's action code -> research id; the
      extras are its own, for its ``_gather``);
    * ``_list_size()``: the room of one legal-code list of the variant loaded;
    * ``_gather(leaves, most, iterations, seed, settings) -> (exact, pending)``: its
      compiled round from the root: descents until ``most`` leaves are pending or
      ``exact + pending`` reaches ``iterations``, a collision, or a status (tree full:
      :func:`has_room` before each descent; undo room; :data:`ST_PATH`)."""

    _leaves: LeafBuffers | None = None
    _leaves_of: Any = None

    def _variant_layout(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def _list_size(self) -> int:
        raise NotImplementedError

    def _leaf_layout(self) -> tuple[tuple[int, ...], int, int, np.ndarray]:
        """``(observation_shape, num_actions, list_size, code_ids)`` of the variant
        loaded: what :class:`LeafBuffers` are made of."""
        shape, num_actions, code_ids = self._variant_layout()[:3]
        return shape, num_actions, self._list_size(), code_ids

    def _gather(self, leaves: LeafBuffers, most: int, iterations: int, seed: int,
                settings: np.ndarray) -> tuple[int, int]:
        raise NotImplementedError

    def _buffers(self, batch: int) -> LeafBuffers:
        """The round's buffers for the variant loaded (made again when it changed)."""
        layout = self._leaf_layout()
        key = (batch, layout[:3], id(layout[3]))
        if self._leaves is None or self._leaves_of != key:
            self._leaves = LeafBuffers(batch, *layout)
            self._leaves_of = key
        return self._leaves

    def run_evaluated(self, iterations: int, seed: int, exploration: float,
                      widen_base: float, widen_factor: float, tactics: bool,
                      evaluate: Evaluate, batch: int) -> int:
        """Up to ``iterations`` iterations from the root (fewer once it is proven), in
        rounds of up to ``batch`` leaves valued by ``evaluate(observations, masks,
        seats) -> (values, policy or None)`` (checked by the caller: float64 values in
        [-1, 1] for the seat to act, a float64 policy over the research ids); a proven
        node reached counts one iteration, as a leaf does. Returns how many were done.
        If ``evaluate`` raises, the tree is forgotten (its pending leaves would be
        wrong) and the error passes on."""
        settings = np.array([exploration, widen_base, widen_factor, 1.0 if tactics else 0.0])
        leaves = self._buffers(batch)
        done = 0
        seed &= 0x7FFFFFFF
        while done < iterations and self.solved() is None:
            self.CT[C_STATUS] = ST_OK
            exact, pending = self._gather(leaves, min(batch, iterations - done),
                                          iterations - done, seed, settings)
            seed = -1  # the rounds after the first go on with the same random sequence
            if pending:
                try:
                    values, policy = evaluate(leaves.observations[:pending],
                                              leaves.masks[:pending], leaves.seats[:pending])
                except BaseException:
                    self.reset()
                    raise
                settle(self.NI, self.NV, self.PA, self.CT, leaves.paths, leaves.starts,
                       np.int64(pending), leaves.codes, leaves.counts, leaves.priors,
                       leaves.no_policy if policy is None else policy, leaves.code_ids,
                       values, leaves.seats, leaves.scratch)
            done += exact + pending
            status = self.CT[C_STATUS]
            if status == ST_TREE_FULL:
                self._grow_tree()
            elif status == ST_ROOM:
                self._grow_room()
            elif status == ST_PATH:
                leaves.grow_paths()
            elif exact + pending == 0:
                break
        return done


def drop_stale_leaves_cache(module: str, *dependencies: str) -> None:
    """:func:`~hexgames._jit.drop_stale_cache` for a game's compiled search with an
    evaluator, ``module``: its code has this module's and the tree's compiled functions
    built in as well as its game's ``dependencies``."""
    drop_stale_search_cache(module, *dependencies, __file__)


# numba keys its cache to this file only (see drop_stale_cache)
drop_stale_cache(__name__, _jit.__file__, _ctree.__file__)

__all__ = ["END_COLLISION", "END_EXACT", "END_LEAF", "END_STOP", "PENDING", "ST_PATH",
           "LeafBatches", "LeafBuffers", "drop_stale_leaves_cache", "has_room", "pend", "settle",
           "variant_cache", "write_mask"]
