"""MCTS speed and behaviour fingerprint, per game (issue 16, "MCTS on the fast core").

Plays ``--positions`` seeded random openings per game (each stopped at a turn start with
many legal actions), lets an :class:`~hexgames.ai.mcts.MCTSPlayer` (``--iterations``
per action, tactics on, seeded) choose there and go on choosing (for both sides, its
choices played) until it has made two choices that were not forced (the later calls
reuse the tree), and prints per game:

* iterations per second over all the searches (the tactical layer and the first visit
  of the root are inside the timed part, as in play), by the wall clock and per second
  of the process's CPU time (steadier on a busy machine);
* a fingerprint: a hash of the chosen actions, ``last_stats["iterations"]`` and the
  reason of every call. Two versions of the code that search identically print the same
  fingerprint for the same arguments.

With ``--level N`` it measures that level's player instead, as the checkout on
``PYTHONPATH`` defines it (its budget and its leaf values): level 5 of two versions
compares what a user gets from "strongest" in each. ``--python-tree`` runs that level's
iterations in Python where the game offers a compiled tree (the same algorithm; the
choices differ only by the random sequence).

Run: ``PYTHONPATH=src python experiments/mcts_speed.py`` (``--games dendria``,
``--profile`` for a cProfile of the searches, ``--json`` for machine-readable output).
Timing figures depend on the machine's load: compare versions in alternation.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import inspect
import json
import pstats
import random
import sys
import time
from typing import Any

from hexgames.ai.mcts import MCTSPlayer
from hexgames.game import Game, GameState, get_game


def openings(game: Game, count: int, seed: int, min_actions: int = 20) -> list[GameState]:
    """``count`` positions reached by seeded random play from the start: each at a turn
    start, not over, with at least ``min_actions`` legal actions."""
    rng = random.Random(seed)
    found: list[GameState] = []
    while len(found) < count:
        position = game.new()
        plies = rng.randrange(4, 40)
        for _ in range(plies):
            if position.is_over:
                break
            position.play(rng.choice(list(position.legal_actions())))
        # go on to the next turn start
        for _ in range(50):
            if position.is_over or position.is_turn_start():
                break
            position.play(rng.choice(list(position.legal_actions())))
        if (
            not position.is_over
            and position.is_turn_start()
            and len(position.legal_actions()) >= min_actions
        ):
            found.append(position)
    return found


def run_game(
    name: str, positions: int, iterations: int, seed: int, profile: cProfile.Profile | None,
    level: int | None = None, python_tree: bool = False,
) -> dict[str, Any]:
    game = get_game(name)
    starts = openings(game, positions, seed)
    record: list[str] = []
    total_iterations = 0
    seconds = 0.0
    cpu = 0.0
    for k, start in enumerate(starts):
        if level is not None:  # the level as this version defines it (budget included)
            from hexgames.ai.levels import player as level_player

            player: Any = level_player(game, level, seed=seed + k)
            if python_tree and getattr(player, "_tree", None) is not None:
                # the same level with its iterations in Python (as before the compiled tree)
                if "compiled_tree" in inspect.signature(MCTSPlayer).parameters:
                    # a version that kept the knob in the player itself
                    player = MCTSPlayer(game, iterations=player.iterations,
                                        time_limit=player.time_limit, seed=seed + k,
                                        tactics_budget=player.tactics_budget,
                                        use_heuristic=player.use_heuristic,
                                        compiled_tree=False)
                else:
                    from mcts_variants import variant_of

                    player = variant_of(player, compiled_tree=False)
        else:
            player = MCTSPlayer(game, iterations=iterations, seed=seed + k, tactics=True,
                                use_heuristic=True)  # the search measured before the speed-ups
        position = start.copy()
        searched = 0
        while searched < 2 and not position.is_over:
            began = time.perf_counter()
            began_cpu = time.process_time()
            if profile is not None:
                profile.enable()
            action = player.choose(position)
            if profile is not None:
                profile.disable()
            seconds += time.perf_counter() - began
            cpu += time.process_time() - began_cpu
            stats = player.last_stats
            total_iterations += stats["iterations"]
            record.append(f"{k}:{action}:{stats['iterations']}:{stats['reason']}")
            position.play(action)
            if stats["reason"] != "forced":
                searched += 1
    digest = hashlib.sha256("\n".join(record).encode()).hexdigest()[:16]
    return {
        "game": name,
        "positions": positions,
        "iterations_per_action": iterations if level is None else None,
        "level": level,
        "python_tree": python_tree,
        "iterations": total_iterations,
        "seconds": round(seconds, 3),
        "iterations_per_s": round(total_iterations / seconds, 1),
        "cpu_seconds": round(cpu, 3),
        "iterations_per_cpu_s": round(total_iterations / cpu, 1),
        "fingerprint": digest,
        "choices": record,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=["benediction", "dendria"],
                        help="games to measure (default: both)")
    parser.add_argument("--positions", type=int, default=20,
                        help="random openings per game (default 20)")
    parser.add_argument("--iterations", type=int, default=1500,
                        help="MCTS iterations per action (default 1500)")
    parser.add_argument("--level", type=int, default=None,
                        help="measure this level's player as the checkout defines it "
                             "(its own budget and leaf values) instead of --iterations; "
                             "run under another checkout's PYTHONPATH to compare versions")
    parser.add_argument("--python-tree", action="store_true",
                        help="with --level: run that level's iterations in Python even where "
                             "the game offers a compiled tree (the search before it)")
    parser.add_argument("--seed", type=int, default=1, help="seed of openings and players")
    parser.add_argument("--profile", action="store_true",
                        help="print a cProfile of the searches (slower; figures not comparable)")
    parser.add_argument("--choices", action="store_true",
                        help="print every choice (position:action:iterations:reason)")
    parser.add_argument("--json", action="store_true", help="print JSON lines")
    args = parser.parse_args(argv)
    # compile/load the cores before timing
    for name in args.games:
        game = get_game(name)
        # ``Game.kernel``; a version before the typed hooks kept it in ``Game.extras``
        warm = getattr(game, "kernel", None) or game.extras.get("kernel")
        if warm is not None:
            warm().warm_up()
    for name in args.games:
        profile = cProfile.Profile() if args.profile else None
        result = run_game(name, args.positions, args.iterations, args.seed, profile,
                          args.level, args.python_tree)
        if args.json:
            shown = result if args.choices else {k: v for k, v in result.items()
                                                 if k != "choices"}
            print(json.dumps(shown))
        else:
            print(f"{name}: {result['iterations_per_s']:.0f} iterations/s "
                  f"({result['iterations']} in {result['seconds']:.1f} s; "
                  f"{result['iterations_per_cpu_s']:.0f} per CPU second), "
                  f"fingerprint {result['fingerprint']}")
            if args.choices:
                print("\n".join(result["choices"]))
        if profile is not None:
            pstats.Stats(profile, stream=sys.stdout).sort_stats("tottime").print_stats(30)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
