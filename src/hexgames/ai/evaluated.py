"""The Python tree's rounds of leaves for a learned evaluator: the search of
:class:`~hexgames.ai.mcts.MCTSPlayer` with an ``evaluator`` in a game whose kernel
offers no compiled tree (with one, the same rounds run in compiled code:
:mod:`hexgames._cleaves`).

A round descends up to K times; a descent ends at a decided node (its exact value is
backed up at once, as the plain search does) or at a node not expanded yet, a *leaf*:
its path gets a virtual loss (one visit and a loss for each mover) so that the next
descents go elsewhere, and a descent reaching a pending leaf ends the round (nothing
has changed since, every later descent would end there too). The evaluator then values
the leaves in one call (:mod:`.evaluator`), each path trades its virtual loss for the
value, and each leaf's children are ordered by the evaluator's policy (else the game's
priors), equal scores in random order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hexgames.ai.base import seat_sign
from hexgames.game import GameState


@dataclass
class _Leaf:
    node: Any
    path: list[Any]
    actions: list[Any]  # shuffled
    ids: list[int]  # their research ids
    priors: list[float] | None  # the game's priors, if it has them
    observation: np.ndarray


def python_round(player: Any, pos: GameState, root: Any, most: int) -> int:
    """One round of the search of ``player`` (an ``MCTSPlayer`` with an evaluator) from
    ``root`` (``pos`` is its position, left as it was): at most ``most`` iterations
    (leaves valued, decided nodes reached); returns how many were done."""
    know = player._know
    batch = min(player.evaluator_batch, most)
    leaves: list[_Leaf] = []
    pending: set[int] = set()
    exact = 0
    if root.seat < 0:
        root.seat, root.key = pos.current_seat, pos.key
    while exact + len(leaves) < most and len(leaves) < batch and root.result is None:
        node = root
        path = [root]
        played = 0
        leaf = None
        value: float | None = None
        try:
            while True:
                if node.result is not None:
                    value = node.result
                    break
                if id(node) in pending:  # a collision: the round is over
                    break
                if node.order is None:
                    leaf = _leaf(player, pos, node, path)
                    if leaf is None:  # no legal action though the game goes on
                        value = 0.0
                    break
                child = player._select(node, pos)
                if child is None:  # every action proven lost, or all proven
                    value = node.result if node.result is not None else 0.0
                    break
                pos.play(child.action)
                played += 1
                path.append(child)
                if child.visits == 0:  # a new node: proven if decided, else a leaf
                    child.seat, child.key = pos.current_seat, pos.key
                    if pos.is_over:
                        child.result = float(pos.returns()[0])
                    elif player.tactics and know.fast_wins and know.winning_actions(pos):
                        child.result = seat_sign(child.seat)
                node = child
        finally:
            for _ in range(played):
                pos.undo()
        if leaf is not None:
            for n in path:  # the virtual loss
                n.visits += 1
                n.value -= 1.0
            pending.add(id(leaf.node))
            leaves.append(leaf)
        elif value is not None:
            player._backup(path, value)
            exact += 1
        else:
            break
    if leaves:
        try:
            _settle(player, leaves, pos)
        except BaseException:
            player._drop_tree()  # its pending leaves hold virtual losses
            raise
    return exact + len(leaves)


def _leaf(player: Any, pos: GameState, node: Any, path: list[Any]) -> _Leaf | None:
    """The leaf at ``node`` (``pos`` its position): its actions shuffled (random
    tie-breaks), their ids and game priors, its observation; ``None`` without actions."""
    actions = list(pos.legal_actions())
    if not actions:
        return None
    player._rng.shuffle(actions)
    game = player.game
    hook = player._know.action_priors
    priors = None if hook is None else list(hook(pos, actions))
    ids = [int(game.action_to_id(pos, action)) for action in actions]
    observation = np.asarray(game.observation(pos, node.seat), dtype=np.float32)
    return _Leaf(node, list(path), actions, ids, priors, observation)


def _settle(player: Any, leaves: list[_Leaf], pos: GameState) -> None:
    """Value the round's leaves in one call of the player's evaluator and back them up."""
    size = int(player.game.num_distinct_actions(pos.rules))
    masks = np.zeros((len(leaves), size), np.bool_)
    for j, leaf in enumerate(leaves):
        masks[j, leaf.ids] = True
    observations = np.stack([leaf.observation for leaf in leaves])
    seats = np.array([leaf.node.seat for leaf in leaves], np.int32)
    values, policy = player._evaluate(observations, masks, seats)
    for j, leaf in enumerate(leaves):
        if policy is not None:
            scores = policy[j, leaf.ids]
        elif leaf.priors is not None:
            scores = np.asarray(leaf.priors, np.float64)
        else:
            scores = np.zeros(len(leaf.actions))
        order = np.argsort(-scores, kind="stable")
        leaf.node.order = [leaf.actions[x] for x in order]
        leaf.node.next_child = 0
        value = float(values[j]) if leaf.node.seat == 0 else -float(values[j])
        for n in leaf.path:
            n.value += 1.0 + (value if n.mover == 0 else -value)


__all__ = ["python_round"]
