"""The engines' shared, lazily made tables stay consistent when threads make them at once.

A web server's threads may play a variant for the first time together. Each engine maps
its shared action objects back to codes by identity (``id``), which is only sound while
those very objects live: if two threads each made a table and one replaced the other,
the map could keep the identities of freed objects, and a later, unrelated object at the
same address would be taken for that action (found by ``experiments/old_vs_new.py``, whose
referee threads refused legal Dendria steps: "end: not a legal step now"). The tests
make switching between threads as frequent as CPython allows while several threads
first touch the tables of a fresh core.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hexgames.benediction import Rules as BenedictionRules
from hexgames.benediction.core import Core as BenedictionCore
from hexgames.dendria import Rules as DendriaRules
from hexgames.dendria.core import Core as DendriaCore

THREADS = 6


@contextmanager
def frequent_switches() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def together(work: Callable[[], Any]) -> list[Any]:
    """``work()`` in ``THREADS`` threads released at the same moment; their results."""
    barrier = threading.Barrier(THREADS)
    results: list[Any] = [None] * THREADS
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            barrier.wait()
            results[k] = work()
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(THREADS)]
    with frequent_switches():
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors, errors
    return results


def test_dendria_step_tables_made_by_threads_at_once_are_one_table() -> None:
    for side in (5, 7):
        for _ in range(3):
            core = DendriaCore(DendriaRules(board_side=side))
            seen = together(lambda core=core: (core.step_list, core.step_ids))
            steps, ids = core.step_list, core.step_ids
            assert all(got[0] is steps and got[1] is ids for got in seen)
            live = {id(s): c for c, s in enumerate(steps) if s is not None}
            assert ids == live  # every identity in the map is one of the kept steps


def test_benediction_action_table_made_by_threads_at_once_keeps_the_mapped_objects() -> None:
    for _ in range(3):
        core = BenedictionCore(BenedictionRules(board_side=5))
        codes = range(0, core.num_actions + core.n * core.n * core.k, 7)
        together(lambda core=core, codes=codes: [core.actions[ext] for ext in codes])
        kept = {id(action): action for action in core.actions.values()}
        assert set(core.ids) <= set(kept)  # no identity of a dropped (freed) action
        assert all(core.actions[ext] is kept[key] for key, ext in core.ids.items())
