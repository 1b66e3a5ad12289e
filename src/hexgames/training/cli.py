"""``hexgames train GAME``: train a policy-value net by self-play (the ``train`` extra).

Example (a CI-sized run; real runs want hours and larger nets)::

    hexgames train dendria --set board_side=3 --out runs/d3 --games 64 \\
        --games-per-iteration 16 --simulations 16 --channels 16 --blocks 1

    hexgames train dendria --out runs/d3 --resume --games 128   # go on to 128 games

The directory gets ``best.npz`` (the gated best net, for
:func:`hexgames.ai.network.load_evaluator`), ``latest.npz``, ``checkpoint.pt``,
``settings.json``, ``log.csv`` and ``progress.png`` (:mod:`hexgames.training.loop`).
Arguments are checked before torch is imported, so bad ones are refused at once.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from hexgames.game import game_names, get_game, parse_settings

#: command-line flag -> (TrainSettings field, type, help)
TUNING: dict[str, tuple[str, type, str]] = {
    "--channels": ("channels", int, "trunk channels of the net"),
    "--blocks": ("blocks", int, "residual blocks of the net"),
    "--games-per-iteration": ("games_per_iteration", int, "self-play games per iteration"),
    "--simulations": ("simulations", int, "PUCT simulations per self-play move"),
    "--leaves-per-round": ("leaves_per_round", int,
                           "leaves a tree sends to one evaluator call"),
    "--temperature-moves": ("temperature_moves", int,
                            "self-play actions sampled in proportion to visits"),
    "--max-moves": ("max_moves", int, "actions after which a game is stopped and scored"),
    "--steps-per-iteration": ("steps_per_iteration", int, "learner steps per iteration"),
    "--batch-size": ("batch_size", int, "samples per learner step"),
    "--lr": ("learning_rate", float, "AdamW learning rate"),
    "--weight-decay": ("weight_decay", float, "AdamW weight decay"),
    "--window": ("window", int, "replay window, in samples"),
    "--gate-games": ("gate_games", int,
                     "games of the gating match (0: every new net replaces the best)"),
    "--gate-simulations": ("gate_simulations", int, "PUCT simulations per gating move"),
    "--gate-threshold": ("gate_threshold", float,
                         "score the new net needs against the best to replace it"),
    "--seed": ("seed", int, "the run's seed"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=game_names(), help="which game to train for")
    parser.add_argument("--out", type=Path, required=True,
                        help="the run's directory (weights, checkpoint, log, plot)")
    parser.add_argument("--set", dest="settings", action="append", default=[],
                        metavar="OPTION=VALUE",
                        help="rules option, repeatable (e.g. --set board_side=5)")
    parser.add_argument("--hours", type=float, default=None,
                        help="budget: hours of training, over the whole run")
    parser.add_argument("--games", type=int, default=None,
                        help="budget: self-play games, over the whole run")
    parser.add_argument("--steps", type=int, default=None,
                        help="budget: learner steps, over the whole run")
    parser.add_argument("--resume", action="store_true",
                        help="go on with the run in --out from its checkpoint (its settings "
                        "are kept; give the new budget)")
    parser.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1),
                        help="self-play worker processes; 0 plays in this process "
                        "(default: %(default)s)")
    defaults = _defaults()
    for flag, (name, kind, help_text) in TUNING.items():
        parser.add_argument(flag, dest=name, type=kind, default=None,
                            help=f"{help_text} (default: {defaults[name]})")


def _defaults() -> dict[str, Any]:
    # the dataclass's defaults, read without importing torch
    import dataclasses

    from hexgames.training.settings import TrainSettings

    return {f.name: f.default for f in dataclasses.fields(TrainSettings)
            if f.default is not dataclasses.MISSING}


def run(args: argparse.Namespace) -> int:
    console = Console(soft_wrap=True)
    try:
        from hexgames.training.settings import Budget, TrainSettings

        game = get_game(args.game)
        options = parse_settings(game, args.settings)
        budget = Budget(hours=args.hours, games=args.games, steps=args.steps)
        if args.workers < 0:
            raise ValueError(f"--workers must be at least 0, got {args.workers}")
        tuning = {name: getattr(args, name) for name, _, _ in TUNING.values()
                  if getattr(args, name) is not None}
        settings = None
        if args.resume:
            _check_resume(args.out, game.name, options, tuning)
        else:
            settings = TrainSettings(game=game.name, options=options, **tuning)
    except ValueError as error:
        console.print(f"[red]error:[/red] {escape(str(error))}")
        return 2
    return _train(console, args, settings, budget)


def _check_resume(out: Path, game: str, options: dict[str, Any], tuning: dict[str, Any]) -> None:
    """Refuse a resume whose game, options or settings differ from the run's."""
    import json

    from hexgames.training.settings import SETTINGS

    path = out / SETTINGS
    if not path.exists():
        raise ValueError(f"--resume: {out} holds no run ({SETTINGS} is missing)")
    try:
        saved = json.loads(path.read_text())
    except ValueError:
        raise ValueError(f"--resume: {path} is not readable JSON") from None
    if saved.get("game") != game or saved.get("options") != options:
        raise ValueError(f"--resume: the run in {out} is {saved.get('game')} with options "
                         f"{saved.get('options')}, not {game} with {options}")
    changed = {k: v for k, v in tuning.items() if saved.get(k) != v}
    if changed:
        raise ValueError(f"--resume keeps the run's settings; these differ: {changed}")


