"""Other views of a game's observation tensor: player-relative planes and the
channels-last layout.

The games' own observations (``Game.observation``) are ``(planes, W, W)`` with absolute
colours: point ``(x, y)`` in axial coordinates is ``tensor[:, x, y]``, and one plane says
which colour the observer plays. Frameworks differ (PettingZoo's classic games and pgx are
player-relative, channels last; OpenSpiel's AlphaZero reads the **last** axis as
channels), so this module converts:

* :func:`player_relative`: the observer's pieces in the planes of the first colour, the
  opponent's in those of the second, "first colour to move" becoming "observer to move";
  in a game whose board is not the same for both colours (Benediction: Red's wall is at
  the bottom) the board is also turned half a turn for the second colour, so that the
  observer's own wall is always at the bottom (``tensor[:, x, y]`` then holds the point
  ``(W-1-x, W-1-y)``).
* :func:`channels_last`: ``(W, W, planes)``.

When the relative view turns the board, action ids must turn with it, or a network would
see one board and answer in the other's coordinates: :func:`action_permutation` gives the
permutation of action ids for the turned board (PettingZoo's chess does the same for
Black's moves). The adapters apply it to the action mask, the legal actions and the
actions played by the seat that sees the board turned.

What a game's planes mean is game knowledge: each game declares it in its description,
``Game.view_spec`` (a :class:`~hexgames.game.ViewSpec`), and the turned view needs the
board geometry, ``Game.board``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from hexgames.game import Game, GameState, ViewSpec

__all__ = [
    "ViewSpec",
    "action_permutation",
    "channels_last",
    "player_relative",
    "sees_turned_board",
    "view_spec",
]


def view_spec(game: Game) -> ViewSpec:
    """The :class:`ViewSpec` of ``game`` (``ValueError`` for a game that declares none)."""
    spec = game.view_spec
    if spec is None:
        raise ValueError(f"{game.title} declares no player-relative view")
    return spec


def player_relative(
    game: Game, position: GameState, seat: int, planes: np.ndarray | None = None
) -> np.ndarray:
    """The observation of ``seat`` seen from its own side (see the module docstring).

    ``planes`` is the game's absolute observation of ``seat`` (computed when omitted).
    For the seat playing the first colour only the to-move plane changes meaning
    ("observer to move", which it already is)."""
    if planes is None:
        planes = game.observation(position, seat)
    spec = view_spec(game)
    out = np.array(planes, dtype=np.float32, copy=True)
    if position.color_of_seat(seat) == game.colors[0]:
        return out
    for first, second in spec.color_pairs:
        out[[first, second]] = out[[second, first]]
    out[spec.first_to_move] = out[spec.on_board] - out[spec.first_to_move]
    if spec.rotate:
        out = out[:, ::-1, ::-1].copy()
    return out


def channels_last(planes: np.ndarray) -> np.ndarray:
    """``(planes, H, W)`` -> ``(H, W, planes)`` (a contiguous copy)."""
    return np.ascontiguousarray(np.moveaxis(planes, 0, -1))


def sees_turned_board(game: Game, position: GameState, seat: int) -> bool:
    """True when ``seat``'s relative view turns the board (and so its action ids)."""
    return view_spec(game).rotate and position.color_of_seat(seat) != game.colors[0]


_PERMUTATIONS: dict[tuple[str, Any], np.ndarray] = {}


def action_permutation(game: Game, rules: Any) -> np.ndarray:
    """``p[absolute id] = id on the board turned half a turn`` (an involution:
    ``p[p] == arange``). Ids that name no action of the board stay where they are.

    Built once per rules from the game's own encoding: each id's action has its points
    turned, and the turned action's id is looked up."""
    cache_key = (game.name, rules)
    if cache_key in _PERMUTATIONS:
        return _PERMUTATIONS[cache_key]
    if game.board is None:
        raise ValueError(f"{game.title} declares no board geometry")
    position = game.new_position(rules)
    geometry = game.board(rules)
    last = 2 * geometry.side - 2
    turned = {
        label: geometry.labels[geometry.index_at(last - x, last - y)]
        for label, (x, y) in zip(geometry.labels, geometry.coords, strict=True)
    }
    pattern = re.compile(r"[a-z]\d+")
    total = int(game.num_distinct_actions(rules))
    permutation = np.arange(total)
    for action_id in range(total):
        try:
            action = game.action_from_id(position, action_id)
            text = pattern.sub(lambda m: turned.get(m.group(0), m.group(0)), str(action))
            permutation[action_id] = int(game.action_to_id(position, position.parse_action(text)))
        except ValueError:
            continue  # no action of the board: its id stays
    _PERMUTATIONS[cache_key] = permutation
    return permutation
