"""How a person enters a Dendria step on the web board by clicking.

The web front end is game-agnostic: it collects the gestures of all legal steps,
highlights the cells that can be clicked next, and offers a button (with the gesture's
``label``) when a click sequence completes more than one step or a step needs no click.
Every legal step maps to its own gesture (the map is injective over ``legal_actions()``):

* plant ``e5``: one click on an empty cell (at the start of a turn only a plant names a
  single empty cell);
* dendrid leg ``d2-d6``: click the dendrid, then the cell where it stops;
* continuation ``-d8``: one click on the empty cell further along the line (only offered
  after a stop, when no plant can be);
* follow-ups ``^e5``, ``+e6``, ``=f6``: one click on the cell the step names. For a
  sprout that is the seed; for a grow or a convert it is the cell the engine names the
  whole seedbed or forest by (its first cell in board order), and the front end
  highlights exactly that cell. A seed that may both sprout and lead its seedbed's
  growth gets two buttons, ``sprout`` and ``grow``;
* ``end``, ``pass``, ``swap``: buttons, no click.
"""

from __future__ import annotations

from collections.abc import Sequence

from hexgames.dendria.position import Position
from hexgames.dendria.steps import Step
from hexgames.errors import IllegalAction
from hexgames.game import Gesture
from hexgames.phrases import N_

__all__ = ["BUTTON_LABELS", "action_for_clicks", "gesture"]

#: Button texts of the steps entered without clicking a cell.
BUTTON_LABELS: dict[str, str] = {"end": N_("End turn"), "pass": N_("Pass"), "swap": N_("Swap")}

#: Labels of the steps entered by clicking cells (shown on a button when one click
#: sequence enters more than one step); the words are in the catalog (``N_``).
CLICK_LABELS: dict[str, str] = {
    # i18n: a button that moves a dendrid
    "leg": N_("move"),
    # i18n: a button that plants a seed
    "plant": N_("plant"),
    # i18n: a button that continues a dendrid's move
    "continue": N_("continue"),
    # i18n: a button that sprouts a seed into a dendrid
    "sprout": N_("sprout"),
    # i18n: a button that grows a seedbed into a forest
    "grow": N_("grow"),
    # i18n: a button that converts an enemy forest
    "convert": N_("convert"),
}

#: What a button step does, for players who do not know the rule (the web page shows it).
EXPLANATIONS: dict[str, str] = {
    "swap": N_(
        "Pie rule: instead of playing, you may take over your opponent's colour and "
        "their first seed. The board stays as it is; you become Dark and your opponent "
        "plays on as Light, so a strong first seed helps whoever swaps. Swap when that "
        "seed looks too good to leave to your opponent; otherwise play your own turn."
    ),
}

#: Follow-ups that act on a whole seedbed or forest, entered by a click on any of its cells.
GROUP_STEPS = frozenset({"grow", "convert"})


def gesture(position: Position, step: Step | str) -> Gesture:
    """The clicks that enter ``step`` (a ``Step`` or its notation) in ``position``."""
    if not isinstance(step, Step):
        step = position.parse_action(step)  # refuses what is not notation
    kind = step.kind
    if kind in BUTTON_LABELS:
        return Gesture(None, (), BUTTON_LABELS[kind], explanation=EXPLANATIONS.get(kind, ""))
    target = str(step.target)  # every other kind names a cell
    if kind == "leg":
        return Gesture(None, (str(step.origin), target), CLICK_LABELS["leg"])
    if kind in GROUP_STEPS:
        # The step names its group by one cell, but a player may click any cell of it.
        others = tuple((label,) for label in position.group(target) if label != target)
        return Gesture(None, (target,), CLICK_LABELS[kind], others)
    return Gesture(None, (target,), CLICK_LABELS.get(kind, kind))


def action_for_clicks(position: Position, tool: str | None, points: Sequence[str]) -> str | None:
    """The step the clicks would enter if they were legal (so that the engine can explain
    a refused click): a dendrid leg for two clicks; for one, a continuation of the
    dendrid that stopped this turn or a plant on an empty cell, a sprout on a seed, a
    convert on an enemy tree; ``None`` for anything else."""
    if tool is not None:
        return None
    try:
        pieces = [position.piece_at(point) for point in points]
    except (ValueError, IllegalAction):
        return None
    if len(points) == 2:
        return f"{points[0]}-{points[1]}"
    if len(points) != 1:
        return None
    piece, point = pieces[0], points[0]
    if piece is None:
        return f"-{point}" if position.moving_dendrid is not None else point
    if piece.kind == "seed":
        return f"^{point}"
    if piece.kind == "tree" and piece.color != position.to_move:
        return f"={point}"
    return None
