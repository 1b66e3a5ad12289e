"""The typed hooks a game may offer besides its rules: the contracts between a game
package and the game-agnostic code that uses its optional parts.

A :class:`hexgames.game.Game` names each hook in its own field (``Game.kernel``,
``Game.ai_hooks``, ``Game.vector_batch``), typed by the classes here, so that mypy checks
both sides and nothing asks a game or its kernel "do you have this?" by name:

* :class:`CompiledKernel`: batched compiled random games (numba) for the AI's leaves,
  the benchmark and the web app's warm-up; its :meth:`~CompiledKernel.tree_search` gives
  a :class:`CompiledSearchTree`, the MCTS tree run inside compiled code.
* :class:`AiHooks`: faster or smarter answers to a few questions the search asks
  (:mod:`hexgames.ai.knowledge` fills in game-agnostic answers for the missing ones).
* :class:`VectorBatch`: many games stepped together for
  :class:`hexgames.integrations.vector.VectorEnv`.

Kept apart from :mod:`hexgames.game` so that the protocol of the rules stays one screen
and a game without compiled code never reads about it. Imports nothing of hexgames.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # annotations only: importing the hooks costs no numpy
    import random

    import numpy as np


@runtime_checkable
class CompiledSearchTree(Protocol):
    """The MCTS tree of a game's compiled search (what
    :meth:`CompiledKernel.tree_search` returns; :class:`hexgames._ctree.CompiledTree` is
    the shared implementation). :class:`hexgames.ai.mcts.MCTSPlayer` drives it: the same
    algorithm as its Python tree, without Python's cost per iteration."""

    def reset(self) -> None:
        """Forget the tree."""

    def set_root(self, position: Any) -> int:
        """Make ``position`` the root (the kept node when it continues the last root's
        game); returns the visits the root already has."""

    def run(self, iterations: int, seed: int, exploration: float, widen_base: float,
            widen_factor: float, tactics: bool) -> int:
        """Up to ``iterations`` iterations from the root; returns how many were done."""

    def run_evaluated(self, iterations: int, seed: int, exploration: float,
                      widen_base: float, widen_factor: float, tactics: bool,
                      evaluate: Callable[[np.ndarray, np.ndarray, np.ndarray],
                                         tuple[np.ndarray, np.ndarray | None]],
                      batch: int) -> int:
        """:meth:`run` with new leaves valued by a learned evaluator, up to ``batch`` of
        them per call of ``evaluate(observations, masks, seats) -> (values, policy)``
        (the research planes, legal-id masks and seats to act of the leaves; values
        float64 in [-1, 1] for the seat to act, policy float64 ``(B, num_actions)`` or
        ``None``), checked by the caller (:mod:`hexgames.ai.evaluator` has the
        conventions); returns the iterations done."""

    def solved(self) -> float | None:
        """The root's proven value for seat 0, or ``None``."""

    def root_seat(self) -> int:
        """The seat to act at the root."""

    def visits_of_children(self, node: int | None = None) -> np.ndarray:
        """Visits of the tried children of ``node`` (default the root), in order."""

    def children(self, node: int | None = None) -> list[dict[str, Any]]:
        """The tried children of ``node`` (default the root): ``action``, ``mover``,
        ``seat``, ``visits``, ``value``, ``result`` (or ``None``) and ``node``."""

    def untried(self) -> list[Any]:
        """The root's actions not tried yet, in the order they would be."""


@runtime_checkable
class CompiledKernel(Protocol):
    """A game's batched compiled kernels behind a game-agnostic face (``Game.kernel()``
    returns the shared one). Winners are **seats** (0 or 1), ``-1`` for a draw or a game
    cut off at ``max_actions``."""

    #: The game's name (for logs and benchmark lines).
    name: str

    def random_games(self, options: Mapping[str, Any], games: int, seed: int = 0,
                     max_actions: int = 100_000) -> tuple[np.ndarray, np.ndarray]:
        """``(winner_seats, lengths)`` of ``games`` random games from the start of the
        variant ``options``, in one compiled call."""

    def playouts(self, state: Any, games: int, seed: int = 0,
                 max_actions: int = 100_000) -> tuple[np.ndarray, np.ndarray]:
        """``(winner_seats, lengths)`` of random games from ``state`` (a position of the
        game, left as it was)."""

    def driven_games(self, options: Mapping[str, Any], games: int, seed: int = 0) -> int:
        """Random games with a Python loop driving the core (the call-boundary cost the
        benchmark reports); returns the actions played."""

    def tree_search(self) -> CompiledSearchTree | None:
        """A fresh compiled MCTS tree, or ``None`` when the game has none (the AI then
        runs its Python tree with the kernel's playouts at the leaves)."""

    def warm_up(self, announce: Callable[[str], None] | None = None) -> float:
        """Compile (or load from numba's cache) every kernel; returns the seconds it took.
        ``announce(text)`` is called first when nothing is cached yet."""

    def is_cached(self) -> bool:
        """Whether numba's cache holds the compiled code (:meth:`warm_up` then loads)."""

    def cached_parts(self) -> tuple[int, int]:
        """``(cached, total)``: how many of the compiled entry points numba's cache holds
        already: the progress of a compile in another process (the web app shows it while
        it prepares the engine)."""


