"""``experiments/old_vs_new.py``: two checkouts' level 5, each in its own agent process.

The issue-16 match (the new level 5 against the level 5 before the compiled cores) is
played by this script; here both agents run this checkout, which is enough to check the
protocol: every chosen action is legal for the referee and for the other agent, seats
alternate, each game is written once and a re-run skips it, and the report reads it back.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "experiments" / "old_vs_new.py"


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_two_agents_play_whole_games_and_the_report_reads_them(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    common = ["benediction", "--old", str(ROOT / "src"), "--seconds", "0.02",
              "--jobs", "2", "--out", str(out)]
    run(*common, "--games", "2")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["index"] for r in rows) == [0, 1]
    assert {r["index"]: r["new_seat"] for r in rows} == {0: 0, 1: 1}
    for row in rows:
        assert row["actions"] > 0
        assert sum(row["moves"].values()) == row["actions"]
        assert row["end"] != "void" and sum(row["returns"]) == 0
        # (a search may end with no iteration when its clock ran out; a game has many)
        assert row["iterations"]["new"] + row["iterations"]["old"] > 0
    run(*common, "--games", "3")  # plays game 2 only
    indices = [json.loads(line)["index"] for line in out.read_text().splitlines()]
    assert indices[:2] == [r["index"] for r in rows] and sorted(indices) == [0, 1, 2]
    report = run("benediction", "--out", str(out), "--report")
    assert report.startswith("3 games: new ") and "Elo new - old" in report


def test_it_says_what_is_missing() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "benediction", "--out", "x.jsonl"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and "--old is required" in done.stderr


def test_the_report_leaves_void_games_out_and_counts_them() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("old_vs_new", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def row(index: int, new_won: bool | None, side: str = "old") -> dict[str, object]:
        seat = index % 2
        returns = [0.0, 0.0]
        if new_won is not None:
            returns[seat] = 1.0 if new_won else -1.0
            returns[1 - seat] = -returns[seat]
        base: dict[str, object] = {
            "index": index, "new_seat": seat, "returns": returns, "actions": 10,
            "end": "king captured", "seconds": {"new": 1.0, "old": 1.0},
            "iterations": {"new": 100, "old": 50}, "moves": {"new": 5, "old": 5}}
        if new_won is None:
            base.update(end="void", void={"side": side, "action": "x", "reason": "r",
                                          "position": ""})
        return base

    text = module.report([row(0, True), row(1, False), row(2, None), row(3, True)])
    assert text.startswith("3 games: new 2 wins, 0 draws, 1 losses")
    assert "1 void" in text and "{'old': 1}" in text
    assert module.report([row(0, None, "new")]) == "no games with a result yet (1 void)"


def test_new_env_reaches_the_new_sides_agents_only(tmp_path: Path) -> None:
    """``--new-env NAME=VALUE`` (an experiment's switch) is set in the new side's agent
    processes and not in the old side's; a malformed pair is refused."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("old_vs_new", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module._env_pair("EXP_CUTOFF=40") == ("EXP_CUTOFF", "40")
    new = module.Agent(ROOT / "src", {"HEXGAMES_TEST_SWITCH": "on"})
    old = module.Agent(ROOT / "src")
    try:
        environ = {pid: Path(f"/proc/{agent.process.pid}/environ").read_bytes().split(b"\0")
                   for pid, agent in (("new", new), ("old", old))}
    finally:
        new.close()
        old.close()
    assert b"HEXGAMES_TEST_SWITCH=on" in environ["new"]
    assert not any(item.startswith(b"HEXGAMES_TEST_SWITCH=") for item in environ["old"])
    done = subprocess.run([sys.executable, str(SCRIPT), "benediction", "--old", "x",
                           "--new-env", "no-equals", "--out", str(tmp_path / "x.jsonl")],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and "expected NAME=VALUE" in done.stderr
