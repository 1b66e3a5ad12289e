"""``hexgames._processes.import_path``: children import this same hexgames."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import hexgames
from hexgames._processes import import_path

PACKAGE_ROOT = str(Path(hexgames.__file__).resolve().parent.parent)


def test_the_package_comes_first_and_inherited_entries_are_made_absolute(
        monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "extra").mkdir()
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["extra", "", PACKAGE_ROOT, "extra"]))
    assert import_path().split(os.pathsep) == [PACKAGE_ROOT, str(tmp_path / "extra")]
    monkeypatch.delenv("PYTHONPATH")
    assert import_path() == PACKAGE_ROOT


def test_a_child_in_another_folder_imports_this_hexgames(tmp_path):
    env = {**os.environ, "PYTHONPATH": import_path()}
    done = subprocess.run([sys.executable, "-c", "import hexgames; print(hexgames.__file__)"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == hexgames.__file__
