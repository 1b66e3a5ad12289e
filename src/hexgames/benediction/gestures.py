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

from collections.abc import Sequence

from hexgames.benediction.actions import Action
from hexgames.benediction.position import Position
from hexgames.errors import IllegalAction
from hexgames.game import Gesture
from hexgames.phrases import N_, Phrase

__all__ = ["action_for_clicks", "gesture"]

#: The button labels, in English (the page translates them by these words).
LABELS = {"move": N_("move"), "merge": N_("merge"), "drop": N_("drop"), "block": N_("block")}
#: The label of a split of ``n`` checkers, as the page translates it.
SPLIT_LABEL = N_("split {n}")
#: The tools' names on the page's toolbar (it shows ``t(cap(tool))``).
TOOL_NAMES = {"drop": N_("Drop"), "block": N_("Block")}


def gesture(position: Position, action: Action | str) -> Gesture:
    """The clicks that enter ``action`` (an ``Action`` or its notation) in ``position``."""
    if isinstance(action, str):
        action = position.parse_action(action)
    elif not isinstance(action, Action):
        raise IllegalAction("not a Benediction action: {action}", action=repr(action))
    kind = action.kind
    if kind in ("drop", "block"):
        return Gesture(kind, (action.target,), LABELS[kind])
    origin = action.origin
    assert origin is not None  # every other kind has an origin
    if kind == "split":
        split = Phrase(SPLIT_LABEL, n=action.count)  # the page translates the phrase
        return Gesture(None, (origin, action.target), str(split), label_phrase=split)
    return Gesture(None, (origin, action.target), LABELS[kind])


def action_for_clicks(position: Position, tool: str | None, points: Sequence[str]) -> str | None:
    """The notation the clicks would enter if they were legal (so that the engine can
    explain a refused click): a drop or block with its tool, else a move, or a merge when
    the second point holds a man of the player to act; ``None`` for anything else."""
    if tool in ("drop", "block") and len(points) == 1:
        return f"{'@' if tool == 'drop' else 'B'}{points[0]}"
    if tool is None and len(points) == 2:
        origin, target = points
        try:
            man = position.man_at(target)
        except ValueError:
            return None
        own = man is not None and man.color == position.to_move
        return f"{origin}+{target}" if own and origin != target else f"{origin}{target}"
    return None
