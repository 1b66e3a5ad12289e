"""A PUCT search that learned knowledge drives (AlphaZero's), and batched self-play.

Unlike :class:`~hexgames.ai.mcts.MCTSPlayer` (UCT with the game's own knowledge, a
learned evaluator only valuing leaves and ordering their children), this search takes
both its move probabilities and its values from an :class:`~hexgames.ai.evaluator.
Evaluator` (a policy-value network, :mod:`hexgames.ai.network`):

* **Selection** at a node picks the legal action maximising
  ``Q + c * P * sqrt(N_parent) / (1 + N_child)``: ``Q`` the mean backed-up value of the
  child for the seat to act at the node, ``P`` its prior (the softmax of the evaluator's
  policy over the node's legal research ids; uniform when it gives none), ``N_parent``
  the node's visits counting its own evaluation (so at least 1). An unvisited child
  takes the *first-play value*: the evaluator's value of the node itself minus
  ``fpu_reduction`` (not the node's running mean, which the virtual losses of a round
  in flight would drag down until the charged children looked better than the new).
  Ties go to the first legal action in the engine's order, so a search is a function
  of its seed and evaluator.
* **Leaves** are valued by the evaluator (its value for the seat to act there); a finished
  game by its exact result. Values are backed up per seat, so turns of several actions
  by one seat (Benediction's two, Dendria's steps) need nothing special.
* **Dirichlet noise** at the root only: ``P = (1 - eps) * P + eps * Dir(alpha)``
  (``dirichlet_eps=0`` for none); the priors of every other node are the evaluator's.
* **Virtual loss** for batched leaves: a descent that reaches a new leaf charges each
  edge of its path ``virtual_loss`` visits, each lost, until the leaf is valued, so
  the next descents of the same round go elsewhere; a descent that reaches a leaf
  already waiting ends that tree's round (nothing changed since, every later descent
  would end there too). ``virtual_loss=0`` turns it off (one leaf per round).
* **The root read**: :meth:`PuctTree.visit_counts` and :meth:`PuctTree.policy_target`
  (visits over the legal research ids, summing to 1), and a move picked with a
  temperature (:meth:`PuctTree.choose`).

Batched self-play (:func:`self_play`) runs many games side by side, on game positions
(make/unmake, :class:`~hexgames.game.GameState`): every round, each unfinished game
descends its own tree for up to ``leaves_per_round`` leaves, and the leaves of *all*
games go to one evaluator call. Positions rather than the functional API's batched
arrays, because a tree needs undo and a per-node observation, which the engines give
directly and exactly as the vector environments see them (``Game.observation``); the
cost that batching saves is the evaluator's per-call overhead, not the engine's. Each
game has its own random generator (seeded by its own seed) and its own tree, so a game
played in a batch is the same game played alone, for an evaluator whose answer for a
leaf does not depend on the other leaves of its call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from hexgames.ai.evaluator import CheckedEvaluator, Evaluator
from hexgames.game import Game, GameState


@dataclass(frozen=True)
class PuctConfig:
    """The search's settings (see the module docstring)."""

    #: Simulations per move (leaves valued plus finished games reached).
    simulations: int = 64
    #: The exploration constant ``c`` of PUCT.
    c_puct: float = 1.5
    #: First-play value of an unvisited child: the node's own value minus this.
    fpu_reduction: float = 0.2
    #: Root noise: ``P = (1 - eps) * P + eps * Dir(alpha)``; ``eps = 0``: none.
    dirichlet_eps: float = 0.0
    dirichlet_alpha: float = 0.3
    #: Visits each lost, charged to a waiting leaf's path; 0: no virtual loss.
    virtual_loss: int = 1
    #: Leaves a tree sends to one evaluator call (at most).
    leaves_per_round: int = 8
    #: Keep the chosen child's subtree as the next root (noise is mixed in anew).
    reuse_tree: bool = True

    def __post_init__(self) -> None:
        checks = [
            (self.simulations >= 1, f"simulations must be at least 1, got {self.simulations}"),
            (self.c_puct >= 0, f"c_puct must be at least 0, got {self.c_puct}"),
            (0 <= self.dirichlet_eps <= 1,
             f"dirichlet_eps must be in [0, 1], got {self.dirichlet_eps}"),
            (self.dirichlet_alpha > 0,
             f"dirichlet_alpha must be positive, got {self.dirichlet_alpha}"),
            (self.virtual_loss >= 0, f"virtual_loss must be at least 0, got {self.virtual_loss}"),
            (self.leaves_per_round >= 1,
             f"leaves_per_round must be at least 1, got {self.leaves_per_round}"),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)


