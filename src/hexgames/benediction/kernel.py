"""Benediction's compiled engine behind the game-agnostic face the AI, the arena, the
web app and the benchmark use: :class:`Kernel` (what ``Game.kernel()``
returns), :func:`warm_up` and :func:`is_warm`.

The top of the package: it imports the core, the search and the position, and nothing
below imports it, so the core stays the bottom layer (no import circle).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from hexgames._kernel_base import Announce, KernelBase
from hexgames.benediction import (
    _fasteval,
    _legal_actions,
    _position_kernels,
    _search,
    core,
    evaluation,
)
from hexgames.benediction._tables import BLUE, RED
from hexgames.benediction.core import Core, CoreState, core_for
from hexgames.benediction.position import Position
from hexgames.benediction.rules import Rules

#: The compiled functions Python calls, by module (numba caches each one in a file of its
#: own; a module's inner functions are built into these).
_ENTRY_POINTS = {
    _legal_actions: ("generate", "passed_wall"),
    core: ("apply", "play_and_generate", "random_playouts", "recount", "state_key", "undo"),
    _position_kernels: ("pos_generate", "pos_play", "pos_reach", "pos_recount", "pos_undo",
                        "pos_wins"),
    _fasteval: ("heuristic_value",),
    _search: ("run",),
}


def warm_up(announce: Announce | None = None) -> float:
    """Compile (or load from the cache) every kernel by playing one short game; returns
    the seconds it took. ``announce(text)`` is called first when nothing is cached yet."""
    return _KERNEL.warm_up(announce)


def is_warm() -> bool:
    """Whether numba's cache holds this game's compiled code (rules, heuristic, search):
    :func:`warm_up` then loads instead of compiling."""
    return _KERNEL.is_cached()


class Kernel(KernelBase):
    """The batched kernels of this game behind a game-agnostic face
    (:class:`~hexgames._kernel_base.KernelBase`): what ``Game.kernel()`` returns.

    Winners are **seats** (0 red, 1 blue) and ``-1`` for a draw or a game cut off at
    ``max_actions``.
    """
    name = "benediction"
    title = "Benediction"
    state_types = (Position, CoreState)
    entry_points = _ENTRY_POINTS

    def _start(self, options: Any) -> CoreState:
        return core_for(Rules(**dict(options))).initial()

    def _winner_seats(self, winners: np.ndarray) -> np.ndarray:
        """The core's winners are colour codes (RED, BLUE, else none)."""
        return np.where((winners == RED) | (winners == BLUE), winners - 1, -1)

    def _short_game(self) -> None:
        state = Core().initial()
        state.random_playouts(1, seed=0, max_actions=4)
        codes = state.legal_codes()
        state.play_code(int(codes[0]))
        state.undo()
        state.step(int(codes[0]))
        _ = state.key
        position = Position.initial()
        position.play(position.legal_actions()[0])
        position.undo()
        position.reach_indices(0, 1, RED)
        position.immediate_wins()
        evaluation.heuristic(position)  # the AI's compiled heuristic
        search = _search.TreeSearch()  # the AI's compiled tree (level 5)
        search.set_root(position)
        search.run(4, 0, 0.6, 3.0, 1.0, True)

    def driven_games(self, options: Any, games: int, seed: int = 0) -> int:
        """Play ``games`` random games with a Python loop driving the core (one legal
        action list per action, as a thin Python layer over the core would); returns the
        actions played. Measures the call-boundary cost, not a kernel."""
        start = self._start(options)
        total = 0
        randrange = random.Random(seed).randrange
        for _ in range(games):
            state = start.copy()
            codes = state.legal_codes()
            while len(codes):
                codes = state.step(codes[randrange(len(codes))])
                total += 1
        return total

    def tree_search(self) -> Any:
        """A fresh compiled MCTS tree (:class:`._evalsearch.TreeSearch`, a
        :class:`._search.TreeSearch` that also takes a learned evaluator): the search of
        :class:`~hexgames.ai.mcts.MCTSPlayer` with random games at the leaves, run in
        compiled code."""
        # imported when asked for: it imports the vector batch and the encoding
        from hexgames.benediction import _evalsearch

        return _evalsearch.TreeSearch()


_KERNEL = Kernel()


def kernel() -> Kernel:
    """The shared :class:`Kernel` (``Game.kernel`` calls this)."""
    return _KERNEL


__all__ = ["Kernel", "is_warm", "kernel", "warm_up"]
