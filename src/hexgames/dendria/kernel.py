"""Dendria's compiled engine behind the game-agnostic face the AI, the arena, the
web app and the benchmark use: :class:`Kernel` (what ``Game.kernel()``
returns), :func:`warm_up` and :func:`is_warm`.

The top of the package: it imports the core, the search and the position, and nothing
below imports it, so the core stays the bottom layer (no import circle).
"""

from __future__ import annotations

import random
from typing import Any

from hexgames._kernel_base import Announce, KernelBase
from hexgames.dendria import _repetition, _search, _sight, core, leaf_value
from hexgames.dendria.core import Core, CoreState, core_for
from hexgames.dendria.position import Position
from hexgames.dendria.rules import Rules

#: The compiled functions :func:`warm_up` compiles, by module (numba caches each one in a
#: file of its own; the inner functions are compiled for the Python entries calling them).
_ENTRY_POINTS = {
    core: ("apply", "full_key", "generate", "random_playouts", "scores", "undo"),
    _repetition: ("_seen_add", "_seen_remove"),
    _sight: ("_scan_once",),
    leaf_value: ("seat_value",),
    _search: ("run",),
}


def is_warm() -> bool:
    """Whether numba's cache holds this game's compiled code (rules and search):
    :func:`warm_up` then loads instead of compiling."""
    return _KERNEL.is_cached()


def warm_up(announce: Announce | None = None) -> float:
    """Compile (or load from the cache) every kernel by playing a short game; returns the
    seconds it took. ``announce(text)`` is called first when nothing is cached yet."""
    return _KERNEL.warm_up(announce)


class Kernel(KernelBase):
    """The batched kernels of Dendria behind a game-agnostic face
    (:class:`~hexgames._kernel_base.KernelBase`): what ``Game.kernel()`` returns.
    Winners are **seats** (0 first player, 1 second; the pie rule's swap is followed:
    the core's winners are seats already) and ``-1`` for equal scores or a game cut off
    at ``max_actions``."""
    name = "dendria"
    title = "Dendria"
    state_types = (Position, CoreState)
    entry_points = _ENTRY_POINTS

    def _start(self, options: Any) -> CoreState:
        return core_for(Rules(**dict(options))).initial()

    def _short_game(self) -> None:
        rules = Rules(board_side=3, quiet_limit=1)
        state = Core(rules).initial()
        state.random_playouts(1, seed=0, max_actions=8)
        codes = state.legal_codes()
        state.play_code(int(codes[0]))
        state.undo()
        _ = state.key, state.scores()
        search = _search.TreeSearch()  # the AI's compiled tree
        search.set_root(Position.initial(rules))
        search.run(4, 0, 0.6, 3.0, 1.0, True)

    def driven_games(self, options: Any, games: int, seed: int = 0) -> int:
        """Play ``games`` random games with a Python loop driving the core (one legal
        step list per step); returns the steps played."""
        start = self._start(options)
        total = 0
        randrange = random.Random(seed).randrange
        for _ in range(games):
            state = start.copy()
            codes = state.legal_codes()
            while len(codes):
                state.play_code(codes[randrange(len(codes))])
                codes = state.legal_codes()
                total += 1
        return total

    def tree_search(self) -> Any:
        """A fresh compiled MCTS tree (:class:`._evalsearch.TreeSearch`, a
        :class:`._search.TreeSearch` that also takes a learned evaluator): the search of
        :class:`~hexgames.ai.mcts.MCTSPlayer` with random games at the leaves, run in
        compiled code (a short random game each, then the expected result of the rest,
        estimated by :mod:`.leaf_value`)."""
        # imported when asked for: it imports the vector batch and the encoding
        from hexgames.dendria import _evalsearch

        return _evalsearch.TreeSearch()


_KERNEL = Kernel()


def kernel() -> Kernel:
    """The shared :class:`Kernel` (``Game.kernel`` calls this)."""
    return _KERNEL


__all__ = ["Kernel", "is_warm", "kernel", "warm_up"]
