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

What a game's planes mean is game knowledge, so each game's :class:`ViewSpec` is declared
in :data:`VIEW_SPECS` below, keyed by game name, until ``hexgames.game.Game`` offers a
field for it (the integrator moves each entry into its game package's ``spec.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hexgames.game import Game, GameState

__all__ = ["VIEW_SPECS", "ViewSpec", "channels_last", "player_relative", "view_spec"]


@dataclass(frozen=True)
class ViewSpec:
    """How a game's observation planes turn into a player-relative view."""

    #: Planes that exchange when the observer plays the second colour (``game.colors[1]``):
    #: pairs ``(plane of the first colour, plane of the second)``.
    color_pairs: tuple[tuple[int, int], ...]
    #: The plane that is 1 on the board when the first colour is to move.
    first_to_move: int
    #: The plane that is 1 on every point of the board.
    on_board: int
    #: True when the board must turn half a turn for the second colour (its geometry is
    #: not the same for both colours).
    rotate: bool


#: Each game's view, by game name (to move into the games' ``Game`` descriptions).
VIEW_SPECS: dict[str, ViewSpec] = {
    # Planes of hexgames.benediction.encoding.PLANES: men 0/1, starting points 8/9,
    # supplies 15/16; "red to act" 11; "on board" 10. Red's wall is at the bottom.
    "benediction": ViewSpec(
        color_pairs=((0, 1), (8, 9), (15, 16)), first_to_move=11, on_board=10, rotate=True
    ),
    # Planes of hexgames.dendria.encoding.PLANES: dark seed/tree/dendrid 0-2, light 3-5;
    # "dark to move" 7; "on board" 6. The board is the same for both colours.
    "dendria": ViewSpec(
        color_pairs=((0, 3), (1, 4), (2, 5)), first_to_move=7, on_board=6, rotate=False
    ),
}


def view_spec(game: Game) -> ViewSpec:
    """The :class:`ViewSpec` of ``game`` (``ValueError`` for a game that declares none)."""
    spec = game.extras.get("view_spec") or VIEW_SPECS.get(game.name)
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
