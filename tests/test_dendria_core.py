"""Differential tests: Dendria's compiled rules core (:mod:`hexgames.dendria.core`) and
the product's :class:`~hexgames.dendria.Position` (a thin layer over it) against the
pure-Python engine kept as the oracle (``tests/oracles/dendria_position.py``), over many
random games of several variants.

At every step of every game: the legal step lists (same steps, same order, same codes),
the boards, the key (also recomputed from scratch), colour to move, seats, turn state and
text; a step that is not legal is refused by both with the same message and changes
nothing; at the end the termination, the scores, the outcome and the winning seat; then
undo walks back through the same keys.

Two policies pick the steps: **uniform** (a uniformly random legal step, as the
benchmark's random games) and **mover** (prefers dendrid legs, continuations and
follow-ups to plants and ends, so that dendrids shuttle about and the no-repetition rule,
with its turn-finishability search, bites often).

Default run: 1,064 games (board sides 3 to 7; pie on and off; K from 1 to 10), side-6
and side-7 games cut after 160 steps to keep ``make test`` short. ``HEXGAMES_FUZZ=1``
(``make fuzz``) multiplies the games by ``HEXGAMES_FUZZ_FACTOR`` (default 20) and plays
side-6 and side-7 games to the end.
"""

from __future__ import annotations

import json
import os
import random

import numba
import numpy as np
import pytest

from hexgames import IllegalAction
from hexgames.dendria import Position, Rules, Step
from hexgames.dendria._layout import M_SCANNED
from hexgames.dendria._sight import _scan_once
from hexgames.dendria.core import Core, CoreState, core_for
from hexgames.dendria.kernel import kernel
from oracles.dendria_position import AFTER_STOP
from oracles.dendria_position import Position as Oracle

FUZZING = os.environ.get("HEXGAMES_FUZZ", "") not in {"", "0"}
FACTOR = int(os.environ.get("HEXGAMES_FUZZ_FACTOR", "20")) if FUZZING else 1

#: (rules, policy, games, step cap or None)
VARIANTS = [
    (Rules(board_side=4), "uniform", 200, None),
    (Rules(board_side=4, pie=False, quiet_limit=3), "uniform", 160, None),
    (Rules(board_side=3, quiet_limit=1), "uniform", 180, None),
    (Rules(board_side=3, quiet_limit=6), "mover", 140, None),
    (Rules(board_side=4, pie=False, quiet_limit=5), "mover", 120, None),
    (Rules(board_side=5), "uniform", 100, None),
    (Rules(board_side=5, pie=False, quiet_limit=4), "mover", 60, None),
    (Rules(board_side=6, quiet_limit=3), "mover", 24, None if FUZZING else 160),
    (Rules(board_side=7), "uniform", 50, None if FUZZING else 160),
    (Rules(board_side=7, pie=False, quiet_limit=2), "mover", 30, None if FUZZING else 160),
]

_FOLLOW_UPS = ("sprout", "grow", "convert", "continue")


def pick(policy: str, legal: list, rng: random.Random):  # type: ignore[no-untyped-def]
    if policy == "mover" and rng.random() < 0.85:
        preferred = [s for s in legal if s.kind in _FOLLOW_UPS or s.kind == "leg"]
        if preferred:
            return preferred[rng.randrange(len(preferred))]
    return legal[rng.randrange(len(legal))]


def same(p: Oracle | Position, s: CoreState) -> None:
    assert s.cells.tolist() == list(p.cells)
    assert s.key == p.key
    assert s.to_move == ("dark", "light").index(p.to_move)
    assert s.reason == p.end_reason
    assert s.swapped == (p.seat_of("dark") == 1)


