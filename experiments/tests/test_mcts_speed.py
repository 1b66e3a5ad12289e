"""``experiments/mcts_speed.py``: level 5 measured with either tree."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "mcts_speed.py"


def test_mcts_speed_measures_level_5_with_either_tree() -> None:
    """``--level 5 [--python-tree]``: both searches run, and the Python tree's choices are
    reproducible with the seed as the compiled tree's are."""
    spec = importlib.util.spec_from_file_location("mcts_speed", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    runs = {tree: module.run_game("benediction", 1, 0, 3, None, level=5, python_tree=tree)
            for tree in (False, True)}
    assert runs[True]["python_tree"] and not runs[False]["python_tree"]
    for result in runs.values():
        assert result["iterations"] > 0
    again = module.run_game("benediction", 1, 0, 3, None, level=5, python_tree=False)
    assert again["fingerprint"] == runs[False]["fingerprint"]
    with pytest.raises(SystemExit):
        module.main(["--help"])
