"""Game-agnostic AI players: random, greedy one-ply, and MCTS with game knowledge.

>>> from hexgames.ai import player
>>> bot = player("benediction", 3, seed=1)   # doctest: +SKIP
>>> action = bot.choose(position)            # doctest: +SKIP

Players speak to games only through :mod:`hexgames.game`; game knowledge (heuristic,
fast win detection, move priors) comes from the game's ``evaluation`` module through
``GAME.heuristic`` and the optional ``GAME.ai_hooks`` (:mod:`.knowledge`).
"""

from hexgames.ai.base import Player
from hexgames.ai.evaluator import Evaluator
from hexgames.ai.levels import LEVELS, Level, from_spec, player
from hexgames.ai.mcts import MCTSPlayer
from hexgames.ai.simple import GreedyPlayer, RandomPlayer

__all__ = [
    "LEVELS",
    "Evaluator",
    "GreedyPlayer",
    "Level",
    "MCTSPlayer",
    "Player",
    "RandomPlayer",
    "from_spec",
    "player",
]
