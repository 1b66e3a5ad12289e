"""Engine speed, measured the same way for every game: ``python -m hexgames.bench GAME``.

Only :func:`hexgames.game.get_game` and the :class:`hexgames.game.GameState` protocol
are used, so the numbers of Benediction and Dendria mean the same thing:

* **generations/s**: ``legal_actions()`` calls per second on the positions of random games;
* **play+undo/s**: ``play`` of one action followed by its ``undo``, per second;
* **games/s**: whole random games (generate, pick, play until over) per second, and
  **actions/s** (``actions_per_s``): the actions of those games per second;
* **kernel actions/s** (``kernel_actions_per_s``): the same random games played inside
  one compiled call by the game's batched kernel (``Game.kernel``, numba), and
  **core loop actions/s**: a Python loop driving the compiled core one call per action.

Each number is the median over ``--runs`` runs of about ``--seconds`` seconds each.
Games follow a seeded RNG, so two runs on one machine play the same games.

``--json`` prints the figures as JSON. For a game with a native anchor
(``Game.native_anchor``: Benediction's ``bened.c``), ``--anchor PATH`` (automatic when
``../shared/bench/<source>`` and ``gcc`` exist) compiles an independent C implementation
of the rules in a temporary directory, runs it in the same run, and reports its actions/s
next to the kernel's on the same variant (the standard rules, games cut at the anchor's
``max_actions`` as the C program does) and the ratios.

``--startup`` measures start-up instead (:mod:`hexgames.bench_startup`): fresh processes
to their first legal-action list, with an empty numba cache and with the cache it left,
the C anchor's speed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hexgames.game import Game, game_names, get_game, parse_settings
from hexgames.hooks import CompiledKernel

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
    actions_per_s: float = 0.0
    kernel_actions_per_s: float | None = None
    kernel_games_per_s: float | None = None
    core_loop_actions_per_s: float | None = None
    options: dict[str, Any] = field(default_factory=dict)


def _one_run(game: Game, options: Mapping[str, Any], seconds: float, seed: int) -> tuple[
    float, float, float, float, float
]:
    """Play random games for about ``seconds``; time each kind of work separately.

    The game loop (``actions_per_s``) holds nothing but the work measured: a legal-action
    list per action, a uniform random pick, the play. Generations are timed on the
    same positions while the game is walked back (clock reads inside the game loop cost
    about as much as a fast engine's generation)."""
    rng = random.Random(seed)
    rand = rng.random  # a uniform pick: int(rand() * len) (randrange costs more)
    gen_time = play_time = game_time = 0.0
    gens = pairs = games = actions = 0
    clock = time.perf_counter
    deadline = clock() + seconds
    while clock() < deadline or games == 0:
        state = game.new(**options)
        start = clock()
        length = 0
        while not state.is_over and length < MAX_GAME_ACTIONS:
            legal = state.legal_actions()
            state.play(legal[int(rand() * len(legal))])
            length += 1
        game_time += clock() - start
        games += 1
        actions += length
        # generations, and play+undo pairs, on this game's positions, walking back
        for _ in range(length):
            state.undo()
            t0 = clock()
            legal = state.legal_actions()
            gen_time += clock() - t0
            gens += 1
            sample = legal[int(rand() * len(legal))]
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
        actions / game_time if game_time else 0.0,
    )


#: Games per call of a batched kernel while measuring it.
KERNEL_BATCH = 64


def kernel_of(game: Game) -> CompiledKernel | None:
    """The game's batched kernel object (``Game.kernel()``), or ``None``."""
    return game.kernel() if game.kernel is not None else None


def kernel_rate(
    kernel: CompiledKernel, options: Mapping[str, Any], seconds: float, seed: int,
    max_actions: int = MAX_GAME_ACTIONS,
) -> tuple[float, float]:
    """``(actions/s, games/s)`` of the kernel's batched random games for ``seconds``."""
    clock = time.perf_counter
    actions = games = 0
    start = clock()
    deadline = start + seconds
    batch = seed * 1_000_003
    while clock() < deadline or games == 0:
        _, lengths = kernel.random_games(options, KERNEL_BATCH, batch, max_actions)
        batch += 1
        actions += int(lengths.sum())
        games += KERNEL_BATCH
    elapsed = clock() - start
    return actions / elapsed, games / elapsed


