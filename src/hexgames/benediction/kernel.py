"""Benediction's compiled engine behind the game-agnostic face the AI, the arena, the
web app and the benchmark use: :class:`Kernel` (what ``Game.kernel()``
returns), :func:`warm_up` and :func:`is_warm`.

The top of the package: it imports the core, the search and the position, and nothing
below imports it, so the core stays the bottom layer (no import circle).
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np

from hexgames._jit import is_cached
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


def warm_up(announce: Any = None) -> float:
    """Compile (or load from the cache) every kernel by playing one short game; returns
    the seconds it took. ``announce(text)`` is called first when nothing is cached yet."""
    if announce is not None and not is_warm():
        announce("compiling the rules engine, once...")
    start = time.perf_counter()
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
    return time.perf_counter() - start


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


def is_warm() -> bool:
    """Whether numba's cache holds this game's compiled code (rules, heuristic, search):
    :func:`warm_up` then loads instead of compiling."""
    return all(is_cached(module.__name__, names) for module, names in _ENTRY_POINTS.items())


class Kernel:
    """The batched kernels of this game behind a game-agnostic face: what
    ``Game.kernel()`` returns (the AI, the arena and the benchmark use only
    these methods, so they need not know the game).

    Winners are **seats** (0 red, 1 blue) and ``-1`` for a draw or a game cut off at
    ``max_actions``.
    """
    name = "benediction"

    def random_games(
        self, options: Any, games: int, seed: int = 0, max_actions: int = 100_000
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(winner_seats, lengths)`` of ``games`` random games from the start position
        of the variant ``options`` (a mapping of rules options), in one compiled call."""
        return self.playouts(core_for(Rules(**dict(options))).initial(), games, seed, max_actions)

    def playouts(
        self, state: Any, games: int, seed: int = 0, max_actions: int = 100_000
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(winner_seats, lengths)`` of random games from ``state`` (a
        :class:`Position` or a :class:`CoreState`; ``ValueError`` for anything else)."""
        if not isinstance(state, (Position, CoreState)):
            raise ValueError(
                f"playouts need a Benediction Position or CoreState, got {type(state).__name__}"
            )
        # a CoreState, or a Position (which plays from its own arrays)
        winners, lengths, _ = state.random_playouts(games, seed, max_actions)
        seats = np.where((winners == RED) | (winners == BLUE), winners - 1, -1)
        return seats, lengths

    def driven_games(self, options: Any, games: int, seed: int = 0) -> int:
        """Play ``games`` random games with a Python loop driving the core (one legal
        action list per action, as a thin Python layer over the core would); returns the
        actions played. Measures the call-boundary cost, not a kernel."""
        start = core_for(Rules(**dict(options))).initial()
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

    def warm_up(self, announce: Any = None) -> float:
        return warm_up(announce)

    def is_cached(self) -> bool:
        return is_warm()

    def cached_parts(self) -> tuple[int, int]:
        entries = [(module.__name__, name) for module, names in _ENTRY_POINTS.items()
                   for name in names]
        return sum(is_cached(module, (name,)) for module, name in entries), len(entries)


_KERNEL = Kernel()


def kernel() -> Kernel:
    """The shared :class:`Kernel` (``Game.kernel`` calls this)."""
    return _KERNEL


__all__ = ["Kernel", "is_warm", "kernel", "warm_up"]
