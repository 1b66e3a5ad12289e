"""No search outlives its deadline or its stop signal (issue 31, row 0).

Dendria's level 5 hung the web app's AI for everyone: while pondering, one compiled
search call never returned. The earlier-positions table of the search's state kept a
slot for every turn a descent had played and taken back (a count of 0 left behind), the
table filled (8,192 slots on the standard board after about 23,000 iterations), and the
next lookup of a missing key probed forever. These tests pin the table's invariant and
run the compiled trees of both games under deadlines and stop flags, each in a child
process with a bound, so that a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections import Counter

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hexgames._processes import import_path
from hexgames.dendria import _repetition as dcore
from hexgames.dendria._search import TreeSearch
from hexgames.game import get_game

SLOTS = 16


def _live_keys(seen: np.ndarray) -> Counter[int]:
    return Counter({int(k): int(c) for k, c in seen if c != -1})


# Each operation: (key, add?). Keys share few home slots (they differ by multiples of the
# table size) so that probe runs wrap around the table's end and deletions must shift.
operations = st.lists(
    st.tuples(st.sampled_from([0, 15, 16, 31, 32, -1, -17, 7, 23, 39]), st.booleans()),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(operations)
@example([(15, True), (31, True), (-1, True), (15, False), (31, True), (-1, False),
          (0, True), (16, True), (0, False)])
def test_the_earlier_positions_table_holds_exactly_the_keys_counted_above_zero(
        ops: list[tuple[int, bool]]) -> None:
    """Adds and removals (a removal only of a key counted, as an undo does) keep the
    table equal to a counter of the keys: a removed key leaves no slot behind, so the
    table never fills with keys of lines taken back."""
    seen = np.zeros((SLOTS, 2), np.int64)
    seen[:, 1] = -1
    meta = np.zeros(dcore.META_LEN, np.int64)
    model: Counter[int] = Counter()
    for key, add in ops:
        if add:
            if len(model) == SLOTS - 1 and key not in model:
                continue  # the product's tables are sized never to fill
            dcore._seen_add(seen, meta, np.int64(key))
            model[key] += 1
        elif model[key] > 0:
            dcore.seen_remove(seen, meta, np.int64(key))
            model[key] -= 1
        model = +model
        assert _live_keys(seen) == model
        assert meta[dcore.M_USED] == len(model)
        for probe in (0, 15, 16, 31, 32, -1, -17, 7, 23, 39, 99):
            assert bool(dcore.seen_has(seen, np.int64(probe))) == (probe in model)


FULL_TABLE = textwrap.dedent("""
    import numpy as np
    from hexgames.dendria import _repetition as core
    seen = np.zeros((16, 2), np.int64)
    seen[:, 0] = np.arange(16)
    seen[:, 1] = 1
    print(bool(core.seen_has(seen, np.int64(19))), bool(core.seen_has(seen, np.int64(3))))
""")


def test_a_lookup_in_a_full_table_ends() -> None:
    """Even a table with no empty slot (which the sizing never lets happen) answers: in
    a child process, whose bound fails the test where the old lookup probed forever."""
    env = {**os.environ, "PYTHONPATH": import_path()}
    result = subprocess.run([sys.executable, "-c", FULL_TABLE], capture_output=True,
                            text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["False", "True"]


def test_a_dendria_search_takes_back_every_turn_it_played() -> None:
    """After thousands of iterations from the standard start (1 turn played), the search's
    earlier-positions table holds what the position's does, nothing of the lines it tried.
    On the old table the count grew with every iteration (and the table filled)."""
    game = get_game("dendria")
    position = game.new_position(game.make_rules())
    for text in ("i1", "end"):
        position.play(text)
    tree = TreeSearch()
    tree.set_root(position)
    before = int(tree._s.meta[dcore.M_USED])
    done = tree.run(3000, 1, 1.0, 2.0, 1.0, True)
    assert done > 0
    assert int(tree._s.meta[dcore.M_USED]) == before == 2
    assert len(_live_keys(tree._s.seen)) == before


PONDER = textwrap.dedent("""
    import json, sys, time
    from hexgames.ai import levels
    from hexgames.game import get_game
    name, opening = sys.argv[1], json.loads(sys.argv[2])
    game = get_game(name)
    ai = levels.player(name, 5, seed=1)
    position = game.new_position(game.make_rules())
    for text in opening:
        position.play(text)
    turns = []
    for turn in range(3):
        # the AI answers the opening, then thinks on the opponent's time
        while not position.is_over and position.current_seat == 1:
            position.play(ai.choose(position))
        if position.is_over:
            break
        began = time.perf_counter()
        by_deadline = ai.ponder(position, lambda: False, deadline=began + 1.0)
        late = time.perf_counter() - began - 1.0
        calls = []
        def stop():
            calls.append(1)
            return len(calls) > 20
        by_flag = ai.ponder(position, stop, deadline=time.perf_counter() + 300.0)
        turns.append({"deadline": by_deadline, "late": late, "flag": by_flag,
                      "asked": len(calls)})
        # the opponent plays its first legal actions to the end of its turn
        while not position.is_over and position.current_seat == 0:
            position.play(position.legal_actions()[0])
    print(json.dumps(turns))
""")


def _ponder_in_child(name: str, opening: list[str]) -> list[dict[str, float]]:
    env = {**os.environ, "PYTHONPATH": import_path()}
    result = subprocess.run([sys.executable, "-c", PONDER, name, json.dumps(opening)],
                            capture_output=True, text=True, timeout=400, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_level_5_ponders_stop_at_their_deadline_and_their_stop_flag_in_both_games() -> None:
    """Level 5's compiled trees, pondering after each of its turns: a deadline ends the
    ponder (the child process's bound fails a hang), and so does the stop flag, asked
    between slices of compiled iterations. Dendria's opening is the one that hung."""
    for name, opening in (("dendria", ["i1", "end"]), ("benediction", [])):
        if name == "benediction":
            game = get_game(name)
            opening = [str(game.new_position(game.make_rules()).legal_actions()[0])]
            position = game.new_position(game.make_rules())
            position.play(opening[0])
            while position.current_seat == 0 and not position.is_over:
                action = str(position.legal_actions()[0])
                position.play(action)
                opening.append(action)
        turns = _ponder_in_child(name, opening)
        assert turns, f"{name}: no turn was pondered"
        for turn in turns:
            assert turn["deadline"] > 0, f"{name}: the ponder did no iteration"
            assert turn["asked"] == 21, f"{name}: the stop flag was not obeyed: {turn}"
            # the bound is the child's timeout; a ponder ends within its last slice
            assert turn["late"] < 60, f"{name}: a ponder ran {turn['late']:.1f} s late"
