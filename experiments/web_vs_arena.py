"""A level through the web service's AI path against the same level as the arena plays it.

The web side is the real :class:`hexgames.web.engine.workers.AiWorkers` (worker process,
per-game session, process boundary; the service's call with the game's id), the arena
side an in-process player from :func:`hexgames.ai.levels.from_spec`, as ``hexgames
arena`` builds it. Seats alternate (even games: web in seat 0). ``--path old`` plays the
web path as it was before sessions (a new player per action, a continuation's budget
halved all the same). One JSON line per game goes to ``OUT`` (``--shard I/N`` plays every
N-th game, so N processes can share the work and the file; a re-run skips games already
there). ``--report`` prints the web side's score and Elo difference with 95% intervals.

    python experiments/web_vs_arena.py benediction --games 100 --path session --shard 0/2 \\
        --out /tmp/web-vs-arena/benediction-session.jsonl
    python experiments/web_vs_arena.py benediction --out ... --report
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from hexgames.ai.levels import from_spec
from hexgames.arena.tournament.elo import Game1v1, fit
from hexgames.game import get_game, parse_settings
from hexgames.web.engine.workers import AiWorkers
from mcts_variants import choose_as_before_sessions


async def play(workers: AiWorkers, game_name: str, options: dict[str, Any], level: int,
               index: int, seed: int, path: str = "session") -> dict[str, Any]:
    game = get_game(game_name)
    rules = game.make_rules(**options)
    position = game.new_position(rules)
    web_seat = index % 2
    arena = from_spec(game, f"L{level}", seed=seed * 2 + 1 - web_seat)
    actions: list[str] = []
    sessions: Counter[str] = Counter()
    reused = searched = 0
    cap = game.max_game_length(rules)
    started = time.perf_counter()
    while not position.is_over and len(actions) < cap:
        if position.current_seat == web_seat and path == "old":
            # a new player per action in a worker, its continuation budget cut all the same
            action = await workers.run(choose_as_before_sessions, game_name, options,
                                       list(actions), level, seed * 2 + web_seat, level=level)
            sessions["None"] += 1
        elif position.current_seat == web_seat:
            answer = await workers.search(game_name, options, actions, level,
                                          seed=seed * 2 + web_seat, game_id=f"game{index}")
            action: Any = answer.action
            sessions[str(answer.info.get("session"))] += 1
            if answer.info.get("session") is not None and not position.is_turn_start():
                searched += 1
                reused += answer.info.get("reused", 0) > 0
        else:
            action = arena.choose(position)
        position.play(action)
        actions.append(str(action))
    outcome = position.outcome()
    returns = list(outcome.returns()) if outcome is not None else [0.0, 0.0]
    return {"index": index, "web_seat": web_seat, "returns": returns, "actions": len(actions),
            "end": outcome.termination.value if outcome is not None else "capped",
            "sessions": dict(sessions), "continuations": searched,
            "continuations_reused": reused, "seconds": time.perf_counter() - started}


async def run(args: argparse.Namespace, options: dict[str, Any], done: set[int]) -> None:
    shard, shards = (int(x) for x in args.shard.split("/"))
    workers = AiWorkers(processes=1)
    try:
        with args.out.open("a") as out:
            for index in range(shard, args.games, shards):
                if index in done:
                    continue
                row = await play(workers, args.game, options, args.level, index,
                                 args.seed * 1_000_003 + index, args.path)
                row["path"] = args.path
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(f"game {index}: web seat {row['web_seat']} returns {row['returns']} "
                      f"({row['actions']} actions, {row['seconds']:.0f} s)", flush=True)
    finally:
        workers.shutdown()


def report(rows: list[dict[str, Any]], level: int) -> str:
    web, arena = f"web-L{level}", f"arena-L{level}"
    scores = [(r["returns"][r["web_seat"]] + 1) / 2 for r in rows]
    n = len(scores)
    mean = sum(scores) / n
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / max(1, n - 1))
    games = [Game1v1(web if r["web_seat"] == 0 else arena, arena if r["web_seat"] == 0 else web,
                     (r["returns"][0] + 1) / 2) for r in rows]
    ratings = fit(games, [web, arena])
    wins = sum(s == 1 for s in scores)
    draws = sum(s == 0.5 for s in scores)
    reused = sum(r["continuations_reused"] for r in rows)
    continuations = sum(r["continuations"] for r in rows)
    kinds: Counter[str] = Counter()
    for r in rows:
        kinds.update(r["sessions"])
    diff = ratings.of(web).elo - ratings.of(arena).elo
    return (f"{rows[0]['path']} path: {n} games, web {wins} wins, {draws} draws, "
            f"{n - wins - draws} losses; score {100 * mean:.1f}% +- {196 * sd / math.sqrt(n):.1f}"
            f" (95%); Elo web - arena {diff:+.0f} +- {2 * ratings.of(web).margin:.0f}; "
            f"first move {ratings.first_move:+.0f} +- {ratings.first_move_margin:.0f}; "
            f"web searches by session state {dict(kinds)}; continuations that reused a tree "
            f"{reused}/{continuations}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--level", type=int, default=3)
    parser.add_argument("--path", choices=["session", "old"], default="session")
    parser.add_argument("--shard", default="0/1", help="I/N: play games I, I+N, ...")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args(argv)
    options = dict(parse_settings(get_game(args.game), args.set))
    rows = ([json.loads(line) for line in args.out.read_text().splitlines()]
            if args.out.exists() else [])
    if args.report:
        print(report(rows, args.level) if rows else "no games yet")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    asyncio.run(run(args, options, {r["index"] for r in rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
