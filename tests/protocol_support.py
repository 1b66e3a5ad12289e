"""Game-agnostic helpers for the conformance suite (:mod:`tests.test_protocol`) and for any
test that needs variants, random walks or position snapshots of every registered game.

Everything here reaches games only through :mod:`hexgames.game`, so a game added to the
registry is covered with no new test code.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hexgames.game import Game, GameState, Option, game_names, get_game


@dataclass(frozen=True)
class Variant:
    """One game with one set of rules options (the defaults plus ``changed``)."""

    game: Game
    changed: tuple[tuple[str, Any], ...]

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.changed)

    def new(self) -> GameState:
        return self.game.new(**self.options)

    def __str__(self) -> str:
        changes = ",".join(f"{name}={value}" for name, value in self.changed)
        return f"{self.game.name}[{changes or 'default'}]"


def option_values(option: Option) -> list[Any]:
    """The values of an option worth testing: every value of a small range (all board
    sides, both turn protocols), else the ends and the default; both booleans; "off"."""
    if option.kind == "bool":
        return [True, False]
    values: list[Any] = []
    low, high = option.minimum, option.maximum
    if low is not None and high is not None and high - low <= 8:
        values = list(range(low, high + 1))
    else:
        values = [v for v in (low, option.default, high) if v is not None]
        if low is not None and high is None:
            values.append(low + 1)
    if option.nullable:
        values.append(None)
    return list(dict.fromkeys(values))


def variants(game: Game) -> list[Variant]:
    """The default rules, then each option moved alone through :func:`option_values`
    (values the rules refuse in combination with the other defaults are skipped)."""
    found = [Variant(game, ())]
    for option in game.options:
        for value in option_values(option):
            if value == option.default:
                continue
            try:
                game.make_rules(**{option.name: value})
            except ValueError:
                continue
            found.append(Variant(game, ((option.name, value),)))
    return found


def all_games() -> list[Game]:
    return [get_game(name) for name in game_names()]


def all_variants() -> list[Variant]:
    return [variant for game in all_games() for variant in variants(game)]


def snapshot(position: GameState) -> tuple[Any, ...]:
    """Everything a position shows through the protocol, to compare before and after."""
    return (
        position.key,
        position.to_text(),
        sorted(str(action) for action in position.legal_actions()),
        [str(action) for action in position.history],
        position.ply,
        str(position.last_action),
        position.to_move,
        position.current_seat,
        position.is_over,
        position.winner,
        position.returns(),
        position.is_turn_start(),
        position.outcome(),
    )


def random_walk(position: GameState, rng: random.Random, plies: int) -> Iterator[GameState]:
    """Play up to ``plies`` random legal actions, yielding the position before each one
    and once more at the end (stops early when the game is over)."""
    for _ in range(plies):
        yield position
        actions = position.legal_actions()
        if not actions:
            return
        position.play(rng.choice(actions))
    yield position


def play_out(position: GameState, rng: random.Random, limit: int = 20_000) -> GameState:
    """Play random legal actions until the game is over (or ``limit`` actions)."""
    for _ in range(limit):
        actions = position.legal_actions()
        if not actions:
            break
        position.play(rng.choice(actions))
    return position
