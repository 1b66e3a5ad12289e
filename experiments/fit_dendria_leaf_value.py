"""Fit the weights of Dendria's leaf value (:mod:`hexgames.dendria.leaf_value`) on random
games, and report how well it predicts their results.

    python experiments/fit_dendria_leaf_value.py --games 6000 --every 15 --seed 1 \\
        --plot leaf-value.png

Plays ``--games`` random games per board side (one compiled call each), keeps every
``--every``-th position with the result of its game, fits the logistic model on 80% of
the games and reports the held-out log loss (0.693 is a coin's) of three models, by
board side and by game stage: a constant, the score alone, and the whole model. Prints
the weights as the Python line to paste into ``leaf_value.WEIGHTS``; ``--plot`` saves a
calibration plot (predicted against observed result, by tenth).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from hexgames.dendria import leaf_value
from hexgames.dendria.rules import Rules


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=6000, help="random games per side")
    parser.add_argument("--every", type=int, default=15,
                        help="keep every N-th position of a game (default 15)")
    parser.add_argument("--sides", default="5,6,7,8,9",
                        help="board sides to play, comma-separated (default 5,6,7,8,9)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ridge", type=float, default=1e-3, help="ridge penalty")
    parser.add_argument("--plot", type=Path, help="save a calibration plot (PNG) here")
    args = parser.parse_args(argv)
    if args.games < 5 or args.every < 1:
        parser.error("--games must be at least 5 and --every at least 1")
    try:
        args.sides = [int(s) for s in args.sides.split(",")]
        for side in args.sides:
            Rules(board_side=side)
    except ValueError as error:
        parser.error(f"--sides: {error}")
    return args


def main(argv: list[str] | None = None) -> int:
    from rich.progress import Progress

    args = parse_args(argv)
    parts = []
    with Progress(transient=True) as progress:
        task = progress.add_task("random games", total=len(args.sides))
        for k, side in enumerate(args.sides):
            progress.update(task, description=f"random games, side {side}")
            X, y, steps, game = leaf_value.training_data(
                Rules(board_side=side), args.games, seed=args.seed * 1000 + k,
                every=args.every)
            parts.append((side, X, y, steps, game))
            progress.advance(task)
    train = [p[4] % 5 != 0 for p in parts]  # every fifth game held out
    X_train = np.concatenate([p[1][t] for p, t in zip(parts, train, strict=True)])
    y_train = np.concatenate([p[2][t] for p, t in zip(parts, train, strict=True)])
    full = leaf_value.fit(X_train, y_train, ridge=args.ridge)
    constant = [leaf_value.NUM_FEATURES - 1]
    score_only = [0, leaf_value.NUM_FEATURES - 1]
    small = {name: leaf_value.fit(X_train[:, cols], y_train, ridge=args.ridge)
             for name, cols in (("constant", constant), ("score", score_only))}

    def losses(X: np.ndarray, y: np.ndarray) -> str:
        return (f"{leaf_value.log_loss(X[:, constant], y, small['constant']):8.4f}"
                f"{leaf_value.log_loss(X[:, score_only], y, small['score']):8.4f}"
                f"{leaf_value.log_loss(X, y, full):8.4f}")

    print(f"{sum(len(p[1]) for p in parts)} positions of "
          f"{args.games * len(args.sides)} random games; held-out log loss:")
    print(f"{'':24}{'const':>8}{'score':>8}{'model':>8}")
    held = [(p, ~t) for p, t in zip(parts, train, strict=True)]
    for (side, X, y, steps, _), t in held:
        print(f"{'side ' + str(side):24}{losses(X[t], y[t])}")
        for lo, hi in ((0, 100), (100, 200), (200, 400), (400, 100_000)):
            sel = t & (steps >= lo) & (steps < hi)
            if sel.sum() >= 50:
                label = f"  steps {lo}-{hi - 1 if hi < 100_000 else ''}"
                print(f"{label:24}{losses(X[sel], y[sel])}")
    print("\nWEIGHTS = np.array([" + ", ".join(f"{w:.5f}" for w in full) + "])")
    for name, w in zip(leaf_value.feature_labels(), full, strict=True):
        print(f"  {name:24}{w:+.4f}")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        X_test = np.concatenate([p[1][t] for p, t in held])
        y_test = np.concatenate([p[2][t] for p, t in held])
        predicted = np.tanh(0.5 * (X_test @ full))
        edges = np.quantile(predicted, np.linspace(0, 1, 11))
        bins = np.clip(np.searchsorted(edges, predicted, side="right") - 1, 0, 9)
        xs = [predicted[bins == b].mean() for b in range(10) if (bins == b).any()]
        ys = [y_test[bins == b].mean() for b in range(10) if (bins == b).any()]
        fig, ax = plt.subplots(figsize=(5, 5))
        ax.plot([-1, 1], [-1, 1], color="grey", linestyle=":")
        ax.plot(xs, ys, marker="o")
        ax.set_xlabel("predicted result for Dark (tenths of held-out positions)")
        ax.set_ylabel("mean result of their random games")
        ax.set_title("Dendria leaf value: calibration")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"calibration plot: {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