@runtime_checkable
class VectorBatch(Protocol):
    """``num_envs`` games of one rules variant stepped together in compiled code (what
    ``Game.vector_batch(rules, num_envs)`` returns; everything else about
    :class:`hexgames.integrations.vector.VectorEnv` is the same for every game)."""

    #: Size of the fixed action-id space.
    num_actions: int
    #: Shape of one game's observation: ``(planes, rows, columns)``.
    observation_shape: tuple[int, int, int]
    #: An upper bound on actions per game (a game is truncated there).
    max_game_length: int
    #: Room the legal-id list of one game needs.
    list_size: int
    #: The games' state stepped now: named arrays, one row per game.
    rows: dict[str, np.ndarray]

    def new_rows(self, num_envs: int) -> dict[str, np.ndarray]:
        """State rows for ``num_envs`` games, not started yet (step them with ``-1``)."""

    def use_rows(self, rows: dict[str, np.ndarray]) -> None:
        """Step and read ``rows`` (as :meth:`new_rows` makes them) from now on."""

    def step(self, actions: np.ndarray, lengths: np.ndarray, rewards: np.ndarray,
             terminated: np.ndarray, truncated: np.ndarray, mask: np.ndarray,
             legal: np.ndarray, nlegal: np.ndarray, obs: np.ndarray, *,
             autoreset: bool = True, max_len: int | None = None) -> None:
        """One action id per game (``-1``: start a fresh game there; ``-2``: leave the
        game and its buffers' rows as they are), results written into the buffers; a
        game is truncated after ``max_len`` actions (default ``max_game_length``);
        without ``autoreset`` a finished game stays in its final position."""

    def current_player(self) -> np.ndarray:
        """The seat to act in each game."""

    def position(self, index: int) -> Any:
        """A copy of game ``index`` as a state of the game's core."""

    def seat_scores(self, index: int) -> tuple[float, float] | None:
        """Each seat's score on game ``index``'s board as it stands (seat 0 first), for
        games that keep one (``Game.live_score``); ``None`` for games that do not."""

    def is_cached(self) -> bool:
        """Whether the compiled step is in numba's cache already."""


@dataclass(frozen=True)
class AiHooks:
    """Game knowledge the AI may use (``Game.ai_hooks()`` returns it); every field is
    optional and :mod:`hexgames.ai.knowledge` supplies a brute-force, game-agnostic answer
    for each one missing, so a new game plays before anyone writes knowledge for it."""

    #: ``winning_actions(position) -> list``: the actions of the player to move that win
    #: at once (Benediction answers from its reach tables instead of playing each).
    winning_actions: Callable[[Any], list[Any]] | None = None
    #: ``action_priors(position, actions) -> list[float]``: a cheap score per action
    #: (higher = try first) ordering children in the search tree.
    action_priors: Callable[[Any, Sequence[Any]], list[float]] | None = None
    #: ``random_action(position, rng) -> action``: a fast playout policy (default: a
    #: uniform choice among ``legal_actions()``).
    random_action: Callable[[Any, random.Random], Any] | None = None
    #: ``turn_continues(position) -> bool``: False when every action from here ends the
    #: turn (Benediction's second action); the tactical layer then does not look for
    #: wins two actions deep. Default: always True.
    turn_continues: Callable[[Any], bool] | None = None
    #: ``may_win_this_turn(position) -> bool``: a cheap necessary condition for the
    #: player to move to win before its turn ends. Default: always True.
    may_win_this_turn: Callable[[Any], bool] | None = None
    #: True when the search should value new leaves by whole random games in the game's
    #: compiled kernel (``Game.kernel``) rather than by cut-off playouts and the
    #: heuristic: for a game whose heuristic a deeper search learns to exploit (Dendria:
    #: docs/ai.md, "Dendria's search and its heuristic").
    leaf_playouts: bool = False


__all__ = ["AiHooks", "CompiledKernel", "CompiledSearchTree", "VectorBatch"]