def same_position(o: Oracle, p: Position, *, deep: bool = False) -> None:
    """The product's position agrees with the oracle's (``deep``: also the key from
    scratch, the text and the per-cell queries)."""
    assert list(p.cells) == list(o.cells)
    assert p.key == o.key
    assert (p.to_move, p.current_seat, p.seat_of("dark"), p.is_over, p.end_reason) == (
        o.to_move, o.current_seat, o.seat_of("dark"), o.is_over, o.end_reason)
    assert (p.is_turn_start(), p.moving_dendrid, p.turn_number, p.ply) == (
        o.is_turn_start(), o.moving_dendrid, o.turn_number, o.ply)
    assert (p.quiet_turns, p.consecutive_passes, p.pie_pending) == (
        o.quiet_turns, o.consecutive_passes, o.pie_pending)
    assert p.score() == o.score() and p.seat_scores() == o.seat_scores()
    if deep:
        assert p.key == p._key_from_scratch()
        # plain Python values (a numpy scalar would not go through json)
        json.dumps([p.is_turn_start(), p.pie_pending, p.current_seat, p.turn_number,
                    p.quiet_turns, p.consecutive_passes, p.score(), list(p.cells), p.key,
                    p.is_over, p.seat_scores(), p.returns(), p.cells[0], p.cells[:3]])
        assert p.to_text() == o.to_text()
        assert p.turn_steps() == o.turn_steps()
        for label in p.board.labels:
            if p.piece_at(label) is not None and p.piece_at(label).kind == "dendrid":
                assert p.dendrid_destinations(label) == o.dendrid_destinations(label)


def refuse_alike(o: Oracle, p: Position, core: Core, legal: list, rng: random.Random,
                 step: Step | None = None) -> None:
    """``step`` (default: a random step) is not legal now: both refuse it with the same
    message, and neither changes."""
    listed = set(legal)
    for _ in range(20 if step is None else 0):
        step = core.step_list[rng.randrange(core.num_actions)]
        if step is not None and step not in listed:
            break
    if step is None or step in listed:
        return
    before = (p.key, p.ply, list(p.cells))
    with pytest.raises(IllegalAction) as expected:
        o.play(step)
    with pytest.raises(IllegalAction) as got:
        p.play(str(step) if rng.random() < 0.5 else step)
    assert str(got.value) == str(expected.value)
    assert (p.key, p.ply, list(p.cells)) == before


def play_both(rules: Rules, policy: str, seed: int, cap: int | None) -> tuple[int, int]:
    """Play one game on the oracle, the product's Position and a bare core state;
    returns (steps, times `end` was refused after a dendrid stop because of the
    no-repetition rule)."""
    rng = random.Random(seed)
    o = Oracle.initial(rules)
    p = Position.initial(rules)
    core = Core(rules)
    s = core.initial()
    keys = [s.key]
    refused = 0
    while True:
        same(o, s)
        same_position(o, p, deep=rng.random() < 0.1)
        legal = o.legal_actions()
        codes = s.legal_codes()
        assert [str(x) for x in s.legal_steps()] == [str(x) for x in legal]
        assert [core.code_of(x) for x in legal] == codes.tolist()
        assert p.legal_actions() == legal
        if not legal or (cap is not None and len(keys) > cap):
            break
        if o._phase == AFTER_STOP and legal[-1].kind != "end":
            refused += 1
            # ending now would repeat an earlier position: both say after which turn
            refuse_alike(o, p, core, legal, rng, Step("end"))
        if rng.random() < 0.1:
            refuse_alike(o, p, core, legal, rng)
        step = pick(policy, legal, rng)
        o.play(step)
        p.play(step if rng.random() < 0.8 else str(step))
        s.play_code(core.code_of(step))
        keys.append(s.key)
    assert p.history == o.history
    if o.is_over:
        assert s.scores() == (o.score()["dark"], o.score()["light"])
        outcome = o.outcome()
        assert outcome is not None
        assert p.outcome() == outcome
        assert (p.winner, p.returns()) == (o.winner, o.returns())
        expected = -1 if outcome.winner_seat is None else outcome.winner_seat
        assert s.winner_seat() == expected
    for key in reversed(keys[:-1]):
        s.undo()
        assert s.key == key
        assert p.undo() == o.undo()
        assert p.key == key == o.key
        if rng.random() < 0.2:  # the list kept from before the step, put back by undo
            assert p.legal_actions() == o.legal_actions()
    same(Oracle.initial(rules), s)
    same_position(o, p, deep=True)
    return len(keys) - 1, refused


@pytest.mark.parametrize(("rules", "policy", "games", "cap"), VARIANTS,
                         ids=lambda v: str(v))
def test_core_matches_the_python_engine_in_random_games(rules, policy, games, cap):
    results = [play_both(rules, policy, seed, cap) for seed in range(games * FACTOR)]
    assert sum(steps for steps, _ in results) > games * 10
    if policy == "mover" and rules.board_side <= 4:
        # the no-repetition rule refused `end` after a stop in some of these games, so
        # the finishability search ran and was compared
        assert sum(refused for _, refused in results) > 0


def test_at_least_a_thousand_games_are_compared():
    assert sum(games for _, _, games, _ in VARIANTS) >= 1000


