"""What a clock costs per turn (issue 11): the clock update and the extra SQLite write.

Run: ``PYTHONPATH=src python experiments/measure_clock_cost.py``. A timed online game stores
its meta (clock, seat to move) once per turn beside the action: about the cost of storing
an action again.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from hexgames.web.game.clocks import Clock, TimeControl
from hexgames.web.storage import GameMeta, StoredGame, open_storage


def main(argv: list[str] | None = None) -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    clock = Clock.new(TimeControl.parse({"kind": "realtime", "base_s": 300, "increment_s": 2}))
    clock.resume(0, 0)
    count = 100_000
    start = time.perf_counter()
    for i in range(count):
        clock.turn_ended(i % 2, 1 - i % 2, float(i), 50)
        clock.to_dict()
    print(f"clock turn_ended + to_dict: {(time.perf_counter() - start) / count * 1e6:.2f} us")
    with tempfile.TemporaryDirectory() as tmp:
        storage = open_storage(data_dir=tmp)
        storage.create_game(StoredGame(
            id="g", game="benediction", options={}, mode="online", players=[{}, {}],
            seat_tokens=["a", "b"], status="playing", winner=None, reason=None,
            created_at="t", updated_at="t"))
        meta = GameMeta(clock=clock.to_dict(), deadline=1, control={"kind": "realtime"},
                        turn=0)
        count = 2000
        start = time.perf_counter()
        for i in range(count):
            meta.deadline = i
            storage.set_meta("g", meta, "t")
        print(f"SQLite set_meta: {(time.perf_counter() - start) / count * 1e3:.3f} ms")
        start = time.perf_counter()
        for i in range(count):
            storage.append_actions("g", i, ["x"], "t")
        print(f"SQLite append_actions (for comparison): "
              f"{(time.perf_counter() - start) / count * 1e3:.3f} ms")
        storage.close()


if __name__ == "__main__":
    main()
