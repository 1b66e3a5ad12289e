"""CPU seconds of the analysis board's engine (:mod:`hexgames.ai.review`) on Dendria.

A seeded random side-7 game is played; then :func:`evaluate` searches 400 iterations
after 30, 60, 90 and 120 of its steps, and :func:`line_values` (one slice of the
evaluation graph) evaluates 20 positions from step 60 at the graph's 60 iterations.
Run it under each version's ``PYTHONPATH`` to compare them:

    PYTHONPATH=src python experiments/analysis_speed.py now
"""

from __future__ import annotations

import argparse
import random
import time

from hexgames.ai.review import evaluate, line_values
from hexgames.game import get_game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("label", nargs="?", default="this version",
                        help="a name for the version measured, printed with the figures")
    parser.add_argument("--seed", type=int, default=5, help="seed of the random game")
    args = parser.parse_args(argv)
    game = get_game("dendria")
    rng = random.Random(args.seed)
    position = game.new()
    actions: list[str] = []
    for _ in range(120):
        action = rng.choice(list(position.legal_actions()))
        actions.append(str(action))
        position.play(action)
    evaluate(game, position.copy(), 20)  # compiled code loaded before timing
    began = time.process_time()
    for steps in (30, 60, 90, 120):
        probe = game.new()
        for action in actions[:steps]:
            probe.play(action)
        evaluate(game, probe, 400, seed=1)
    searches = time.process_time() - began
    began = time.process_time()
    line_values("dendria", {}, None, actions, 60, 20, 60)
    graph = time.process_time() - began
    print(f"{args.label}: evaluate 4 x 400 iterations {searches:.2f} s CPU; "
          f"graph slice 20 positions x 60 iterations {graph:.2f} s CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
