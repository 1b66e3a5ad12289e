"""``hexgames report GAME``: a designer's balance report for one variant.

Example::

    hexgames report dendria --set board_side=5 --games 200 --player L2 --out report-dendria5

Plays ``--games`` self-play games of ``--player`` (the same player spec in both seats;
without it, the strongest level estimated to fit ``--budget`` minutes, measured by a
short calibration on the variant: :mod:`hexgames.arena.report.budget`), then writes
``report.md`` with PNG plots, ``games.csv`` (one line per game) and every game record
into the output directory. The skill trace plays the same number of games with
other players too (balance at several strengths): ``--trace L1,L3`` names them, and by
default one cheap other strength is added (``L1``, or ``L2`` next to ``L1`` or
``greedy``; :func:`hexgames.arena.players.auto_trace`) so that no report rests on a
single strength; ``--trace none`` plays none.
With ``--cluster auto`` (a running Ray cluster) or ``--cluster local`` (Ray started in
this process) the games are played as Ray tasks (:mod:`hexgames.arena.cluster`); the
report is the same for the same seed.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from hexgames.arena import cluster as ray_cluster
from hexgames.arena.match import GameResult
from hexgames.arena.players import FACTORY_FORM, auto_trace, make_player
from hexgames.arena.progress import game_progress
from hexgames.arena.report import budget
from hexgames.arena.report.markdown import cap_warning, write_report
from hexgames.arena.report.stats import analyse, findings, trace_line, unused_option_warnings
from hexgames.arena.tournament.schedule import Pairing, Setup, default_jobs, run_many, save_record
from hexgames.game import Game, game_names, get_game, parse_settings

#: ``--budget`` by default: minutes for a whole report.
DEFAULT_BUDGET_MINUTES = 10.0


def options_help() -> str:
    """Every game's rules options with what each takes (for ``report --help``)."""
    lines = ["rules options (--set OPTION=VALUE):"]
    for name in game_names():
        game = get_game(name)
        lines.append(f"  {name}:")
        for option in game.options:
            default = "off" if option.default is None else str(option.default).lower()
            lines.append(f"    {option.name}: {option.describe_valid()} (default {default})")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = options_help()
    parser.add_argument("game", choices=game_names(), help="which game to report on")
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE",
        help="rules option of the variant, repeatable (e.g. --set board_side=5)",
    )
    parser.add_argument("--games", type=int, default=100,
                        help="self-play games (default: %(default)s)")
    parser.add_argument(
        "--player", default=None,
        help="player spec used in both seats: random, greedy, L1..L5, mcts:N, or "
        f"{FACTORY_FORM} (default: the strongest level that fits --budget)",
    )
    parser.add_argument(
        "--budget", type=float, default=DEFAULT_BUDGET_MINUTES, metavar="MINUTES",
        help="time for the whole run: without --player, the strongest level (L1..L5) "
        "estimated to fit it plays, measured by a short calibration on the variant "
        "(default: %(default)s)",
    )
    parser.add_argument("--jobs", type=int, default=default_jobs(),
                        help="worker processes, or CPUs of --cluster local "
                        "(default: all cores, %(default)s)")
    parser.add_argument("--max-actions", type=int, default=None,
                        help="stop a game after this many actions and score it a draw")
    parser.add_argument(
        "--trace", default="auto",
        help="comma-separated player specs also played in both seats, as many games each, "
        "for a skill trace (e.g. L1,L3); 'auto' adds L1 (L2 next to L1 or greedy), "
        "'none' plays none (default: %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed (default: 0)")
    parser.add_argument("--out", type=Path, default=Path("balance-report"),
                        help="output directory (default: %(default)s)")
    ray_cluster.add_cluster_argument(parser)


