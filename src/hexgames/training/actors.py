"""Self-play actors (numpy only, no torch): a batch of games played by PUCT with the
best net, returned as training samples. Run in worker processes by ``hexgames train``
(or in the learner's own process with ``--workers 0``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hexgames.ai.network import load_evaluator
from hexgames.ai.puct import SelfPlayConfig, self_play
from hexgames.game import get_game


@dataclass(frozen=True)
class ActorTask:
    """Games to play: the game and options, the best net's weights file, the settings
    and one seed per game."""

    game: str
    options: dict[str, Any]
    weights: str
    config: SelfPlayConfig
    seeds: tuple[int, ...]


@dataclass
class Samples:
    """Training samples, one row per searched move; ``results`` per game (seat 0's)."""

    observations: np.ndarray
    masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    results: np.ndarray
    moves: int

    @staticmethod
    def join(parts: list[Samples]) -> Samples:
        def joined(name: str) -> np.ndarray:
            return np.concatenate([getattr(p, name) for p in parts])

        return Samples(joined("observations"), joined("masks"), joined("policies"),
                       joined("values"), joined("results"), sum(p.moves for p in parts))


def play(task: ActorTask) -> Samples:
    """Play ``task``'s games side by side (one evaluator call per round for all)."""
    game = get_game(task.game)
    rules = game.rules(**task.options)
    evaluator = load_evaluator(task.weights, game, rules)
    records = self_play(game, rules, evaluator, task.seeds, task.config)
    planes, height, width = game.observation_shape(rules)
    size = int(game.num_distinct_actions(rules))
    rows = [r for r in records if r.observations]
    return Samples(
        observations=np.stack([o for r in rows for o in r.observations]).astype(np.float32)
        if rows else np.zeros((0, planes, height, width), np.float32),
        masks=np.stack([m for r in rows for m in r.masks]) if rows
        else np.zeros((0, size), np.bool_),
        policies=np.stack([p for r in rows for p in r.policies]).astype(np.float32) if rows
        else np.zeros((0, size), np.float32),
        values=np.concatenate([r.value_targets() for r in rows]) if rows
        else np.zeros(0, np.float32),
        results=np.array([r.result for r in records], np.float32),
        moves=sum(len(r.actions) for r in records),
    )
