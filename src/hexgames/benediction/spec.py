"""The :class:`hexgames.game.Game` description of Benediction.

This is the only object the AI, arena, web app and research integrations use to reach
Benediction. Functions are referenced lazily so that the engine imports nothing else.
"""

from __future__ import annotations

from hexgames.benediction.position import Position, Termination
from hexgames.benediction.rules import OPTIONS, Rules
from hexgames.game import Game, lazy

GAME = Game(
    name="benediction",
    title="Benediction",
    colors=("red", "blue"),
    options=OPTIONS,
    make_rules=Rules,
    new_position=lambda rules=None: Position.initial(rules),
    position_from_text=lambda text, rules=None: Position.from_text(text, rules),
    write_record=lazy("hexgames.benediction.records:write_record"),
    read_record=lazy("hexgames.benediction.records:read_record"),
    render_svg=lazy("hexgames.benediction.render:svg"),
    render_text=lazy("hexgames.benediction.render:ascii_board"),
    gesture=lazy("hexgames.benediction.gestures:gesture"),
    heuristic=lazy("hexgames.benediction.evaluation:heuristic"),
    num_distinct_actions=lazy("hexgames.benediction.encoding:num_distinct_actions"),
    action_to_id=lazy("hexgames.benediction.encoding:action_to_id"),
    action_from_id=lazy("hexgames.benediction.encoding:action_from_id"),
    observation_shape=lazy("hexgames.benediction.encoding:observation_shape"),
    observation=lazy("hexgames.benediction.encoding:observation"),
    max_game_length=lazy("hexgames.benediction.encoding:max_game_length"),
    rules_options=lambda rules: rules.as_dict(),
    termination=Termination,
    extras={
        # One line for the web app's game cards.
        "tagline": "Race stacks through the enemy wall to bless your king, or capture theirs.",
        # Variants `python -m hexgames.bench` measures when none is named.
        "bench_variants": ({"max_turns": 200},),
        "ai": lazy("hexgames.benediction.evaluation:ai_hooks"),
        # Batched compiled kernels (numba): random playouts of many games in one call.
        "kernel": lazy("hexgames.benediction.core:kernel"),
    },
)