class PuctNode:
    """A node: the seat to act, and per legal action its prior, visits, value sum (for
    the seat to act here) and child. ``terminal`` (seat 0's result) for a finished game;
    ``priors is None`` until the evaluator has valued it."""

    __slots__ = ("actions", "children", "ids", "n", "priors", "raw_priors", "seat", "terminal",
                 "value", "w")

    def __init__(self, seat: int, terminal: float | None = None) -> None:
        self.seat = seat
        self.terminal = terminal
        self.actions: list[Any] = []
        self.ids = np.zeros(0, np.int64)
        self.priors: np.ndarray | None = None
        self.raw_priors: np.ndarray | None = None  # the evaluator's, before root noise
        self.n = np.zeros(0)
        self.w = np.zeros(0)
        self.children: list[PuctNode | None] = []
        self.value = 0.0  # the evaluator's value, for the seat to act here

    @property
    def expanded(self) -> bool:
        return self.priors is not None


def _sign(seat: int) -> float:
    return 1.0 if seat == 0 else -1.0


@dataclass
class _Pending:
    """A leaf waiting for the evaluator: the tree's path to it (node, edge) and what the
    evaluator is sent."""

    tree: PuctTree
    path: list[tuple[PuctNode, int]]
    node: PuctNode
    actions: list[Any]
    ids: np.ndarray
    observation: np.ndarray


