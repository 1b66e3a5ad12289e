"""The settings, budget and counters of a ``hexgames train`` run, and its file names:
no torch here, so that the command checks its arguments before importing it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from hexgames.ai.puct import PuctConfig, SelfPlayConfig

CHECKPOINT = "checkpoint.pt"
SETTINGS = "settings.json"
LOG = "log.csv"
PLOT = "progress.png"
BEST = "best.npz"
LATEST = "latest.npz"
CHECKPOINT_VERSION = 1
LOG_COLUMNS = ("iteration", "elapsed_s", "games", "steps", "samples", "loss", "value_loss",
               "policy_loss", "loss_start", "loss_end", "gate_score", "accepted", "elo")
#: Random actions opening each gating game (so that the deterministic players' games
#: differ).
GATE_OPENING = 2


@dataclass(frozen=True)
class TrainSettings:
    """A run's settings (kept in ``settings.json``; a resumed run keeps them)."""

    game: str
    options: dict[str, Any] = field(default_factory=dict)
    channels: int = 32
    blocks: int = 2
    games_per_iteration: int = 16
    simulations: int = 32
    leaves_per_round: int = 8
    temperature_moves: int = 10
    max_moves: int = 400
    steps_per_iteration: int = 100
    batch_size: int = 64
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    window: int = 50_000
    gate_games: int = 10
    gate_simulations: int = 16
    gate_threshold: float = 0.55
    seed: int = 0

    def __post_init__(self) -> None:
        positive = ("channels", "games_per_iteration", "simulations", "leaves_per_round",
                    "max_moves", "steps_per_iteration", "batch_size", "window",
                    "gate_simulations")
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"{name.replace('_', '-')} must be at least 1, got "
                                 f"{getattr(self, name)}")
        for name in ("blocks", "temperature_moves", "gate_games"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name.replace('_', '-')} must be at least 0, got "
                                 f"{getattr(self, name)}")
        if not 0.0 <= self.gate_threshold <= 1.0:
            raise ValueError(f"gate-threshold must be in [0, 1], got {self.gate_threshold}")
        for name in ("learning_rate", "weight_decay"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0 or (name == "learning_rate" and value == 0):
                raise ValueError(f"{name.replace('_', '-')} must be a positive number, got "
                                 f"{value}")

    def self_play(self) -> SelfPlayConfig:
        search = PuctConfig(simulations=self.simulations, dirichlet_eps=0.25,
                            leaves_per_round=self.leaves_per_round)
        return SelfPlayConfig(search=search, temperature_moves=self.temperature_moves,
                              max_moves=self.max_moves)


@dataclass(frozen=True)
class Budget:
    """When to stop: whichever comes first of training hours, self-play games and
    learner steps, counted over the whole run (a resumed run included)."""

    hours: float | None = None
    games: int | None = None
    steps: int | None = None

    def __post_init__(self) -> None:
        if self.hours is None and self.games is None and self.steps is None:
            raise ValueError("give a budget: --hours, --games or --steps")
        if self.hours is not None and not (math.isfinite(self.hours) and self.hours > 0):
            raise ValueError(f"--hours must be a positive number, got {self.hours}")
        for name in ("games", "steps"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"--{name} must be at least 1, got {value}")

    def spent(self, state: RunState) -> bool:
        return ((self.hours is not None and state.elapsed >= self.hours * 3600)
                or (self.games is not None and state.games >= self.games)
                or (self.steps is not None and state.steps >= self.steps))


@dataclass
class RunState:
    """Counters of a run: iterations done, games played, learner steps, training
    seconds, the best net's chained Elo."""

    iteration: int = 0
    games: int = 0
    steps: int = 0
    elapsed: float = 0.0
    elo: float = 0.0


class TrainingError(ValueError):
    """A run that cannot start or go on (its directory, checkpoint or settings)."""
