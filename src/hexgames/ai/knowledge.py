"""Game knowledge the AI may use, looked up generically from a :class:`Game`.

The AI never imports a game package. It uses ``GAME.heuristic`` and, when a game offers
them, faster or smarter versions of a few questions: ``GAME.ai_hooks()`` returns a
:class:`hexgames.hooks.AiHooks` (winning actions, action priors, a playout policy, whether
a turn continues, whether a win is possible this turn, and whether leaves are valued by
whole random games in the game's compiled kernel; each field says what it is for).

Anything missing falls back to a brute-force, game-agnostic version, so a new game works
with the AI before anyone writes knowledge for it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hexgames.game import Game, GameState
from hexgames.hooks import AiHooks


def brute_force_winning_actions(position: GameState) -> list[Any]:
    """Play every legal action and keep those after which the mover has won."""
    seat = position.current_seat
    wins = []
    for action in position.legal_actions():
        position.play(action)
        try:
            if position.is_over and position.returns()[seat] > 0:
                wins.append(action)
        finally:
            position.undo()
    return wins


def uniform_random_action(position: GameState, rng: random.Random) -> Any:
    """A uniformly random legal action (the default playout policy)."""
    return rng.choice(position.legal_actions())


def always(position: GameState) -> bool:
    """The safe default of the yes/no hooks: "maybe"."""
    return True


@dataclass(frozen=True)
class Knowledge:
    """Everything game-specific the search uses, as plain callables."""

    heuristic: Callable[[GameState], float]
    winning_actions: Callable[[GameState], list[Any]]
    random_action: Callable[[GameState, random.Random], Any]
    #: ``None`` when the game offers no priors: children are then tried in random order.
    action_priors: Callable[[GameState, Sequence[Any]], list[float]] | None
    #: True when ``winning_actions`` is the game's own fast version (cheap enough to ask
    #: at every new node of the search tree).
    fast_wins: bool
    turn_continues: Callable[[GameState], bool] = always
    may_win_this_turn: Callable[[GameState], bool] = always
    #: The game asks for whole random playouts at the leaves (the ``leaf_playouts`` hook).
    leaf_playouts: bool = False


_CACHE: dict[int, tuple[Game, Knowledge]] = {}


def knowledge(game: Game) -> Knowledge:
    """Collect the game's AI hooks, with game-agnostic fallbacks for missing ones
    (computed once per game object)."""
    cached = _CACHE.get(id(game))
    if cached is not None and cached[0] is game:
        return cached[1]
    result = _collect(game)
    _CACHE[id(game)] = (game, result)
    return result


def _collect(game: Game) -> Knowledge:
    hooks = game.ai_hooks() if game.ai_hooks is not None else AiHooks()
    wins = hooks.winning_actions
    return Knowledge(
        heuristic=game.heuristic,
        winning_actions=wins or brute_force_winning_actions,
        random_action=hooks.random_action or uniform_random_action,
        action_priors=hooks.action_priors,
        fast_wins=wins is not None,
        turn_continues=hooks.turn_continues or always,
        may_win_this_turn=hooks.may_win_this_turn or always,
        leaf_playouts=hooks.leaf_playouts,
    )