class PuctTree:
    """One game's search tree, rooted at ``position`` (a private copy is kept)."""

    def __init__(self, game: Game, position: GameState, config: PuctConfig,
                 rng: np.random.Generator) -> None:
        self.game = game
        self.config = config
        self.rng = rng
        self.position = position.copy()
        self.num_actions = int(game.num_distinct_actions(position.rules))
        self.root = PuctNode(position.current_seat)
        self.simulations = 0  # this move's

    # -- the root read
    def visit_counts(self) -> np.ndarray:
        """Visits of the root's children by research id (``(num_actions,)`` float64)."""
        counts = np.zeros(self.num_actions)
        if self.root.expanded:
            counts[self.root.ids] = self.root.n
        return counts

    def policy_target(self) -> np.ndarray:
        """The root's visits as probabilities over its legal research ids (zero
        elsewhere, summing to 1); the priors while nothing has been visited."""
        counts = self.visit_counts()
        total = counts.sum()
        if total > 0:
            return counts / total
        target = np.zeros(self.num_actions)
        if self.root.priors is not None:
            target[self.root.ids] = self.root.priors
        return target

    def choose(self, temperature: float) -> Any:
        """A root action: the most visited (ties to the first legal action) at
        temperature 0, else sampled in proportion to ``visits ** (1 / temperature)``."""
        root = self.root
        if not root.expanded or not len(root.actions):
            raise ValueError("the root has not been searched")
        if temperature <= 0:
            return root.actions[int(np.argmax(root.n))]
        scaled = root.n / root.n.max() if root.n.max() > 0 else np.ones_like(root.n)
        weights = scaled ** (1.0 / temperature)
        return root.actions[int(self.rng.choice(len(weights), p=weights / weights.sum()))]

    def advance(self, action: Any) -> None:
        """Play ``action`` at the root: its subtree becomes the root (with
        ``reuse_tree``), else a fresh one."""
        child = None
        if self.config.reuse_tree and self.root.expanded:
            index = self.root.actions.index(action)
            child = self.root.children[index]
        self.position.play(action)
        if child is None or not child.expanded:
            child = PuctNode(self.position.current_seat)
        elif child.raw_priors is not None:
            child.priors = child.raw_priors.copy()  # the old root noise is not its own
        self.root = child
        self.simulations = 0

    # -- one round
    def descend(self, room: int) -> list[_Pending]:
        """Up to ``min(room, leaves_per_round)`` descents' leaves (finished games reached
        are backed up at once and count as simulations)."""
        pending: list[_Pending] = []
        waiting: set[int] = set()
        most = min(room, self.config.leaves_per_round)
        pos = self.position
        while len(pending) < most and self.simulations + len(pending) < self.config.simulations:
            node, played = self.root, 0
            path: list[tuple[PuctNode, int]] = []
            leaf: _Pending | None = None
            exact: float | None = None
            try:
                while True:
                    if node.terminal is not None:
                        exact = node.terminal
                        break
                    if not node.expanded:
                        if id(node) not in waiting:
                            leaf = self._leaf(node, path)
                        break  # else a leaf already waiting: the round ends here
                    edge = self._select(node)
                    child = node.children[edge]
                    pos.play(node.actions[edge])
                    played += 1
                    path.append((node, edge))
                    if child is None:
                        child = PuctNode(pos.current_seat,
                                         float(pos.returns()[0]) if pos.is_over else None)
                        node.children[edge] = child
                    node = child
            finally:
                for _ in range(played):
                    pos.undo()
            if exact is not None:
                self._backup(path, exact)
                self.simulations += 1
                if not path:  # the root itself is over
                    break
            elif leaf is None:
                break  # a leaf already waiting: the round ends here
            else:
                self._charge(path, +1)
                waiting.add(id(node))
                pending.append(leaf)
        return pending

    def _leaf(self, node: PuctNode, path: list[tuple[PuctNode, int]]) -> _Pending:
        """The leaf at ``node``, whose position the tree's position is now."""
        pos = self.position
        actions = list(pos.legal_actions())
        ids = np.array([self.game.action_to_id(pos, a) for a in actions], np.int64)
        observation = np.asarray(self.game.observation(pos, node.seat), np.float32)
        return _Pending(self, list(path), node, actions, ids, observation)

    def _select(self, node: PuctNode) -> int:
        config = self.config
        assert node.priors is not None
        visited = node.n > 0
        q = np.where(visited, node.w / np.maximum(node.n, 1.0), node.value - config.fpu_reduction)
        u = config.c_puct * node.priors * np.sqrt(1.0 + node.n.sum()) / (1.0 + node.n)
        return int(np.argmax(q + u))

    def _charge(self, path: list[tuple[PuctNode, int]], sign: int) -> None:
        """Add (``+1``) or take back (``-1``) the virtual loss of a path."""
        loss = self.config.virtual_loss * sign
        for node, edge in path:
            node.n[edge] += loss
            node.w[edge] -= loss

    def _backup(self, path: list[tuple[PuctNode, int]], value0: float) -> None:
        """Back up seat 0's ``value0`` along ``path``, each edge for its node's seat."""
        for node, edge in path:
            node.n[edge] += 1.0
            node.w[edge] += value0 * _sign(node.seat)

    def settle(self, leaf: _Pending, value: float, logits: np.ndarray | None) -> None:
        """Expand a valued leaf (``value`` for its seat to act, ``logits`` over its
        legal ids or ``None``) and back it up."""
        node = leaf.node
        node.actions = leaf.actions
        node.ids = leaf.ids
        node.priors = node.raw_priors = _softmax(logits, len(leaf.actions))
        size = len(leaf.actions)
        node.n = np.zeros(size)
        node.w = np.zeros(size)
        node.children = [None] * size
        node.value = value
        self._charge(leaf.path, -1)
        self._backup(leaf.path, value * _sign(node.seat))
        self.simulations += 1
        if node is self.root:
            self.add_noise()

    def add_noise(self) -> None:
        """Mix Dirichlet noise into the root's priors (the evaluator's kept apart)."""
        root, config = self.root, self.config
        if root.raw_priors is None or config.dirichlet_eps <= 0 or len(root.actions) < 2:
            return
        noise = self.rng.dirichlet([config.dirichlet_alpha] * len(root.actions))
        root.priors = (1 - config.dirichlet_eps) * root.raw_priors + config.dirichlet_eps * noise

    @property
    def done(self) -> bool:
        """Whether this move's search is over (its budget spent, or the root decided)."""
        return self.simulations >= self.config.simulations or self.root.terminal is not None