def core_loop_rate(
    kernel: CompiledKernel, options: Mapping[str, Any], seconds: float, seed: int
) -> float:
    """Actions/s of a Python loop driving the compiled core (one call per action)."""
    clock = time.perf_counter
    actions = 0
    start = clock()
    deadline = start + seconds
    game = seed * 1_000_003
    while clock() < deadline or actions == 0:
        actions += kernel.driven_games(options, 1, game)
        game += 1
    return actions / (clock() - start)


def measure(
    game: Game, options: Mapping[str, Any], runs: int, seconds: float, seed: int = 1,
    progress: Any = None, kernel: CompiledKernel | None = None,
) -> Measurement:
    """Median rates over ``runs`` runs for one set of rules options (with ``kernel``,
    also the batched kernel's and the core loop's rates)."""
    results = []
    kernels: list[tuple[float, float]] = []
    loops: list[float] = []
    for run in range(runs):
        results.append(_one_run(game, options, seconds, seed + run))
        if kernel is not None:
            kernels.append(kernel_rate(kernel, options, seconds, seed + run))
            loops.append(core_loop_rate(kernel, options, seconds, seed + run))
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
        actions_per_s=statistics.median(columns[4]),
        kernel_actions_per_s=statistics.median(k[0] for k in kernels) if kernels else None,
        kernel_games_per_s=statistics.median(k[1] for k in kernels) if kernels else None,
        core_loop_actions_per_s=statistics.median(loops) if loops else None,
        options=dict(options),
    )


# ------------------------------------------------------------------ the C anchor
#: Where a game's C anchor (``Game.native_anchor``) is looked for when ``--anchor`` is not
#: given: ``$HEXGAMES_ANCHOR_DIR``, else ``shared/bench`` beside the checkout the package
#: was installed from (``work/<checkout>/src/hexgames`` + ``work/shared``), whatever the
#: working directory, else ``../shared/bench`` from the working directory.
ANCHOR_DIRECTORY = Path(__file__).resolve().parents[3] / "shared" / "bench"
ANCHOR_ENVIRONMENT = "HEXGAMES_ANCHOR_DIR"
ANCHOR_GAMES = 2000
_ANCHOR_LINE = re.compile(
    r"native: (\d+) games, (\d+) actions in ([\d.]+)s: (\d+) actions/s.*?([\d.]+) games/s"
)


def anchor_directories() -> list[Path]:
    """Where C anchors are looked for, in order (see :data:`ANCHOR_DIRECTORY`)."""
    found = [Path(os.environ[ANCHOR_ENVIRONMENT])] if os.environ.get(ANCHOR_ENVIRONMENT) else []
    return [*found, ANCHOR_DIRECTORY, Path("..") / "shared" / "bench"]


def default_anchor(game: Game) -> Path | None:
    """Where ``game``'s C anchor is found by default: the first of
    :func:`anchor_directories` that holds it, else where it was looked for first
    (``None``: the game has none)."""
    anchor = game.native_anchor
    if anchor is None:
        return None
    places = [directory / anchor.source for directory in anchor_directories()]
    return next((place for place in places if place.is_file()), places[0])


def yardstick_game() -> Game:
    """The first registered game with a C anchor: its anchor measures the machine for
    figures of other kinds (the vectorized environments' steps/s)."""
    for name in game_names():
        game = get_game(name)
        if game.native_anchor is not None:
            return game
    raise LookupError("no registered game has a native anchor")


def find_anchor(path: str | None, game: Game) -> tuple[Path | None, str | None]:
    """``game``'s C anchor source to use and, when none, why (for the report)."""
    if path is not None:
        source = Path(path)
        if not source.is_file():
            return None, f"{path} does not exist"
    else:
        default = default_anchor(game)
        if default is None:
            return None, f"no C anchor for {game.title}"
        source = default
        if not source.is_file():
            looked = ", ".join(str(d) for d in anchor_directories())
            return None, (f"no {default.name} in {looked} (give --anchor PATH or set "
                          f"{ANCHOR_ENVIRONMENT})")
    if shutil.which("gcc") is None:
        return None, "gcc is not installed"
    return source, None


def compile_anchor(source: Path, directory: str) -> str:
    """Compile the C anchor into ``directory``; the path of the program."""
    binary = os.path.join(directory, f"{source.stem}_native")
    subprocess.run(
        ["gcc", "-O2", "-o", binary, str(source)], check=True, capture_output=True, text=True
    )
    return binary


