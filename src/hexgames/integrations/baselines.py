"""Our players as baselines inside research frameworks.

* :func:`bot` -- any hexgames player spec (``random``, ``greedy``, ``L1`` .. ``L5``,
  ``mcts:N``) as a ``pyspiel.Bot`` for our OpenSpiel games
  (``evaluate_bots.evaluate_bots(state, [bot(game, "L3"), other], rng)``);
* :func:`agent` -- the same players as PettingZoo agents: ``policy = agent(env, "L2")``,
  then ``env.step(policy(observation, agent_name))`` in the usual loop;
* :class:`HeuristicEvaluator` -- an ``open_spiel.python.algorithms.mcts.Evaluator`` that
  values a state by the game's own heuristic (``Game.heuristic``) instead of a random
  rollout: ``mcts.MCTSBot(game, 2.0, 200, HeuristicEvaluator())``.

The players read the engine position behind the state or environment
(``state.position``, ``env.unwrapped.position``) and never change it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from hexgames.ai.base import Player
from hexgames.ai.levels import from_spec
from hexgames.game import Game, get_game

__all__ = ["HeuristicEvaluator", "HexBot", "PettingZooAgent", "agent", "bot"]


def _hex_game(game: Any) -> Game:
    hex_game = getattr(game, "hex_game", None)
    if isinstance(hex_game, Game):
        return hex_game
    return get_game(game.get_type().short_name)


class HexBot(pyspiel.Bot):
    """A hexgames :class:`~hexgames.ai.base.Player` as a ``pyspiel.Bot``.

    ``step(state)`` returns the id of the action the player chooses in
    ``state.position``; ``restart()`` makes the player forget what it kept between
    moves (its search tree)."""

    def __init__(self, game: Game, player: Player) -> None:
        pyspiel.Bot.__init__(self)
        self.game = game
        self.player = player

    def step(self, state: Any) -> int:
        return int(state.id_of(self.player.choose(state.position)))

    def restart_at(self, state: Any) -> None:
        reset = getattr(self.player, "reset", None)
        if reset is not None:
            reset()

    def restart(self) -> None:
        self.restart_at(None)

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to do: the player reads the position afresh at every step."""

    def provides_force_action(self) -> bool:
        return False

    def provides_policy(self) -> bool:
        return False

    def is_clonable(self) -> bool:
        return False


def bot(game: Any, spec: str = "L2", seed: int | None = None) -> HexBot:
    """The player ``spec`` (see :func:`hexgames.ai.levels.from_spec`) as a
    ``pyspiel.Bot`` for ``game``, an OpenSpiel game loaded from
    :mod:`hexgames.integrations.openspiel`."""
    hex_game = _hex_game(game)
    return HexBot(hex_game, from_spec(hex_game, spec, seed))


class PettingZooAgent:
    """A hexgames player as a PettingZoo agent policy, bound to one environment:
    ``policy(observation, agent)`` returns the action id for the agent to act."""

    def __init__(self, env: Any, player: Player) -> None:
        self.env = env
        self.player = player

    def __call__(self, observation: Any = None, agent: str | None = None) -> int:
        raw = self.env.unwrapped
        return int(raw.id_of(self.player.choose(raw.position)))

    def reset(self) -> None:
        reset = getattr(self.player, "reset", None)
        if reset is not None:
            reset()


def agent(env: Any, spec: str = "L2", seed: int | None = None) -> PettingZooAgent:
    """The player ``spec`` as a policy for the environment ``env`` (one of
    :mod:`hexgames.integrations.pettingzoo`'s)."""
    return PettingZooAgent(env, from_spec(env.unwrapped.game, spec, seed))


class HeuristicEvaluator(mcts.Evaluator):
    """An OpenSpiel MCTS evaluator on the game's heuristic: a non-terminal state is worth
    ``h`` to seat 0 and ``-h`` to seat 1, where ``h = Game.heuristic(position)`` in
    [-1, 1]; a terminal state its returns. Priors are uniform (as OpenSpiel's
    ``RandomRolloutEvaluator``)."""

    def evaluate(self, state: Any) -> np.ndarray:
        if state.is_terminal():
            return np.array(state.returns(), dtype=np.float64)
        position = state.position
        value = float(_hex_game(state.get_game()).heuristic(position))
        return np.array([value, -value], dtype=np.float64)

    def prior(self, state: Any) -> list[tuple[int, float]]:
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]