def test_mid_game_positions_convert_with_their_history_and_turn_state():
    """A Position taken over mid-turn (after a stop, after a plant) and mid-game (with
    earlier positions to avoid) lists the same steps on the core and plays on alike."""
    rules = Rules(board_side=4, quiet_limit=5)
    for seed in range(40):
        rng = random.Random(seed)
        o = Oracle.initial(rules)
        p = Position.initial(rules)
        for _ in range(rng.randrange(5, 120)):
            legal = o.legal_actions()
            if not legal:
                break
            step = pick("mover", legal, rng)
            o.play(step)
            p.play(step)
        s = p.core_state()
        assert s.undoable == 0  # a fresh state: the position's undo history stays there
        same(o, s)
        for _ in range(30):
            legal = o.legal_actions()
            assert [str(x) for x in s.legal_steps()] == [str(x) for x in legal]
            if not legal:
                break
            step = pick("mover", legal, rng)
            o.play(step)
            s.play(step)
            same(o, s)


def test_positions_read_from_text_convert():
    rng = random.Random(5)
    p = Oracle.initial(Rules(board_side=5))
    while p.ply < 150 and not p.is_over:
        legal = p.legal_actions()
        p.play(pick("mover", legal, rng))
        if p.is_turn_start() and p.ply > 60:
            break
    o = Oracle.from_text(p.to_text())
    q = Position.from_text(p.to_text())
    s = q.core_state()
    same(o, s)
    same_position(o, q, deep=True)
    assert [str(x) for x in s.legal_steps()] == [str(x) for x in o.legal_actions()]
    assert q.legal_actions() == o.legal_actions()


def test_codes_and_steps_map_both_ways():
    core = Core(Rules(board_side=5))
    for code in range(core.num_actions):
        try:
            step = core.to_step(code)
        except ValueError:
            continue
        assert core.code_of(step) == code
        assert core.code_of(str(step)) == code


def test_codes_are_the_research_step_ids():
    from hexgames.dendria.encoding import action_to_id, num_distinct_actions

    rules = Rules(board_side=5)
    core = Core(rules)
    assert core.num_actions == num_distinct_actions(rules)
    p = Position.initial(rules)
    rng = random.Random(2)
    for _ in range(80):
        legal = p.legal_actions()
        assert [core.code_of(x) for x in legal] == [action_to_id(p, x) for x in legal]
        p.play(pick("mover", legal, rng))


def test_random_playouts_end_every_game_and_are_seeded():
    s = Core(Rules(board_side=5, quiet_limit=3)).initial()
    before = (s.cells.copy(), s.meta.copy(), s.seen.copy())
    winners, lengths, total = s.random_playouts(60, seed=3)
    assert total == int(lengths.sum()) > 0
    assert set(winners.tolist()) <= {-1, 0, 1} and {0, 1} <= set(winners.tolist())
    again = s.random_playouts(60, seed=3)
    assert np.array_equal(again[0], winners) and np.array_equal(again[1], lengths)
    # the state the playouts started from is untouched
    assert all(np.array_equal(a, b) for a, b in zip(before, (s.cells, s.meta, s.seen),
                                                    strict=True))


def test_playouts_from_a_position_mid_turn_follow_the_seats():
    """The kernel's playouts start from any Position (here mid-turn, after the pie
    rule's swap) and report winners as seats; a cut-off game counts -1."""
    p = Position.initial(Rules(board_side=4, quiet_limit=2))
    p.play_turn("d4")
    p.play_turn("swap")
    assert p.seat_of("light") == 0
    p.play("c3")
    seats, lengths = kernel().playouts(p, 40, seed=1)
    assert set(seats.tolist()) <= {-1, 0, 1}
    assert (lengths > 0).all()
    cut, cut_lengths = kernel().playouts(p, 5, seed=1, max_actions=1)
    assert (cut == -1).all() and (cut_lengths == 1).all()


def test_the_kernel_plays_out_positions_and_states_of_this_engine_only():
    p = Position.initial(Rules(board_side=4))
    for state in (p, p.core_state()):
        seats, _ = kernel().playouts(state, 3, seed=2)
        assert len(seats) == 3 and set(seats.tolist()) <= {-1, 0, 1}
    with pytest.raises(ValueError, match="Dendria Position or CoreState"):
        kernel().playouts(Oracle.initial(Rules(board_side=4)), 3)


