"""The Dendria core's compiled-code cache (the shared :mod:`hexgames._jit`), its
cold-start announcement, and the benchmark's kernel figures for Dendria."""

from __future__ import annotations

import json
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
        "from hexgames.dendria.core import Core\n"
        "from hexgames.dendria.rules import Rules\n"
        "from hexgames._jit import is_cached\n"
        "print('cached' if is_cached('hexgames.dendria.core') else 'cold')\n"
        "print(len(Core(Rules(board_side=3)).initial().legal_codes()))\n"
    )
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, check=True)
    assert first.stdout.split() == ["cold", "20"]  # 19 plants and pass
    assert any((tmp_path / "cache").rglob("core.*.nbi"))
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, check=True)
    assert second.stdout.split() == ["cached", "20"]


def test_warm_up_announces_only_a_cold_start():
    from hexgames.dendria.kernel import warm_up

    said: list[str] = []
    warm_up(said.append)
    warm_up(said.append)
    assert said in ([], ["compiling the rules engine, once..."])


def test_bench_json_reports_python_and_kernel_rates_for_dendria(capsys):
    from hexgames.bench import main

    assert main(["dendria", "--runs", "1", "--seconds", "0.05", "--set", "board_side=3",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "dendria"
    assert report["actions_per_s"] > 0 and report["games_per_s"] > 0
    assert report["kernel_actions_per_s"] > 0 and report["kernel_games_per_s"] > 0
    variant = report["variants"][0]
    assert variant["kernel_games_per_s"] > 0 and variant["core_loop_actions_per_s"] > 0
    assert report["anchor"] is None
