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
    """Training samples, one row per searched move; ``results`` per game (seat 0's).

    Policy targets are sparse: ``legal[i, :k]`` the legal research ids of sample ``i``
    and ``probs[i, :k]`` their target probabilities, padded with ``-1`` and ``0`` to the
    widest row (a dense target would cost ``num_actions`` floats a sample: 5,591 on
    Dendria's standard board, 13,298 on Benediction's, for a few dozen legal ids)."""

    observations: np.ndarray
    legal: np.ndarray  # int32 (N, K), -1 padding
    probs: np.ndarray  # float32 (N, K), 0 padding
    values: np.ndarray
    results: np.ndarray
    moves: int

    @staticmethod
    def join(parts: list[Samples]) -> Samples:
        width = max([p.legal.shape[1] for p in parts], default=0)

        def joined(name: str) -> np.ndarray:
            return np.concatenate([getattr(p, name) for p in parts])

        def padded(name: str, fill: float) -> np.ndarray:
            return np.concatenate([_pad(getattr(p, name), width, fill) for p in parts])

        return Samples(joined("observations"), padded("legal", -1), padded("probs", 0.0),
                       joined("values"), joined("results"), sum(p.moves for p in parts))

    def window(self, size: int) -> Samples:
        """The last ``size`` samples (no per-game results)."""
        return Samples(self.observations[-size:], self.legal[-size:], self.probs[-size:],
                       self.values[-size:], np.zeros(0, np.float32), 0)

    @staticmethod
    def sparse(masks: np.ndarray, policies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(legal, probs)`` of dense legal masks and policy targets ``(N, A)``."""
        width = int(masks.sum(axis=1).max()) if len(masks) else 0
        legal = np.full((len(masks), width), -1, np.int32)
        probs = np.zeros((len(masks), width), np.float32)
        for i, mask in enumerate(masks):
            ids = np.flatnonzero(mask)
            legal[i, :len(ids)] = ids
            probs[i, :len(ids)] = policies[i, ids]
        return legal, probs


def _pad(array: np.ndarray, width: int, fill: float) -> np.ndarray:
    if array.shape[1] == width:
        return array
    out = np.full((array.shape[0], width), fill, array.dtype)
    out[:, :array.shape[1]] = array
    return out


def play(task: ActorTask) -> Samples:
    """Play ``task``'s games side by side (one evaluator call per round for all)."""
    game = get_game(task.game)
    rules = game.rules(**task.options)
    evaluator = load_evaluator(task.weights, game, rules)
    records = self_play(game, rules, evaluator, task.seeds, task.config)
    planes, height, width = game.observation_shape(rules)
    rows = [r for r in records if r.observations]
    results = np.array([r.result for r in records], np.float32)
    moves = sum(len(r.actions) for r in records)
    if not rows:
        return Samples(np.zeros((0, planes, height, width), np.float32),
                       np.zeros((0, 0), np.int32), np.zeros((0, 0), np.float32),
                       np.zeros(0, np.float32), results, moves)
    legal, probs = Samples.sparse(np.stack([m for r in rows for m in r.masks]),
                                  np.stack([p for r in rows for p in r.policies]))
    return Samples(np.stack([o for r in rows for o in r.observations]).astype(np.float32),
                   legal, probs, np.concatenate([r.value_targets() for r in rows]),
                   results, moves)
