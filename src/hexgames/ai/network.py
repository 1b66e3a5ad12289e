"""A policy-value network over the observation planes, run in numpy (no torch).

The net (trained in torch by ``hexgames train``, :mod:`hexgames.training`) reads a
position exactly as the vector environments write it: float32 planes
``(planes, W, W)``, the hex-hex board of side ``s`` in its ``W = 2s - 1`` axial grid
(cells off the board are zero in every plane). Layers, by their names in the weights:

* ``stem``: a 3x3 convolution (zero padding) to ``channels``, ReLU;
* ``blocks.{i}.conv1``, ``blocks.{i}.conv2``: ``blocks`` residual blocks of two 3x3
  convolutions, ``relu(x + conv2(relu(conv1(x))))``;
* policy head: ``policy_conv`` (1x1 to ``policy_channels``), ReLU, ``policy_fc`` (dense
  from the flattened planes, channel-major as torch flattens, to one logit per research
  id);
* value head: the trunk averaged over the grid, ``value_fc1`` (dense to ``value_hidden``),
  ReLU, ``value_fc2`` (dense to 1), tanh: the expected result for the seat to act.

Inference here is float32 im2col + matmul (a 3x3 convolution is one matrix product of
the nine shifted copies of the input), channels last; values below float32's smallest
normal number are flushed to zero after every layer (and in the weights when loaded),
since denormal arithmetic is many times slower on CPUs and changes no decision.

**Weights file** (``.npz``, written atomically by :func:`save_weights`): an entry
``meta``, a JSON text ``{"format": "hexgames-policy-value", "version": 1, "game": ...,
"options": {...rules options...}, "arch": {...}}``, and one array per parameter under
``param/<name>`` with torch's shapes (``weight`` ``(out, in, kh, kw)`` for convolutions,
``(out, in)`` for dense layers; ``bias`` ``(out,)``). :func:`load_network` refuses a
missing, unreadable, foreign, wrong-version or wrong-shape file with
:class:`WeightsError` (a ``ValueError``) naming the file.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

FORMAT = "hexgames-policy-value"
VERSION = 1
_TINY = np.float32(np.finfo(np.float32).tiny)


class WeightsError(ValueError):
    """A weights file that cannot be used: missing, corrupt, of another format or
    version, with wrong shapes, or for another game or board."""


@dataclass(frozen=True)
class Architecture:
    """The net's shape: input planes and grid width, research ids, trunk and heads."""

    planes: int
    width: int
    num_actions: int
    channels: int = 32
    blocks: int = 2
    policy_channels: int = 2
    value_hidden: int = 32

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not isinstance(value, int) or isinstance(value, bool) or value < (
                    0 if name == "blocks" else 1):
                raise ValueError(f"architecture {name} must be a positive integer, got "
                                 f"{value!r}")

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Every parameter's name and torch shape."""
        c, p = self.channels, self.policy_channels
        shapes: dict[str, tuple[int, ...]] = {
            "stem.weight": (c, self.planes, 3, 3), "stem.bias": (c,)}
        for i in range(self.blocks):
            for conv in ("conv1", "conv2"):
                shapes[f"blocks.{i}.{conv}.weight"] = (c, c, 3, 3)
                shapes[f"blocks.{i}.{conv}.bias"] = (c,)
        shapes.update({
            "policy_conv.weight": (p, c, 1, 1), "policy_conv.bias": (p,),
            "policy_fc.weight": (self.num_actions, p * self.width * self.width),
            "policy_fc.bias": (self.num_actions,),
            "value_fc1.weight": (self.value_hidden, c), "value_fc1.bias": (self.value_hidden,),
            "value_fc2.weight": (1, self.value_hidden), "value_fc2.bias": (1,),
        })
        return shapes

    @classmethod
    def for_game(cls, game: Any, rules: Any, **sizes: int) -> Architecture:
        """The architecture whose input and output fit ``game`` with ``rules``."""
        planes, height, width = game.observation_shape(rules)
        if height != width:
            raise ValueError(f"{game.name} observations are not square: {height}x{width}")
        return cls(planes=int(planes), width=int(width),
                   num_actions=int(game.num_distinct_actions(rules)), **sizes)


def _flush(x: np.ndarray) -> np.ndarray:
    """``x`` with denormal float32 values set to zero (in place)."""
    x[np.abs(x) < _TINY] = 0.0
    return x


