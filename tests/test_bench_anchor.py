"""The C anchor is found from where the package lives, not from the working directory,
and a bench that runs without it says so (issue 41, row 7)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hexgames import bench
from hexgames.game import get_game

BESIDE = Path(bench.__file__).resolve().parents[3] / "shared" / "bench" / "bened.c"


def vector_bench(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items()
                   if key != bench.ANCHOR_ENVIRONMENT}
    return subprocess.run(
        [sys.executable, "-m", "hexgames.integrations.vector", "8", "--runs", "1",
         "--seconds", "0.2", "--set", "board_side=4", *args],
        cwd=cwd, capture_output=True, text=True, timeout=600, env=environment)


def test_the_anchor_is_found_beside_the_checkout_from_any_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not BESIDE.is_file():
        pytest.skip(f"no shared/bench beside this checkout ({BESIDE})")
    monkeypatch.chdir(tmp_path)  # ../shared/bench from here does not exist
    monkeypatch.delenv(bench.ANCHOR_ENVIRONMENT, raising=False)
    assert bench.default_anchor(get_game("benediction")) == BESIDE
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    done = vector_bench(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "C anchor (Benediction) in the same run" in done.stdout, done.stdout


def test_an_environment_variable_names_another_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bened.c").write_text("int main(void) { return 0; }\n")
    monkeypatch.setenv(bench.ANCHOR_ENVIRONMENT, str(tmp_path))
    assert bench.default_anchor(get_game("benediction")) == tmp_path / "bened.c"


def test_a_missing_anchor_is_said(tmp_path: Path) -> None:
    done = vector_bench(tmp_path, "--anchor", str(tmp_path / "nowhere.c"))
    assert done.returncode == 0, done.stderr
    assert f"no C anchor in this run: {tmp_path / 'nowhere.c'} does not exist" in done.stderr
    assert "C anchor" not in done.stdout
