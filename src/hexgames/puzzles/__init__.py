"""Puzzles from games between computer players: positions in which the player to act can
force a win within the turn, found and checked by the tactics search, tagged with the
game's themes and rated by how hard the search found them.

``python -m hexgames.puzzles GAME [--seed N] [--count K] [--workers W] [--out PATH]``
plays seeded games between the beginner and casual levels (the same command writes the
same file, whatever the number of workers) and keeps a position when the player to act
wins within the turn by a line whose first action is the only one that wins
(:mod:`hexgames.puzzles.generation`), each position once, mirror images included. Every
puzzle carries a stable id, the game's themes (``Game.puzzle_themes``) and an initial
rating from the search effort (:mod:`hexgames.puzzles.search`).

The sets shipped with hexgames are in each game package's ``puzzles.json``; the
command that wrote each is its ``generated_by``.
"""

from __future__ import annotations

from hexgames.puzzles.cli import default_path, main
from hexgames.puzzles.generation import candidate, generate, puzzles_of_game
from hexgames.puzzles.search import (
    initial_rating,
    puzzle_id,
    search_effort,
    symmetric_key,
    winning_line,
    winning_starts,
)

__all__ = [
    "candidate",
    "default_path",
    "generate",
    "initial_rating",
    "main",
    "puzzle_id",
    "puzzles_of_game",
    "search_effort",
    "symmetric_key",
    "winning_line",
    "winning_starts",
]
