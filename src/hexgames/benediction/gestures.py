"""How a person enters a Benediction action on the web board by clicking.

The web front end is game-agnostic: it collects the gestures of all legal actions,
highlights the points that can be clicked next, and when a click sequence completes more
than one action it offers one button per action, showing the gesture's ``label``. So each
legal action must map to its own gesture (the map is injective over ``legal_actions()``).

* move ``e3e4`` and merge ``f8+f7``: click the man, then the destination; whether it is a
  move or a merge follows from what stands there, and the label still names it;
* split ``f4-1-f5``: the same two clicks; the buttons ``split 1``, ``split 2``, ... tell
  the sizes apart (and tell a split from a whole-stack move or merge);
* drop ``@e3`` and block ``Bc2``: pick the drop or block tool, then click the point.
"""

from __future__ import annotations

from hexgames.benediction.actions import Action
from hexgames.benediction.position import Position
from hexgames.errors import IllegalAction
from hexgames.game import Gesture

__all__ = ["gesture"]


def gesture(position: Position, action: Action | str) -> Gesture:
    """The clicks that enter ``action`` (an ``Action`` or its notation) in ``position``."""
    if isinstance(action, str):
        action = position.parse_action(action)
    elif not isinstance(action, Action):
        raise IllegalAction(f"not a Benediction action: {action!r}")
    kind = action.kind
    if kind in ("drop", "block"):
        return Gesture(kind, (action.target,), kind)
    origin = action.origin
    assert origin is not None  # every other kind has an origin
    if kind == "split":
        return Gesture(None, (origin, action.target), f"split {action.count}")
    return Gesture(None, (origin, action.target), kind)