def run_anchor(binary: str, games: int, seed: int) -> tuple[float, float, float]:
    """One run of the compiled anchor: ``(actions/s, games/s, actions per CPU second)``
    (the CPU figure is less disturbed by other programs on a shared machine)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [binary, "bench", str(games), str(seed)], check=True, capture_output=True, text=True
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    match = _ANCHOR_LINE.search(done.stdout)
    if match is None:
        raise RuntimeError(f"unexpected output from the C anchor: {done.stdout!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    actions = int(match.group(2))
    return float(match.group(4)), float(match.group(5)), actions / cpu if cpu > 0 else 0.0


def anchor_comparison(
    game: Game, kernel: CompiledKernel | None, source: Path, runs: int, seconds: float, seed: int
) -> dict[str, Any]:
    """The C anchor next to the kernel and the Python loop on the anchor's variant
    (standard rules, games cut at the anchor's ``max_actions``). Runs alternate (C,
    kernel, Python) so that each ratio compares figures taken moments apart; medians over
    ``runs``."""
    assert game.native_anchor is not None
    max_actions = game.native_anchor.max_actions
    rows: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="hexgames-anchor-") as tmp:
        binary = compile_anchor(source, tmp)
        for run in range(runs):
            row: dict[str, float] = {}
            c_rate, c_games, c_cpu = run_anchor(binary, ANCHOR_GAMES, seed + run)
            row.update(actions_per_s=c_rate, games_per_s=c_games, cpu_actions_per_s=c_cpu)
            if kernel is not None:
                cpu0, wall0 = time.process_time(), time.perf_counter()
                _, lengths = kernel.random_games({}, ANCHOR_GAMES, seed + run, max_actions)
                cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
                actions = int(lengths.sum())
                row["kernel_actions_per_s"] = actions / wall
                row["kernel_cpu_actions_per_s"] = actions / cpu if cpu > 0 else 0.0
                row["kernel_ratio"] = row["kernel_actions_per_s"] / c_rate
                row["kernel_cpu_ratio"] = row["kernel_cpu_actions_per_s"] / c_cpu
            row["python_actions_per_s"] = _one_run(game, {}, seconds, seed + run)[4]
            row["python_ratio"] = row["python_actions_per_s"] / c_rate
            rows.append(row)
    result: dict[str, Any] = {"source": str(source), "games_per_run": ANCHOR_GAMES}
    for name in rows[0]:
        result[name] = statistics.median(row[name] for row in rows)
    return result


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="GAME", help="game to measure (benediction, dendria)")
    parser.add_argument(
        "--runs", type=int, default=None,
        help="runs per variant (median shown; default 5), or rounds of --startup (default 3)",
    )
    parser.add_argument(
        "--seconds", type=float, default=2.0, help="approximate length of one run in seconds"
    )
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE",
        help="rules option (repeatable); without it, the game's bench variants are measured",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--anchor", metavar="PATH", default=None,
        help="C anchor source to compile and run in the same run (for a game with a native "
        f"anchor; default {ANCHOR_DIRECTORY}/<its source> when it and gcc exist)",
    )
    parser.add_argument("--no-anchor", action="store_true", help="do not run the C anchor")
    parser.add_argument(
        "--no-kernel", action="store_true", help="skip the compiled kernel's figures"
    )
    parser.add_argument(
        "--startup", action="store_true",
        help="measure start-up instead: per round, a fresh process with an empty numba "
        "cache, then one with that cache, each to its first legal-action list (the "
        "rules options of --set, default the standard rules; the C anchor runs once per "
        "round beside them)",
    )


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    console = Console(stderr=args.json)
    if not console.is_terminal:
        console.width = max(console.width, 120)  # tables stay readable in logs and pipes
    if args.runs is None:
        args.runs = 3 if args.startup else 5
    try:
        game = get_game(args.game)
        if args.startup:
            return _run_startup(args, game, console)
        if args.runs < 1 or args.seconds <= 0:
            raise ValueError("--runs must be at least 1 and --seconds positive")
        if args.settings:
            variants: list[dict[str, Any]] = [parse_settings(game, args.settings)]
        else:
            variants = [dict(v) for v in game.bench_variants]
    except ValueError as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 2
    kernel = None if args.no_kernel else kernel_of(game)
    compile_s = None
    if kernel is not None:
        compile_s = kernel.warm_up(lambda text: console.print(text))
    measurements = []
    anchor: dict[str, Any] | None = None
    anchor_note = None
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(f"benchmarking {game.title}", total=len(variants) * args.runs)
        for options in variants:
            measurements.append(
                measure(game, options, args.runs, args.seconds, args.seed,
                        progress=lambda: progress.advance(task), kernel=kernel)
            )
        if args.no_anchor or game.native_anchor is None:
            anchor_note = "not requested" if args.no_anchor else "no C anchor for this game"
        else:
            source, anchor_note = find_anchor(args.anchor, game)
            if source is not None:
                try:
                    anchor = anchor_comparison(
                        game, kernel, source, args.runs, args.seconds, args.seed
                    )
                except (OSError, RuntimeError, subprocess.CalledProcessError) as exc:
                    anchor_note = f"the C anchor failed: {exc}"
    if args.json:
        first = measurements[0]
        report = {
            "game": game.name,
            "runs": args.runs,
            "seconds": args.seconds,
            "seed": args.seed,
            "python": sys.version.split()[0],
            "actions_per_s": first.actions_per_s,
            "kernel_actions_per_s": first.kernel_actions_per_s,
            "games_per_s": first.games_per_s,
            "kernel_games_per_s": first.kernel_games_per_s,
            "kernel_warm_up_s": compile_s,
            "variants": [asdict(m) for m in measurements],
            "anchor": anchor,
            "anchor_note": anchor_note,
        }
        print(json.dumps(report, indent=2))
        return 0
    table = Table(title=f"{game.title} engine speed (median of {args.runs} runs)")
    table.add_column("variant")
    for heading in ("generations/s", "play+undo/s", "games/s", "actions/game", "actions/s"):
        table.add_column(heading, justify="right")
    for m in measurements:
        table.add_row(
            m.variant, f"{m.generations_per_s:,.0f}", f"{m.play_undo_per_s:,.0f}",
            f"{m.games_per_s:,.1f}", f"{m.mean_game_length:,.1f}", f"{m.actions_per_s:,.0f}",
        )
    console.print(table)
    if kernel is not None:
        compiled = Table(title=f"{game.title} compiled core (numba)")
        compiled.add_column("variant")
        for heading in ("kernel actions/s", "kernel games/s", "core loop actions/s"):
            compiled.add_column(heading, justify="right")
        for m in measurements:
            compiled.add_row(
                m.variant, _num(m.kernel_actions_per_s), _num(m.kernel_games_per_s, 1),
                _num(m.core_loop_actions_per_s),
            )
        console.print(compiled)
    if anchor is not None:
        line = f"C anchor ({anchor['source']}): {anchor['actions_per_s']:,.0f} actions/s"
        if "kernel_ratio" in anchor:
            line += (
                f"; kernel on the same variant {anchor['kernel_actions_per_s']:,.0f} "
                f"({anchor['kernel_ratio']:.2f}x; per CPU second "
                f"{anchor['kernel_cpu_ratio']:.2f}x)"
            )
        line += (
            f"; Python loop {anchor['python_actions_per_s']:,.0f} "
            f"({anchor['python_ratio']:.2f}x)"
        )
        console.print(line)
    elif anchor_note and not args.no_anchor and game.native_anchor is not None:
        console.print(f"C anchor skipped: {anchor_note}")
    return 0


def _run_startup(args: argparse.Namespace, game: Game, console: Any) -> int:
    """``--startup``: see :mod:`hexgames.bench_startup`."""
    from rich.progress import Progress

    from hexgames.bench_startup import measure_startup, print_report

    if args.runs < 1:
        raise ValueError("--runs must be at least 1")
    options = parse_settings(game, args.settings) if args.settings else {}
    source, anchor_note = ((None, "not requested") if args.no_anchor
                           else find_anchor(args.anchor, yardstick_game()))
    with tempfile.TemporaryDirectory(prefix="hexgames-anchor-") as tmp, \
            Progress(console=console, transient=True) as progress:
        anchor = None
        if source is not None:
            try:
                binary = compile_anchor(source, tmp)
                anchor = lambda number: run_anchor(binary, ANCHOR_GAMES, args.seed + number)[0]  # noqa: E731
            except (OSError, subprocess.CalledProcessError) as exc:
                anchor_note = f"the C anchor failed to compile: {exc}"
        task = progress.add_task(f"starting {game.title} processes", total=2 * args.runs)
        try:
            report = measure_startup(game.name, options, args.runs, anchor,
                                     progress=lambda: progress.advance(task))
        except RuntimeError as exc:
            console.print(f"[red]error:[/red] {exc}")
            return 1
    report["anchor_note"] = anchor_note if anchor is None else None
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report, console)
        if anchor is None:
            console.print(f"C anchor skipped: {anchor_note}")
    return 0


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hexgames.bench", description=__doc__.split(
        "\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