def _softmax(logits: np.ndarray | None, size: int) -> np.ndarray:
    if logits is None:
        return np.full(size, 1.0 / size)
    x = np.asarray(logits, np.float64)
    x = x - x.max()
    e = np.exp(x)
    return e / e.sum()


def run_round(trees: Sequence[PuctTree], evaluate: Callable[..., Any]) -> int:
    """One round over ``trees``: each descends, and all their leaves are valued in one
    call of ``evaluate`` (a :class:`~hexgames.ai.evaluator.CheckedEvaluator`); returns the
    number of leaves sent."""
    leaves: list[_Pending] = []
    for tree in trees:
        if not tree.done:
            leaves.extend(tree.descend(tree.config.simulations - tree.simulations))
    if not leaves:
        return 0
    size = leaves[0].tree.num_actions
    masks = np.zeros((len(leaves), size), np.bool_)
    for j, leaf in enumerate(leaves):
        masks[j, leaf.ids] = True
    observations = np.stack([leaf.observation for leaf in leaves])
    seats = np.array([leaf.node.seat for leaf in leaves], np.int32)
    values, policy = evaluate(observations, masks, seats)
    for j, leaf in enumerate(leaves):
        logits = None if policy is None else policy[j, leaf.ids]
        leaf.tree.settle(leaf, float(values[j]), logits)
    return len(leaves)


def search(trees: Sequence[PuctTree], evaluate: Callable[..., Any]) -> None:
    """Run every tree's search for its current move to the end, rounds batched."""
    for tree in trees:
        tree.simulations = 0
        if tree.root.expanded:
            tree.add_noise()
    while any(not tree.done for tree in trees):
        before = sum(tree.simulations for tree in trees)
        run_round(trees, evaluate)
        if sum(tree.simulations for tree in trees) == before:  # pragma: no cover
            raise RuntimeError("the search made no progress")  # a bug, not a position


class PuctPlayer:
    """A :class:`~hexgames.ai.base.Player` searching with PUCT and an evaluator (no noise,
    the most visited action). ``last_policy`` holds the last search's policy target."""

    def __init__(self, game: Game, evaluator: Evaluator, config: PuctConfig | None = None,
                 seed: int | None = None, name: str = "puct") -> None:
        self.game = game
        self.config = replace(config or PuctConfig(), dirichlet_eps=0.0)
        self.evaluate = CheckedEvaluator(evaluator)
        self.rng = np.random.default_rng(seed)
        self.name = name
        self.last_policy: np.ndarray | None = None

    def choose(self, position: GameState) -> Any:
        if position.is_over:
            raise ValueError("the game is over: no action to choose")
        actions = list(position.legal_actions())
        if len(actions) == 1:
            return actions[0]
        tree = PuctTree(self.game, position, self.config, self.rng)
        search([tree], self.evaluate)
        self.last_policy = tree.policy_target()
        return tree.choose(0.0)

    def reset(self) -> None:
        self.last_policy = None


