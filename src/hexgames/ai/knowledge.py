"""Game knowledge the AI may use, looked up generically from a :class:`Game`.

The AI never imports a game package. It uses ``GAME.heuristic`` and, when a game offers
them, faster or smarter versions of a few questions through an optional extras entry:
``GAME.extras["ai"]`` is a callable returning a mapping with any of

``winning_actions(position) -> list``
    the actions of the player to move that win the game at once. Benediction answers it
    from its reach tables (can a man capture the enemy king, can a king be blessed in one
    action) instead of playing every action.
``action_priors(position, actions) -> list[float]``
    a cheap score per action (higher = try first) used to order children in the search
    tree, e.g. captures and king advances first.
``random_action(position, rng) -> action``
    a fast playout policy (defaults to a uniform choice among ``legal_actions()``).
``turn_continues(position) -> bool``
    False when every action from here ends the turn (Benediction's second action): the
    tactical layer then does not look for wins two actions deep. Default: True.
``may_win_this_turn(position) -> bool``
    a cheap necessary condition for the player to move to win before its turn ends
    (Dendria: only when a pass or the quiet limit would end the game). Default: True.
``leaf_playouts: bool``
    True when the search should value new leaves by whole random games in the game's
    compiled kernel (``Game.extras["kernel"]``) rather than by cut-off playouts and the
    heuristic: for a game whose heuristic a deeper search learns to exploit (Dendria:
    see docs/ai.md, "Dendria's search and its heuristic"). A kernel's compiled tree may
    estimate the random game's result instead of playing it to the end (Dendria's
    does: docs/ai.md, "A fitted value of the random game"). Default: False.

Anything missing falls back to a brute-force, game-agnostic version, so a new game works
with the AI before anyone writes knowledge for it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hexgames.game import Game, GameState


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
    hooks_factory = game.extras.get("ai") if game.extras else None
    hooks: dict[str, Any] = dict(hooks_factory()) if hooks_factory is not None else {}
    known = {"winning_actions", "action_priors", "random_action", "turn_continues",
             "may_win_this_turn", "leaf_playouts"}
    unknown = set(hooks) - known
    if unknown:
        raise ValueError(f"{game.name}: unknown AI hooks {sorted(unknown)}")
    wins = hooks.get("winning_actions")
    return Knowledge(
        heuristic=game.heuristic,
        winning_actions=wins or brute_force_winning_actions,
        random_action=hooks.get("random_action") or uniform_random_action,
        action_priors=hooks.get("action_priors"),
        fast_wins=wins is not None,
        turn_continues=hooks.get("turn_continues") or always,
        may_win_this_turn=hooks.get("may_win_this_turn") or always,
        leaf_playouts=bool(hooks.get("leaf_playouts", False)),
    )
