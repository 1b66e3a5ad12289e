"""``hexgames train`` (:mod:`hexgames.training`): a CI-sized run on Dendria's 3-side board
learns (its loss falls) and leaves weights the players load; a run resumed from its
checkpoint goes on exactly as it would have, also after a SIGKILL; bad options, budgets
and directories are refused with a clear message."""

from __future__ import annotations

import csv
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hexgames._processes import import_path  # noqa: E402
from hexgames.ai.network import load_evaluator, load_network  # noqa: E402
from hexgames.ai.puct import PuctConfig, PuctPlayer  # noqa: E402
from hexgames.cli import main  # noqa: E402
from hexgames.game import get_game  # noqa: E402
from hexgames.training.loop import Trainer, gate_elo  # noqa: E402
from hexgames.training.settings import TrainSettings  # noqa: E402

TINY = ["dendria", "--set", "board_side=3", "--games-per-iteration", "6", "--simulations", "8",
        "--channels", "8", "--blocks", "1", "--steps-per-iteration", "100", "--lr", "0.005",
        "--batch-size", "32",
        "--gate-games", "2", "--gate-simulations", "4", "--max-moves", "120"]


def _train(out: Path, *extra: str, workers: int = 0) -> int:
    return main(["train", *TINY, "--out", str(out), "--workers", str(workers), *extra])


def _rows(out: Path) -> list[dict[str, str]]:
    with (out / "log.csv").open(newline="") as stream:
        return list(csv.DictReader(stream))


def _without_time(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{k: v for k, v in row.items() if k != "elapsed_s"} for row in rows]


