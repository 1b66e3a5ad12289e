"""MCTS settings that only experiments use, kept out of the product's player.

Each was measured against the settings the levels use and not adopted (or, for
``continuation_needs_reuse=False``, is how the web app played before per-game sessions),
so :class:`hexgames.ai.mcts.MCTSPlayer` does not carry them; the harnesses of this folder
that reproduce those measurements build :class:`MCTSVariant` instead:

``kernel_playouts=N``
    ``N`` whole random games per new leaf in the game's compiled kernel, averaged (the
    player plays one); ``0`` plays them in Python. ``ladder.py``'s ``kpN@IT``.
``finish_turn=True``
    a cut-off playout that stops in the middle of a turn plays on to the turn's end (at
    most :data:`FINISH_TURN_LIMIT` more actions, each the mover's best by the game's
    priors, else random) before the heuristic is asked, so that every leaf is valued at
    a turn start. ``ladder.py``'s ``ft1@IT``; notes/ai-levels-and-ladder.md.
``compiled_tree=False``
    the search's iterations in Python where the game offers a compiled tree (the same
    algorithm; ``mcts_speed.py --python-tree``); ``True`` insists on the compiled tree.
``continuation_needs_reuse=False``
    a later action of a turn gets ``continuation_share`` of the budget even when no tree
    was reused: the web app's AI before per-game sessions (``web_vs_arena.py --path
    old``, through :func:`choose_as_before_sessions`).

Run from this folder's scripts (``python experiments/ladder.py``: the folder is then on
``sys.path``) or from ``experiments/tests``.
"""

from __future__ import annotations

from typing import Any

from hexgames.ai.mcts import MCTSPlayer
from hexgames.game import GameState, get_game
from hexgames.hooks import CompiledKernel, CompiledSearchTree

#: Most actions a playout plays to finish a turn (``finish_turn=True``).
FINISH_TURN_LIMIT = 40


class MCTSVariant(MCTSPlayer):
    """:class:`MCTSPlayer` with the experiments' knobs (see the module docstring); the
    other keyword arguments are the player's own. With every knob at its default it
    searches exactly as :class:`MCTSPlayer` does."""

    def __init__(self, game: Any, *, kernel_playouts: int = 1, finish_turn: bool = False,
                 compiled_tree: bool | None = None, continuation_needs_reuse: bool = True,
                 **settings: Any) -> None:
        if kernel_playouts < 0:
            raise ValueError(f"kernel_playouts must be at least 0, got {kernel_playouts}")
        self.kernel_playouts = kernel_playouts
        self.finish_turn = finish_turn
        self.compiled_tree = compiled_tree
        self.continuation_needs_reuse = continuation_needs_reuse
        super().__init__(game, **settings)

    def _find_kernel(self) -> CompiledKernel | None:
        return super()._find_kernel() if self.kernel_playouts else None

    def _make_tree(self) -> CompiledSearchTree | None:
        tree = super()._make_tree() if self.kernel_playouts == 1 else None
        if self.compiled_tree and tree is None:
            raise ValueError("compiled_tree needs a game kernel with a compiled tree, "
                             "use_heuristic=False and kernel_playouts=1")
        return None if self.compiled_tree is False else tree

    def _budget(self, work: GameState, started: float) -> tuple[int | None, float | None]:
        if self.continuation_needs_reuse or work.is_turn_start():
            return super()._budget(work, started)
        share = self.continuation_share
        self.last_stats["share"] = share
        iterations = None if self.iterations is None else max(1, int(self.iterations * share))
        deadline = None if self.time_limit is None else started + self.time_limit * share
        return iterations, deadline

    def _playout(self, pos: GameState) -> float:
        if self._kernel is not None and not self.use_heuristic:
            seats, _ = self._kernel.playouts(
                pos, self.kernel_playouts, self._rng.getrandbits(31), 10_000
            )
            return float((seats == 0).sum() - (seats == 1).sum()) / len(seats)
        if not (self.finish_turn and self.use_heuristic):
            return super()._playout(pos)
        know = self._know
        played = 0
        try:
            while played < self.playout_depth and not pos.is_over:
                pos.play(know.random_action(pos, self._rng))
                played += 1
            extra = 0
            while not pos.is_over and not pos.is_turn_start() and extra < FINISH_TURN_LIMIT:
                pos.play(self._turn_finisher(pos))
                played += 1
                extra += 1
            if pos.is_over:
                return float(pos.returns()[0])
            return float(know.heuristic(pos))
        finally:
            for _ in range(played):
                pos.undo()

    def _turn_finisher(self, pos: GameState) -> Any:
        """The action a playout finishing a turn plays: the best by the game's priors
        (ties to the first), else a random one."""
        actions = pos.legal_actions()
        priors = self._know.action_priors
        if priors is None:
            return self._rng.choice(actions)
        scores = priors(pos, actions)
        return actions[max(range(len(actions)), key=scores.__getitem__)]


def variant_of(player: MCTSPlayer, **knobs: Any) -> MCTSVariant:
    """An :class:`MCTSVariant` with every setting of ``player`` (a level's, say) and the
    experiment's ``knobs``."""
    return MCTSVariant(
        player.game, time_limit=player.time_limit, iterations=player.iterations,
        seed=player._seed, exploration=player.exploration, use_heuristic=player.use_heuristic,
        playout_depth=player.playout_depth, widen_base=player.widen_base,
        widen_factor=player.widen_factor, tactics=player.tactics,
        tactics_depth=player.tactics_depth, tactics_budget=player.tactics_budget,
        safety=player.safety, threat_depth=player.threat_depth, reuse_tree=player.reuse_tree,
        continuation_share=player.continuation_share, name=player.name, **knobs,
    )


def choose_as_before_sessions(game_name: str, options: dict[str, Any], actions: list[str],
                              level: int, seed: int | None) -> str:
    """Runs in a web AI worker (``AiWorkers.run``): the action after ``actions`` of a new
    player of ``level`` whose budget for a later action of a turn is cut although it kept
    no tree, as the web app's AI played before per-game sessions."""
    from hexgames.ai.levels import player

    game = get_game(game_name)
    position = game.new_position(game.make_rules(**options))
    for action in actions:
        position.play(action)
    chooser = player(game, level, seed=seed)
    if isinstance(chooser, MCTSPlayer):
        chooser = variant_of(chooser, continuation_needs_reuse=False)
    return str(chooser.choose(position))
