"""Dendria knowledge for the AI: a position heuristic, fast win detection, priors.

Reads only the position's public, documented analysis (:meth:`Position.analysis`:
seedbeds, forests, fertilized cells as bit masks; see :mod:`hexgames.dendria.board_analysis`),
never copies a position, and reaches the AI only through ``GAME.heuristic`` and
``GAME.ai_hooks`` (:func:`ai_hooks`).

The game is decided by the score on the board when it ends, so the heuristic starts from
the **score difference** and adds what can change it soon:

* **forests about to appear or change hands** -- seedbeds that may grow (all their seeds
  become trees) and enemy forests that may be converted; the side to act can cash its
  own next turn, so its potential counts fully and the other side's half;
* **fertilization control** -- empty cells seen by each side's dendrids (what makes
  growing and converting possible later);
* **plantable cells** and **dendrids** weigh little: they are means, not points.

Near the end (few quiet turns left) the current score is almost the final one, so the
potential terms fade as the quiet counter approaches the limit. Colours are mapped to
seats with ``position.seat_of`` (after a pie-rule swap, seat 0 plays Light).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from hexgames.dendria.board_analysis import (
    COLOR_NAMES,
    COLOR_OF,
    DENDRID,
    SEED,
    TREE,
    Analysis,
    code,
)
from hexgames.dendria.position import END, PASS, SWAP, Position
from hexgames.dendria.steps import Step
from hexgames.errors import IllegalAction
from hexgames.hooks import AiHooks

SCALE = 0.2  # score points -> tanh argument: a 5-point lead is worth tanh(1) ~ 0.76
W_OWN_POTENTIAL = 0.6  # points per cell of the mover's growable seedbeds / convertible forests
W_OTHER_POTENTIAL = 0.3
W_FERTILIZED = 0.05  # points per empty cell a side's dendrids fertilize
W_DENDRID = 0.3  # points per dendrid


def _fed_cells(a: Analysis, v: int, fed: int, soils: int) -> int:
    """Cells of the groups of piece code ``v`` whose fertile soils all lie in ``fed``
    and one or more in ``soils``: the cells of ``a.growable()`` (``v`` a seed code,
    ``soils`` every empty cell) or of ``a.convertible(...)`` (``v`` a tree code,
    ``soils`` the empty cells the owner does not fertilize), counted on the masks
    without listing the groups."""
    pieces = a.masks[v]
    if not pieces:
        return 0
    dilate = a.dilate
    empty = a.empty
    spoiled = dilate(empty & ~fed) & pieces
    while True:
        grown = dilate(spoiled) & pieces
        if grown == spoiled:
            break
        spoiled = grown
    candidates = pieces & ~spoiled
    if not candidates:
        return 0
    # whole groups of ``candidates`` next to a soil of ``soils``
    group = candidates & dilate(empty & soils)
    while True:
        grown = dilate(group) & candidates
        if grown == group:
            break
        group = grown
    return group.bit_count()


def heuristic(position: Position) -> float:
    """Value in [-1, 1], positive when seat 0 stands better (the value of
    :func:`heuristic_reference`, computed on the analysis's masks)."""
    if position.is_over:
        return position.returns()[0]
    a = position.analysis()
    score = position.score()
    dark, light = score["dark"], score["light"]
    mover = COLOR_NAMES.index(position.to_move)
    fed = (a.fertilized(0), a.fertilized(1))
    empty = a.empty
    # cells of growable seedbeds plus convertible enemy forests, per colour (integers:
    # the same float as adding the groups' sizes one by one)
    potential = [
        float(_fed_cells(a, code(0, SEED), fed[0], empty)
              + _fed_cells(a, code(1, TREE), fed[0], empty & ~fed[1])),
        float(_fed_cells(a, code(1, SEED), fed[1], empty)
              + _fed_cells(a, code(0, TREE), fed[1], empty & ~fed[0])),
    ]
    fertilized = [fed[0].bit_count(), fed[1].bit_count()]
    dendrids = [a.pieces(0, DENDRID).bit_count(), a.pieces(1, DENDRID).bit_count()]
    limit = position.rules.quiet_turns
    fade = max(0.0, 1.0 - position.quiet_turns / limit)
    weight = [W_OTHER_POTENTIAL, W_OTHER_POTENTIAL]
    weight[mover] = W_OWN_POTENTIAL
    dark_lead = (
        (dark - light)
        + fade * (weight[0] * potential[0] - weight[1] * potential[1])
        + fade * W_FERTILIZED * (fertilized[0] - fertilized[1])
        + fade * W_DENDRID * (dendrids[0] - dendrids[1])
    )
    value = 0.95 * math.tanh(SCALE * dark_lead)
    return value if position.seat_of("dark") == 0 else -value


def heuristic_reference(position: Position) -> float:
    """:func:`heuristic` as first written, listing the groups (the tests compare the
    two)."""
    if position.is_over:
        return position.returns()[0]
    a = position.analysis()
    score = position.score()
    dark, light = score["dark"], score["light"]
    mover = COLOR_NAMES.index(position.to_move)
    potential = [0.0, 0.0]
    for g in a.growable():
        potential[g.color] += len(g.cells)
    for color in (0, 1):
        for g in a.convertible(color):
            potential[color] += len(g.cells)
    fertilized = [a.fertilized(0).bit_count(), a.fertilized(1).bit_count()]
    dendrids = [a.pieces(0, DENDRID).bit_count(), a.pieces(1, DENDRID).bit_count()]
    limit = position.rules.quiet_turns
    fade = max(0.0, 1.0 - position.quiet_turns / limit)
    weight = [W_OTHER_POTENTIAL, W_OTHER_POTENTIAL]
    weight[mover] = W_OWN_POTENTIAL
    dark_lead = (
        (dark - light)
        + fade * (weight[0] * potential[0] - weight[1] * potential[1])
        + fade * W_FERTILIZED * (fertilized[0] - fertilized[1])
        + fade * W_DENDRID * (dendrids[0] - dendrids[1])
    )
    value = 0.95 * math.tanh(SCALE * dark_lead)
    return value if position.seat_of("dark") == 0 else -value


def _turn_enders_that_end_the_game(position: Position) -> list[Step]:
    """Turn-ending steps after which the game would be over (rules section 4): a pass
    after the opponent passed, or any turn without a plant that reaches the quiet limit."""
    last_quiet_turn = position.quiet_turns + 1 >= position.rules.quiet_turns
    if position.is_turn_start():
        steps = []
        if last_quiet_turn or position.consecutive_passes == 1:
            steps.append(PASS)
        if last_quiet_turn and position.pie_pending:
            steps.append(SWAP)
        return steps
    planted = position.moving_dendrid is None  # mid-turn without a moving dendrid
    return [] if planted or not last_quiet_turn else [END]


def winning_actions(position: Position) -> list[Step]:
    """Steps that end the game at once with the mover ahead (confirmed by playing them).

    The game only ends when a turn ends, so only ``pass``, ``end`` and ``swap`` can win
    at once, and only when the pass rule or the quiet limit is about to trigger; those
    few are tried (``end`` may be refused by the no-repetition rule).
    """
    if position.is_over:
        return []
    seat = position.current_seat
    wins: list[Step] = []
    for step in _turn_enders_that_end_the_game(position):
        try:
            position.play(step)
        except IllegalAction:
            continue
        try:
            if position.is_over and position.returns()[seat] > 0:
                wins.append(step)
        finally:
            position.undo()
    return wins


def action_priors(position: Position, steps: Sequence[Step]) -> list[float]:
    """Cheap scores to order the search's children: converting and growing one's own
    seedbeds first (bigger groups first), then sprouting one's own seeds and ending the
    turn; helping the opponent (growing or sprouting their pieces) and passing last."""
    cells = position.cells
    index = position.board.index
    mover = COLOR_NAMES.index(position.to_move)
    analysis = position.analysis()
    out = []
    for step in steps:
        kind = step.kind
        if kind in ("grow", "convert", "sprout"):
            i = index(step.target)  # type: ignore[arg-type]
            own = COLOR_OF[cells[i]] == mover
            group = analysis.group_of(i)
            size = len(group.cells) if group else 1
            if kind == "convert":
                out.append(4.0 + 0.5 * size)
            elif kind == "grow":
                out.append(3.0 + 0.5 * size if own else -2.0)
            else:
                out.append(1.0 if own else -1.5)
        elif kind == "end":
            out.append(0.5)
        elif kind == "pass":
            out.append(-0.5)
        else:  # plant, leg, continue, swap
            out.append(0.3)
    return out


def may_win_this_turn(position: Position) -> bool:
    """A game ends only when a turn ends, and only by the pass rule or the quiet limit:
    unless one of them can trigger at the end of this turn, nobody wins during it (so the
    tactical layer skips searching the turn's steps)."""
    return bool(_turn_enders_that_end_the_game(position))


def ai_hooks() -> AiHooks:
    """The optional AI hooks (``GAME.ai_hooks``) described in :mod:`hexgames.hooks`."""
    return AiHooks(
        winning_actions=winning_actions,
        action_priors=action_priors,
        may_win_this_turn=may_win_this_turn,
        # The search values leaves by whole random games in the compiled core: with the
        # heuristic at its leaves, more iterations made it weaker (docs/ai.md, "Dendria's
        # search and its heuristic"); random playouts gain with every iteration.
        leaf_playouts=True,
    )


__all__ = [
    "action_priors", "ai_hooks", "heuristic", "heuristic_reference", "may_win_this_turn",
    "winning_actions",
]
