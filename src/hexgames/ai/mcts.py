"""Monte Carlo tree search (UCT) over single actions, with game knowledge.

Design choices, and why:

* **One tree level per action.** A Benediction turn is two levels and a Dendria turn is as
  many levels as it has steps. Each node records the seat to move there
  (``position.current_seat``), which stays the same across the actions of one turn, so
  values are backed up from the point of view of whoever chose each action.
* **Make/unmake.** One copy of the position per ``choose``; every iteration plays down the
  tree and undoes back up, which is much cheaper than copying positions.
* **Progressive widening** with children ordered by the game's cheap priors (root children
  by the heuristic after each action): a node of ``n`` visits considers only its first
  ``widen_base + widen_factor * sqrt(n)`` children, so the search goes deep along
  promising lines instead of spreading thinly over a hundred actions.
* **Cut-off playouts.** A new leaf plays ``playout_depth`` random actions and then asks
  ``GAME.heuristic`` (a value in [-1, 1] for seat 0); with ``use_heuristic=False`` it plays
  random actions to the end instead (classic MCTS, slow on long games).
* **Exact tactics inside the tree (a light MCTS-solver).** A new node whose player to move
  has an immediately winning action (the game's fast ``winning_actions`` hook) is a proven
  win for that player; proven results propagate upwards (a win for the player to move if
  one child wins, a loss if every action loses), proven losses are never selected, and
  proven values are backed up exactly.
* **A tactical layer at the root** (:mod:`hexgames.ai.tactics`): always take a win within
  the turn, and never choose an action after which every way of finishing the turn lets the
  opponent win at once, when a safe action exists.
* **Tree reuse.** The root is kept between calls; when the new position continues the old
  one (its ``history`` extends the root's history and every action since is in the tree),
  the matching subtree becomes the new root with its statistics.
* **A learned evaluator** (``evaluator=``) replaces the leaves' playouts: leaves are
  valued in batches (:mod:`.evaluator` the contract, :mod:`.evaluated` the Python
  tree's rounds, :mod:`hexgames._cleaves` the compiled tree's).

The compiled tree's driver is :mod:`.mcts_compiled`; the node, :mod:`.node`.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from hexgames.ai.base import require_actions, resolve_game, seat_sign
from hexgames.ai.evaluated import python_round
from hexgames.ai.evaluator import CheckedEvaluator, Evaluator
from hexgames.ai.knowledge import Knowledge, knowledge
from hexgames.ai.mcts_compiled import CompiledSearch
from hexgames.ai.node import Node
from hexgames.ai.tactics import Budget, first_safe, winning_action
from hexgames.game import Game, GameState
from hexgames.hooks import CompiledKernel, CompiledSearchTree


class MCTSPlayer(CompiledSearch):
    """UCT search over single actions with heuristic cut-offs and a tactical layer.

    Budget: ``iterations`` (reproducible with ``seed``), ``time_limit`` seconds per
    call, or both (whichever ends first; then results depend on machine speed). With
    neither, 1000 iterations. Calls for a later action of a turn already started
    (Benediction's second action, Dendria's follow-up steps) get ``continuation_share``
    of the budget when the tree kept from the earlier call was reused (it already covers
    them); a player that reused nothing (new, or reset) searches with the full budget.

    ``evaluator``: a learned value (and optionally policy) that values new leaves
    ``evaluator_batch`` at a time instead of the heuristic or random games
    (:mod:`hexgames.ai.evaluator` has the contract; docs/ai.md, "Learned evaluators");
    an iteration is then a leaf valued or a decided node reached.
    """

    def __init__(
        self,
        game: Game | str,
        *,
        time_limit: float | None = None,
        iterations: int | None = None,
        seed: int | None = None,
        exploration: float = 0.6,
        use_heuristic: bool | None = None,
        playout_depth: int = 2,
        widen_base: float = 3.0,
        widen_factor: float = 1.0,
        tactics: bool = True,
        tactics_depth: int = 3,
        tactics_budget: int = 8000,
        safety: bool = True,
        threat_depth: int | None = None,
        reuse_tree: bool = True,
        continuation_share: float = 0.5,
        name: str | None = None,
        evaluator: Evaluator | None = None,
        evaluator_batch: int = 16,
    ) -> None:
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"time_limit must be positive, got {time_limit}")
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {iterations}")
        if not 0 < continuation_share <= 1:
            raise ValueError(f"continuation_share must be in (0, 1], got {continuation_share}")
        if isinstance(evaluator_batch, bool) or not isinstance(evaluator_batch, int) \
                or evaluator_batch < 1:
            raise ValueError(f"evaluator_batch must be a positive integer, got {evaluator_batch!r}")
        if evaluator is not None and use_heuristic:
            raise ValueError("an evaluator values the leaves: use_heuristic must be left unset")
        self.game = resolve_game(game)
        #: The learned evaluator, checked at each call (``None``: none).
        self._evaluate = None if evaluator is None else CheckedEvaluator(evaluator)
        self.evaluator_batch = evaluator_batch
        if evaluator is not None:
            use_heuristic = False  # the tree is the compiled one where the kernel has it
            self._CHUNK = max(self._CHUNK, evaluator_batch)
        self.time_limit = time_limit
        self.iterations = iterations if iterations is not None or time_limit else 1000
        self.exploration = exploration
        self.playout_depth = playout_depth
        self.widen_base = widen_base
        self.widen_factor = widen_factor
        self.tactics = tactics
        self.tactics_depth = tactics_depth
        self.tactics_budget = tactics_budget
        #: ``False``: find wins but do not check the final choice against the
        #: opponent's replies (a weaker level that can walk into a capture).
        self.safety = safety
        #: How many of the opponent's actions the safety check looks into their next
        #: turn (``None``: ``tactics_depth``); 1 sees only single-action wins.
        self.threat_depth = tactics_depth if threat_depth is None else threat_depth
        if self.threat_depth < 1:
            raise ValueError(f"threat_depth must be at least 1, got {threat_depth}")
        self.reuse_tree = reuse_tree
        self.continuation_share = continuation_share
        #: The game's compiled kernel (``Game.kernel``): whole random playouts
        #: (``use_heuristic=False``) run there, one game per new leaf; ``None`` (a game
        #: without one) plays them in Python.
        self._kernel = self._find_kernel()
        self.name = name or self._default_name()
        self._seed = seed
        self._rng = random.Random(seed)
        self._know: Knowledge = knowledge(self.game)
        #: ``True``: cut-off playouts and the heuristic value new leaves (and order the
        #: root); ``False``: whole random playouts in the kernel. ``None`` (the default)
        #: follows the game (its ``leaf_playouts`` hook, when it has a kernel).
        self.use_heuristic = (not (self._know.leaf_playouts and self._kernel is not None)
                              if use_heuristic is None else use_heuristic)
        #: The search's iterations in the game's compiled code (its kernel's
        #: ``tree_search``): the same algorithm, without Python's cost per iteration.
        self._tree: CompiledSearchTree | None = self._make_tree()
        self._root: Node | None = None
        self._root_history: tuple[Any, ...] = ()
        #: Statistics of the last ``choose`` (for tests, logs and tuning).
        self.last_stats: dict[str, Any] = {}

    def _find_kernel(self) -> CompiledKernel | None:
        """The game's compiled kernel, or ``None`` when it has none."""
        return self.game.kernel() if self.game.kernel is not None else None

    def _make_tree(self) -> CompiledSearchTree | None:
        """The compiled tree the search runs in: whenever whole random games value the
        leaves (what the kernel plays) and the game's kernel offers a tree; else ``None``
        (the search runs in Python)."""
        if self._kernel is None or self.use_heuristic:
            return None
        return self._kernel.tree_search()

    def _default_name(self) -> str:
        budget = f"{self.iterations}it" if self.iterations else f"{self.time_limit}s"
        return f"mcts-{budget}"

    def reset(self) -> None:
        """Forget the kept tree and restart the random sequence (call between games)."""
        self._root = None
        self._root_history = ()
        self._rng = random.Random(self._seed)
        if self._tree is not None:
            self._tree.reset()

    # ------------------------------------------------------------------ choose
    def choose(self, position: GameState) -> Any:
        actions = require_actions(position)
        started = time.perf_counter()
        self.last_stats = {"iterations": 0, "reason": "search", "reused": 0}
        if len(actions) == 1:
            self.last_stats["reason"] = "forced"
            return actions[0]
        work = position.copy()
        if self.tactics:
            win = winning_action(
                self._know, work, depth=self.tactics_depth, budget=Budget(self.tactics_budget)
            )
            if win is not None:
                self.last_stats["reason"] = "win"
                return win
        if self._evaluate is not None:
            self._evaluate.calls = self._evaluate.leaves = 0
            self.last_stats["tree"] = "python" if self._tree is None else "compiled"
        if self._tree is not None:
            return self._choose_compiled(self._tree, work, started)
        root = self._take_root(work)
        iterations, deadline = self._budget(work, started)
        done = self._search(work, root, iterations, deadline)
        self.last_stats["iterations"] = done
        choice = self._final_choice(work, root)
        self._count_evaluations(started)
        return choice

    def _count_evaluations(self, started: float) -> None:
        """``last_stats``' seconds, and the evaluator's calls and leaves of this call."""
        self.last_stats["seconds"] = time.perf_counter() - started
        if self._evaluate is not None:
            self.last_stats["evaluator_calls"] = self._evaluate.calls
            self.last_stats["evaluated"] = self._evaluate.leaves

    def _budget(self, work: GameState, started: float) -> tuple[int | None, float | None]:
        """``(iterations, deadline)`` of this call, once the root is taken.

        A later action of a turn is cheaper only because the tree kept from the turn's
        earlier actions already covers it: without a reused tree it gets the full budget.
        """
        cut = not work.is_turn_start() and self.last_stats["reused"] > 0
        share = self.continuation_share if cut else 1.0
        self.last_stats["share"] = share
        iterations = None if self.iterations is None else max(1, int(self.iterations * share))
        deadline = None if self.time_limit is None else started + self.time_limit * share
        return iterations, deadline

    def ponder(
        self,
        position: GameState,
        stop: Callable[[], bool],
        *,
        max_iterations: int = 1_000_000,
        deadline: float | None = None,
    ) -> int:
        """Grow the kept tree at ``position`` (the opponent to move) without choosing:
        thinking on the opponent's time. Runs until ``stop()`` is true (checked every 16
        iterations), ``max_iterations``, the ``perf_counter`` ``deadline`` or a solved
        root; returns the iterations done. The next :meth:`choose` in a continuation of
        ``position`` reuses what was found."""
        if position.is_over or not self.reuse_tree:
            return 0
        work = position.copy()
        self.last_stats = {"iterations": 0, "reason": "ponder", "reused": 0}
        if self._tree is not None:
            return self._ponder_compiled(self._tree, work, stop, max_iterations, deadline)
        root = self._take_root(work)
        evaluated = self._evaluate is not None
        if root.order is None and not evaluated:
            self._visit_new(root, work)
            self._expand(root, work, at_root=True)
        done = 0
        check = 0  # ``stop`` and the deadline are checked every 16 iterations
        while root.result is None and done < max_iterations:
            if done >= check:
                check = done + 16
                if stop() or (deadline is not None and time.perf_counter() >= deadline):
                    break
            if evaluated:
                ran = python_round(self, work, root, min(self._CHUNK, max_iterations - done))
                if ran == 0:
                    break
                done += ran
                continue
            self._iterate(work, root)
            done += 1
        self.last_stats["iterations"] = done
        return done

    def _drop_tree(self) -> None:
        """Forget the kept tree (not the random sequence): after a failed evaluator
        call, whose leaves were left pending."""
        self._root = None
        self._root_history = ()
        if self._tree is not None:
            self._tree.reset()

    def _final_choice(self, work: GameState, root: Node) -> Any:
        """Most visited child that the tactical layer accepts."""
        assert root.order is not None
        seat = root.seat
        sign = seat_sign(seat)
        if root.result is not None and sign * root.result > 0:
            for child in root.children:
                if child.result is not None and sign * child.result > 0:
                    self.last_stats["reason"] = "proven win"
                    return child.action
        ranked = sorted(
            root.children,
            key=lambda c: (c.result is None or sign * c.result >= 0, c.visits, c.mean()),
            reverse=True,
        )
        candidates = [c.action for c in ranked]
        candidates += root.order[root.next_child :]
        if not (self.tactics and self.safety):
            return candidates[0]

        def preferred(action: Any) -> list[Any]:
            child = root.index.get(action)
            if child is None:
                return []
            return [c.action for c in sorted(child.children, key=lambda c: -c.visits)]

        safe = first_safe(
            self._know,
            work,
            candidates,
            budget=Budget(self.tactics_budget),
            depth=self.tactics_depth,
            threat_depth=self.threat_depth,
            preferred=preferred,
        )
        if safe is None:
            self.last_stats["reason"] = "no safe action found"
            return candidates[0]
        if safe != candidates[0]:
            self.last_stats["reason"] = "safety"
        return safe

    # ------------------------------------------------------------- tree reuse
    def _take_root(self, position: GameState) -> Node:
        history = tuple(position.history)
        root = self._root if self.reuse_tree else None
        if root is not None and history[: len(self._root_history)] == self._root_history:
            for action in history[len(self._root_history) :]:
                root = root.index.get(action)
                if root is None:
                    break
            if root is not None and root.key == position.key and root.seat == position.current_seat:
                self.last_stats["reused"] = root.visits
            else:
                root = None
        else:
            root = None
        if root is None:
            root = Node(None, 1 - position.current_seat)
        root.action = None
        self._root = root
        self._root_history = history
        return root

    # ---------------------------------------------------------------- search
    def _search(
        self, pos: GameState, root: Node, iterations: int | None, deadline: float | None
    ) -> int:
        evaluated = self._evaluate is not None
        done = 0
        if evaluated:
            if root.order is None:  # the root is the first leaf the evaluator values
                done = python_round(self, pos, root, 1)
        elif root.order is None:
            self._visit_new(root, pos)
            self._expand(root, pos, at_root=True)
        elif root.result is None:
            self._reorder_root(root, pos)
        clock = time.perf_counter
        begun = clock()
        check = done  # the clock and an early stop are checked every 16 iterations
        while root.result is None:
            if iterations is not None and done >= iterations:
                break
            if done >= check:
                check = done + 16
                now = clock()
                if deadline is not None and now >= deadline:
                    break
                if done and self._decided((c.visits for c in root.children), iterations, done,
                                          deadline, now - begun):
                    self.last_stats["stopped_early"] = True
                    break
            if evaluated:
                most = self._CHUNK if iterations is None else iterations - done
                ran = python_round(self, pos, root, most)
                if ran == 0:
                    break
                done += ran
                continue
            self._iterate(pos, root)
            done += 1
        return done

    def _iterate(self, pos: GameState, root: Node) -> None:
        node = root
        path = [root]
        played = 0
        try:
            while True:
                if node.result is not None:
                    value = node.result
                    break
                if node.order is None:
                    self._expand(node, pos)
                child = self._select(node, pos)
                if child is None:  # every action proven lost: node got solved
                    value = node.result if node.result is not None else 0.0
                    break
                pos.play(child.action)
                played += 1
                path.append(child)
                if child.visits == 0:
                    value = self._visit_new(child, pos)
                    break
                node = child
        finally:
            for _ in range(played):
                pos.undo()
        self._backup(path, value)

    def _visit_new(self, node: Node, pos: GameState) -> float:
        """First visit of a node: exact value if decided, else a playout estimate."""
        node.seat = pos.current_seat
        node.key = pos.key
        if pos.is_over:
            node.result = float(pos.returns()[0])
            return node.result
        if self.tactics and self._know.fast_wins and self._know.winning_actions(pos):
            node.result = seat_sign(node.seat)
            return node.result
        return self._playout(pos)

    def _playout(self, pos: GameState) -> float:
        """The value for seat 0 of a new leaf: a whole random game in the kernel, or
        random actions in Python (``playout_depth`` of them then the heuristic, or to the
        end), the position left as it was."""
        if self._kernel is not None and not self.use_heuristic:
            seats, _ = self._kernel.playouts(pos, 1, self._rng.getrandbits(31), 10_000)
            return float((seats == 0).sum() - (seats == 1).sum()) / len(seats)
        know = self._know
        rng = self._rng
        played = 0
        limit = self.playout_depth if self.use_heuristic else 10_000
        try:
            while played < limit and not pos.is_over:
                pos.play(know.random_action(pos, rng))
                played += 1
            if pos.is_over:
                return float(pos.returns()[0])
            if not self.use_heuristic:
                return 0.0
            return float(know.heuristic(pos))
        finally:
            for _ in range(played):
                pos.undo()

    def _expand(self, node: Node, pos: GameState, *, at_root: bool = False) -> None:
        """Fix the order in which ``node``'s actions will be tried."""
        actions = list(pos.legal_actions())
        self._rng.shuffle(actions)  # random tie-breaks, reproducible with the seed
        if at_root and self.use_heuristic:
            actions = self._by_heuristic(node, pos, actions)
        elif self._know.action_priors is not None:
            priors = self._know.action_priors(pos, actions)
            ranked = sorted(zip(priors, range(len(actions)), actions, strict=True), reverse=True)
            actions = [a for _, _, a in ranked]
        node.order = actions

    def _by_heuristic(self, node: Node, pos: GameState, actions: list[Any]) -> list[Any]:
        """``actions`` sorted by the heuristic one action later, best for the mover first.

        Worth its cost only at the root, where it decides which children the widening
        lets in first; deeper nodes use the game's cheap priors.
        """
        sign = seat_sign(node.seat)
        scores = {}
        for action in actions:
            pos.play(action)
            try:
                if pos.is_over:
                    scores[action] = 10.0 * pos.returns()[node.seat]
                else:
                    scores[action] = sign * self._know.heuristic(pos)
            finally:
                pos.undo()
        return sorted(actions, key=lambda a: -scores[a])

    def _reorder_root(self, root: Node, pos: GameState) -> None:
        """A reused root was ordered by cheap priors when it was an inner node: order its
        not yet expanded actions by the heuristic now that it is the root."""
        assert root.order is not None
        if self.use_heuristic and root.next_child < len(root.order):
            rest = self._by_heuristic(root, pos, root.order[root.next_child :])
            root.order[root.next_child :] = rest

    def _select(self, node: Node, pos: GameState) -> Node | None:
        """UCT among the children the widening allows; expands one more when due."""
        order = node.order
        assert order is not None
        sign = 1.0 if node.seat == 0 else -1.0
        visits = node.visits
        allowed = self.widen_base + self.widen_factor * math.sqrt(visits)
        live = 0
        best: Node | None = None
        best_score = -math.inf
        log_n = math.log(visits + 1)
        c = self.exploration
        sqrt = math.sqrt
        # the score is ``child.mean() + c * sqrt(log_n / child.visits)``, written out
        for child in node.children:
            result = child.result
            if result is None:
                n = child.visits
                score = child.value / n + c * sqrt(log_n / n)
            else:
                exact = sign * result
                if exact > 0:  # a proven win for the player to move here
                    node.result = result
                    return child
                if exact < 0:
                    continue
                score = child.mean() + c * sqrt(log_n / child.visits)
            live += 1
            if score > best_score:
                best, best_score = child, score
        if node.next_child < len(order) and (live < allowed or best is None):
            action = order[node.next_child]
            node.next_child += 1
            child = Node(action, node.seat)
            node.children.append(child)
            node.index[action] = child
            return child
        if best is None:
            # Every action is expanded and proven: the node takes its best exact value.
            proven = [ch.result for ch in node.children if ch.result is not None]
            node.result = max(proven, key=lambda value: sign * value)
            return None
        return best

    @staticmethod
    def _backup(path: list[Node], value: float) -> None:
        # ``seat_sign(node.mover) * value`` for each node, computed once per sign
        up = value
        down = -1.0 * value
        for node in path:
            node.visits += 1
            node.value += up if node.mover == 0 else down


__all__ = ["MCTSPlayer", "Node"]
