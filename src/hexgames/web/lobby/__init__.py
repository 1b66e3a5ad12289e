"""Finding a game: challenges, quick-pairing pools, and what expires on its own."""
