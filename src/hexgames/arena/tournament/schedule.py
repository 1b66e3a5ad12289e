"""Tournaments: who plays whom, in which seat, on how many processes.

A tournament is a list of :class:`Pairing` tasks (one game each) built by
:func:`round_robin` or :func:`gauntlet`; every pair plays an even number of games split
between the two seatings, so no player gets the first move more often. Tasks carry only
plain data (game name, rules options, player specs, seed), so they can run in worker
processes, or as Ray tasks on a cluster (:mod:`hexgames.arena.cluster`), that rebuild
game and players themselves.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path

from hexgames.arena.match import GameResult
from hexgames.arena.work import Pairing, Setup, Work, run_pairing
from hexgames.game import Game


def round_robin(specs: Sequence[str], games_per_pair: int, seed: int = 0) -> list[Pairing]:
    """Every pair of players meets ``games_per_pair`` times, seats alternating."""
    _check(specs, games_per_pair)
    pairs = list(itertools.combinations(specs, 2))
    return _schedule(pairs, games_per_pair, seed)


def gauntlet(
    challenger: str, opponents: Sequence[str], games_per_pair: int, seed: int = 0
) -> list[Pairing]:
    """``challenger`` meets each opponent ``games_per_pair`` times, seats alternating."""
    _check([challenger, *opponents], games_per_pair)
    return _schedule([(challenger, o) for o in opponents], games_per_pair, seed)


def _check(specs: Sequence[str], games_per_pair: int) -> None:
    if len(specs) < 2:
        raise ValueError("a tournament needs at least two players")
    if len(set(specs)) != len(specs):
        raise ValueError(f"players must be distinct, got {list(specs)}")
    if games_per_pair < 1:
        raise ValueError(f"games per pairing must be at least 1, got {games_per_pair}")


def _schedule(pairs: Sequence[tuple[str, str]], games: int, seed: int) -> list[Pairing]:
    tasks: list[Pairing] = []
    for round_number in range(games):
        for a, b in pairs:  # interleave pairings so partial results stay balanced
            specs = (a, b) if round_number % 2 == 0 else (b, a)
            index = len(tasks)
            tasks.append(Pairing(index, specs, seed * 1_000_003 + index))
    return tasks


def run_all(
    setup: Setup,
    tasks: Sequence[Pairing],
    *,
    jobs: int = 1,
    game: Game | None = None,
    on_result: Callable[[GameResult], None] | None = None,
    cluster: str | None = None,
) -> list[GameResult]:
    """Play ``tasks`` on ``jobs`` processes, or on Ray; results in task order.

    ``jobs == 1`` plays in this process (and may use an unregistered ``game`` object,
    as tests do). ``on_result`` is called as each game finishes (progress bars,
    writing records). ``cluster`` (``"auto"`` or ``"local"``, see
    :mod:`hexgames.arena.cluster`) plays every game as a Ray task instead; the results
    are the same as in processes, game for game, since each game's seeds come from its
    :class:`Pairing` alone.
    """
    if game is not None and cluster is not None:
        raise ValueError("an unregistered game object can only be played in this process")

    def done(_position: int, result: GameResult) -> None:
        if on_result is not None:
            on_result(result)

    return run_many([(setup, task) for task in tasks], jobs=jobs, game=game,
                    on_result=done, cluster=cluster)


#: One game of a batch: the shared setup (rules, cap) and the scheduled pairing.


def run_many(
    work: Sequence[Work],
    *,
    jobs: int = 1,
    game: Game | None = None,
    on_result: Callable[[int, GameResult], None] | None = None,
    cluster: str | None = None,
) -> list[GameResult]:
    """Play games of possibly different setups (a sweep's variants) as one batch.

    Returns results in the order of ``work``; ``on_result(position, result)`` is called
    as each game finishes, ``position`` being its place in ``work``. One batch keeps
    every process (or cluster CPU) busy until the last game, with no pause between
    variants.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    results: dict[int, GameResult] = {}

    def done(position: int, result: GameResult) -> None:
        results[position] = result
        if on_result is not None:
            on_result(position, result)

    if cluster is not None:
        from hexgames.arena.cluster import ray_results

        for position, result in ray_results(work, mode=cluster, jobs=jobs):
            done(position, result)
    elif jobs == 1 or len(work) <= 1:
        for position, (setup, task) in enumerate(work):
            done(position, run_pairing(setup, task, game))
    else:
        for position, result in _in_processes(work, jobs):
            done(position, result)
    return [results[position] for position in range(len(work))]


def _in_processes(work: Sequence[Work], jobs: int) -> Iterator[tuple[int, GameResult]]:
    """(position, result) as games complete, keeping at most ``2 * jobs`` in flight."""
    with ProcessPoolExecutor(max_workers=min(jobs, len(work))) as pool:
        pending = iter(enumerate(work))
        running: dict[Future[GameResult], int] = {}

        def submit(count: int) -> None:
            for position, (setup, task) in itertools.islice(pending, count):
                running[pool.submit(run_pairing, setup, task)] = position

        submit(2 * jobs)
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                position = running.pop(future)
                yield position, future.result()
                submit(1)


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def save_record(directory: Path, result: GameResult) -> Path:
    """Write one game's record as ``game-0001.txt`` (1-based, in schedule order)."""
    path = directory / f"game-{result.index + 1:04d}.txt"
    path.write_text(result.record, encoding="utf-8")
    return path
