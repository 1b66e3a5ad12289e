"""Game-agnostic helpers for the conformance suite (:mod:`tests.test_protocol`) and for any
test that needs variants, random walks or position snapshots of every registered game.

Everything here reaches games only through :mod:`hexgames.game`, so a game added to the
registry is covered with no new test code.
"""

from __future__ import annotations

import random
import xml.etree.ElementTree as ElementTree
from collections import Counter
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


def random_position(game: Game, rules: Any, seed: int, plies: int) -> GameState:
    """The position after up to ``plies`` seeded random legal actions from the start."""
    rng = random.Random(seed)
    position = game.new_position(rules)
    for _ in range(plies):
        actions = position.legal_actions()
        if not actions:
            break
        position.play(rng.choice(actions))
    return position


def positions_of_a_random_game(
    game: Game, rules: Any, seed: int, limit: int = 400
) -> Iterator[GameState]:
    """Every position of one seeded random game (at most ``limit`` actions), the same
    object yielded before each action."""
    return random_walk(game.new_position(rules), random.Random(seed), limit)


def play_turn(bot: Any, position: GameState) -> None:
    """Let ``bot`` play the whole turn of the player to act."""
    seat = position.current_seat
    position.play(bot.choose(position))
    while not position.is_over and position.current_seat == seat and not position.is_turn_start():
        position.play(bot.choose(position))


def assert_gestures_injective(game: Game, position: GameState) -> int:
    """Every legal action has its own click gesture, on points of the board, and no
    click sequence that completes one action also starts a longer one with the same tool
    (the front end acts as soon as a sequence is complete). Returns the actions seen."""
    actions = position.legal_actions()
    gestures = [game.gesture(position, action) for action in actions]
    counts = Counter(gestures)
    clash = [(str(a), g) for a, g in zip(actions, gestures, strict=True) if counts[g] > 1]
    assert not clash, clash
    labels = set(game.board(position.rules).labels) if game.board is not None else None
    for g in gestures:
        if labels is not None:
            assert set(g.points) <= labels, g
        assert g.points or g.label, g  # a button-only action needs a label
    complete = {(g.tool, g.points) for g in gestures}
    for g in gestures:
        for cut in range(1, len(g.points)):
            assert (g.tool, g.points[:cut]) not in complete, g
    return len(actions)


# ---------------------------------------------------------------- SVG documents
SVG_NS = "{http://www.w3.org/2000/svg}"


def svg_classes(element: ElementTree.Element) -> set[str]:
    """The words of an SVG element's ``class``."""
    return set(element.get("class", "").split())


def parse_svg(document: str) -> ElementTree.Element:
    """The root of an SVG document (which must be one)."""
    root = ElementTree.fromstring(document)
    assert root.tag == f"{SVG_NS}svg"
    return root


def find_class(root: ElementTree.Element, name: str) -> list[ElementTree.Element]:
    """Every element under ``root`` whose class includes ``name``, in document order."""
    return [element for element in root.iter() if name in svg_classes(element)]


def board_part(text: str) -> str:
    """A text board's drawing, above its legend."""
    return text.split("\n\n")[0]



def check_vector_batch(env: Any, game: Game, positions: list[Any]) -> None:
    """A vectorized environment's batch (``hexgames.integrations.vector``) against one
    position of the product's engine per game: the mask holds exactly the ids of the
    legal actions, the seat to act and the observation planes are the research
    encoding's (through the :class:`Game` description)."""
    import numpy as np

    mask = env.legal_action_mask()
    obs = env.observe()
    for b, position in enumerate(positions):
        ids = sorted(game.action_to_id(position, a) for a in position.legal_actions())
        assert np.flatnonzero(mask[b]).tolist() == ids, f"game {b}: legal ids differ"
        assert env.current_player[b] == position.current_seat, f"game {b}: seat to act"
        assert np.array_equal(obs[b], game.observation(position, position.current_seat)), (
            f"game {b}: observation planes differ")
