"""``experiments/analysis_speed.py``: the analysis board's engine measured on Dendria runs
and says what it measured."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "analysis_speed.py"


def test_it_measures_searches_and_a_graph_slice(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("analysis_speed", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["probe", "--seed", "2"]) == 0
    line = capsys.readouterr().out
    assert line.startswith("probe: evaluate 4 x 400 iterations ")
    assert "graph slice 20 positions x 60 iterations" in line
    with pytest.raises(SystemExit):
        module.main(["--help"])
