"""Glicko-2 and what it rates: finished games, puzzles, and each seat's result."""
