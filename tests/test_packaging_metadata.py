"""pyproject.toml builds without setuptools' deprecation warnings (a fresh ``make play``
printed three ``project.license as a TOML table is deprecated`` blocks, one per build
step): the licence is an SPDX expression, which needs setuptools 77 or later; and the suite's
configuration there bounds every test's time."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_license_is_an_spdx_expression_and_setuptools_can_read_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == "MIT"
    requires = [r for r in project["build-system"]["requires"] if r.startswith("setuptools")]
    assert requires == ["setuptools>=77"]


def test_building_the_metadata_warns_of_nothing(tmp_path: Path) -> None:
    """The build backend's metadata step (pip runs it on every install) on a copy of the
    project file: no deprecation warning, and the licence in the metadata."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copy(ROOT / "README.md", tmp_path)
    (tmp_path / "src" / "hexgames").mkdir(parents=True)
    (tmp_path / "src" / "hexgames" / "__init__.py").write_text("", encoding="utf-8")
    out = tmp_path / "metadata"
    out.mkdir()
    done = subprocess.run(
        [sys.executable, "-W", "always", "-c",
         "import sys; from setuptools import build_meta as backend; "
         "print(backend.prepare_metadata_for_build_wheel(sys.argv[1]))", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=True)
    assert "deprecated" not in done.stderr.lower(), done.stderr
    assert "Warning" not in done.stderr, done.stderr
    metadata = (out / done.stdout.strip().splitlines()[-1] / "METADATA").read_text()
    assert "License-Expression: MIT" in metadata.splitlines()


def test_every_test_has_a_time_bound(request: pytest.FixtureRequest) -> None:
    """A hang is a failing test: pytest-timeout is a dev dependency and the suite's
    configuration bounds each test (a test that hangs fails instead of running CI into
    its time limit)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert any(dependency.startswith("pytest-timeout")
               for dependency in project["project"]["optional-dependencies"]["dev"])
    bound = float(project["tool"]["pytest"]["ini_options"]["timeout"])
    assert 0 < bound <= 1800
    assert float(request.config.getini("timeout")) == bound  # the plugin read it
