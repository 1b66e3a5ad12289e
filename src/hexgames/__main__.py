"""``python -m hexgames`` is the same as the ``hexgames`` command."""

from hexgames.cli import main

raise SystemExit(main())
