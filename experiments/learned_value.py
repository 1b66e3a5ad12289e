"""Train a small value function on vector-environment self-play, and play it in the arena
inside MCTSPlayer(evaluator=...): the worked example of docs/ai.md, "Learned evaluators".

    python experiments/learned_value.py          # Dendria side 5: 15,000 games, an MLP
    PYTHONPATH=experiments hexgames arena dendria --set board_side=5 \\
        --players learned_value:player,L3 --games 50 --jobs 2

Plays ``--games`` uniformly random games on the functional (pgx-style) environment in
the player-relative view (each position seen from its player to act), keeps
``--per-game`` positions of each with the final result for that player (+1 won, -1
lost, 0 draw), fits a value on four games in five (``--model mlp``, the default: one
hidden layer in torch, the ``train`` extra, its weights exported to numpy; ``--model
logistic``: numpy logistic regression on the planes), reports the held-out log loss
(0.693 is a coin's) and saves the weights as float16 (``--out``, default
``experiments/data/learned-value/GAME.npz``).

:func:`player` is the arena's player factory (``learned_value:player``): an
``MCTSPlayer`` with level 3's budget (120 iterations) whose leaves are valued by the
saved model, 4 at a time (``LEARNED_VALUE_MODEL`` names another file,
``LEARNED_VALUE_ITERATIONS`` another budget, ``LEARNED_VALUE_BATCH`` another K). Playing
needs numpy only.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from hexgames.ai.mcts import MCTSPlayer  # noqa: E402
from hexgames.game import Game, ViewSpec, get_game, parse_settings  # noqa: E402

DATA = ROOT / "experiments" / "data" / "learned-value"


# ----------------------------------------------------------------------------- the model
def relative(observations: np.ndarray, spec: ViewSpec) -> np.ndarray:
    """The absolute planes the search gives (``(B, C, W, W)``) in the player-relative view
    the model was trained on: where the player to act plays the second colour, its
    colour pairs exchanged, "first colour to move" made "observer to move" and, for a
    board that is not the same for both colours, the board turned half a turn (as the
    functional environment's ``player_relative=True``)."""
    out = observations.copy()
    on_board = observations[:, spec.on_board]
    second = ~(observations[:, spec.first_to_move] > 0).any(axis=(1, 2))
    if not second.any():
        return out
    flipped = out[second]
    for first, other in spec.color_pairs:
        flipped[:, [first, other]] = flipped[:, [other, first]]
    flipped[:, spec.first_to_move] = on_board[second] - flipped[:, spec.first_to_move]
    if spec.rotate:
        flipped = flipped[:, :, ::-1, ::-1]
    out[second] = flipped
    return out


class Value:
    """The saved model as a numpy function of flattened relative planes: logistic
    (``w``, ``b``) or one hidden layer (``w1``, ``b1``, ``w2``, ``b2``)."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self.w = {name: np.asarray(array, np.float32) for name, array in weights.items()}

    def logit(self, x: np.ndarray) -> np.ndarray:
        w = self.w
        if "w1" in w:
            hidden = np.maximum(x @ w["w1"] + w["b1"], 0.0)  # ReLU
            return hidden @ w["w2"] + w["b2"]
        return x @ w["w"] + w["b"]


class LearnedEvaluator:
    """The evaluator ``MCTSPlayer`` calls: the leaves' planes made relative, the model's
    win probability ``p`` for the player to act, value ``2p - 1``."""

    def __init__(self, path: Path, game: Game) -> None:
        with np.load(path) as saved:
            self.shape = tuple(int(x) for x in saved["shape"])
            self.game = str(saved["game"])
            self.value = Value({k: saved[k] for k in saved.files
                                if k not in ("shape", "game", "options")})
        if self.game != game.name:
            raise ValueError(f"{path} is a model of {self.game}, not of {game.name}")
        assert game.view_spec is not None
        self.spec = game.view_spec

    def __call__(self, observations: np.ndarray, masks: np.ndarray,
                 seats: np.ndarray) -> np.ndarray:
        if observations.shape[1:] != self.shape:
            raise ValueError(f"the model was trained on planes {self.shape}, the leaves are "
                             f"{observations.shape[1:]}: another board side?")
        x = relative(observations, self.spec).reshape(len(observations), -1)
        p = 1.0 / (1.0 + np.exp(-self.value.logit(x)))
        return 2.0 * p - 1.0


def player(game: Game, seed: int | None) -> MCTSPlayer:
    """The arena's factory (``--players learned_value:player``)."""
    path = Path(os.environ.get("LEARNED_VALUE_MODEL", DATA / f"{game.name}.npz"))
    iterations = int(os.environ.get("LEARNED_VALUE_ITERATIONS", "120"))
    batch = int(os.environ.get("LEARNED_VALUE_BATCH", "4"))
    return MCTSPlayer(game, iterations=iterations, seed=seed,
                      evaluator=LearnedEvaluator(path, game), evaluator_batch=batch)


# ------------------------------------------------------------------------------ data
def self_play(game: str, options: dict[str, Any], games: int, per_game: int, batch: int,
              seed: int, progress: Any, task: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(planes, results, game numbers)``: ``per_game`` random positions of each of
    ``games`` random games (player-relative planes, float16), with the result of the
    game for the player to act there (a game cut at the length bound: 0)."""
    from hexgames.integrations.functional import make

    env = make(game, player_relative=True, **options)
    rng = np.random.default_rng(seed)
    state = env.init(seed * 1_000_000 + np.arange(batch))
    playing: list[list[tuple[np.ndarray, int]]] = [[] for _ in range(batch)]
    planes: list[np.ndarray] = []
    results: list[float] = []
    numbers: list[int] = []
    finished = 0
    while finished < games:
        for b in range(batch):
            playing[b].append((state.observation[b].astype(np.float16),
                               int(state.current_player[b])))
        env.step(state, env.random_actions(state), inplace=True)
        ended = np.flatnonzero(state.terminated | state.truncated)
        for b in ended:
            number = finished
            finished += 1
            chosen = rng.choice(len(playing[b]), min(per_game, len(playing[b])), replace=False)
            for k in chosen:
                observation, seat = playing[b][k]
                planes.append(observation)
                results.append(float(state.rewards[b, seat]) if state.terminated[b] else 0.0)
                numbers.append(number)
            playing[b] = []
            progress.update(task, completed=min(finished, games))
        if len(ended):
            env.reset(state, ended, inplace=True)
    number_of = np.array(numbers)
    kept = number_of < games
    return np.stack(planes)[kept], np.array(results, np.float32)[kept], number_of[kept]


# ----------------------------------------------------------------------------- fitting
def log_loss(logit: np.ndarray, y: np.ndarray) -> float:
    """Mean log loss of win probabilities ``sigmoid(logit)`` for targets in [0, 1]."""
    return float(np.mean(np.logaddexp(0.0, logit) - y * logit))


def fit_logistic(x: np.ndarray, y: np.ndarray, epochs: int, ridge: float, seed: int,
                 progress: Any, task: Any) -> dict[str, np.ndarray]:
    """Logistic regression by minibatch Adam (numpy)."""
    rng = np.random.default_rng(seed)
    w = np.zeros(x.shape[1], np.float32)
    b = np.zeros(1, np.float32)
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    step = 0
    for _ in range(epochs):
        for batch in np.array_split(rng.permutation(len(y)), max(1, len(y) // 512)):
            xb = x[batch].astype(np.float32)
            p = 1.0 / (1.0 + np.exp(-(xb @ w + b)))
            g = p - y[batch]
            grads = [xb.T @ g / len(batch) + ridge * w, np.array([g.mean()], np.float32)]
            step += 1
            for k, (param, grad) in enumerate(zip((w, b), grads, strict=True)):
                m[k] = 0.9 * m[k] + 0.1 * grad
                v[k] = 0.999 * v[k] + 0.001 * grad * grad
                param -= 0.01 * (m[k] / (1 - 0.9**step)) / (
                    np.sqrt(v[k] / (1 - 0.999**step)) + 1e-8)
        progress.advance(task)
    return {"w": w, "b": b}


def fit_mlp(x: np.ndarray, y: np.ndarray, epochs: int, ridge: float, seed: int,
            progress: Any, task: Any, hidden: int = 64) -> dict[str, np.ndarray]:
    """One hidden layer (ReLU) in torch, exported as numpy weights."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(max(1, (os.cpu_count() or 2) // 2))
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden), torch.nn.ReLU(),
                              torch.nn.Linear(hidden, 1))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=ridge)
    xt = torch.from_numpy(x.astype(np.float32))
    yt = torch.from_numpy(y.astype(np.float32))
    loss = torch.nn.BCEWithLogitsLoss()
    generator = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        for batch in torch.randperm(len(yt), generator=generator).split(256):
            opt.zero_grad()
            out = loss(net(xt[batch])[:, 0], yt[batch])
            out.backward()
            opt.step()
        progress.advance(task)
    first, last = net[0], net[2]
    return {"w1": first.weight.detach().numpy().T.copy(), "b1": first.bias.detach().numpy(),
            "w2": last.weight.detach().numpy()[0].copy(), "b2": last.bias.detach().numpy()}


