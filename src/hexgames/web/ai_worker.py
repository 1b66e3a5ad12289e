"""The AI thinks in worker processes so the server's event loop never waits for a search.

A search is CPU-bound Python: run in the server's process it would freeze every other game
and every WebSocket. Workers receive only plain data (game name, options, actions in
notation), rebuild the position themselves and answer with the chosen action in notation,
which the server then checks with the engine like any other input.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any


def choose_action(game_name: str, options: dict[str, Any], actions: list[str], level: int,
                  seed: int | None) -> str:
    """Runs in a worker: the AI's action (in notation) after ``actions``."""
    from hexgames.ai import player
    from hexgames.game import get_game

    game = get_game(game_name)
    position = game.new_position(game.make_rules(**options))
    for action in actions:
        position.play(action)
    return str(player(game, level, seed=seed).choose(position))


class AiWorkers:
    """A small process pool, started on first use and shut down with the app.

    ``spawn`` rather than ``fork``: the server process runs threads (uvicorn, storage), and
    forking a threaded process can deadlock the child.
    """

    def __init__(self, processes: int = 1) -> None:
        self.processes = max(1, processes)
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.processes, mp_context=multiprocessing.get_context("spawn")
            )
        return self._pool

    async def choose(self, game_name: str, options: dict[str, Any], actions: list[str],
                     level: int, seed: int | None = None) -> str:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor(), choose_action, game_name, options, list(actions), level, seed
        )

    def shutdown(self) -> None:
        """Stop the workers now, abandoning a search in progress (its answer is moot)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # The executor has no public way to stop a running task; terminating its
        # processes is the only way not to leave a long search behind the server.
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=5)
