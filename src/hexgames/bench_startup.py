"""Start-up time, measured in fresh processes: ``python -m hexgames.bench GAME --startup``.

What a new user waits for before the first position can be played: a process that
imports hexgames, makes a game's start position and asks for its legal actions. Each
round starts such a process twice on one empty, private numba cache directory:

* **cold**: nothing is cached, so the process compiles the rules core (once per machine
  and version; later processes load the machine code);
* **cached**: the same start again, loading what the cold one saved.

For each start the launching process records the wall time from launch to the first
legal-action list (the child reports when it had it) and to the process's end, and the
child's CPU seconds; the child also reports how many compiled functions it compiled and
how many it loaded from the cache (numba's per-function counters), so a "cached" start
that compiled anything shows it. Start-up is compile work, which depends on the
machine's speed and on what else runs on it: when the C anchor is available a run of it
(Benediction's rules in C, the same program ``--anchor`` compares the kernels with) goes
with each round, so that a figure can be read against the speed of the machine in that
minute.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

#: The child: import, start position, legal actions; then what numba compiled or loaded.
_PROBE = """\
import json, sys, time
from hexgames.game import get_game
state = get_game(sys.argv[1]).new(**json.loads(sys.argv[2]))
count = len(state.legal_actions())
listed = time.time()
compiled = loaded = 0
for name, module in list(sys.modules.items()):
    if name.startswith("hexgames"):
        for value in vars(module).values():
            stats = getattr(value, "stats", None)
            if hasattr(stats, "cache_misses") and hasattr(value, "py_func"):
                compiled += sum(stats.cache_misses.values())
                loaded += sum(stats.cache_hits.values())
print(json.dumps({"listed": listed, "actions": count, "compiled": compiled,
                  "loaded": loaded}))
"""

#: The issue's targets (docs/performance.md, "Start-up"), shown next to the figures.
COLD_TARGET_S = 10.0
CACHED_TARGET_S = 1.0


@dataclass
class Start:
    """One process start."""

    kind: str  # "cold" or "cached"
    to_list_s: float  # launch to the first legal-action list, wall seconds
    process_s: float  # launch to the process's end, wall seconds
    cpu_s: float  # the child's user + system CPU seconds
    compiled: int  # compiled functions (numba cache misses) in the child
    loaded: int  # compiled functions loaded from the cache (numba cache hits)
    actions: int  # length of the first legal-action list


def start_process(game: str, options: Mapping[str, Any], cache_dir: str, kind: str,
                  timeout_s: float = 600.0) -> Start:
    """Run the probe once in a fresh interpreter with ``cache_dir`` as numba's cache
    (stopped, and reported, after ``timeout_s`` seconds).

    The child imports this same ``hexgames`` (its folder goes first on ``PYTHONPATH``),
    so an editable checkout measures its own code."""
    import resource  # POSIX; imported here so that the module imports anywhere

    from hexgames._processes import import_path

    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "PYTHONPATH": import_path()}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    launched = time.time()
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, game, json.dumps(dict(options))],
            env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired as error:
        raise RuntimeError(f"the {kind} start did not list its actions within "
                           f"{timeout_s:g} s") from error
    ended = time.time()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"the {kind} start failed:\n{done.stderr.strip()[-2000:]}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return Start(
        kind=kind,
        to_list_s=report["listed"] - launched,
        process_s=ended - launched,
        cpu_s=(after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        compiled=report["compiled"],
        loaded=report["loaded"],
        actions=report["actions"],
    )


def measure_startup(
    game: str,
    options: Mapping[str, Any],
    rounds: int,
    anchor: Callable[[int], float] | None = None,
    progress: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """``rounds`` rounds of (cold start, cached start[, one C anchor run]); each round
    uses a new empty cache directory, removed afterwards. ``anchor(round)`` returns the
    anchor's actions/s."""
    starts: list[Start] = []
    anchor_rates: list[float] = []
    for number in range(rounds):
        with tempfile.TemporaryDirectory(prefix="hexgames-startup-") as cache_dir:
            for kind in ("cold", "cached"):
                starts.append(start_process(game, options, cache_dir, kind))
                if progress is not None:
                    progress()
        if anchor is not None:
            anchor_rates.append(anchor(number))
    return summarize(game, options, starts, anchor_rates)


def summarize(
    game: str, options: Mapping[str, Any], starts: list[Start], anchor_rates: list[float]
) -> dict[str, Any]:
    """The report: every start, and the medians per kind."""
    report: dict[str, Any] = {
        "game": game,
        "options": dict(options),
        "python": sys.version.split()[0],
        "starts": [asdict(start) for start in starts],
        "targets": {"cold_s": COLD_TARGET_S, "cached_s": CACHED_TARGET_S},
        "anchor_actions_per_s": anchor_rates or None,
    }
    for kind in ("cold", "cached"):
        mine = [start for start in starts if start.kind == kind]
        report[f"{kind}_s"] = [round(start.to_list_s, 3) for start in mine]
        report[f"{kind}_median_s"] = statistics.median(start.to_list_s for start in mine)
    return report


def print_report(report: dict[str, Any], console: Any) -> None:
    """The report as a table, one row per start, for people."""
    from rich.table import Table

    table = Table(title=f"{report['game']} start-up, fresh processes "
                        f"(targets: cold {COLD_TARGET_S:g} s, cached {CACHED_TARGET_S:g} s)")
    for heading in ("round", "start", "to first list", "whole process", "CPU",
                    "compiled", "loaded"):
        table.add_column(heading, justify="left" if heading == "start" else "right")
    for index, start in enumerate(report["starts"]):
        table.add_row(
            str(index // 2 + 1), start["kind"], f"{start['to_list_s']:.2f} s",
            f"{start['process_s']:.2f} s", f"{start['cpu_s']:.2f} s",
            str(start["compiled"]), str(start["loaded"]),
        )
    console.print(table)
    console.print(f"median to the first list: cold {report['cold_median_s']:.2f} s, "
                  f"cached {report['cached_median_s']:.2f} s")
    rates = report["anchor_actions_per_s"]
    if rates:
        console.print("C anchor in the same run, one run per round: "
                      + ", ".join(f"{rate:,.0f}" for rate in rates) + " actions/s")