class PolicyValueNetwork:
    """The net with numpy weights: ``forward(observations) -> (values, logits)``."""

    def __init__(self, arch: Architecture, params: Mapping[str, np.ndarray], *,
                 game: str = "", options: Mapping[str, Any] | None = None) -> None:
        self.arch = arch
        self.game = game
        self.options = dict(options or {})
        self.params = {name: np.asarray(params[name], np.float32) for name in arch.shapes()}
        self._prepare()

    def _prepare(self) -> None:
        """The weights in the layouts the matmuls want (channels last), denormals
        flushed."""
        a, p = self.arch, self.params
        self._convs: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for name in ["stem"] + [f"blocks.{i}.{c}" for i in range(a.blocks)
                                for c in ("conv1", "conv2")]:
            weight = p[f"{name}.weight"]  # (out, in, 3, 3) -> (3 * 3 * in, out)
            matrix = weight.transpose(2, 3, 1, 0).reshape(-1, weight.shape[0])
            self._convs[name] = (_flush(np.ascontiguousarray(matrix)),
                                 _flush(p[f"{name}.bias"].copy()))
        self._policy_conv = (_flush(np.ascontiguousarray(p["policy_conv.weight"][:, :, 0, 0].T)),
                             _flush(p["policy_conv.bias"].copy()))
        planes = p["policy_fc.weight"].reshape(a.num_actions, a.policy_channels, a.width,
                                               a.width)
        fc = planes.transpose(0, 2, 3, 1).reshape(a.num_actions, -1)  # to channels last
        self._policy_fc = (_flush(np.ascontiguousarray(fc.T)), _flush(p["policy_fc.bias"].copy()))
        self._value = [(_flush(np.ascontiguousarray(p[f"value_fc{k}.weight"].T)),
                        _flush(p[f"value_fc{k}.bias"].copy())) for k in (1, 2)]

    def forward(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(values (B,), logits (B, num_actions))``, float32, for observations
        ``(B, planes, W, W)``."""
        a = self.arch
        obs = np.asarray(observations, np.float32)
        if obs.ndim != 4 or obs.shape[1:] != (a.planes, a.width, a.width):
            raise ValueError(f"observations must have shape (B, {a.planes}, {a.width}, "
                             f"{a.width}), got {obs.shape}")
        x: np.ndarray = np.ascontiguousarray(obs.transpose(0, 2, 3, 1))
        x = np.maximum(self._conv3("stem", x), 0.0)
        for i in range(a.blocks):
            y = np.maximum(self._conv3(f"blocks.{i}.conv1", x), 0.0)
            x = np.maximum(x + self._conv3(f"blocks.{i}.conv2", y), 0.0)
        batch = x.shape[0]
        weight, bias = self._policy_conv
        p = _flush(np.maximum(x.reshape(-1, a.channels) @ weight + bias, 0.0))
        weight, bias = self._policy_fc
        logits = _flush(p.reshape(batch, -1) @ weight + bias)
        (w1, b1), (w2, b2) = self._value
        pooled = x.reshape(batch, -1, a.channels).mean(axis=1, dtype=np.float32)
        hidden = _flush(np.maximum(pooled @ w1 + b1, 0.0))
        values = np.tanh(hidden @ w2 + b2)[:, 0]
        return _flush(values), logits

    def _conv3(self, name: str, x: np.ndarray) -> np.ndarray:
        weight, bias = self._convs[name]
        batch, height, width, channels = x.shape
        padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        columns = np.concatenate([padded[:, dy:dy + height, dx:dx + width, :]
                                  for dy in range(3) for dx in range(3)], axis=-1)
        out = columns.reshape(-1, 9 * channels) @ weight + bias
        return _flush(out.reshape(batch, height, width, -1))

    def check_game(self, game: Any, rules: Any, source: str = "the network") -> None:
        """``WeightsError`` unless the net was trained for ``game`` with a board and
        action space that fit ``rules``."""
        if self.game and self.game != game.name:
            raise WeightsError(f"{source} is for {self.game}, not {game.name}")
        fits = Architecture.for_game(game, rules)
        mine = (self.arch.planes, self.arch.width, self.arch.num_actions)
        theirs = (fits.planes, fits.width, fits.num_actions)
        if mine != theirs:
            raise WeightsError(
                f"{source} reads (planes, width, actions) {mine}, but {game.name} with "
                f"{game.rules_options(rules)} has {theirs}")


class NetworkEvaluator:
    """An :class:`~hexgames.ai.evaluator.Evaluator` answering with a
    :class:`PolicyValueNetwork`: ``(values, logits)``. It plugs into
    ``MCTSPlayer(game, evaluator=...)`` (which reads the logits' order) and into the
    PUCT search of :mod:`hexgames.ai.puct` (which reads them as logits)."""

    def __init__(self, network: PolicyValueNetwork) -> None:
        self.network = network

    def __call__(self, observations: np.ndarray, masks: np.ndarray,
                 seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.network.forward(observations)


def save_weights(path: str | Path, network: PolicyValueNetwork) -> None:
    """Write ``network`` to ``path`` (the format in the module docstring), atomically."""
    meta = {"format": FORMAT, "version": VERSION, "game": network.game,
            "options": network.options, "arch": asdict(network.arch)}
    arrays = {f"param/{name}": value for name, value in network.params.items()}

    def write(stream: IO[bytes]) -> None:
        arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
        np.savez(stream, **arrays)  # type: ignore[arg-type]

    atomic_write(path, write)


def atomic_write(path: str | Path, write: Callable[[IO[bytes]], object]) -> None:
    """Write a file so that ``path`` is always either the old file or the whole new
    one: into a temporary file beside it, flushed to disk (fsync), then renamed over it
    (and the directory synced). A crash, a SIGKILL or a full disk leaves at worst a
    stray temporary file, never a truncated ``path``."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                         dir=target.parent)
    try:
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide the file from others
        with os.fdopen(handle, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    directory = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def load_network(path: str | Path, game: Any = None, rules: Any = None) -> PolicyValueNetwork:
    """The net in the weights file ``path``; with ``game`` and ``rules``, checked to fit
    them. ``WeightsError`` (naming the file) for anything wrong."""
    where = f"weights file {str(path)!r}"
    try:
        with np.load(path, allow_pickle=False) as data:
            entries = {name: np.array(data[name]) for name in data.files}
    except FileNotFoundError:
        raise WeightsError(f"{where} does not exist") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise WeightsError(f"{where} is not a readable .npz file ({error})") from None
    meta = _meta(entries, where)
    try:
        arch = Architecture(**meta["arch"])
    except (TypeError, ValueError) as error:
        raise WeightsError(f"{where} has a bad architecture: {error}") from None
    params = {}
    for name, shape in arch.shapes().items():
        key = f"param/{name}"
        if key not in entries:
            raise WeightsError(f"{where} lacks the parameter {name}")
        value = entries[key]
        if value.shape != shape:
            raise WeightsError(f"{where}: parameter {name} has shape {value.shape}, its "
                               f"architecture needs {shape}")
        if not np.issubdtype(value.dtype, np.floating) or not np.isfinite(value).all():
            raise WeightsError(f"{where}: parameter {name} is not all finite numbers")
        params[name] = value
    options = meta.get("options") or {}
    if not isinstance(options, dict):
        raise WeightsError(f"{where} has bad options: {options!r}")
    network = PolicyValueNetwork(arch, params, game=str(meta.get("game") or ""),
                                 options=options)
    if game is not None:
        network.check_game(game, rules if rules is not None else game.rules(), where)
    return network


def _meta(entries: Mapping[str, np.ndarray], where: str) -> dict[str, Any]:
    if "meta" not in entries:
        raise WeightsError(f"{where} is not a hexgames weights file (no meta entry)")
    try:
        meta = json.loads(str(entries["meta"]))
    except ValueError:
        raise WeightsError(f"{where} has an unreadable meta entry") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise WeightsError(f"{where} is not a hexgames weights file (format "
                           f"{meta.get('format') if isinstance(meta, dict) else meta!r})")
    if meta.get("version") != VERSION:
        raise WeightsError(f"{where} has format version {meta.get('version')!r}; this "
                           f"hexgames reads version {VERSION}")
    if not isinstance(meta.get("arch"), dict):
        raise WeightsError(f"{where} has no architecture")
    return meta


def load_evaluator(path: str | Path, game: Any = None, rules: Any = None) -> NetworkEvaluator:
    """A :class:`NetworkEvaluator` for the weights file ``path`` (see
    :func:`load_network`)."""
    return NetworkEvaluator(load_network(path, game, rules))


def random_network(arch: Architecture, seed: int = 0, scale: float = 0.3, *,
                   game: str = "", options: Mapping[str, Any] | None = None
                   ) -> PolicyValueNetwork:
    """A net with random weights (for tests and a first self-play generation)."""
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in arch.shapes().items():
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        params[name] = (rng.standard_normal(shape) * scale / np.sqrt(fan_in)).astype(np.float32)
    return PolicyValueNetwork(arch, params, game=game, options=options)


__all__ = ["FORMAT", "VERSION", "Architecture", "NetworkEvaluator", "PolicyValueNetwork",
           "WeightsError", "atomic_write", "load_evaluator", "load_network", "random_network",
           "save_weights"]
