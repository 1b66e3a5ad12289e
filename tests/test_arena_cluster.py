"""The arena on Ray (``--cluster``): the same games as the process pool for the same seed,
and a game whose worker dies is played again.

One in-process Ray (2 CPUs) serves the whole module: starting Ray takes seconds. The
games are short (Benediction on a side-4 board with a turn limit, Dendria size 3)
between ``random`` and ``L1``.
"""

from __future__ import annotations

import csv
import dataclasses
import os
from pathlib import Path

import pytest

from hexgames.arena import cluster
from hexgames.arena.match import GameResult
from hexgames.arena.tournament.schedule import Pairing, Setup, round_robin, run_all, run_pairing
from hexgames.cli import main

ray = pytest.importorskip("ray")

BENEDICTION = Setup("benediction", {"board_side": 4, "max_turns": 12})
DENDRIA = Setup("dendria", {"size": 3})


@pytest.fixture(scope="module")
def ray_session():
    """Ray started the way ``--cluster local`` starts it, stopped after the module."""
    assert not ray.is_initialized()
    with cluster.session("local", 2) as session:
        assert session.cluster_resources()["CPU"] == 2
        yield session
    assert not ray.is_initialized()


def comparable(results: list[GameResult]) -> list[GameResult]:
    """Everything but the time a game took."""
    return [dataclasses.replace(r, seconds=0.0) for r in results]


def crash_once(marker: Path, index: int):
    """``run_pairing``, except that the worker playing game ``index`` dies the first time
    (``os._exit``: no exception, no clean-up, as when a node is lost)."""

    def play(setup: Setup, task: Pairing) -> GameResult:
        if task.index == index and not marker.exists():
            marker.write_text(f"worker {os.getpid()} died playing game {index}\n")
            os._exit(1)
        return run_pairing(setup, task)

    return play


@pytest.mark.parametrize("setup", [BENEDICTION, DENDRIA], ids=["benediction", "dendria"])
def test_ray_plays_the_same_games_as_the_process_pool(ray_session, setup):
    tasks = round_robin(["random", "L1"], 4, seed=7)
    finished: list[int] = []
    on_ray = run_all(setup, tasks, jobs=2, cluster="local",
                     on_result=lambda r: finished.append(r.index))
    assert sorted(finished) == [t.index for t in tasks]  # streamed back one by one
    assert comparable(on_ray) == comparable(run_all(setup, tasks, jobs=2))
    assert ray.is_initialized()  # the module's session is reused, not stopped


def test_a_game_whose_worker_dies_is_played_again(ray_session, tmp_path):
    marker = tmp_path / "crashed"
    tasks = round_robin(["random", "L1"], 3, seed=11)
    work = [(BENEDICTION, task) for task in tasks]
    got = dict(cluster.ray_results(work, mode="local", jobs=2, in_flight=2,
                                   play=crash_once(marker, 1)))
    assert marker.exists()  # the worker did die
    assert sorted(got) == list(range(len(work)))
    expected = run_all(BENEDICTION, tasks, jobs=1)
    assert comparable([got[i] for i in range(len(work))]) == comparable(expected)


def test_without_retries_a_dead_worker_fails_the_run(ray_session, tmp_path):
    tasks = round_robin(["random", "L1"], 1, seed=1)
    work = [(BENEDICTION, task) for task in tasks]
    with pytest.raises(ray.exceptions.WorkerCrashedError):
        list(cluster.ray_results(work, mode="local", jobs=2, max_retries=0,
                                 play=crash_once(tmp_path / "crashed", 0)))


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open() as handle:
        return [{k: v for k, v in row.items() if k != "seconds"}
                for row in csv.DictReader(handle)]


def test_arena_cli_on_ray_writes_the_same_records_as_processes(ray_session, tmp_path):
    command = ["arena", "benediction", "--players", "random,L1", "--games", "2",
               "--set", "board_side=4", "--set", "max_turns=12", "--seed", "5"]
    assert main([*command, "--jobs", "2", "--out", str(tmp_path / "pool")]) == 0
    assert main([*command, "--jobs", "2", "--cluster", "local",
                 "--out", str(tmp_path / "ray")]) == 0
    pool = sorted((tmp_path / "pool").glob("game-*.txt"))
    on_ray = sorted((tmp_path / "ray").glob("game-*.txt"))
    assert [p.name for p in pool] == [p.name for p in on_ray] and len(pool) == 2
    assert [p.read_text() for p in pool] == [p.read_text() for p in on_ray]
    assert read_rows(tmp_path / "pool" / "results.csv") == read_rows(
        tmp_path / "ray" / "results.csv")
    assert "Ray (local, 2 CPUs)" in (tmp_path / "ray" / "summary.md").read_text()


def test_sweep_on_ray_matches_the_process_pool(ray_session, tmp_path):
    command = ["sweep", "dendria", "--grid", "board_side=3,4", "--players", "random,L1",
               "--games", "2", "--jobs", "2"]
    assert main([*command, "--out", str(tmp_path / "pool")]) == 0
    assert main([*command, "--cluster", "local", "--out", str(tmp_path / "ray")]) == 0
    assert read_rows(tmp_path / "pool" / "results.csv") == read_rows(
        tmp_path / "ray" / "results.csv")


def test_report_on_ray_matches_the_process_pool(ray_session, tmp_path):
    command = ["report", "dendria", "--set", "board_side=3", "--player", "random",
               "--trace", "L1", "--games", "2", "--jobs", "2", "--seed", "3"]
    assert main([*command, "--out", str(tmp_path / "pool")]) == 0
    assert main([*command, "--cluster", "local", "--out", str(tmp_path / "ray")]) == 0
    pool = sorted((tmp_path / "pool" / "games").glob("game-*.txt"))
    on_ray = sorted((tmp_path / "ray" / "games").glob("game-*.txt"))
    assert len(pool) == 2 and [p.read_text() for p in pool] == [p.read_text() for p in on_ray]
    assert read_rows(tmp_path / "pool" / "games.csv") == read_rows(tmp_path / "ray" / "games.csv")