def _train(console: Console, args: argparse.Namespace, settings: Any, budget: Any) -> int:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from hexgames.training.settings import TrainingError

    try:
        from hexgames.training.loop import Trainer
    except ImportError as error:
        console.print(f"[red]error:[/red] hexgames train needs torch (the train extra: "
                      f"pip install 'hexgames\\[train]'): {escape(str(error))}")
        return 2
    try:
        trainer = Trainer(args.out, settings, resume=args.resume)
    except (TrainingError, ValueError, OSError) as error:  # OSError: --out unusable
        console.print(f"[red]error:[/red] {escape(str(error))}")
        return 2
    s, state = trainer.settings, trainer.state
    console.print(f"training {s.game} {s.options or '(default options)'}: "
                  f"{'resumed at iteration ' + str(state.iteration) if args.resume else 'new run'}"
                  f" on {trainer.device}, {args.workers} self-play workers; in {args.out}/")
    total, measure = _measure(budget)
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[row]}"),
                  TimeElapsedColumn(), console=console, disable=not console.is_terminal
                  ) as progress:
        task = progress.add_task("train", total=total, completed=measure(state), row="")

        def report(row: dict[str, Any]) -> None:
            line = (f"iteration {row['iteration']}: {row['games']} games, {row['steps']} steps, "
                    f"loss {row['loss']:.4f} (value {row['value_loss']:.4f}, policy "
                    f"{row['policy_loss']:.4f}), gate {row['gate_score']:.2f} "
                    f"{'accepted' if row['accepted'] else 'refused'}, elo {row['elo']}")
            progress.update(task, completed=measure(trainer.state), row=line)
            if not console.is_terminal:
                console.print(line)

        try:
            trainer.run(budget, args.workers, report)
        except TrainingError as error:
            console.print(f"[red]error:[/red] {escape(str(error))}")
            return 2
        except OSError as error:  # a full disk, a removed directory...
            console.print(f"[red]error:[/red] {escape(str(error))}; the last checkpoint "
                          f"stands: --resume goes on from iteration {trainer.state.iteration}"
                          " or the one before")
            return 1
    console.print(f"done: {trainer.state.iteration} iterations, {trainer.state.games} games, "
                  f"{trainer.state.steps} steps; best net in {args.out / 'best.npz'}")
    return 0


def _measure(budget: Any) -> tuple[float, Any]:
    """The progress bar's total and how far a run state is along it."""
    if budget.games is not None:
        return float(budget.games), lambda st: st.games
    if budget.steps is not None:
        return float(budget.steps), lambda st: st.steps
    return float(budget.hours) * 3600, lambda st: min(st.elapsed, math.inf)