def test_is_warm_names_compiled_functions_that_exist():
    """``is_warm`` asks numba's cache about these functions: each must be a compiled
    function of its module (a renamed one would make ``is_warm`` false for ever)."""
    from numba.core.registry import CPUDispatcher

    from hexgames.dendria import kernel as face

    assert face._ENTRY_POINTS
    for module, names in face._ENTRY_POINTS.items():
        for name in names:
            assert isinstance(getattr(module, name), CPUDispatcher), (module.__name__, name)


def test_kernel_random_games_and_driven_games():
    k = kernel()
    seats, lengths = k.random_games({"board_side": 3}, 10, seed=4)
    assert len(seats) == 10 and (lengths > 0).all()
    assert k.driven_games({"board_side": 3}, 2, seed=1) > 0


def test_the_kernel_is_the_games_kernel():
    from hexgames.dendria import GAME

    assert GAME.kernel is not None and GAME.kernel() is kernel()


@pytest.mark.parametrize("seed", range(12))
def test_position_lists_its_steps_as_the_oracle_does_through_undo_copies_and_pickles(seed):
    """Position.legal_actions (the core) equals the oracle's list through play, undo,
    copies and pickles, and the steps played lead to the same positions (a twin oracle
    position that never asks the core)."""
    import pickle

    rng = random.Random(seed)
    rules = Rules(board_side=4, quiet_limit=4, pie=seed % 2 == 0)
    p = Position.initial(rules)
    twin = Oracle.initial(rules)
    for _ in range(250):
        assert (p.key, list(p.cells), p.ply) == (twin.key, list(twin.cells), twin.ply)
        legal = p.legal_actions()
        assert legal == twin.legal_actions()
        if not legal or rng.random() < 0.15:
            for _ in range(min(p.ply, rng.randrange(1, 8))):
                assert p.undo() == twin.undo()
            continue
        if rng.random() < 0.05:
            p = pickle.loads(pickle.dumps(p)) if rng.random() < 0.5 else p.copy()
            legal = p.legal_actions() if rng.random() < 0.5 else legal
        step = pick("mover", legal, rng)
        p.play(step)
        twin.play(step)
        assert p.history[-1] == twin.history[-1]


def test_a_grow_or_convert_named_by_any_cell_of_its_group_is_recorded_by_its_first_cell():
    """The core lists a grow or convert by the first cell of the group; written with
    another of its cells the step is still legal, and both engines record the listed
    one."""
    found = 0
    for seed in range(60):
        rng = random.Random(seed)
        o, p = Oracle.initial(Rules(board_side=4)), Position.initial(Rules(board_side=4))
        while not o.is_over and found < 8:
            legal = o.legal_actions()
            groups = [s for s in legal if s.kind in ("grow", "convert")
                      and len(o.group(s.target)) > 1]
            if groups:
                step = groups[0]
                other = Step(step.kind, target=o.group(step.target)[-1])
                o.play(other)
                p.play(str(other))
                assert p.history[-1] == o.history[-1] == step
                same_position(o, p, deep=True)
                found += 1
                continue
            step = pick("mover", legal, rng)
            o.play(step)
            p.play(step)
    assert found == 8


def test_the_position_is_thin_its_state_is_the_cores():
    """No rules state is kept in Python: the board, turn state and key are the core's,
    and the cells view follows the core's array live."""
    p = Position.initial(Rules(board_side=5))
    view = p.cells
    for name in ("_seen", "_seen_keys", "_masks", "_finish_memo", "_undo_records"):
        assert name not in vars(p)
    p.play_turn("e5")
    assert view[p.board.index("e5")] == 1 and p.core.cells[p.board.index("e5")] == 1
    assert p.key == p.core.key and p.to_move == "light" and p.core.to_move == 1
    q = p.copy()
    q.play("swap")
    assert p.core is not q.core and p.pie_pending and not q.pie_pending
    assert [r.remembered is not None for r in q._undo_stack] == [False, True, True]
    p.undo()
    assert view[p.board.index("e5")] == 1 and not p.is_turn_start()
    p.undo()
    assert list(view) == [0] * len(view) and p.key == Position.initial(p.rules).key


