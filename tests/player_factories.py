"""Player factories for the ``module:callable`` player specs of the arena's tests
(``hexgames arena --players random,player_factories:first_legal``)."""

from __future__ import annotations

from typing import Any

from hexgames.game import Game, GameState

#: Not callable: a spec naming it is refused.
NOT_A_FACTORY = 42


class FirstLegal:
    """Plays the first legal action: a deterministic player that needs no search."""

    def __init__(self, game: Game, seed: int | None) -> None:
        self.name = f"first-legal for {game.name}"
        self.seed = seed

    def choose(self, position: GameState) -> Any:
        return position.legal_actions()[0]


def first_legal(game: Game, seed: int | None) -> FirstLegal:
    return FirstLegal(game, seed)


def needs_three(game: Game, seed: int | None, depth: int) -> FirstLegal:
    """A factory with a signature the commands cannot call."""
    return FirstLegal(game, seed)


def not_a_player(game: Game, seed: int | None) -> str:
    return "I choose nothing"
