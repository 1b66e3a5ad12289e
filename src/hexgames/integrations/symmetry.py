"""Board symmetries that preserve a game's rules, for data augmentation.

A symmetry maps every point of the hex-hex board to a point, every action to an action
and every observation tensor to an observation tensor, such that the image of a legal
game is a legal game (the same actions, mapped, are legal at every step, and it ends the
same way). In centred axial coordinates ``(q, r) = (x - c, y - c)`` (``c = side - 1``):

* the rotation by 60 degrees clockwise is ``(q, r) -> (r, r - q)`` (N -> NE -> SE ...);
* the left-right mirror is ``(q, r) -> (-q, r - q)`` (N stays N, NE <-> NW).

**Dendria** treats the six directions alike, so all 12 symmetries of the hexagon (six
rotations, each with or without the mirror) preserve its rules. **Benediction** has walls
at the bottom (Red) and top (Blue) and a portal that depends on the forward directions,
so only the identity and the left-right mirror, which keeps both walls and the starting
points, preserve them. ``tests/test_integrations_symmetry.py`` checks both claims by
playing every symmetric image of random games alongside them.

Which symmetries a game has is game knowledge: each game declares them in its description,
``Game.symmetries`` (:class:`~hexgames.game.BoardSymmetry` values), with its geometry,
``Game.board``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from hexgames.game import BoardSymmetry, Game, GameState
from hexgames.hexgrid import HexBoard, board

__all__ = ["Symmetry", "mirrored_position", "on_board", "symmetries"]

_LABEL = re.compile(r"[a-z]\d+")


@dataclass(frozen=True)
class Symmetry:
    """One symmetry of one board size: ``points[i]`` is the index of the image of point
    ``i``; ``labels`` maps each label to its image."""

    name: str
    side: int
    points: tuple[int, ...]
    labels: dict[str, str]

    def point(self, index: int) -> int:
        return self.points[index]

    def notation(self, text: str) -> str:
        """An action's notation with every point replaced by its image."""
        return _LABEL.sub(lambda match: self.labels.get(match.group(0), match.group(0)), text)

    def observation(self, planes: np.ndarray) -> np.ndarray:
        """The image of a ``(planes, W, W)`` observation (use it on channels-first
        tensors; ``numpy.moveaxis`` for others): the value at a point moves to its
        image, off-board cells stay as they are."""
        geometry = board(self.side)
        out = np.array(planes, copy=True)
        xs = np.array([x for x, _ in geometry.coords])
        ys = np.array([y for _, y in geometry.coords])
        image = np.array(self.points)
        out[:, xs[image], ys[image]] = planes[:, xs, ys]
        return out

    def action(self, game: Game, image: GameState, action: Any) -> Any:
        """The image of ``action`` (an action of the original position) as an action of
        ``image``, the mirrored position: the mapped notation, or, where the game offers
        an action under another name (a Dendria grow or convert names its group by one
        cell of the engine's choosing), the legal action with the same effect."""
        mapped = image.parse_action(self.notation(str(action)))
        legal = image.legal_actions()
        if mapped in legal:
            return mapped
        image.play(mapped)
        key = image.key
        image.undo()
        for candidate in legal:
            if getattr(candidate, "kind", None) != getattr(mapped, "kind", None):
                continue
            image.play(candidate)
            same = image.key == key
            image.undo()
            if same:
                return candidate
        return mapped

    def action_id(self, game: Game, source: GameState, image: GameState, action_id: int) -> int:
        """The id, in ``image``, of the image of the action ``action_id`` of ``source``."""
        action = game.action_from_id(source, action_id)
        return int(game.action_to_id(image, self.action(game, image, action)))

    def policy(
        self, game: Game, source: GameState, image: GameState, policy: np.ndarray
    ) -> np.ndarray:
        """A policy vector over ``source``'s legal action ids, mapped onto ``image``'s."""
        out = np.zeros_like(policy)
        for action in source.legal_actions():
            index = int(game.action_to_id(source, action))
            out[self.action_id(game, source, image, index)] += policy[index]
        return out


def on_board(transform: BoardSymmetry, geometry: HexBoard) -> Symmetry:
    """The :class:`Symmetry` that ``transform`` makes of the board ``geometry`` (whether
    or not it preserves some game's rules)."""
    centre = geometry.side - 1
    points = []
    for x, y in geometry.coords:
        q, r = transform(x - centre, y - centre)
        points.append(geometry.index_at(q + centre, r + centre))
    labels = {geometry.labels[i]: geometry.labels[j] for i, j in enumerate(points)}
    return Symmetry(transform.name, geometry.side, tuple(points), labels)


def symmetries(game: Game, rules: Any) -> list[Symmetry]:
    """The symmetries of ``game`` on the board of ``rules`` (the identity first), as the
    game declares them (``Game.symmetries``); ``ValueError`` for a game that declares
    none."""
    if not game.symmetries or game.board is None:
        raise ValueError(f"{game.title} declares no symmetries")
    geometry = game.board(rules)
    return [on_board(transform, geometry) for transform in game.symmetries]


def mirrored_position(game: Game, position: GameState, symmetry: Symmetry) -> GameState:
    """The image of ``position``: its game replayed from the start with every action
    mapped (so the image has the mirrored history too, which rules such as Dendria's
    no-repetition read)."""
    image = game.new_position(position.rules)
    for action in position.history:
        image.play(symmetry.action(game, image, action))
    return image
