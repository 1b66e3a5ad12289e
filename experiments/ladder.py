"""The strength ladder of the AI levels: Elo with 95% intervals and time per action.

Plays pairs of players (by default each level against the next one and the one after,
``--reach 2``), seats alternating, on ``--jobs`` processes, appending one JSON line per
finished game to ``OUT/games.jsonl`` (a re-run with the same ``--out`` skips the games
already there, so an interrupted run resumes). Then fits Elo ratings with
:func:`hexgames.arena.tournament.elo.fit` and writes ``OUT/ladder.md``: per player its rating,
score, and the mean wall-clock and CPU time per action it chose.

    python experiments/ladder.py benediction --players random,L1,L2,L3,L4,L5 --games 20 \\
        --jobs 2 --out /tmp/ladder/benediction
    python experiments/ladder.py benediction --out /tmp/ladder/benediction --report-only
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from hexgames.ai.levels import from_spec
from hexgames.arena.match import play_game
from hexgames.arena.tournament.elo import Game1v1, fit
from hexgames.game import get_game, parse_settings
from mcts_variants import MCTSVariant

_EXPERIMENT = re.compile(r"(tb|pd|ft|kp)(\d+)@(\d+)")
_OPTION = {"tb": "tactics_budget", "pd": "playout_depth", "ft": "finish_turn"}


def make_player(game: Any, spec: str, seed: int) -> Any:
    """A player of the arena's spec language, or an experiment's MCTS with IT iterations
    and one setting changed: ``tbN@IT`` a tactical budget of N positions (how level 2 was
    chosen), ``pdN@IT`` playouts of N random actions before the heuristic, ``ft1@IT``
    playouts that finish the turn before the heuristic (``ft0@IT``: they do not),
    ``kpN@IT`` no heuristic: N whole random games per leaf in the compiled kernel."""
    experiment = _EXPERIMENT.fullmatch(spec)
    if experiment and experiment.group(1) == "kp":
        _, value, iterations = experiment.groups()
        return MCTSVariant(game, iterations=int(iterations), seed=seed, name=spec,
                           use_heuristic=False, kernel_playouts=int(value))
    if experiment:
        option, value, iterations = experiment.groups()
        heuristic = {"use_heuristic": True} if option in ("pd", "ft") else {}
        return MCTSVariant(game, iterations=int(iterations), seed=seed, name=spec, **heuristic,
                           **{_OPTION[option]: (bool if option == "ft" else int)(int(value))})
    return from_spec(game, spec, seed=seed)


def schedule(specs: list[str], games: int, reach: int, seed: int) -> list[dict[str, Any]]:
    pairs = [(a, b) for (i, a), (j, b) in itertools.combinations(enumerate(specs), 2)
             if j - i <= reach]
    tasks = []
    for round_number in range(games):
        for a, b in pairs:
            seats = [a, b] if round_number % 2 == 0 else [b, a]
            index = len(tasks)
            tasks.append({"index": index, "specs": seats, "seed": seed * 1_000_003 + index})
    return tasks


def play(game_name: str, options: dict[str, Any], task: dict[str, Any]) -> dict[str, Any]:
    """One game; each player's ``choose`` is timed (wall clock and process CPU)."""
    game = get_game(game_name)
    rules = game.make_rules(**options)
    timing = [[0.0, 0.0, 0], [0.0, 0.0, 0]]
    players = []
    for seat, spec in enumerate(task["specs"]):
        player = make_player(game, spec, seed=task["seed"] * 2 + seat)
        player.name = spec
        choose = player.choose

        def timed(position: Any, choose: Any = choose, seat: int = seat) -> Any:
            wall, cpu = time.perf_counter(), time.process_time()
            action = choose(position)
            timing[seat][0] += time.perf_counter() - wall
            timing[seat][1] += time.process_time() - cpu
            timing[seat][2] += 1
            return action

        player.choose = timed  # type: ignore[method-assign]
        players.append(player)
    result = play_game(game, rules, players, index=task["index"],
                       max_actions=game.max_game_length(rules))
    return {**task, "returns": list(result.returns), "turns": result.turns,
            "actions": result.actions, "end": result.end_reason, "timing": timing}


def report(specs: list[str], rows: list[dict[str, Any]], title: str) -> str:
    games = [Game1v1(r["specs"][0], r["specs"][1], (r["returns"][0] + 1) / 2) for r in rows]
    present = [s for s in specs if any(s in r["specs"] for r in rows)]
    ratings = fit(games, present)
    lines = [f"# {title}", "", f"{len(rows)} games.", "",
             "| player | Elo (95%) | games | score | s/action (wall) | s/action (CPU) |",
             "|---|---:|---:|---:|---:|---:|"]
    for spec in present:
        mine = [(r, r["specs"].index(spec)) for r in rows if spec in r["specs"]]
        score = sum((r["returns"][s] + 1) / 2 for r, s in mine)
        wall = sum(r["timing"][s][0] for r, s in mine)
        cpu = sum(r["timing"][s][1] for r, s in mine)
        count = sum(r["timing"][s][2] for r, s in mine) or 1
        rating = ratings.of(spec)
        lines.append(f"| {spec} | {rating.elo:+.0f} +- {rating.margin:.0f} | {len(mine)} | "
                     f"{score:g} ({100 * score / len(mine):.0f}%) | {wall / count:.3f} | "
                     f"{cpu / count:.3f} |")
    lines += ["", f"First-move advantage: {ratings.first_move:+.0f} +- "
              f"{ratings.first_move_margin:.0f} Elo.", "", "Head to head (row's score):", "",
              "| pair | games | score of first | Elo difference |", "|---|---:|---:|---:|"]
    for a, b in itertools.combinations(present, 2):
        met = [r for r in rows if set(r["specs"]) == {a, b}]
        if not met:
            continue
        score = sum((r["returns"][r["specs"].index(a)] + 1) / 2 for r in met)
        diff = ratings.of(a).elo - ratings.of(b).elo
        lines.append(f"| {a} vs {b} | {len(met)} | {score:g} | {diff:+.0f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--players", default="random,L1,L2,L3,L4,L5")
    parser.add_argument("--games", type=int, default=20, help="games per pair")
    parser.add_argument("--reach", type=int, default=2,
                        help="each player meets the next REACH players of the list")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    game = get_game(args.game)
    options: dict[str, Any] = dict(parse_settings(game, args.set))
    specs = [s.strip() for s in args.players.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    log = args.out / "games.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    done = {r["index"] for r in rows}
    if not args.report_only:
        tasks = [t for t in schedule(specs, args.games, args.reach, args.seed)
                 if t["index"] not in done]
        started = time.perf_counter()
        with ProcessPoolExecutor(args.jobs) as pool, log.open("a") as out:
            running = {pool.submit(play, args.game, options, t) for t in tasks}
            while running:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    row = future.result()
                    rows.append(row)
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    print(f"{len(rows)} games, {time.perf_counter() - started:.0f} s: "
                          f"{row['specs']} {row['returns']}", flush=True)
    text = report(specs, rows, f"Ladder: {args.game} {options or ''}".strip())
    (args.out / "ladder.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