# ------------------------------------------------------------------------------- main
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--game", default="dendria", choices=("benediction", "dendria"))
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                        help="a rules option (repeatable; default board_side=5)")
    parser.add_argument("--games", type=int, default=15000,
                        help="random games to learn from (default 15000)")
    parser.add_argument("--per-game", type=int, default=8,
                        help="positions kept per game (default 8)")
    parser.add_argument("--batch", type=int, default=256, help="games stepped together")
    parser.add_argument("--model", choices=("logistic", "mlp"), default="mlp",
                        help="mlp (default; needs torch: the train extra) or logistic (numpy)")
    parser.add_argument("--hidden", type=int, default=128, help="units of --model mlp")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--ridge", type=float, default=1e-4, help="L2 penalty")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="the model file (default "
                        "experiments/data/learned-value/GAME.npz)")
    args = parser.parse_args(argv)
    if args.games < 10 or min(args.per_game, args.batch, args.epochs, args.hidden) < 1:
        parser.error("--games must be at least 10; --per-game, --batch, --epochs, --hidden "
                     "at least 1")
    if args.model == "mlp" and importlib.util.find_spec("torch") is None:
        parser.error("--model mlp needs torch (pip install 'hexgames[train]'); or use "
                     "--model logistic")
    try:
        args.options = dict(parse_settings(get_game(args.game), args.set or ["board_side=5"]))
    except ValueError as error:
        parser.error(str(error))
    return args


