"""OpenSpiel's AlphaZero trains on both games end to end: actors as processes (which
needs games that pickle), two learner steps with a tiny model, then a whole game played
with the saved checkpoint (``tests/alpha_zero_support.py``).

Needs the ``train`` extra (JAX, Flax, Optax, Orbax, chex); skipped without it. Each run
is bounded: AlphaZero's learner waits forever when an actor dies, so the run is killed
(with its actor processes) at the timeout and the test fails with its output.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")
for _module in ("jax", "flax", "optax", "orbax.checkpoint", "chex"):
    pytest.importorskip(_module, reason="OpenSpiel's AlphaZero needs the 'train' extra")
pytest.importorskip("open_spiel.python.algorithms.alpha_zero.alpha_zero")

SUPPORT = Path(__file__).with_name("alpha_zero_support.py")
#: Seconds for one whole run (about 30 on an idle 2-core machine, most of it JAX's
#: start-up and compilation).
TIMEOUT = 300

#: Small variants whose games last tens of actions.
VARIANTS = {
    "benediction": "benediction(board_side=4)",
    "dendria": "dendria(board_side=4,quiet_limit=2,auto_forced=true,channels_last=true)",
}


def run_bounded(command: list[str], timeout: float) -> tuple[int, str]:
    """Run ``command`` in a session of its own; at the timeout kill the whole session
    (AlphaZero's actor processes too) and report the output so far."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
    ) as process:
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate(timeout=30)
            pytest.fail(f"AlphaZero did not finish in {timeout} s:\n{output[-4000:]}")
    return process.returncode, output


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_alpha_zero_trains_and_its_checkpoint_plays(name: str, tmp_path: Path) -> None:
    code, output = run_bounded(
        [sys.executable, str(SUPPORT), VARIANTS[name], str(tmp_path)], TIMEOUT
    )
    assert code == 0, output[-4000:]
    result = json.loads(output.strip().splitlines()[-1])
    assert result["steps"] == [1, 2]
    assert {"checkpoint-0", "checkpoint-2"} <= {p.name for p in tmp_path.iterdir()}
    # The actor process played self-play games through our game (it unpickled it).
    actor_log = (tmp_path / "log-actor-0.txt").read_text()
    assert "Returns:" in actor_log and "Exception" not in actor_log
    assert result["weights_changed"], "two learner steps left the weights as they were"
    returns = result["returns"]
    assert returns[0] == -returns[1] and returns[0] in (-1.0, 0.0, 1.0)
    assert result["length"] > 0


def test_openspiels_own_alpha_zero_script_runs_by_game_name(tmp_path: Path) -> None:
    """Issue 41, row 1: OpenSpiel's example script, unchanged, trains two steps on
    ``benediction(board_side=4)`` (games that are decided: random play ends every one,
    54 actions on average) through ``python -m hexgames.integrations.openspiel run``;
    its actor process knows the game too."""
    path = tmp_path / "az"
    code, output = run_bounded(
        [sys.executable, "-m", "hexgames.integrations.openspiel", "run",
         "open_spiel.python.examples.alpha_zero", "--game=benediction(board_side=4)",
         f"--path={path}", "--max_steps=2", "--actors=1", "--evaluators=0",
         "--nn_model=mlp", "--nn_width=8", "--nn_depth=1", "--max_simulations=4",
         "--train_batch_size=8", "--replay_buffer_size=32", "--replay_buffer_reuse=2",
         "--checkpoint_freq=1", "--eval_levels=2", "--evaluation_window=2"],
        TIMEOUT,
    )
    assert code == 0, output[-4000:]
    assert "checkpoint-2" in {p.name for p in path.iterdir()}, output[-2000:]
    actor_log = (path / "log-actor-0.txt").read_text()
    assert "Returns:" in actor_log and "Exception" not in actor_log


def test_the_runner_refuses_an_unknown_module() -> None:
    code, output = run_bounded(
        [sys.executable, "-m", "hexgames.integrations.openspiel", "run", "no.such.script"], 60)
    assert code == 2 and "no module 'no.such.script'" in output
