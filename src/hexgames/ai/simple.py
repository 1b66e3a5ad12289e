"""Baseline players: uniformly random, and greedy one-ply on the game heuristic.

They are the yardsticks of the arena (every stronger level must beat them clearly) and the
opponents used to test the search; they are also the cheapest "beginner" levels.
"""

from __future__ import annotations

import random
from typing import Any

from hexgames.ai.base import game_of, require_actions, resolve_game, seat_sign
from hexgames.ai.knowledge import knowledge
from hexgames.game import Game, GameState


class RandomPlayer:
    """Plays a uniformly random legal action; reproducible with ``seed``."""

    def __init__(self, seed: int | None = None, *, name: str = "random") -> None:
        self.name = name
        self._seed = seed
        self._rng = random.Random(seed)

    def reset(self) -> None:
        """Restart the random sequence, so a seeded player replays the same games."""
        self._rng = random.Random(self._seed)

    def choose(self, position: GameState) -> Any:
        return self._rng.choice(require_actions(position))


class GreedyPlayer:
    """One ply: an immediately winning action, else the action whose resulting position
    the game heuristic likes best for the mover (ties broken at random).

    ``noise`` adds uniform noise of that amplitude to each action's value, which turns
    the player into a fallible beginner (level 1). The game is found from the position
    when not given, so ``GreedyPlayer(seed)`` works for any registered game.
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        game: Game | str | None = None,
        noise: float = 0.0,
        name: str = "greedy",
    ) -> None:
        if noise < 0:
            raise ValueError(f"noise must be >= 0, got {noise}")
        self.name = name
        self.noise = noise
        self._seed = seed
        self._rng = random.Random(seed)
        self._game = resolve_game(game) if game is not None else None

    def reset(self) -> None:
        self._rng = random.Random(self._seed)

    def choose(self, position: GameState) -> Any:
        actions = require_actions(position)
        game = self._game or game_of(position)
        know = knowledge(game)
        work = position.copy()
        seat = work.current_seat
        sign = seat_sign(seat)
        best: list[Any] = []
        best_value = -float("inf")
        for action in actions:
            work.play(action)
            try:
                if work.is_over:
                    value = 10.0 * work.returns()[seat]  # exact results dominate estimates
                    if value > 0:
                        return action
                else:
                    value = sign * know.heuristic(work)
            finally:
                work.undo()
            if self.noise:
                value += self._rng.uniform(-self.noise, self.noise)
            if value > best_value + 1e-12:
                best, best_value = [action], value
            elif abs(value - best_value) <= 1e-12:
                best.append(action)
        return self._rng.choice(best)
