"""The :class:`Player` protocol and small helpers shared by every AI player.

A player only ever sees positions through :class:`hexgames.game.GameState`, so one player
class serves every registered game. Players never mutate the position they are given:
searching happens on ``position.copy()`` (or on make/unmake of that copy).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from hexgames.game import Game, GameState, game_names, get_game


@runtime_checkable
class Player(Protocol):
    """Something that picks one legal action (a single step of a turn) for a position.

    ``choose`` must return an action from ``position.legal_actions()`` and must leave the
    position exactly as it was. ``reset`` (optional) forgets anything remembered between
    calls, e.g. a search tree kept for reuse; call it between games.
    """

    name: str

    def choose(self, position: GameState) -> Any: ...


def resolve_game(game: Game | str) -> Game:
    """Accept a :class:`Game` or a registered game name."""
    if isinstance(game, Game):
        return game
    if isinstance(game, str):
        return get_game(game)
    raise TypeError(f"expected a Game or a game name, got {type(game).__name__}")


_GAME_OF_TYPE: dict[type, Game] = {}


def game_of(position: GameState) -> Game:
    """The registered :class:`Game` whose positions have the type of ``position``.

    Lets players that need game knowledge (the greedy player's heuristic) be created
    without naming a game. Each registered game's start position is built once to learn
    its position type; no game package is imported by name here.
    """
    kind = type(position)
    if kind not in _GAME_OF_TYPE:
        for name in game_names():
            game = get_game(name)
            _GAME_OF_TYPE.setdefault(type(game.new()), game)
        if kind not in _GAME_OF_TYPE:
            raise ValueError(
                f"no registered game plays positions of type {kind.__name__}; "
                "pass the game explicitly"
            )
    return _GAME_OF_TYPE[kind]


def seat_sign(seat: int) -> float:
    """+1 for seat 0 and -1 for seat 1: turns a seat-0 value into the seat's own view."""
    return 1.0 if seat == 0 else -1.0


def require_actions(position: GameState) -> Sequence[Any]:
    """Legal actions of ``position``; ``ValueError`` when there is nothing to choose."""
    if position.is_over:
        raise ValueError("the game is over: there is no action to choose")
    actions = position.legal_actions()
    if not actions:
        raise ValueError("the position has no legal action to choose")
    return actions
