"""What the OpenSpiel and PettingZoo adapters share: option checking, the length bound
and how a stopped game is scored, action strings that never raise, and forced steps.

Everything here is game-agnostic: it reaches a game only through
:class:`hexgames.game.Game` and the :class:`hexgames.game.GameState` protocol.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hexgames.game import Game, GameState, Option

__all__ = [
    "DEFAULT_MAX_ACTIONS",
    "action_string",
    "describe_options",
    "final_returns",
    "length_bound",
    "play_forced",
    "ply",
    "stopped_returns",
    "validate_options",
]

#: Default of the adapters' ``max_actions``: a game not over after this many actions is
#: stopped (truncated) and scored by :func:`stopped_returns`. Uniformly random Dendria
#: games on the standard side-7 board last 140 to 806 steps (200 games, median 468), and
#: those on side 11 at most about 1 100, so the cap only ever stops a degenerate game; a
#: game whose own bound is smaller (Benediction: 399 actions) keeps its own bound.
DEFAULT_MAX_ACTIONS = 5000


def ply(position: GameState) -> int:
    """Actions played since the start position (``position.ply``)."""
    return position.ply


def length_bound(game: Game, rules: Any, max_actions: int | None = DEFAULT_MAX_ACTIONS) -> int:
    """The number of actions after which an adapter stops a game: the smaller of the
    game's own bound (``Game.max_game_length``) and ``max_actions`` (``None`` or 0: the
    game's own bound only)."""
    bound = int(game.max_game_length(rules))
    if max_actions is None or max_actions == 0:
        return bound
    if isinstance(max_actions, bool) or not isinstance(max_actions, int) or max_actions < 1:
        raise ValueError(
            f"max_actions must be a positive integer, or 0 for the game's own bound "
            f"({bound}), got {max_actions!r}"
        )
    return min(bound, max_actions)


def stopped_returns(game: Game, position: GameState) -> tuple[float, float]:
    """Per-seat returns of a game stopped before its end, scored as its rules score the
    position: a game that keeps a score (``Game.live_score``, a mapping by colour, as
    Dendria's) is won by the seat with the higher score as the rules' end would score
    it now (equal scores: a draw); a game without a score (Benediction, whose own
    ``max_turns`` limit makes an undecided game a draw) is a draw."""
    if game.live_score is None:
        return (0.0, 0.0)
    score = game.live_score(position)
    first = float(score[position.color_of_seat(0)])
    second = float(score[position.color_of_seat(1)])
    if first == second:
        return (0.0, 0.0)
    return (1.0, -1.0) if first > second else (-1.0, 1.0)


def final_returns(game: Game, position: GameState) -> tuple[float, float]:
    """Per-seat returns of a game that ended (the engine's) or was stopped."""
    if position.is_over:
        first, second = position.returns()
        return (float(first), float(second))
    return stopped_returns(game, position)


def action_string(game: Game, position: GameState, action_id: int) -> str:
    """The notation of ``action_id`` in ``position``; never raises.

    Research tools print whole policy vectors, so every id gets a string: an id that names
    no action of the game's geometry (two points on no common line, an id outside the
    space) is ``"<invalid ID>"``. An id naming a well-formed but illegal action gives its
    notation (``play`` refuses it)."""
    try:
        return str(game.action_from_id(position, action_id))
    except (ValueError, TypeError, IndexError):
        return f"<invalid {action_id}>"


def play_forced(position: GameState, limit: int) -> int:
    """Play every forced action (the only legal one) from ``position`` while the game is
    not over and fewer than ``limit`` actions have been played; returns how many."""
    played = 0
    while not position.is_over and ply(position) < limit:
        legal = position.legal_actions()
        if len(legal) != 1:
            break
        position.play(legal[0])
        played += 1
    return played


# ------------------------------------------------------------------------ options
def describe_options(options: Iterable[Option]) -> str:
    """``"size (an integer from 3 to 11), pie (true or false), ..."``."""
    return ", ".join(f"{option.name} ({option.describe_valid()})" for option in options)


def validate_options(game: Game, options: Mapping[str, Any]) -> dict[str, Any]:
    """Check rules options by the game's :class:`~hexgames.game.Option` declarations.

    ``ValueError`` (never ``TypeError``) for an unknown name, listing every valid option
    and its range, or for a bad value, saying what is valid (``Option.validate``). The
    accepted options are returned; the game's ``make_rules`` still checks combinations.

    Every research adapter (OpenSpiel, PettingZoo, Gymnasium, the functional API and the
    vector environments) takes the same names, OpenSpiel's parameter names: an option's
    engine alias (Dendria's older ``size``) is refused here, naming the option, as
    pyspiel refuses it."""
    by_name = {option.name: option for option in game.options}
    aliases = {alias: option for option in game.options for alias in option.aliases}
    checked: dict[str, Any] = {}
    for name, value in options.items():
        found = by_name.get(name)
        if found is None and name in aliases:
            raise ValueError(
                f"{game.title}'s option {name!r} is called {aliases[name].name!r} in the "
                "research adapters (OpenSpiel's parameter names)"
            )
        if found is None:
            raise ValueError(
                f"{game.title} has no option {name!r}; valid options: "
                f"{describe_options(game.options)}"
            )
        checked[found.name] = found.validate(value)
    return checked
