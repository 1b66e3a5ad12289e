"""Engine speed, measured the same way for every game: ``python -m hexgames.bench GAME``.

Only :func:`hexgames.game.get_game` and the :class:`hexgames.game.GameState` protocol
are used, so the numbers of Benediction and Dendria mean the same thing:

* **generations/s**: ``legal_actions()`` calls per second on the positions of random games;
* **play+undo/s**: ``play`` of one action followed by its ``undo``, per second;
* **games/s**: whole random games (generate, pick, play until over) per second.

Each number is the median over ``--runs`` runs of about ``--seconds`` seconds each.
Games follow a seeded RNG, so two runs on one machine play the same games.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hexgames.game import Game, get_game, parse_settings

#: Safety net for games without a natural end (a protocol violation would loop forever).
MAX_GAME_ACTIONS = 100_000


@dataclass
class Measurement:
    """Median rates of one variant, and what they were measured on."""

    variant: str
    generations_per_s: float
    play_undo_per_s: float
    games_per_s: float
    mean_game_length: float
    runs: int


def _one_run(game: Game, options: Mapping[str, Any], seconds: float, seed: int) -> tuple[
    float, float, float, float
]:
    """Play random games for about ``seconds``; time each kind of work separately."""
    rng = random.Random(seed)
    gen_time = play_time = game_time = 0.0
    gens = pairs = games = actions = 0
    clock = time.perf_counter
    deadline = clock() + seconds
    while clock() < deadline or games == 0:
        state = game.new(**options)
        start = clock()
        length = 0
        while not state.is_over and length < MAX_GAME_ACTIONS:
            t0 = clock()
            legal = state.legal_actions()
            t1 = clock()
            gen_time += t1 - t0
            gens += 1
            action = legal[rng.randrange(len(legal))]
            state.play(action)
            length += 1
        game_time += clock() - start
        games += 1
        actions += length
        # play+undo pairs on this game's positions, walking back to the start
        for _ in range(length):
            state.undo()
            legal = state.legal_actions()
            sample = legal[rng.randrange(len(legal))]
            t0 = clock()
            state.play(sample)
            state.undo()
            play_time += clock() - t0
            pairs += 1
    return (
        gens / gen_time if gen_time else 0.0,
        pairs / play_time if play_time else 0.0,
        games / game_time if game_time else 0.0,
        actions / games,
    )


def measure(
    game: Game, options: Mapping[str, Any], runs: int, seconds: float, seed: int = 1,
    progress: Any = None,
) -> Measurement:
    """Median rates over ``runs`` runs for one set of rules options."""
    results = []
    for run in range(runs):
        results.append(_one_run(game, options, seconds, seed + run))
        if progress is not None:
            progress()
    columns = list(zip(*results, strict=True))
    name = " ".join(f"{k}={v}" for k, v in options.items()) or "standard"
    return Measurement(
        variant=name,
        generations_per_s=statistics.median(columns[0]),
        play_undo_per_s=statistics.median(columns[1]),
        games_per_s=statistics.median(columns[2]),
        mean_game_length=statistics.median(columns[3]),
        runs=runs,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="GAME", help="game to measure (benediction, dendria)")
    parser.add_argument("--runs", type=int, default=5, help="runs per variant (median shown)")
    parser.add_argument(
        "--seconds", type=float, default=2.0, help="approximate length of one run in seconds"
    )
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE",
        help="rules option (repeatable); without it, the game's bench variants are measured",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    console = Console()
    try:
        game = get_game(args.game)
        if args.runs < 1 or args.seconds <= 0:
            raise ValueError("--runs must be at least 1 and --seconds positive")
        if args.settings:
            variants: list[dict[str, Any]] = [parse_settings(game, args.settings)]
        else:
            variants = [dict(v) for v in game.extras.get("bench_variants", ({},))]
    except ValueError as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 2
    measurements = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(f"benchmarking {game.title}", total=len(variants) * args.runs)
        for options in variants:
            measurements.append(
                measure(game, options, args.runs, args.seconds, args.seed,
                        progress=lambda: progress.advance(task))
            )
    table = Table(title=f"{game.title} engine speed (median of {args.runs} runs)")
    table.add_column("variant")
    for heading in ("generations/s", "play+undo/s", "games/s", "actions/game"):
        table.add_column(heading, justify="right")
    for m in measurements:
        table.add_row(
            m.variant, f"{m.generations_per_s:,.0f}", f"{m.play_undo_per_s:,.0f}",
            f"{m.games_per_s:,.1f}", f"{m.mean_game_length:,.1f}",
        )
    console.print(table)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hexgames.bench", description=__doc__.split(
        "\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
