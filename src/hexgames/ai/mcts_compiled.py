"""The part of :class:`~hexgames.ai.mcts.MCTSPlayer` that drives a game's compiled tree
(its kernel's ``tree_search()``, :class:`hexgames.hooks.CompiledSearchTree`): iterations
in compiled calls sized to the deadline, pondering in slices, an early stop when the
choice is fixed, and the root read back as :class:`~hexgames.ai.node.Node` objects for
the final choice. With a learned evaluator each call runs rounds of leaves valued by it
(:meth:`CompiledSearchTree.run_evaluated`).

A mixin: :class:`~hexgames.ai.mcts.MCTSPlayer` sets the attributes declared here and
defines the methods stubbed here.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from typing import Any

from hexgames.ai.evaluator import CheckedEvaluator
from hexgames.ai.node import Node
from hexgames.game import GameState
from hexgames.hooks import CompiledSearchTree


class CompiledSearch:
    """The compiled tree's driver (see the module docstring)."""

    exploration: float
    widen_base: float
    widen_factor: float
    tactics: bool
    reuse_tree: bool
    evaluator_batch: int
    _evaluate: CheckedEvaluator | None
    _rng: random.Random
    last_stats: dict[str, Any]

    def _budget(self, work: GameState, started: float) -> tuple[int | None, float | None]:
        raise NotImplementedError

    def _final_choice(self, work: GameState, root: Node) -> Any:
        raise NotImplementedError

    def _count_evaluations(self, started: float) -> None:
        raise NotImplementedError

    #: Most iterations per compiled call between checks of the clock and of an early
    #: stop (fewer when a deadline is near: see :meth:`_chunk`).
    _CHUNK = 32
    #: Seconds of compiled pondering between two questions to the ``stop`` callback.
    _PONDER_SLICE = 0.005

    def _compiled_args(self) -> tuple[float, float, float, bool]:
        return (self.exploration, self.widen_base, self.widen_factor, self.tactics)

    def _chunk(self, most: int, done: int, deadline: float | None, now: float,
               begun: float) -> int:
        """Iterations for the next compiled call: at most ``most``, and under a deadline
        no more than the time left allows at the pace of the iterations done so far (a
        first call runs one). An iteration's cost differs by game a hundredfold (a
        Dendria leaf plays a whole side-7 game, about 1.5 ms), so a fixed chunk would
        overrun short deadlines by many iterations."""
        chunk = min(self._CHUNK, most)
        if deadline is None:
            return chunk
        if done == 0:
            return 1
        per_iteration = max(now - begun, 1e-9) / done
        return max(1, min(chunk, int((deadline - now) / per_iteration)))

    def _run_tree(self, tree: CompiledSearchTree, iterations: int, seed: int,
                  args: tuple[float, float, float, bool]) -> int:
        """One compiled call: leaves valued by random games, or by the evaluator."""
        if self._evaluate is None:
            return tree.run(iterations, seed, *args)
        return tree.run_evaluated(iterations, seed, *args, self._evaluate,
                                  self.evaluator_batch)

    def _choose_compiled(self, tree: CompiledSearchTree, work: GameState,
                         started: float) -> Any:
        """:meth:`choose` with the iterations in the game's compiled tree."""
        if not self.reuse_tree:
            tree.reset()
        self.last_stats["reused"] = tree.set_root(work)
        iterations, deadline = self._budget(work, started)
        done = self._run_compiled(tree, iterations, deadline)
        self.last_stats["iterations"] = done
        choice = self._final_choice(work, self._root_from_tree(tree, work))
        self._count_evaluations(started)
        return choice

    def _run_compiled(self, tree: CompiledSearchTree, iterations: int | None,
                      deadline: float | None) -> int:
        """Iterations in the compiled tree from its root (set), in calls sized by
        :meth:`_chunk`, until ``iterations``, the ``deadline``, an early stop
        (:meth:`_decided`) or a proven root; returns how many were done."""
        done = 0
        clock = time.perf_counter
        begun = clock()
        args = self._compiled_args()
        while tree.solved() is None:
            most = self._CHUNK if iterations is None else iterations - done
            if most <= 0:
                break
            now = clock()
            # at least one iteration: it visits the root (its seat) and lists its actions
            if done and deadline is not None and now >= deadline:
                break
            if done and self._decided(tree.visits_of_children().tolist(), iterations, done,
                                      deadline, now - begun):
                self.last_stats["stopped_early"] = True
                break
            chunk = self._chunk(most, done, deadline, now, begun)
            ran = self._run_tree(tree, chunk, self._rng.getrandbits(31), args)
            done += ran
            if ran == 0:
                break
        return done

    def _ponder_compiled(self, tree: CompiledSearchTree, work: GameState,
                         stop: Callable[[], bool], max_iterations: int,
                         deadline: float | None) -> int:
        self.last_stats["reused"] = tree.set_root(work)
        args = self._compiled_args()
        done = 0
        clock = time.perf_counter
        begun = clock()
        while tree.solved() is None and done < max_iterations:
            now = clock()
            if stop() or (deadline is not None and now >= deadline):
                break
            # calls of about _PONDER_SLICE seconds: ``stop`` is asked between them
            until = now + self._PONDER_SLICE
            chunk = self._chunk(max_iterations - done, done,
                                until if deadline is None else min(deadline, until), now, begun)
            ran = self._run_tree(tree, chunk, self._rng.getrandbits(31), args)
            done += ran
            if ran == 0:
                break
        self.last_stats["iterations"] = done
        return done

    @staticmethod
    def _root_from_tree(tree: CompiledSearchTree, position: GameState) -> Node:
        """The compiled tree's root and its children as :class:`Node` objects (with
        their own tried children, by visits, for the safety check's preferences). A
        root proven before it was ever expanded lists the legal actions as untried."""
        seat = tree.root_seat()
        root = Node(None, 1 - seat)
        root.seat = seat
        root.result = tree.solved()
        for info in tree.children():
            child = Node(info["action"], info["mover"])
            child.visits = info["visits"]
            child.value = info["value"]
            child.result = info["result"]
            for grand in tree.children(info["node"]):
                g = Node(grand["action"], grand["mover"])
                g.visits = grand["visits"]
                child.children.append(g)
                child.index[g.action] = g
            root.children.append(child)
            root.index[child.action] = child
        root.order = [c.action for c in root.children] + tree.untried()
        if not root.order:
            root.order = list(position.legal_actions())
        root.next_child = len(root.children)
        root.visits = sum(c.visits for c in root.children)
        return root

    @staticmethod
    def _decided(
        visits: Iterable[int], iterations: int | None, done: int, deadline: float | None,
        spent: float,
    ) -> bool:
        """True when no other root child can overtake the most visited one (``visits``:
        the root children's visit counts) in the budget left: the final choice (by
        visits) is already fixed, so stop early."""
        if iterations is not None:
            left = iterations - done
        else:
            assert deadline is not None
            left = int(done / max(spent, 1e-9) * max(0.0, deadline - time.perf_counter()))
        first = second = 0
        for v in visits:
            if v > first:
                first, second = v, first
            elif v > second:
                second = v
        return first - second > left


__all__ = ["CompiledSearch"]
