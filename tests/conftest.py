"""Shared test configuration: Hypothesis profiles, and helpers used by several test files.

Hypothesis runs **derandomized** by default (profile ``ci``): every run of ``make test``
tries the same examples, so the suite cannot pass on one run and fail on the next. Bugs
that property tests find get their input pinned with ``@example`` as well.

``make fuzz`` (``HEXGAMES_FUZZ=1``) switches to the ``fuzz`` profile: random examples,
many more of them (each test's own ``max_examples`` times ``HEXGAMES_FUZZ_FACTOR``,
default 20), for bug hunting on a developer's machine. A failure found there is fixed
and its input pinned with ``@example`` so that CI checks it every time.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
)
settings.register_profile(
    "fuzz",
    derandomize=False,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)

FUZZING = os.environ.get("HEXGAMES_FUZZ", "") not in {"", "0"}
FUZZ_FACTOR = int(os.environ.get("HEXGAMES_FUZZ_FACTOR", "20"))
settings.load_profile("fuzz" if FUZZING else "ci")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under ``make fuzz``, multiply every property test's own example budget.

    Test files keep their modest CI budgets in ``@settings(max_examples=...)``; an
    explicit setting beats a profile, so the fuzz run scales them here instead.
    """
    if not FUZZING:
        return
    for item in items:
        function = getattr(item, "obj", None)
        own = getattr(function, "_hypothesis_internal_use_settings", None)
        if own is None:
            continue
        function._hypothesis_internal_use_settings = settings(
            own,
            max_examples=own.max_examples * FUZZ_FACTOR,
            derandomize=False,
            database=settings.default.database,
        )


def pytest_configure(config: pytest.Config) -> None:
    """Compile (or load) the compiled rules cores once, before any test process starts.

    On a clean checkout the numba cache is empty and a cold compile of both cores takes
    about a minute. Without this, every xdist worker and every server a test starts
    compiles them at the same time, and numba's on-disk cache is not safe for that: a
    process that writes its index last can drop what another wrote, so later processes
    compile again, each for a minute of a two-core machine. The xdist controller (or a
    plain pytest run) does it once here; the workers (``config.workerinput``) then load
    the cache. (A browser test that failed on clean checkouts was first blamed on this;
    its cause was the test's own exact match of a depth shown too briefly.)
    """
    if hasattr(config, "workerinput"):
        return
    from hexgames.web.cli import warm_up_engines

    warm_up_engines()