def run(args: argparse.Namespace) -> int:
    console = Console(soft_wrap=True)  # long paths stay whole in logs
    game = get_game(args.game)
    try:
        options = parse_settings(game, args.settings)
        if args.player is not None:
            make_player(game, args.player)  # refuse bad specs before starting any process
        for spec in trace_specs(args.trace, args.player or "L1"):
            make_player(game, spec)
        if args.games < 1:
            raise ValueError(f"--games must be at least 1, got {args.games}")
        if args.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
        if not args.budget >= 0:
            raise ValueError(f"--budget must be a number of minutes, at least 0, got "
                             f"{args.budget}")
    except ValueError as error:
        console.print(f"[red]error:[/red] {escape(str(error))}")
        return 2
    plan = plan_players(args, console, game, options)
    with ExitStack() as stack:
        if not ray_cluster.enter_session(stack, args.cluster, args.jobs, console):
            return 2
        return _play(args, console, game, options, plan)


@dataclass
class Plan:
    """Who plays, why, and how long it was estimated to take."""

    player: str
    trace: list[str]
    #: Estimated seconds for the whole run (self-play and trace).
    estimate: float
    #: Lines for the head of the report: how the players were chosen, and the costs.
    notes: list[str]


def plan_players(args: argparse.Namespace, console: Console, game: Game,
                 options: dict[str, Any]) -> Plan:
    """The players (chosen by ``--budget`` unless ``--player`` names one) and the run's
    estimated time, printed before any game is played."""
    console.print(f"calibrating: timing players on {budget.SAMPLES} decisions of this "
                  "variant ...")
    started = time.perf_counter()
    sample = budget.sample_decisions(game, options, args.seed)
    machine = (local_machine(time.perf_counter() - started) if args.cluster is None
               else budget.Machine())  # a cluster's cores: not known here
    costs: dict[str, budget.Calibration] = {}

    def cost_of(spec: str) -> budget.Calibration:
        if spec not in costs:
            costs[spec] = budget.calibrate(game, spec, sample, args.seed)
        return costs[spec]

    limit = 60 * args.budget
    notes = []
    if args.player is None:
        player, tried = budget.pick_level(
            cost_of, limit, args.games, args.jobs,
            trace=lambda level: trace_specs(args.trace, level), machine=machine)
        fits = tried[player] < limit
        above = [level for level in tried if tried[level] >= limit]
        notes.append(
            f"- Players chosen by the time budget ({args.budget:g} min): `{player}`, "
            + ("the strongest level estimated to fit" if fits else
               "the weakest level, though not even it is estimated to fit")
            + (f" (`{above[0]}` was estimated at {tried[above[0]] / 60:.1f} min)"
               if above and above[0] != player else "")
            + "; `--player` names another")
    else:
        player = args.player
    trace = trace_specs(args.trace, player)
    parts = [player, *trace]
    for spec in parts:
        cost_of(spec)
    seconds = budget.estimate(costs, parts, args.games, args.jobs, machine)
    cpu = budget.estimate(costs, parts, args.games, 1)
    notes.append(
        "- Cost measured before the run (CPU per real decision on this variant, "
        f"{sample.decisions_per_game:.0f} real decisions per game in level-1 games): "
        + ", ".join(f"`{spec}` {cost.seconds_per_decision:.3g} s"
                    for spec, cost in costs.items()))
    console.print(f"estimated {seconds / 60:.1f} min for {args.games * len(parts)} games "
                  f"at level {player}" + (f" (with {', '.join(trace)} for the skill trace)"
                                          if trace else "")
                  + f" on {args.jobs} worker{'s' if args.jobs > 1 else ''}")
    workers = max(1, min(args.jobs, args.games * len(parts)))
    load = (f"Machine: {machine.cores} cores, other work averaging {machine.others:.1f} "
            f"runnable processes: each of {workers} worker{'s' if workers > 1 else ''} "
            f"gets about {100 * machine.share(workers):.0f}% of a core; "
            f"{cpu / 60:.1f} min of CPU in all"
            if machine.cores is not None else
            f"Machine: the cluster's; each worker counted a whole core; {cpu / 60:.1f} min "
            "of CPU in all")
    console.print(load)
    notes.append(f"- {load}")
    return Plan(player, trace, seconds, notes)


