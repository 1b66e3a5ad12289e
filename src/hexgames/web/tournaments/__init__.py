"""Tournaments, the rules alone: Swiss pairing, FIDE tiebreaks, arena scoring and waves.

Pure functions and frozen dataclasses, no I/O: what goes in (players, scores, past
results, a seed) decides what comes out, so that the scheduler above can run a pairing
in whichever process wins the lock, and run it again after a crash with the same result.
Nothing here imports FastAPI, storage or the live games (tests/test_import_layers.py
keeps it so); the rules as a player reads them are in docs/tournaments.md.

- :mod:`.results`: one player's result in one round (a game, a forfeit, a bye, absence);
- :mod:`.matching`: maximum matchings (Edmonds) and pairing in order of preference
  without ever painting itself into a corner;
- :mod:`.swiss`: the pairing of a Swiss round;
- :mod:`.tiebreaks`: Buchholz (and Cut-1) and Sonneborn-Berger as FIDE defines them;
- :mod:`.arena`: lichess-style arena scores, standings and the pairing of a wave;
- :mod:`.model`: a tournament's settings, checked field by field.
"""
