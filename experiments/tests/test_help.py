"""Every script of ``tools/`` and ``experiments/`` still starts: ``--help`` prints its usage
and exits 0 (a moved file or a removed product knob breaks its imports first)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Modules the scripts import, not scripts themselves.
LIBRARIES = {"mcts_variants.py"}
SCRIPTS = sorted(path for folder in ("tools", "experiments")
                 for path in (ROOT / folder).glob("*.py") if path.name not in LIBRARIES)


def test_the_folders_hold_the_scripts() -> None:
    names = {path.name for path in SCRIPTS}
    assert {"render_examples.py", "loadbench.py", "ladder.py", "mcts_speed.py"} <= names


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_help_prints_the_usage(script: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", [str(script), "--help"])
    monkeypatch.setattr(sys, "path", [str(script.parent), *sys.path])
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(str(script), run_name="__main__")
    assert stop.value.code in (0, None)
    assert "usage:" in capsys.readouterr().out