@dataclass
class SelfPlayGame:
    """One self-play game: per searched move the observation seen by the seat to act,
    its legal mask, the policy target and that seat; then the result (seat 0's)."""

    seed: int
    actions: list[Any] = field(default_factory=list)
    observations: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    policies: list[np.ndarray] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    result: float = 0.0  # seat 0's: +1 win, -1 loss, 0 draw or stopped

    def value_targets(self) -> np.ndarray:
        """Each sample's value target: the result for the seat that was to act."""
        return np.array([self.result * _sign(s) for s in self.seats], np.float32)


@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play settings: the search, moves sampled at temperature 1 for the first
    ``temperature_moves`` actions (then the most visited), and a length cap (a game
    stopped there scores by the game's live score where it has one, else a draw)."""

    search: PuctConfig = PuctConfig(dirichlet_eps=0.25)
    temperature_moves: int = 10
    max_moves: int = 400


def self_play(game: Game, rules: Any, evaluator: Evaluator, seeds: Sequence[int],
              config: SelfPlayConfig | None = None) -> list[SelfPlayGame]:
    """Play ``len(seeds)`` games side by side, every round's leaves of all of them in one
    evaluator call; game ``i`` uses ``numpy.random.default_rng(seeds[i])``."""
    config = config or SelfPlayConfig()
    evaluate = CheckedEvaluator(evaluator)
    records = [SelfPlayGame(int(seed)) for seed in seeds]
    trees = [PuctTree(game, game.new_position(rules), config.search,
                      np.random.default_rng(int(seed))) for seed in seeds]
    live = list(range(len(trees)))
    while live:
        _forced_moves(trees, records, live, config)
        live = [i for i in live if not _finished(trees[i], records[i], config)]
        if not live:
            break
        search([trees[i] for i in live], evaluate)
        for i in live:
            tree, record = trees[i], records[i]
            _record(tree, record)
            temperature = 1.0 if len(record.actions) < config.temperature_moves else 0.0
            action = tree.choose(temperature)
            record.actions.append(action)
            tree.advance(action)
        live = [i for i in live if not _finished(trees[i], records[i], config)]
    for tree, record in zip(trees, records, strict=True):
        record.result = game_result(game, tree.position)
    return records


def _forced_moves(trees: list[PuctTree], records: list[SelfPlayGame], live: list[int],
                  config: SelfPlayConfig) -> None:
    """Play single legal actions without a search (nothing to learn from them)."""
    for i in live:
        tree, record = trees[i], records[i]
        while not _finished(tree, record, config):
            actions = list(tree.position.legal_actions())
            if len(actions) != 1:
                break
            record.actions.append(actions[0])
            tree.advance(actions[0])


def _finished(tree: PuctTree, record: SelfPlayGame, config: SelfPlayConfig) -> bool:
    return tree.position.is_over or len(record.actions) >= config.max_moves


def _record(tree: PuctTree, record: SelfPlayGame) -> None:
    pos = tree.position
    seat = pos.current_seat
    mask = np.zeros(tree.num_actions, np.bool_)
    mask[tree.root.ids] = True
    record.observations.append(np.asarray(tree.game.observation(pos, seat), np.float32))
    record.masks.append(mask)
    record.policies.append(tree.policy_target().astype(np.float32))
    record.seats.append(seat)


def game_result(game: Game, position: GameState) -> float:
    """Seat 0's result: the game's, or for a game stopped unfinished, the live score's
    verdict where the game keeps one (else a draw)."""
    if position.is_over:
        return float(position.returns()[0])
    if game.live_score is None:
        return 0.0
    score = game.live_score(position)
    mine = score[position.color_of_seat(0)]
    theirs = score[position.color_of_seat(1)]
    return float(np.sign(mine - theirs))


__all__ = [
    "PuctConfig",
    "PuctNode",
    "PuctPlayer",
    "PuctTree",
    "SelfPlayConfig",
    "SelfPlayGame",
    "game_result",
    "run_round",
    "search",
    "self_play",
]
