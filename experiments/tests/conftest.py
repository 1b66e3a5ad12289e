"""The experiments' own checks: their harnesses run, and the MCTS variants they measure
still search as described. Run with the suite (``testpaths`` in pyproject.toml); the
experiments' folder goes on ``sys.path`` here, as it is when a harness runs as a script
(``python experiments/ladder.py``), so the checks import its modules the same way."""

from __future__ import annotations

import sys
from pathlib import Path

EXPERIMENTS = Path(__file__).resolve().parents[1]
if str(EXPERIMENTS) not in sys.path:
    sys.path.insert(0, str(EXPERIMENTS))