def local_machine(calibrating: float) -> budget.Machine:
    """This machine's cores and the other work on them: the 1-minute load average less
    what the calibration that ran here for ``calibrating`` seconds added to it (the
    average follows a busy process as ``1 - exp(-t / 60)``); no load average known: an
    idle machine."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    own = 1.0 - math.exp(-max(0.0, calibrating) / 60.0)
    return budget.Machine(os.cpu_count() or 1, max(0.0, load - own))


def trace_specs(text: str, player: str) -> list[str]:
    """The skill trace's other players from ``--trace``: ``auto``, ``none`` or specs
    (the player itself and repeats left out: its games are already played)."""
    words = [spec.strip() for spec in text.split(",") if spec.strip()]
    if [word.lower() for word in words] == ["none"] or not words:
        return []
    if [word.lower() for word in words] == ["auto"]:
        words = auto_trace(player)
    return [spec for spec in dict.fromkeys(words) if spec != player]


def _play(args: argparse.Namespace, console: Console, game: Game, options: dict[str, Any],
          plan: Plan) -> int:
    player, trace = plan.player, plan.trace
    args.out.mkdir(parents=True, exist_ok=True)
    records = args.out / "games"
    records.mkdir(exist_ok=True)
    setup = Setup(args.game, options, max_actions=args.max_actions, track_branching=True)
    parts = [player, *trace]
    # Self-play first, then each traced player on the same seeds: one batch, so the
    # workers stay busy from the first game to the last.
    work = [(setup, Pairing(i, (spec, spec), args.seed * 1_000_003 + i))
            for spec in parts for i in range(args.games)]
    where = ray_cluster.where(args.cluster, args.jobs)
    console.print(f"{game.title} balance report: {args.games} self-play games of "
                  f"{player}" + (f", and as many of {', '.join(trace)} for the skill "
                                      "trace" if trace else "")
                  + f", on {where}; options: {options or 'default'}")
    started = time.perf_counter()
    with game_progress(console) as progress:
        bars = [progress.add_task("self-play" if number == 0 else f"trace {spec}",
                                  total=args.games) for number, spec in enumerate(parts)]

        def finished(position: int, result: GameResult) -> None:
            if position < args.games:
                save_record(records, result)
            progress.advance(bars[position // args.games])

        played = run_many(work, jobs=args.jobs, on_result=finished, cluster=args.cluster)
    elapsed = time.perf_counter() - started
    by_part = {spec: played[k * args.games:(k + 1) * args.games]
               for k, spec in enumerate(parts)}
    results = by_part[player]
    balance = analyse(results, game, options)
    if trace:
        balance.skill_trace = [trace_line(spec, games) for spec, games in by_part.items()]
    seat_names = (f"seat 0, starts as {game.colors[0]}", f"seat 1, starts as {game.colors[1]}")
    timing = (f"- Time: estimated {plan.estimate / 60:.1f} min before the run, measured "
              f"{elapsed / 60:.1f} min")
    paths = write_report(args.out, balance, title=game.title, options=options,
                         player=player, seat_names=seat_names, seconds=elapsed,
                         notes=[*plan.notes, timing])
    low, high = balance.seat0_score_interval
    decisive = balance.decisive_seat0_rate
    console.print(
        f"first player score rate {100 * balance.seat0_score:.1f}% "
        f"(95% {100 * low:.1f}-{100 * high:.1f}%, draws as half); wins "
        + (f"{100 * decisive:.1f}% of {balance.decisive} decisive games"
           if decisive is not None else "no decisive game")
        + f"; draws {100 * balance.draw_rate:.1f}%"
    )
    warning = cap_warning(balance)
    if warning:
        console.print(f"[bold red]WARNING:[/bold red] {warning}")
    idle = unused_option_warnings(balance)
    for label in idle:
        console.print(f"[bold yellow]WARNING:[/bold yellow] option {label} never came into "
                      f"play in {balance.games} games (see report.md)")
    for sentence in findings(balance):
        if not any(f"`{label}` never" in sentence for label in idle):
            console.print(f"[bold yellow]FINDING:[/bold yellow] {escape(sentence)}")
    console.print(f"time: estimated {plan.estimate / 60:.1f} min, measured "
                  f"{elapsed / 60:.1f} min")
    rate = len(played) / elapsed if elapsed > 0 else float("inf")
    console.print(f"{len(played)} games in {elapsed:.1f} s: {rate:.2f} "
                  f"games/s ({where}); wrote {', '.join(str(p) for p in paths)}")
    return 0
