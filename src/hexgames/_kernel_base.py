"""The game-agnostic part of a game's compiled-engine face (what ``Game.kernel()``
returns, :class:`hexgames.hooks.CompiledKernel`): random games from a variant's start,
playouts from a state, the warm-up and the questions to numba's cache.

Why one base: every game answers these the same way around a few facts of its own (its
compiled core, the states its playouts accept, how its winners map to seats, the
functions numba caches, a short game that compiles them). A game's ``kernel.py``
subclasses :class:`KernelBase` with those facts and keeps its own Python-driven loop
(``driven_games``) and its tree (``tree_search``); the compiled code stays in the game.

Game-agnostic: it imports nothing of the game packages (the bottom layer).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from hexgames._jit import is_cached

#: ``announce(text)``: told before a warm-up that compiles (nothing cached yet).
Announce = Callable[[str], None]


class KernelBase:
    """The batched kernels of a game behind a game-agnostic face: the AI, the arena and
    the benchmark use only these methods, so they need not know the game.

    Winners are **seats** (0 the first player, 1 the second) and ``-1`` for a draw or a
    game cut off at ``max_actions``. A game sets the class attributes and writes
    :meth:`_start`, :meth:`_short_game` and, when its core's winners are not seats
    already, :meth:`_winner_seats`."""

    #: The game's name (``Game.name``; an instance attribute for
    #: :class:`~hexgames.hooks.CompiledKernel`).
    name: str = ""
    #: The game's name in messages.
    title: ClassVar[str] = ""
    #: What :meth:`playouts` accepts (the game's position and core state).
    state_types: ClassVar[tuple[type, ...]] = ()
    #: The compiled functions Python calls, by module (numba caches each one in a file
    #: of its own; a module's inner functions are built into these).
    entry_points: ClassVar[Mapping[ModuleType, tuple[str, ...]]] = {}

    # ------------------------------------------------------------ game's part
    def _start(self, options: Mapping[str, Any]) -> Any:
        """The core state at the start of the variant ``options`` (rules options)."""
        raise NotImplementedError

    def _short_game(self) -> None:
        """Play a short game through every entry point (rules, heuristic, search), so
        that each is compiled or loaded from the cache."""
        raise NotImplementedError

    def _winner_seats(self, winners: np.ndarray) -> np.ndarray:
        """The seats of the core's ``winners`` (-1 none); the core's are seats already
        unless a game says otherwise."""
        return winners

    # ------------------------------------------------------------ shared face
    def random_games(
        self, options: Any, games: int, seed: int = 0, max_actions: int = 100_000
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(winner_seats, lengths)`` of ``games`` random games from the start position
        of the variant ``options`` (a mapping of rules options), in one compiled call."""
        return self.playouts(self._start(options), games, seed, max_actions)

    def playouts(
        self, state: Any, games: int, seed: int = 0, max_actions: int = 100_000
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(winner_seats, lengths)`` of random games from ``state`` (one of
        :attr:`state_types`, left as it was; ``ValueError`` for anything else)."""
        if not isinstance(state, self.state_types):
            raise ValueError(
                f"playouts need a {self.title} Position or CoreState, got {type(state).__name__}"
            )
        played: Any = state  # a position or a core state: both play random games
        winners, lengths, _ = played.random_playouts(games, seed, max_actions)
        return self._winner_seats(winners), lengths

    def warm_up(self, announce: Announce | None = None) -> float:
        """Compile (or load from the cache) every kernel by playing a short game; returns
        the seconds it took. ``announce(text)`` is called first when nothing is cached
        yet."""
        if announce is not None and not self.is_cached():
            announce("compiling the rules engine, once...")
        start = time.perf_counter()
        self._short_game()
        return time.perf_counter() - start

    def _entries(self) -> list[tuple[str, str]]:
        return [(module.__name__, name) for module, names in self.entry_points.items()
                for name in names]

    def is_cached(self) -> bool:
        """Whether numba's cache holds this game's compiled code: :meth:`warm_up` then
        loads instead of compiling."""
        return all(is_cached(module.__name__, names)
                   for module, names in self.entry_points.items())

    def cached_parts(self) -> tuple[int, int]:
        """``(cached, total)`` of the entry points (the progress of a compile elsewhere)."""
        entries = self._entries()
        return sum(is_cached(module, (name,)) for module, name in entries), len(entries)


__all__ = ["Announce", "KernelBase"]