def test_the_earlier_positions_table_grows_in_long_games_and_playouts_get_full_room():
    """A state starts with a small table of earlier positions, which doubles as turns
    end (the position stays equal to the oracle's through it); playouts from a state
    with a small table still run to the end, on a full-size copy."""
    grown = 0
    for seed in range(6):
        rng = random.Random(seed)
        rules = Rules(board_side=5)
        o, p = Oracle.initial(rules), Position.initial(rules)
        start_slots = len(p.core.seen)
        while not o.is_over:
            legal = o.legal_actions()
            assert p.legal_actions() == legal
            step = pick("uniform", legal, rng)
            o.play(step)
            p.play(step)
        same_position(o, p, deep=True)
        grown += len(p.core.seen) > start_slots
        while p.ply > 40:
            assert p.undo() == o.undo()
        assert p.legal_actions() == o.legal_actions() and p.key == o.key
    assert grown
    s = Position.initial(Rules(board_side=5)).core_state()
    assert len(s.seen) < s.core.seen_slots
    winners, lengths, _ = s.random_playouts(8, seed=2)
    assert (lengths > 100).all() and set(winners.tolist()) <= {-1, 0, 1}
    many = CoreState.from_fields(s.core, s.cells, 0, 0, -1, -1, 0, False, 0, 0, None, 1, 0,
                                 {k: 1 for k in range(1, 2000)})
    assert len(many.seen) >= 4 * 2000 // 2 and many.legal_codes().size > 0


def _rehashed_in_python(seen: np.ndarray, slots: int) -> tuple[np.ndarray, int]:
    """The table widening as it was written before it was compiled (the reference)."""
    from hexgames.dendria._layout import M_USED, META_LEN
    from hexgames.dendria._repetition import _seen_add, empty_seen

    table = empty_seen(slots)
    meta = np.zeros(META_LEN, np.int64)
    for key, count in seen.tolist():
        for _ in range(count):
            _seen_add(table, meta, key)
    return table, int(meta[M_USED])


def test_a_position_plays_random_games_as_its_core_state_does_and_keeps_its_table():
    """``Position.random_playouts`` (an MCTS leaf's path, without ``core_state``'s copy)
    gives the games of ``core_state().random_playouts`` from positions deep in games
    (earlier positions in the no-repetition table, mid-turn), leaves the position as it
    was, and the compiled table widening keeps every key with its count."""
    from hexgames.dendria._repetition import rehashed

    rng = random.Random(11)
    checked = 0
    for side in (5, 7):
        for _ in range(8):
            p = Position.initial(Rules(board_side=side))
            for _ in range(rng.randrange(0, 160)):
                if p.is_over:
                    break
                p.play(rng.choice(list(p.legal_actions())))
            if p.is_over:
                continue
            before, key, ply = p.to_text(), p.key, p.ply
            seed = rng.randrange(1 << 30)
            got = p.random_playouts(4, seed, 400)
            want = p.core_state().random_playouts(4, seed, 400)
            assert (got[0] == want[0]).all() and (got[1] == want[1]).all()
            assert got[2] == want[2]
            assert (p.to_text(), p.key, p.ply) == (before, key, ply)
            seen = p.core_state().seen
            slots = p.core_state().core.seen_slots
            table, used = rehashed(seen, slots)
            reference = _rehashed_in_python(seen, slots)
            assert used == reference[1] and (table == reference[0]).all()
            checked += 1
    assert checked >= 10


@numba.njit
def _scan(tab, cells, meta, n, scratch):  # type: ignore[no-untyped-def]
    """``_scan_once`` has no Python entry (``njit_inner``): called from compiled code."""
    return _scan_once(tab, cells, meta, n, scratch)


def test_sight_counts_follow_the_board_through_steps_and_undos() -> None:
    """The packed sight counts a generation reads (plantable cells, nourished seeds,
    fertilized cells) are brought up to date cell by cell after each step or undo; at
    every point they must equal a count made from scratch on the same board."""
    core = core_for(Rules(board_side=5))
    n = core.n
    rng = random.Random(11)
    state = core.initial()
    compared = 0
    for _ in range(1500):
        codes = state.legal_codes()
        if len(codes) == 0 or (state.undoable and rng.random() < 0.25):
            if not state.undoable:
                state = core.initial()
                continue
            state.undo()
        else:
            state.play_code(int(codes[rng.randrange(len(codes))]))
        _scan(core.tab, state.cells, state.meta, n, state.scratch)
        fresh = state.copy()
        fresh.meta[M_SCANNED] = 0
        _scan(core.tab, fresh.cells, fresh.meta, n, fresh.scratch)
        assert np.array_equal(state.scratch[:n], fresh.scratch[:n])
        assert np.array_equal(state.scratch[n : 2 * n], state.cells)
        compared += 1
    assert compared > 1000
