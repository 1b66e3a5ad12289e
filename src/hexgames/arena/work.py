"""The unit of work of a tournament: one scheduled game (:class:`Pairing`), what all the
games share (:class:`Setup`) and :func:`run_pairing`, which plays it in whichever
process calls it: a worker of the local pool (:mod:`.tournament.schedule`) or a Ray task
(:mod:`.cluster`). Both runners import it from here, so neither imports the other.

Work carries only plain data (game name, rules options, player specs, seed): the
process that plays it rebuilds the game and the players itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hexgames.arena.match import GameResult, play_game
from hexgames.arena.players import make_player
from hexgames.game import Game, get_game


@dataclass(frozen=True)
class Pairing:
    """One game to play: ``specs[s]`` sits in seat s."""

    index: int
    specs: tuple[str, str]
    seed: int


@dataclass(frozen=True)
class Setup:
    """What every game of a tournament shares."""

    game: str
    options: Mapping[str, Any]
    max_actions: int | None = None
    track_branching: bool = False


def run_pairing(setup: Setup, task: Pairing, game: Game | None = None) -> GameResult:
    """Play one scheduled game (in whichever process calls it)."""
    game = game or get_game(setup.game)
    rules = game.make_rules(**dict(setup.options))
    players = [make_player(game, spec, seed=task.seed * 2 + seat)
               for seat, spec in enumerate(task.specs)]
    for player, spec in zip(players, task.specs, strict=True):
        player.name = spec  # results are reported per spec, e.g. "L3" or "pkg:make"
    tags = {"Game": game.title, "Options": _options_text(setup.options)}
    max_actions = setup.max_actions
    if max_actions is None:
        max_actions = game.max_game_length(rules)
    return play_game(game, rules, players, index=task.index, max_actions=max_actions,
                     track_branching=setup.track_branching, tags=tags)


def _options_text(options: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(options.items())) or "default"


#: One game to play, with what it shares with the others.
Work = tuple[Setup, Pairing]
