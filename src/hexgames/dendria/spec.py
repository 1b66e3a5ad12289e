"""The :class:`hexgames.game.Game` description of Dendria.

This is the only object the AI, arena, web app and research integrations use to reach
Dendria. Functions are referenced lazily so that the engine imports nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hexgames.dendria.position import Position, Termination
from hexgames.dendria.puzzle_themes import PUZZLE_THEMES
from hexgames.dendria.rules import OPTIONS, Rules, make_rules
from hexgames.dendria.usage import RULE_USAGE
from hexgames.game import (
    HEXAGON_SYMMETRIES,
    BoardLegend,
    Game,
    GameState,
    ScoreLine,
    ViewSpec,
    lazy,
)
from hexgames.hexgrid import HexBoard
from hexgames.hexgrid import board as hex_board
from hexgames.phrases import N_


def live_score(position: GameState) -> dict[str, float]:
    """Each colour's score on the board as it stands (final once the game is over)."""
    assert isinstance(position, Position)
    return position.score()


def score_breakdown(position: GameState) -> list[ScoreLine]:
    """How each colour's score on the board is made up, line by line."""
    assert isinstance(position, Position)
    return position.score_breakdown()


def board(rules: Any) -> HexBoard:
    """The geometry of the board of ``rules``."""
    assert isinstance(rules, Rules)
    return hex_board(rules.board_side)


#: Planes of :data:`hexgames.dendria.encoding.PLANES`: dark seed/tree/dendrid 0-2, light
#: 3-5; "dark to move" 7; "on board" 6. The board is the same for both colours.
VIEW_SPEC = ViewSpec(
    color_pairs=((0, 3), (1, 4), (2, 5)), first_to_move=7, on_board=6, rotate=False
)


if TYPE_CHECKING:
    # The hooks below are referenced lazily (by name); here mypy checks that what they
    # name keeps the contracts of hexgames.hooks.
    from hexgames.dendria.evaluation import ai_hooks as _ai_hooks
    from hexgames.dendria.kernel import kernel as _kernel
    from hexgames.dendria.vector import Batch as _Batch
    from hexgames.hooks import AiHooks, CompiledKernel, VectorBatch

    _checked_ai_hooks: Callable[[], AiHooks] = _ai_hooks
    _checked_kernel: Callable[[], CompiledKernel] = _kernel
    _checked_vector_batch: Callable[[Any, int], VectorBatch] = _Batch


#: The rules page's legend: every marker of the board drawing, explained.
LEGEND = BoardLegend(
    text=("Dendria v1: size=5 to-move=dark\ndark seeds: c3 c4\ndark trees: e5 e6 f6\n"
          "dark dendrids: b2\nlight seeds: g7\nlight trees: g4\nlight dendrids: h5\n"),
    items=(
        ("c3", N_("Dark seed (a seedbed is a group of seeds).")),
        ("g7", N_("Light seed.")),
        ("e5", N_("Dark tree (a forest is a group of trees).")),
        ("g4", N_("Light tree.")),
        ("b2", N_("Dark dendrid; a thick blue outline: the dendrid you selected.")),
        ("h5", N_("Light dendrid.")),
        ("a2", N_("Small dots: fertilized soil (shown with the \u201cFertilized\u201d "
                  "overlays).")),
        ("d2", N_("Dashed cyan outline: a cell you can click.")),
        ("b3", N_("Orange arrow or outline: the last turn's steps.")),
    ),
    highlights=("d2",),
    selected=("b2",),
    last_action=("b4-b2",),
    overlays=("fertilized-dark",),
)


GAME = Game(
    name="dendria",
    title=N_("Dendria"),  # translated where shown (the Korean rules say 덴드리아)
    colors=("dark", "light"),
    options=OPTIONS,
    make_rules=make_rules,
    new_position=Position.initial,
    position_from_text=Position.from_text,
    write_record=lazy("hexgames.dendria.records:write_record"),
    read_record=lazy("hexgames.dendria.records:read_record"),
    render_svg=lazy("hexgames.dendria.render:svg"),
    render_text=lazy("hexgames.dendria.render:ascii_board"),
    gesture=lazy("hexgames.dendria.gestures:gesture"),
    action_for_clicks=lazy("hexgames.dendria.gestures:action_for_clicks"),
    heuristic=lazy("hexgames.dendria.evaluation:heuristic"),
    num_distinct_actions=lazy("hexgames.dendria.encoding:num_distinct_actions"),
    action_to_id=lazy("hexgames.dendria.encoding:action_to_id"),
    action_from_id=lazy("hexgames.dendria.encoding:action_from_id"),
    observation_shape=lazy("hexgames.dendria.encoding:observation_shape"),
    observation=lazy("hexgames.dendria.encoding:observation"),
    max_game_length=lazy("hexgames.dendria.encoding:max_game_length"),
    rules_options=Rules.as_dict,
    termination=Termination,
    live_score=live_score,
    score_breakdown=score_breakdown,
    lessons=lazy("hexgames.dendria.lessons:lessons"),
    board=board,
    # The rules treat the six directions alike: all 12 symmetries of the hexagon.
    symmetries=HEXAGON_SYMMETRIES,
    view_spec=VIEW_SPEC,
    rule_usage=RULE_USAGE,
    # Puzzle themes: the vocabulary and how a puzzle is tagged (hexgames.puzzles).
    puzzle_themes=PUZZLE_THEMES,
    editor=lazy("hexgames.dendria.editor:editor"),
    # One line for the web app's game cards.
    legend=LEGEND,
    tagline=N_("Plant seeds, sprout dendrids, and grow the largest forests."),
    # Variants `python -m hexgames.bench` measures when none is named.
    bench_variants=({"board_side": 5}, {"board_side": 7}),
    ai_hooks=lazy("hexgames.dendria.evaluation:ai_hooks"),
    # Batched compiled kernels (numba): random playouts of many games in one call.
    kernel=lazy("hexgames.dendria.kernel:kernel"),
    # The vectorized research environment's batch of games (hexgames.integrations.vector).
    vector_batch=lazy("hexgames.dendria.vector:Batch"),
    # Names `render_svg(..., overlays=...)` accepts; the web app offers them as toggles.
    overlays=("fertilized-dark", "fertilized-light", "plantable"),
)