def test_a_ci_sized_run_learns_and_leaves_weights_the_players_load(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _train(out, "--games", "12") == 0
    rows = _rows(out)
    assert [r["iteration"] for r in rows] == ["1", "2"]
    assert [r["games"] for r in rows] == ["6", "12"]
    assert [r["steps"] for r in rows] == ["100", "200"]
    for row in rows:  # each iteration's steps fit the window better and better
        assert float(row["loss_end"]) < float(row["loss_start"])
    for name in ("best.npz", "latest.npz", "checkpoint.pt", "settings.json"):
        assert (out / name).stat().st_size > 0
    assert (out / "progress.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    game = get_game("dendria")
    rules = game.rules(board_side=3)
    evaluator = load_evaluator(out / "best.npz", game, rules)
    position = game.new_position(rules)
    player = PuctPlayer(game, evaluator, PuctConfig(simulations=8), seed=0)
    while not position.is_over:
        position.play(player.choose(position))
    assert load_network(out / "latest.npz").options == {"board_side": 3}


def test_the_learner_fits_its_replay_window(tmp_path: Path) -> None:
    settings = TrainSettings(game="dendria", options={"board_side": 3}, channels=8, blocks=1,
                             games_per_iteration=6, simulations=8, batch_size=32)
    trainer = Trainer(tmp_path / "run", settings, resume=False)
    trainer.replay.add(trainer._self_play(6, 0, None))
    first = trainer._learn(40)
    later = [trainer._learn(40) for _ in range(3)]
    assert later[-1][0] < first[0] and later[-1][2] < first[2]  # mean, policy loss
    assert first[4] < first[3]  # loss_end < loss_start


def test_a_resumed_run_goes_on_as_if_never_stopped(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    straight, stopped = tmp_path / "straight", tmp_path / "stopped"
    assert _train(straight, "--games", "12") == 0
    assert _train(stopped, "--games", "6") == 0
    assert len(_rows(stopped)) == 1
    capsys.readouterr()
    assert _train(stopped, "--resume", "--games", "12") == 0
    assert "resumed at iteration 1" in capsys.readouterr().out
    assert _without_time(_rows(stopped)) == _without_time(_rows(straight))
    mine, theirs = load_network(stopped / "best.npz"), load_network(straight / "best.npz")
    for name, value in mine.params.items():
        assert np.array_equal(value, theirs.params[name]), name


def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [sys.executable, "-m", "hexgames", "train", *TINY, "--out", str(out),
               "--workers", "0", "--games", "100000"]
    env = {**os.environ, "PYTHONPATH": import_path()}
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300  # seconds of work, minutes on a loaded machine
        while time.monotonic() < deadline and child.poll() is None:
            # two rows: the checkpoint of iteration 1 is written (before row 2)
            if (out / "log.csv").exists() and len(_rows(out)) >= 2:
                break
            time.sleep(0.05)
        assert child.poll() is None, child.stderr.read() if child.stderr else ""
        assert len(_rows(out)) >= 2, "the run made no progress in 300 s"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        if child.stderr:
            child.stderr.close()
    saved = torch.load(out / "checkpoint.pt", weights_only=True)  # whole, never torn
    done = saved["state"]["iteration"]
    assert done >= 1
    logged = len(_rows(out))
    target = (max(done, logged) + 1) * 6
    (out / ".checkpoint.pt.abc123.tmp").write_bytes(b"a write the kill cut short")
    assert _train(out, "--resume", "--games", str(target)) == 0
    assert not list(out.glob(".*.tmp"))
    rows = _rows(out)
    assert [int(r["iteration"]) for r in rows] == list(range(1, target // 6 + 1))
    assert rows[-1]["games"] == str(target)


def test_self_play_in_worker_processes_gives_the_same_run(tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    assert _train(here, "--games", "6", workers=0) == 0
    assert _train(there, "--games", "6", workers=1) == 0
    assert _without_time(_rows(there)) == _without_time(_rows(here))


BAD = [
    (["--set", "nope=1", "--games", "6"], "has no option 'nope'"),
    (["--set", "board_side=99", "--games", "6"], "board_side"),
    ([], "give a budget: --hours, --games or --steps"),
    (["--games", "0"], "--games must be at least 1, got 0"),
    (["--steps", "-3"], "--steps must be at least 1, got -3"),
    (["--hours", "-1"], "--hours must be a positive number"),
    (["--hours", "nan"], "--hours must be a positive number"),
    (["--games", "6", "--workers", "-1"], "--workers must be at least 0"),
    (["--games", "6", "--simulations", "0"], "simulations must be at least 1"),
    (["--games", "6", "--gate-threshold", "1.5"], "gate-threshold must be in [0, 1]"),
    (["--games", "6", "--lr", "0"], "learning-rate must be a positive number"),
]


@pytest.mark.parametrize(("extra", "message"), BAD)
def test_bad_options_and_budgets_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             extra: list[str], message: str) -> None:
    out = tmp_path / "run"
    assert _train(out, *extra) == 2
    assert message in capsys.readouterr().out.replace("\n", " ")
    assert not (out / "checkpoint.pt").exists()


def test_bad_resumes_and_directories_are_refused(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"

    def refused(*extra: str, base: list[str] = TINY) -> str:
        capsys.readouterr()
        assert main(["train", *base, "--out", str(out), "--workers", "0", *extra]) == 2
        return capsys.readouterr().out.replace("\n", " ")

    out.write_text("a file, not a directory")
    assert "File exists" in refused("--games", "6")
    out.unlink()
    assert "holds no run" in refused("--resume", "--games", "6")
    assert _train(out, "--games", "6") == 0
    assert "already holds a run" in refused("--games", "12")
    other = [a.replace("board_side=3", "board_side=4") for a in TINY]
    assert "not dendria with {'board_side': 4}" in refused("--resume", "--games", "12",
                                                          base=other)
    assert "these differ: {'channels': 9}" in refused("--resume", "--games", "12",
                                                      "--channels", "9")
    assert "the budget is already spent" in refused("--resume", "--games", "6")
    (out / "checkpoint.pt").write_bytes(b"torn")
    assert "cannot resume from" in refused("--resume", "--games", "12")


def test_the_docs_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/ai.md, "Learned players": the two commands, then the Python block that loads
    the weights they leave into both players."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "ai.md").read_text("utf-8")
    section = text.split("## Learned players (in progress)", 1)[1].split("\n## ", 1)[0]
    bash = section.split("```bash\n", 1)[1].split("```", 1)[0].replace("\\\n", " ")
    commands = [shlex.split(line) for line in bash.splitlines() if line.startswith("hexgames")]
    assert len(commands) == 2 and "--resume" in commands[1]
    monkeypatch.chdir(tmp_path)
    for command in commands:
        assert main([*command[1:], "--workers", "0"]) == 0
    assert _rows(tmp_path / "runs" / "d3")[-1]["games"] == "24"
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict[str, object] = {}
    exec(code, scope)  # the documented example, as a reader runs it
    game = get_game("dendria")
    position = game.new_position(game.rules(board_side=3))
    for name in ("puct", "mcts"):
        assert scope[name].choose(position) in position.legal_actions()  # type: ignore[attr-defined]


def test_without_torch_the_command_says_what_to_install(tmp_path: Path) -> None:
    code = ("import sys\n"
            "sys.modules['torch'] = None  # as if the train extra were not installed\n"
            "from hexgames.cli import main\n"
            f"raise SystemExit(main(['train', 'dendria', '--out', {str(tmp_path / 'run')!r}, "
            "'--games', '6', '--workers', '0']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": import_path()})
    assert done.returncode == 2, done.stderr
    assert "hexgames train needs torch (the train extra: pip install 'hexgames[train]')" in \
        done.stdout.replace("\n", " ")
    assert not (tmp_path / "run").exists()


def test_sparse_policy_targets_give_back_the_dense_ones() -> None:
    from hexgames.ai.network import Architecture, NetworkEvaluator, random_network
    from hexgames.ai.puct import SelfPlayConfig, self_play
    from hexgames.training.actors import Samples
    from hexgames.training.model import dense_targets

    game = get_game("dendria")
    rules = game.rules(board_side=3)
    evaluator = NetworkEvaluator(random_network(Architecture.for_game(game, rules)))
    records = self_play(game, rules, evaluator, [1, 2],
                        SelfPlayConfig(search=PuctConfig(simulations=8)))
    masks = np.stack([m for r in records for m in r.masks])
    policies = np.stack([p for r in records for p in r.policies])
    widths = masks.sum(axis=1)
    narrow, wide = np.flatnonzero(widths < widths.max()), np.flatnonzero(widths == widths.max())
    assert len(narrow) and len(wide)
    parts = []
    for rows in (narrow, wide):  # two parts of different widths, joined with padding
        legal, probs = Samples.sparse(masks[rows], policies[rows])
        parts.append(Samples(np.zeros((len(rows), 1)), legal, probs, np.zeros(len(rows)),
                             np.zeros(0), 0))
    assert parts[0].legal.shape[1] < parts[1].legal.shape[1] == widths.max()
    joined = Samples.join(parts)
    dense_masks, dense_policies = dense_targets(torch.from_numpy(joined.legal.astype(np.int64)),
                                                torch.from_numpy(joined.probs), masks.shape[1])
    order = np.concatenate([narrow, wide])
    assert np.array_equal(dense_masks.numpy(), masks[order])
    assert np.array_equal(dense_policies.numpy(), policies[order])


def test_the_gates_elo_shrinks_small_matches() -> None:
    assert gate_elo(0.5, 10) == 0.0
    assert gate_elo(1.0, 2) == pytest.approx(400 * np.log10(2.5 / 0.5))  # not infinite
    assert gate_elo(1.0, 2) < gate_elo(1.0, 20)  # more games, more evidence
    assert gate_elo(0.25, 4) == pytest.approx(-gate_elo(0.75, 4))


def test_a_write_that_fails_mid_run_stops_it_with_the_checkpoint_standing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert _train(out, "--games", "6") == 0
    (out / "progress.png").unlink()
    (out / "progress.png").mkdir()  # the plot cannot be written over a directory
    (out / "progress.png" / "x").write_text("x")
    capsys.readouterr()
    assert _train(out, "--resume", "--games", "12") == 1
    said = capsys.readouterr().out.replace("\n", " ")
    assert "the last checkpoint stands: --resume goes on from iteration 2" in said
    assert torch.load(out / "checkpoint.pt", weights_only=True)["state"]["iteration"] == 2
