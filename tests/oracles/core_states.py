"""Benediction :class:`~hexgames.benediction.core.CoreState` values rebuilt from a
position's public read API (board arrays, side to act, actions left, turn, result, key),
for the differential tests.

The product never needs this: a :class:`~hexgames.benediction.position.Position` hands
out its own state (:meth:`~hexgames.benediction.position.Position.core_state`, a copy of
its arrays). Rebuilding one independently, from what any engine with Benediction's read
API shows, lets the tests start the compiled core from a position of either engine (the
product's or the oracle's) and check that what the position shows is the whole state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexgames._jit import signed64
from hexgames.benediction._layout import (
    M_ACTED,
    M_AL,
    M_BK,
    M_BKEY,
    M_CNT,
    M_REASON,
    M_TO,
    M_TURN,
    M_WIN,
    REASONS,
)
from hexgames.benediction._tables import BLOCK, BLUE, RED
from hexgames.benediction.core import Core, CoreState, core_for


def benediction_core_state(position: Any, core: Core | None = None) -> CoreState:
    """The core state of a Benediction position (without its history), read from its
    public attributes only; ``core``: the variant's core (default: the shared one of the
    position's rules and starting points)."""
    if core is None:
        board = position.board
        starts = tuple(board.index(label) for label in position.starting_points)
        core = core_for(position.rules, (starts[0], starts[1]))
    s = CoreState(core)
    s.owner[:] = position.owners
    s.size[:] = position.sizes
    s.flags[:] = position.flags
    badj = core.geo[3]
    for i in np.flatnonzero(s.owner == BLOCK):
        for j in badj[i]:
            if j >= 0:
                s.near[j] += 1
    m = s.meta
    m[M_TO] = position.to_move_code
    m[M_AL] = position.actions_left
    m[M_ACTED] = 0 if position.is_turn_start() else 1
    m[M_TURN] = position.turn_number
    m[M_WIN] = {None: 0, "red": 1, "blue": 2, "draw": 3}[position.winner]
    outcome = position.outcome()
    m[M_REASON] = 0 if outcome is None else REASONS.index(outcome.termination)
    m[M_CNT + RED], m[M_CNT + BLUE] = position.checker_counts[1:3]
    m[M_BK + RED] = int(np.sum((s.owner == RED) & ((s.flags & 3) == 3)))
    m[M_BK + BLUE] = int(np.sum((s.owner == BLUE) & ((s.flags & 3) == 3)))
    # the key without its turn terms is the board's key (what the core keeps in meta)
    t = core.tables
    winner = int(m[M_WIN])
    if winner:
        turn_terms = t.zwin[winner]
    else:
        turn_terms = (t.zblue if m[M_TO] == BLUE else 0) ^ (t.ztwo if m[M_AL] == 2 else 0)
    m[M_BKEY] = signed64(position.key ^ turn_terms)
    return s
