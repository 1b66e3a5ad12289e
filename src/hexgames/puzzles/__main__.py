"""``python -m hexgames.puzzles``: see :mod:`hexgames.puzzles.cli`."""

from hexgames.puzzles.cli import main

raise SystemExit(main())
