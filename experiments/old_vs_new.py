"""Level 5 of two versions of hexgames, each in its own process, at equal time per action.

Issue 16 asks that the new level 5 beat the level 5 of the code before the compiled cores
"at equal time per action". Two versions of the package cannot share one interpreter, so
each side is an *agent*: this same file run with ``--agent`` under the ``PYTHONPATH`` of
one checkout, speaking JSON lines on stdin/stdout. An agent builds its version's own
level-5 player (``hexgames.ai.levels.player(game, 5)``: every setting as that version
defines level 5, except its budget: a time limit per search set from a clock that gains
``--seconds`` per action, see :func:`agent`) and keeps its own position, so neither side
sees the other's code.

The driver (this file without ``--agent``, under the new code) referees each game with
its own engine, alternates seats (even games: the new version in seat 0), runs ``--jobs``
games at once (each with two agents; only the side to move thinks, so a game uses about
one core) and writes one JSON line per game to ``--out``; a re-run skips games already
there. An action the referee refuses (the two versions' rules disagree) voids the
game: it is written with the position, the action and the side that chose it, is not
scored, and the next index replaces it. ``--report`` prints the new side's score and Elo
difference with 95% intervals.

    git worktree add /tmp/old 7299868      # the last commit before the compiled cores
    python experiments/old_vs_new.py benediction --old /tmp/old/src --seconds 0.25 \\
        --games 100 --jobs 2 --out /tmp/old-vs-new/benediction.jsonl
    python experiments/old_vs_new.py benediction --out /tmp/old-vs-new/benediction.jsonl --report
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
NEW_SOURCE = HERE.parent.parent / "src"


def agent() -> int:
    """Serve one side: ``{"new": ...}``, then ``{"play": text}`` (the opponent's action) or
    ``{"choose": true}`` (choose, play and answer an action).

    Equal time per action is held on the wall clock, as a chess clock with an increment
    would: each action adds ``seconds`` to the side's clock, and each search's time limit
    is what the clock holds minus the mean overrun of this side's earlier searches (time
    spent beyond the deadline: the old tactical layer's safety check after the search
    took about 0.5 s per action in Benediction), at least a tenth of ``seconds``. Unused
    time (a forced action, a win found before searching) carries over.
    """

    from hexgames.ai import levels
    from hexgames.game import get_game

    position: Any = None
    player: Any = None
    seconds = 0.0
    overrun = searches = 0.0
    clock = 0.0
    for line in sys.stdin:
        request = json.loads(line)
        if "new" in request:
            game = get_game(request["new"])
            # compile or load it before the clock runs (``Game.kernel``; a version before
            # the typed hooks kept it in ``Game.extras``)
            kernel = getattr(game, "kernel", None) or game.extras.get("kernel")
            if kernel is not None:
                kernel().warm_up()
            position = game.new(**request["options"])
            seconds = float(request["seconds"])
            player = levels.player(game, 5, seed=request["seed"])
            answer: dict[str, Any] = {"ok": True}
        elif "play" in request:
            position.play(position.parse_action(request["play"]))
            answer = {"ok": True}
        else:
            clock += seconds
            share = 1.0 if position.is_turn_start() else player.continuation_share
            limit = max(seconds / 10, (clock - overrun / max(1.0, searches)) / share)
            player.time_limit = limit
            player.iterations = None
            began = time.perf_counter()
            action = player.choose(position)
            spent = time.perf_counter() - began
            clock -= spent
            stats = getattr(player, "last_stats", {}) or {}
            if stats.get("iterations"):
                overrun += max(0.0, spent - limit * share)
                searches += 1
            position.play(action)
            answer = {"action": str(action), "seconds": spent,
                      "iterations": int(stats.get("iterations", 0) or 0)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


class Agent:
    """A running agent process of one version."""

    def __init__(self, source: Path, extra_env: dict[str, str] | None = None) -> None:
        env = dict(os.environ, PYTHONPATH=str(source), **(extra_env or {}))
        self.process = subprocess.Popen(
            [sys.executable, str(HERE), "--agent"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, env=env, cwd=str(source.parent))

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"agent {self.process.args} died (exit {self.process.wait()})")
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def play(args: argparse.Namespace, options: dict[str, Any], index: int) -> dict[str, Any]:
    from hexgames.errors import IllegalAction
    from hexgames.game import get_game

    game = get_game(args.game)
    position = game.new(**options)
    new_seat = index % 2
    seed = args.seed * 1_000_003 + index
    agents = {new_seat: Agent(Path(args.new), dict(args.new_env)),
              1 - new_seat: Agent(Path(args.old))}
    think = {"new": 0.0, "old": 0.0}
    iterations = {"new": 0, "old": 0}
    moves = {"new": 0, "old": 0}
    played: list[str] = []
    void: dict[str, Any] | None = None
    try:
        for seat, side in agents.items():
            side.ask({"new": args.game, "options": options, "seed": seed * 2 + seat,
                      "seconds": args.seconds})
        cap = game.max_game_length(game.make_rules(**options))
        while not position.is_over and len(played) < cap:
            seat = position.current_seat
            name = "new" if seat == new_seat else "old"
            answer = agents[seat].ask({"choose": True})
            try:  # the referee (this checkout's engine) checks every action
                position.play(position.parse_action(answer["action"]))
            except IllegalAction as refused:
                void = {"side": name, "action": answer["action"], "reason": str(refused),
                        "position": position.to_text()}
                break
            played.append(answer["action"])
            agents[1 - seat].ask({"play": answer["action"]})
            think[name] += answer["seconds"]
            iterations[name] += answer["iterations"]
            moves[name] += 1
    finally:
        for side in agents.values():
            side.close()
    outcome = position.outcome()
    returns = list(outcome.returns()) if outcome is not None else [0.0, 0.0]
    row = {"index": index, "new_seat": new_seat, "returns": returns, "actions": len(played),
           "end": outcome.termination.value if outcome is not None else "capped",
           "seconds": think, "iterations": iterations, "moves": moves, "played": played}
    if void is not None:  # not a result: the versions disagree on the rules here
        row.update(returns=[0.0, 0.0], end="void", void=void)
    return row


def report(rows: list[dict[str, Any]]) -> str:
    from hexgames.arena.tournament.elo import Game1v1, fit

    voids = [r for r in rows if r["end"] == "void"]
    rows = [r for r in rows if r["end"] != "void"]
    if not rows:
        return f"no games with a result yet ({len(voids)} void)"
    scores = [(r["returns"][r["new_seat"]] + 1) / 2 for r in rows]
    n = len(scores)
    mean = sum(scores) / n
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / max(1, n - 1))
    games = [Game1v1("new" if r["new_seat"] == 0 else "old",
                     "old" if r["new_seat"] == 0 else "new", (r["returns"][0] + 1) / 2)
             for r in rows]
    ratings = fit(games, ["new", "old"])
    wins = sum(s == 1 for s in scores)
    draws = sum(s == 0.5 for s in scores)
    rate = {side: sum(r["iterations"][side] for r in rows)
            / max(1e-9, sum(r["seconds"][side] for r in rows)) for side in ("new", "old")}
    per_move = {side: sum(r["seconds"][side] for r in rows)
                / max(1, sum(r["moves"][side] for r in rows)) for side in ("new", "old")}
    diff = ratings.of("new").elo - ratings.of("old").elo
    return (f"{n} games: new {wins} wins, {draws} draws, {n - wins - draws} losses; "
            f"score {100 * mean:.1f}% +- {196 * sd / math.sqrt(n):.1f} (95%); "
            f"Elo new - old {diff:+.0f} +- {2 * ratings.of('new').margin:.0f}; "
            f"first move {ratings.first_move:+.0f} +- {ratings.first_move_margin:.0f}; "
            f"mean actions {sum(r['actions'] for r in rows) / n:.1f}; "
            f"s per action new {per_move['new']:.3f}, old {per_move['old']:.3f}; "
            f"iterations/s new {rate['new']:.0f}, old {rate['old']:.0f}"
            + (f"; {len(voids)} void (an action one version's rules refused: "
               f"{dict(Counter(v['void']['side'] for v in voids))} chose it)" if voids else ""))


def _env_pair(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?")
    parser.add_argument("--agent", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--old", help="the old checkout's src directory")
    parser.add_argument("--new", default=str(NEW_SOURCE),
                        help="the new checkout's src directory (default: this one's; "
                             "give a worktree of a fixed commit if you edit this one "
                             "while a match runs)")
    parser.add_argument("--seconds", type=float, default=0.25, help="time per action")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE")
    parser.add_argument("--new-env", action="append", default=[], metavar="NAME=VALUE",
                        type=_env_pair,
                        help="an environment variable for the new side's agents only "
                             "(repeatable): an experiment's switch, with --old and --new "
                             "the same checkout")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args(argv)
    if args.agent:
        return agent()
    if args.game is None or args.out is None:
        parser.error("GAME and --out are required")
    from hexgames.game import get_game, parse_settings

    options = dict(parse_settings(get_game(args.game), args.set))
    rows = ([json.loads(line) for line in args.out.read_text().splitlines()]
            if args.out.exists() else [])
    if args.report:
        print(report(rows) if rows else "no games yet")
        return 0
    if args.old is None:
        parser.error("--old is required to play")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = {r["index"] for r in rows}
    scored = sum(r["end"] != "void" for r in rows)
    following = max(done, default=-1) + 1
    with args.out.open("a") as out, ThreadPoolExecutor(args.jobs) as pool:
        while scored < args.games:  # a void game is replaced by the next index
            todo = [i for i in range(args.games) if i not in done]
            todo = todo[: args.games - scored]
            while len(todo) < args.games - scored:
                todo.append(following)
                following += 1
            for row in pool.map(lambda i: play(args, options, i), todo):
                done.add(row["index"])
                following = max(following, row["index"] + 1)
                scored += row["end"] != "void"
                out.write(json.dumps(row) + "\n")
                out.flush()
                score = (row["returns"][row["new_seat"]] + 1) / 2
                print(f"game {row['index']}: new seat {row['new_seat']} score {score} "
                      f"({row['actions']} actions, {row['end']})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
