"""Arena games as Ray tasks: ``--cluster auto|local`` for ``arena``, ``report``, ``sweep``.

`Ray <https://docs.ray.io>`_ is an optional dependency (``pip install 'hexgames[cluster]'``);
nothing here imports it before a command asks for a cluster.

* ``auto`` connects to a running Ray cluster: the one named by ``RAY_ADDRESS`` (for
  example ``ray://head:10001`` or ``head:6379``), else the one ``ray start --head``
  started on this machine.
* ``local`` starts Ray inside this process with ``--jobs`` CPUs (and stops it at the end).

Every game is one Ray task that rebuilds game and players from plain data
(:func:`~hexgames.arena.work.run_pairing`, as a worker process of the pool does),
so a re-run with the same seed plays the same games. A task whose worker dies (a node
lost, a process killed) is run again by Ray (``max_retries``); since a game's seeds come
only from its :class:`~hexgames.arena.work.Pairing`, the repeated game is the same
game. At most ``2 x`` the cluster's CPUs tasks are in flight; results come back as they
finish (a ``ray.wait`` loop), so progress bars and records advance game by game.
"""

from __future__ import annotations

import itertools
import logging
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from hexgames.arena.match import GameResult
from hexgames.arena.work import Pairing, Setup, Work, run_pairing

#: Values of ``--cluster``.
MODES = ("auto", "local")
INSTALL_HINT = "pip install 'hexgames[cluster]'"
#: How often Ray runs a game again whose worker died before it finished.
MAX_RETRIES = 3


class ClusterError(ValueError):
    """Ray is not installed, no cluster is running, or the mode is unknown."""


def add_cluster_argument(parser: Any) -> None:
    """The ``--cluster`` option, the same for every command that plays games."""
    parser.add_argument(
        "--cluster", choices=MODES, default=None,
        help="play the games on Ray instead of local worker processes: 'auto' connects "
        "to a running Ray cluster (RAY_ADDRESS, or the one `ray start --head` started "
        "here; --jobs is then ignored), 'local' starts Ray in this process with --jobs "
        f"CPUs. Needs Ray: {INSTALL_HINT}",
    )


def where(mode: str | None, jobs: int) -> str:
    """Where the games run, in words, for progress lines and reports."""
    if mode == "auto":
        return "a Ray cluster"
    if mode == "local":
        return f"Ray (local, {jobs} CPUs)"
    return f"{jobs} process(es)"


def import_ray() -> Any:
    """The ``ray`` module, or a :class:`ClusterError` saying how to install it."""
    try:
        import ray
    except ImportError as error:
        raise ClusterError(
            f"--cluster needs Ray, which is not installed here: {INSTALL_HINT} "
            "(on every machine of the cluster)"
        ) from error
    return ray


def check(mode: str) -> None:
    """Refuse an unknown mode or a missing Ray before any game is scheduled."""
    if mode not in MODES:
        raise ClusterError(f"--cluster must be one of {', '.join(MODES)}, got {mode!r}")
    import_ray()


def enter_session(stack: ExitStack, mode: str | None, jobs: int, console: Any) -> bool:
    """Enter :func:`session` on ``stack`` when ``mode`` is given (the commands' one way
    to connect). Connecting comes before anything is written: on failure the error is
    printed on ``console`` and False returned, so the command exits with a usage error."""
    if mode is None:
        return True
    try:
        stack.enter_context(session(mode, jobs))
    except ClusterError as error:
        from rich.markup import escape

        console.print(f"[red]error:[/red] {escape(str(error))}")
        return False
    return True


@contextmanager
def session(mode: str, jobs: int) -> Iterator[Any]:
    """Ray, connected for the duration of the block; yields the ``ray`` module.

    A Ray already initialised in this process (a sweep running several batches, a test
    module sharing one) is used as it is and left running.
    """
    check(mode)
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
    if mode == "local":
        if jobs < 1:
            raise ClusterError(f"--jobs must be at least 1, got {jobs}")
        ray.init(num_cpus=jobs, include_dashboard=False, runtime_env=_local_runtime_env(),
                 **quiet)
    else:
        address = os.environ.get("RAY_ADDRESS") or "auto"
        _check_reachable(address)
        try:
            ray.init(address=address, **quiet)
        except ConnectionError as error:
            raise ClusterError(
                f"no running Ray cluster found at {address!r} ({error}); start one with "
                "`ray start --head` (and `ray start --address=HEAD:6379` on the other "
                "machines), or set RAY_ADDRESS, or use --cluster local"
            ) from error
    try:
        yield ray
    finally:
        ray.shutdown()


def _check_reachable(address: str) -> None:
    """Fail at once when nothing listens at ``RAY_ADDRESS`` (Ray itself would retry for
    minutes)."""
    if address == "auto":
        return
    host, sep, port = address.split("://")[-1].rstrip("/").rpartition(":")
    if not sep or not port.isdigit():
        return  # not host:port; let Ray judge it
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as error:
        raise ClusterError(
            f"nothing answers at RAY_ADDRESS={address!r} ({error}): is the head node's "
            "`ray start --head` running, and is the port reachable from here?"
        ) from error


def _local_runtime_env() -> dict[str, Any]:
    """Workers of an in-process Ray import hexgames from where this process does, and
    player factories (``--players module:callable``) from the current directory too.

    Ray's workers inherit the environment but not the working directory, so a relative
    ``PYTHONPATH=src`` (a source checkout) would not find the package there, nor a
    factory's module lying in the directory the command was started from.
    """
    from hexgames._processes import import_path

    return {"env_vars": {"PYTHONPATH": os.pathsep.join([import_path(), os.getcwd()])}}


def ray_results(
    work: Sequence[Work],
    *,
    mode: str,
    jobs: int,
    max_retries: int = MAX_RETRIES,
    in_flight: int | None = None,
    play: Callable[[Setup, Pairing], GameResult] | None = None,
) -> Iterator[tuple[int, GameResult]]:
    """``(position in work, result)`` for every game, as the Ray tasks finish.

    ``play`` (default :func:`~hexgames.arena.work.run_pairing`) runs in the Ray
    worker; it must be importable there, or a closure Ray can pickle by value.
    ``in_flight`` bounds the tasks submitted and not yet collected (default: twice the
    cluster's CPUs).
    """
    if play is None:
        play = run_pairing
    with session(mode, jobs) as ray:
        remote = ray.remote(num_cpus=1, max_retries=max_retries)(play)
        if in_flight is None:
            cpus = int(ray.cluster_resources().get("CPU", jobs))
            in_flight = 2 * max(1, cpus)
        pending = iter(enumerate(work))
        running: dict[Any, int] = {}

        def submit(count: int) -> None:
            for position, (setup, task) in itertools.islice(pending, count):
                running[remote.remote(setup, task)] = position

        submit(max(1, in_flight))
        try:
            while running:
                ready, _ = ray.wait(list(running), num_returns=1)
                for ref in ready:
                    position = running.pop(ref)
                    yield position, ray.get(ref)
                    submit(1)
        finally:
            for ref in running:  # an error or an interrupt: stop the rest
                ray.cancel(ref, force=True)

