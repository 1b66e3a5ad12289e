"""The policy-value net in numpy (:mod:`hexgames.ai.network`): the same numbers as the
torch net it mirrors, denormals flushed, a weights file that round-trips and refuses
what it cannot use with a clear error, and the evaluator plugged into both searches.
Nothing of the product imports torch."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from hexgames._processes import import_path
from hexgames.ai.mcts import MCTSPlayer
from hexgames.ai.network import (
    FORMAT,
    Architecture,
    NetworkEvaluator,
    PolicyValueNetwork,
    WeightsError,
    atomic_write,
    load_evaluator,
    load_network,
    random_network,
    save_weights,
)
from hexgames.ai.puct import PuctConfig, PuctPlayer
from hexgames.game import get_game

BOARDS = [("dendria", {"board_side": 3}), ("benediction", {"board_side": 4})]


def _arch(name: str, options: dict[str, int], **sizes: int) -> Architecture:
    game = get_game(name)
    return Architecture.for_game(game, game.rules(**options), **sizes)


@pytest.mark.parametrize(("name", "options"), BOARDS)
def test_numpy_inference_equals_the_torch_forward(name: str, options: dict[str, int]) -> None:
    torch = pytest.importorskip("torch")
    from hexgames.training.model import TorchPolicyValueNet, from_numpy, to_numpy

    arch = _arch(name, options, channels=12, blocks=2, policy_channels=3, value_hidden=8)
    torch.manual_seed(1)
    net = TorchPolicyValueNet(arch).eval()
    rng = np.random.default_rng(0)
    observations = rng.standard_normal((7, arch.planes, arch.width, arch.width))
    observations = observations.astype(np.float32)
    with torch.no_grad():
        values, logits = net(torch.from_numpy(observations))
    mine_values, mine_logits = to_numpy(net).forward(observations)
    assert mine_values.dtype == np.float32 and mine_logits.dtype == np.float32
    assert np.abs(mine_values - values.numpy()).max() < 1e-5
    assert np.abs(mine_logits - logits.numpy()).max() < 1e-5
    # and the other way: numpy weights into torch
    network = random_network(arch, seed=3, scale=1.0)
    with torch.no_grad():
        values, logits = from_numpy(network)(torch.from_numpy(observations))
    mine_values, mine_logits = network.forward(observations)
    assert np.abs(mine_values - values.numpy()).max() < 1e-5
    assert np.abs(mine_logits - logits.numpy()).max() < 1e-5 * max(1.0, np.abs(mine_logits).max())


def test_denormal_numbers_are_flushed_to_zero() -> None:
    arch = _arch("dendria", {"board_side": 3}, channels=4, blocks=1)
    params = {name: np.zeros(shape, np.float32) for name, shape in arch.shapes().items()}
    params["value_fc2.bias"][0] = 1e-39  # a denormal float32: tanh keeps it
    params["policy_fc.bias"][:] = 1e-40
    network = PolicyValueNetwork(arch, params)
    values, logits = network.forward(np.zeros((2, arch.planes, arch.width, arch.width),
                                              np.float32))
    assert np.all(values == 0.0) and np.all(logits == 0.0)
    tiny = np.float32(1e-39)
    assert tiny != 0.0 and np.tanh(tiny) != 0.0  # what the flush removed


def test_weights_round_trip_and_are_written_whole(tmp_path: Path) -> None:
    arch = _arch("dendria", {"board_side": 3}, channels=6, blocks=1)
    network = random_network(arch, seed=2, game="dendria", options={"board_side": 3})
    path = tmp_path / "net.npz"
    save_weights(path, network)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.npz"]  # no temporary left
    game = get_game("dendria")
    loaded = load_network(path, game, game.rules(board_side=3))
    assert loaded.arch == arch and loaded.game == "dendria"
    assert loaded.options == {"board_side": 3}
    observations = np.random.default_rng(1).standard_normal(
        (3, arch.planes, arch.width, arch.width)).astype(np.float32)
    for mine, theirs in zip(network.forward(observations), loaded.forward(observations),
                            strict=True):
        assert np.array_equal(mine, theirs)


def test_a_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    """A full disk (or any error) while writing never leaves a torn file at the path."""
    path = tmp_path / "latest.npz"
    path.write_bytes(b"the old weights")

    def fails(stream: object) -> None:
        stream.write(b"half of the new")  # type: ignore[attr-defined]
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        atomic_write(path, fails)
    assert path.read_bytes() == b"the old weights"
    assert [p.name for p in tmp_path.iterdir()] == ["latest.npz"]


def _saved(tmp_path: Path, **changes: object) -> Path:
    """A weights file with ``meta`` or parameters changed (``param/NAME``)."""
    import json

    arch = _arch("dendria", {"board_side": 3}, channels=4, blocks=1)
    network = random_network(arch, game="dendria", options={"board_side": 3})
    meta = {"format": FORMAT, "version": 1, "game": "dendria",
            "options": {"board_side": 3}, "arch": arch.__dict__}
    arrays = {f"param/{k}": v for k, v in network.params.items()}
    for key, value in changes.items():
        if key.startswith("param/"):
            if value is None:
                del arrays[key]
            else:
                arrays[key] = value  # type: ignore[assignment]
        else:
            meta[key] = value
    path = tmp_path / "weights.npz"
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)  # type: ignore[arg-type]
    return path


def _garbage(tmp_path: Path) -> Path:
    path = tmp_path / "weights.npz"
    path.write_bytes(b"not a zip file at all")
    return path


def _truncated(tmp_path: Path) -> Path:
    path = _saved(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def _not_ours(tmp_path: Path) -> Path:
    path = tmp_path / "weights.npz"
    np.savez(path, x=np.zeros(3))
    return path


BROKEN = [
    (lambda p: p / "missing.npz", "does not exist"),
    (_garbage, "not a readable .npz"),
    (_truncated, "not a readable .npz"),
    (_not_ours, "not a hexgames weights file"),
    (lambda p: _saved(p, format="something-else"), "not a hexgames weights file"),
    (lambda p: _saved(p, version=2), "format version 2; this hexgames reads version 1"),
    (lambda p: _saved(p, arch={"planes": 15}), "bad architecture"),
    (lambda p: _saved(p, **{"param/stem.weight": np.zeros((4, 15, 5, 5))}),
     r"stem.weight has shape \(4, 15, 5, 5\), its architecture needs \(4, 15, 3, 3\)"),
    (lambda p: _saved(p, **{"param/value_fc2.bias": None}), "lacks the parameter value_fc2.bias"),
    (lambda p: _saved(p, **{"param/stem.bias": np.full(4, np.nan, np.float32)}),
     "stem.bias is not all finite"),
]


@pytest.mark.parametrize(("make", "message"), BROKEN)
def test_unusable_weights_raise_a_clear_error_naming_the_file(tmp_path, make, message) -> None:
    path = make(tmp_path)
    with pytest.raises(WeightsError, match=message) as caught:
        load_network(path)
    assert isinstance(caught.value, ValueError)
    assert str(path) in str(caught.value)


def test_weights_for_another_game_or_board_are_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    dendria, benediction = get_game("dendria"), get_game("benediction")
    load_network(path, dendria, dendria.rules(board_side=3))  # fits
    with pytest.raises(WeightsError, match="is for dendria, not benediction"):
        load_network(path, benediction, benediction.rules(board_side=4))
    with pytest.raises(WeightsError, match=r"\(planes, width, actions\) \(15, 5, 383\)"):
        load_network(path, dendria, dendria.rules(board_side=4))


def test_the_evaluator_plugs_into_both_searches(tmp_path: Path) -> None:
    game = get_game("dendria")
    rules = game.rules(board_side=3)
    arch = Architecture.for_game(game, rules, channels=6, blocks=1)
    path = tmp_path / "net.npz"
    save_weights(path, random_network(arch, seed=4, game="dendria", options={"board_side": 3}))
    evaluator = load_evaluator(path, game, rules)
    assert isinstance(evaluator, NetworkEvaluator)
    position = game.new_position(rules)
    mcts = MCTSPlayer(game, iterations=40, seed=1, evaluator=evaluator, evaluator_batch=8)
    assert mcts.choose(position) in position.legal_actions()
    assert mcts.last_stats["evaluator_calls"] > 0
    puct = PuctPlayer(game, evaluator, PuctConfig(simulations=24), seed=1)
    assert puct.choose(position) in position.legal_actions()
    assert puct.last_policy is not None and puct.last_policy.sum() == pytest.approx(1.0)


def test_the_product_imports_no_torch() -> None:
    """``import hexgames``, the searches and the net, the command line's help and the
    train command's argument checks run without torch (the ``train`` extra)."""
    code = (
        "import sys, contextlib, io\n"
        "import hexgames, hexgames.ai.network, hexgames.ai.puct, hexgames.training.cli\n"
        "from hexgames.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main([])\n"
        "    main(['train', 'dendria', '--out', '/nonexistent/x', '--games', '0'])\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": import_path(), "PATH": "/usr/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")


def test_a_weights_file_is_a_zip_of_named_arrays(tmp_path: Path) -> None:
    """The format in the docs: ``meta`` and ``param/<name>`` entries, nothing pickled."""
    arch = _arch("dendria", {"board_side": 3}, channels=4, blocks=1)
    path = tmp_path / "net.npz"
    save_weights(path, random_network(arch))
    with zipfile.ZipFile(path) as archive:
        names = sorted(n.removesuffix(".npy") for n in archive.namelist())
    assert names == sorted(["meta", *(f"param/{n}" for n in arch.shapes())])
    with np.load(path, allow_pickle=False) as data:
        assert '"version": 1' in str(data["meta"])
