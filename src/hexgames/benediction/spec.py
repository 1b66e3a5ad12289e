"""The :class:`hexgames.game.Game` description of Benediction.

This is the only object the AI, arena, web app and research integrations use to reach
Benediction. Functions are referenced lazily so that the engine imports nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hexgames.benediction.position import Position, Termination
from hexgames.benediction.puzzle_themes import PUZZLE_THEMES
from hexgames.benediction.rules import OPTIONS, Rules
from hexgames.benediction.usage import RULE_USAGE
from hexgames.game import (
    BoardLegend,
    BoardSymmetry,
    Game,
    GameState,
    NativeAnchor,
    ViewSpec,
    lazy,
)
from hexgames.hexgrid import HexBoard
from hexgames.hexgrid import board as hex_board
from hexgames.phrases import N_


def actions_left(position: GameState) -> int:
    """Actions left in the current turn (two, or one in Red's first turn of 12*)."""
    assert isinstance(position, Position)
    return position.actions_left


def board(rules: Any) -> HexBoard:
    """The geometry of the board of ``rules``."""
    assert isinstance(rules, Rules)
    return hex_board(rules.board_side)


#: Red's wall is at the bottom and Blue's at the top, and the portal depends on the
#: forward directions: only the identity and the left-right mirror (which keeps both
#: walls and the starting points) preserve the rules.
SYMMETRIES = (BoardSymmetry(), BoardSymmetry(mirror=True))

#: Planes of :data:`hexgames.benediction.encoding.PLANES`: men 0/1, starting points 8/9,
#: supplies 15/16; "red to act" 11; "on board" 10. Red's wall is at the bottom, so the
#: relative view turns the board for Blue.
VIEW_SPEC = ViewSpec(
    color_pairs=((0, 1), (8, 9), (15, 16)), first_to_move=11, on_board=10, rotate=True
)


if TYPE_CHECKING:
    # The hooks below are referenced lazily (by name); here mypy checks that what they
    # name keeps the contracts of hexgames.hooks.
    from hexgames.benediction.evaluation import ai_hooks as _ai_hooks
    from hexgames.benediction.kernel import kernel as _kernel
    from hexgames.benediction.vector import Batch as _Batch
    from hexgames.hooks import AiHooks, CompiledKernel, VectorBatch

    _checked_ai_hooks: Callable[[], AiHooks] = _ai_hooks
    _checked_kernel: Callable[[], CompiledKernel] = _kernel
    _checked_vector_batch: Callable[[Any, int], VectorBatch] = _Batch


#: The colours' names as the site shows them (``t(cap(color))`` in the scripts).
COLOR_NAMES = {"red": N_("Red"), "blue": N_("Blue")}


#: The rules page's legend: every marker of the board drawing, explained.
LEGEND = BoardLegend(
    text="Benediction v1: R-E2 B E8\nR:C3b++D4cE2k3l++F3G3\nB:D78E78k9F78\nX:E5",
    items=(
        ("F3", N_("A man: a stack of checkers; the number is its size. A thick blue ring: "
                  "the man you selected.")),
        ("E2", N_("King (crown). Red's starting point is the shaded hexagon: a man that "
                  "stands on it becomes a king.")),
        ("C3", N_("Blessed man: gold halo with rays. A blessed king wins.")),
        ("D4", N_("Cursed man: the ✕ badge.")),
        ("E3", N_("Locked man: the padlock badge.")),
        ("E5", N_("Block: no man may stand on it.")),
        ("F4", N_("Dashed cyan ring: a point you can click (a destination of the selected "
                  "man, or the start of an action).")),
        ("G3", N_("Orange arrow or ring: the last turn's actions.")),
        ("B1", N_("The thick red and blue lines along the edges are the walls.")),
    ),
    highlights=("F4",),
    selected=("F3",),
    last_action=("g2g3",),
)


GAME = Game(
    name="benediction",
    title=N_("Benediction"),  # translated where shown (the Korean rules say 베네딕션)
    colors=("red", "blue"),
    options=OPTIONS,
    make_rules=Rules,
    new_position=Position.initial,
    position_from_text=Position.from_text,
    write_record=lazy("hexgames.benediction.records:write_record"),
    read_record=lazy("hexgames.benediction.records:read_record"),
    render_svg=lazy("hexgames.benediction.render:svg"),
    render_text=lazy("hexgames.benediction.render:ascii_board"),
    gesture=lazy("hexgames.benediction.gestures:gesture"),
    action_for_clicks=lazy("hexgames.benediction.gestures:action_for_clicks"),
    heuristic=lazy("hexgames.benediction.evaluation:heuristic"),
    num_distinct_actions=lazy("hexgames.benediction.encoding:num_distinct_actions"),
    action_to_id=lazy("hexgames.benediction.encoding:action_to_id"),
    action_from_id=lazy("hexgames.benediction.encoding:action_from_id"),
    observation_shape=lazy("hexgames.benediction.encoding:observation_shape"),
    observation=lazy("hexgames.benediction.encoding:observation"),
    max_game_length=lazy("hexgames.benediction.encoding:max_game_length"),
    rules_options=Rules.as_dict,
    termination=Termination,
    lessons=lazy("hexgames.benediction.lessons:lessons"),
    actions_left=actions_left,
    board=board,
    symmetries=SYMMETRIES,
    view_spec=VIEW_SPEC,
    rule_usage=RULE_USAGE,
    # Puzzle themes: the vocabulary and how a puzzle is tagged (hexgames.puzzles).
    puzzle_themes=PUZZLE_THEMES,
    editor=lazy("hexgames.benediction.editor:editor"),
    # One line for the web app's game cards.
    legend=LEGEND,
    tagline=N_("Race stacks through the enemy wall to bless your king, or capture theirs."),
    # Variants `python -m hexgames.bench` measures when none is named.
    bench_variants=({"max_turns": 200},),
    # A C implementation of random games (../shared/bench/bened.c), run beside the bench.
    native_anchor=NativeAnchor(source="bened.c", max_actions=600),
    ai_hooks=lazy("hexgames.benediction.evaluation:ai_hooks"),
    # Batched compiled kernels (numba): random playouts of many games in one call.
    kernel=lazy("hexgames.benediction.kernel:kernel"),
    # The vectorized research environment's batch of games (hexgames.integrations.vector).
    vector_batch=lazy("hexgames.benediction.vector:Batch"),
)