def main(argv: list[str] | None = None) -> int:
    from rich.progress import Progress

    args = parse_args(argv)
    out = args.out or DATA / f"{args.game}.npz"
    started, cpu = time.perf_counter(), time.process_time()
    with Progress() as progress:
        task = progress.add_task("random self-play", total=args.games)
        x, results, numbers = self_play(args.game, args.options, args.games, args.per_game,
                                        args.batch, args.seed, progress, task)
        played = time.perf_counter() - started
        shape = x.shape[1:]
        x = x.reshape(len(x), -1)
        y = (results + 1.0) / 2.0  # the player to act's win, a draw counting half
        test = numbers % 5 == 0  # one game in five held out
        task = progress.add_task(f"fitting ({args.model})", total=args.epochs)
        if args.model == "mlp":
            weights = fit_mlp(x[~test], y[~test], args.epochs, args.ridge, args.seed,
                              progress, task, args.hidden)
        else:
            weights = fit_logistic(x[~test], y[~test], args.epochs, args.ridge, args.seed,
                                   progress, task)
    weights = {name: array.astype(np.float16) for name, array in weights.items()}  # saved so
    value = Value(weights)
    held = log_loss(value.logit(x[test].astype(np.float32)), y[test])
    base = float(np.clip(y[~test].mean(), 1e-6, 1 - 1e-6))
    constant = log_loss(np.full(test.sum(), np.log(base / (1 - base))), y[test])
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, shape=np.array(shape), game=np.array(args.game),
                        options=np.array(repr(args.options)), **weights)
    fitted = time.perf_counter() - started - played
    print(f"{args.game} {args.options}: {len(y)} positions of {args.games} random games "
          f"({played:.0f} s), {args.model} fitted in {fitted:.0f} s; "
          f"{time.process_time() - cpu:.0f} s of CPU in all")
    print(f"held-out log loss {held:.4f} (constant {constant:.4f}, a coin 0.6931) on "
          f"{int(test.sum())} positions; saved {out} ({out.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
