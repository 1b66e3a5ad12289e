"""Where the compiled rules core keeps its cache, and the cold-start announcement."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hexgames import _jit


def test_user_cache_dir_follows_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _jit.user_cache_dir() == tmp_path / "hexgames" / "numba"


def test_the_cache_can_live_in_a_user_directory(tmp_path):
    """A fresh interpreter with NUMBA_CACHE_DIR pointing at an empty directory compiles
    once, says so, and the next interpreter finds the cache there."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1] / "src")
    code = (
        "from hexgames.benediction.core import Core\n"
        "from hexgames._jit import is_cached\n"
        "print('cached' if is_cached('hexgames.benediction.core') else 'cold')\n"
        "print(len(Core().initial().legal_codes()))\n"
    )
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, check=True)
    assert first.stdout.split() == ["cold", "82"]
    assert any((tmp_path / "cache").rglob("*.nbi"))
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, check=True)
    assert second.stdout.split() == ["cached", "82"]


def test_warm_up_announces_only_a_cold_start():
    from hexgames.benediction.kernel import warm_up

    said: list[str] = []
    warm_up(said.append)
    warm_up(said.append)
    assert said in ([], ["compiling the rules engine, once..."])
    assert len(said) <= 1
