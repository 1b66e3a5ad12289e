"""Differential tests: the compiled rules core (:mod:`hexgames.benediction.core`) and the
product's :class:`Position` (a thin layer over it) against the pure-Python engine kept as
the oracle (``tests/oracles/benediction_position.py``), over many random games of
several variants.

At every step of every game: the legal action sets, the boards (owner, size, flags per
point), side to act, actions left, turn, key and result must agree between the oracle,
a :class:`CoreState` and a :class:`Position`; refused actions must be refused by both
engines with the same reason; after each game undo must walk back through the same keys.
``HEXGAMES_FUZZ=1`` (``make fuzz``) multiplies the number of games by
``HEXGAMES_FUZZ_FACTOR`` (default 20).
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from hexgames import IllegalAction
from hexgames.benediction import Action, Position, Rules
from hexgames.benediction.core import Core, CoreState
from hexgames.benediction.position import BLOCK
from oracles.benediction_position import Position as Oracle
from oracles.core_states import benediction_core_state

FUZZING = os.environ.get("HEXGAMES_FUZZ", "") not in {"", "0"}
FACTOR = int(os.environ.get("HEXGAMES_FUZZ_FACTOR", "20")) if FUZZING else 1

#: (rules, games): 1,000+ games in CI over board sides 4-7, both openings, small and large
#: stacks, a checker supply and turn caps.
VARIANTS = [
    (Rules(max_turns=120), 240),
    (Rules(first_turn_actions=2, max_turns=120), 120),
    (Rules(board_side=4, max_turns=100), 160),
    (Rules(board_side=6, first_turn_actions=2, max_turns=80), 100),
    (Rules(board_side=7, max_turns=60), 60),
    (Rules(max_stack=3, max_turns=120), 120),
    (Rules(max_stack=15, max_turns=120), 100),
    (Rules(supply=2, max_turns=120), 120),
    (Rules(board_side=4, supply=1, max_stack=2, first_turn_actions=2, max_turns=40), 100),
]


def same(p: Oracle | Position, s: CoreState) -> None:
    assert np.array_equal(s.owner, p.owners)
    assert np.array_equal(s.size, p.sizes)
    assert np.array_equal(s.flags, p.flags)
    assert s.to_move == p.to_move_code
    assert s.actions_left == p.actions_left
    assert s.turn == p.turn_number
    assert s.key == p.key
    outcome = p.outcome()
    assert s.reason == (None if outcome is None else outcome.termination)
    assert s.winner == {None: 0, "red": 1, "blue": 2, "draw": 3}[p.winner]


def same_position(o: Oracle, q: Position, full: bool) -> None:
    """The product's Position reads like the oracle (``full``: the costlier views too)."""
    assert q.owners.tolist() == list(o.owners)  # type: ignore[attr-defined]
    assert q.sizes.tolist() == list(o.sizes)  # type: ignore[attr-defined]
    assert q.flags.tolist() == list(o.flags)  # type: ignore[attr-defined]
    assert (q.to_move, q.actions_left, q.turn_number, q.key, q.ply) == (
        o.to_move, o.actions_left, o.turn_number, o.key, o.ply
    )
    assert (q.winner, q.win_reason, q.outcome(), q.is_over, q.returns()) == (
        o.winner, o.win_reason, o.outcome(), o.is_over, o.returns()
    )
    assert list(q.checker_counts) == list(o.checker_counts)
    assert q.is_turn_start() == o.is_turn_start()
    if full:
        assert q.to_text() == o.to_text()
        assert q.men() == {label: _man(m) for label, m in o.men().items()}
        assert q.blocks == o.blocks
        assert q.turn_ends() == o.turn_ends()


def _man(m: object) -> object:
    from hexgames.benediction import Man

    return Man(*(getattr(m, f) for f in ("color", "size", "king", "blessed", "cursed", "locked")))


def refusal(state: Oracle | Position, action: Action) -> str | None:
    """The reason ``state`` refuses ``action`` (``None`` when it plays it; then undone)."""
    try:
        state.play(action)
    except IllegalAction as exc:
        return str(exc)
    state.undo()
    return None


def play_both(rules: Rules, seed: int) -> int:
    """One random game on the oracle, a CoreState and a Position, compared at every step."""
    rng = random.Random(seed)
    o = Oracle.initial(rules)
    q = Position.initial(rules)
    core = Core(rules)
    s = core.initial()
    keys = [s.key]
    seen: list[Action] = []
    while True:
        same(o, s)
        same_position(o, q, full=o.ply % 8 == 0 or o.is_over)
        legal = o.legal_actions()
        codes = s.legal_codes()
        listed = q.legal_actions()
        expected = set(legal)
        assert len(set(codes.tolist())) == len(codes), "no action listed twice"
        assert set(s.legal_actions()) == expected
        assert set(listed) == expected
        assert len(listed) == len(legal) == q.legal_action_count()
        # an action legal earlier in the game, or a made-up one: both engines agree on
        # whether it is legal and, when not, on the reason
        if seen and rng.random() < 0.3:
            probe = rng.choice(seen)
            if rng.random() < 0.3 and probe.kind in ("move", "merge"):
                other = "merge" if probe.kind == "move" else "move"
                probe = Action(other, probe.origin, probe.target)
            elif rng.random() < 0.2 and probe.origin is not None:
                # a split of more checkers than any stack may hold (no action code)
                count = rules.max_stack + rng.randrange(2)
                probe = Action("split", probe.origin, probe.target, count)
            assert refusal(q, probe) == refusal(o, probe), (o.to_text(), str(probe))
            same_position(o, q, full=False)
        if o.ply % 16 == 5:  # the actions that win at once, by trying each on the oracle
            mover, wins = o.to_move, set()
            for candidate in legal:
                o.play(candidate)
                if o.winner == mover:
                    wins.add(candidate)
                o.undo()
            assert set(q.immediate_wins()) == wins
        if not legal:
            break
        action = legal[rng.randrange(len(legal))]
        seen.append(action)
        mover, quick_wins = o.to_move, set(q.immediate_wins())
        o.play(action)
        assert (o.winner == mover) == (action in quick_wins)
        road = rng.randrange(3)  # the listed instance, its notation, a new equal Action
        if road == 0:
            q.play(next(a for a in listed if a == action))
        elif road == 1:
            q.play(str(action))
        else:
            q.play(Action(action.kind, action.origin, action.target, action.count))
        s.play_code(core.code_of(action))
        keys.append(s.key)
    assert list(q.history) == list(o.history)
    for key in reversed(keys[:-1]):
        s.undo()
        assert s.key == key
        assert q.undo() == o.undo()
        assert q.key == key
        if rng.random() < 0.1:
            same_position(o, q, full=True)
    same(Oracle.initial(rules), s)
    same_position(Oracle.initial(rules), q, full=True)
    return len(keys) - 1


@pytest.mark.parametrize(("rules", "games"), VARIANTS, ids=lambda v: str(v))
def test_core_and_position_match_the_oracle_in_random_games(rules, games):
    lengths = [play_both(rules, seed) for seed in range(games * FACTOR)]
    assert sum(lengths) > games * 10


def test_at_least_a_thousand_games_are_compared():
    assert sum(games for _, games in VARIANTS) >= 1000


def test_codes_and_actions_map_both_ways():
    core = Core()
    s = core.initial()
    for code in s.legal_codes():
        action = s.to_action(code)
        assert core.code_of(action) == code
        assert core.code_of(str(action)) == code


def test_a_position_read_from_text_converts_with_its_blocks_and_locks():
    rng = random.Random(7)
    p = Position.initial(Rules(board_side=5))
    while p.ply < 40 and not p.is_over:
        legal = p.legal_actions()
        blocks = [a for a in legal if a.kind == "block"]
        p.play(rng.choice(blocks) if blocks and rng.random() < 0.3 else rng.choice(legal))
    q = Position.from_text(p.to_text())
    s = benediction_core_state(q)
    same(q, s)
    assert int(np.sum(s.owner == BLOCK)) == len(q.blocks)
    assert sorted(map(str, s.legal_actions())) == sorted(map(str, q.legal_actions()))


def test_random_playouts_end_every_game_and_are_seeded():
    s = Core(Rules(max_turns=100)).initial()
    winners, lengths, total = s.random_playouts(50, seed=3)
    assert total == int(lengths.sum()) > 0
    assert set(winners.tolist()) <= {1, 2, 3} and {1, 2} <= set(winners.tolist())
    again = s.random_playouts(50, seed=3)
    assert np.array_equal(again[0], winners) and np.array_equal(again[1], lengths)
    # the state the playouts started from is untouched
    same(Position.initial(Rules(max_turns=100)), s)


@pytest.mark.parametrize("seed", range(5))
def test_step_plays_and_lists_like_play_code_then_legal_codes(seed):
    rng = random.Random(seed)
    a = Core(Rules(max_turns=60)).initial()
    b = a.copy()
    keys = [a.key]
    codes = a.legal_codes()
    while len(codes):
        code = int(codes[rng.randrange(len(codes))])
        codes = a.step(code).copy()
        b.play_code(code)
        assert sorted(codes.tolist()) == sorted(b.legal_codes().tolist())
        assert (a.key, a.winner, a.reason) == (b.key, b.winner, b.reason)
        keys.append(a.key)
    for key in reversed(keys[:-1]):
        a.undo()
        assert a.key == key


def _stuck_text() -> str:
    """Red to act (last action of the turn) on a board of blocks; Blue has no man and its
    zone is full of red men, so most of Red's actions leave Blue without a legal action."""
    board = Position.initial().board
    red_zone = ["e2", "d1", "d2", "e1", "e3", "f1", "f2"]
    blue_zone = ["e8", "d7", "d8", "e7", "e9", "f7", "f8"]
    men = [label for label in red_zone + blue_zone if label != "d1"]
    blocks = [label for label in board.labels if label not in red_zone + blue_zone]

    def points(labels: list[str], kings: tuple[str, ...] = ()) -> str:
        columns: dict[str, list[str]] = {}
        for label in sorted(labels, key=lambda x: (x[0], int(x[1:]))):
            columns.setdefault(label[0], []).append(label[1:] + ("k" if label in kings else ""))
        return "".join(c.upper() + "".join(rows) for c, rows in columns.items())

    return (
        f"Benediction v1: R=E2 B E8\nR:{points(men, ('e2', 'e8'))}\nX:{points(blocks)}\n"
    )


def test_no_legal_action_after_the_action_agrees_on_every_path():
    start = Oracle.from_text(_stuck_text())
    assert sorted(map(str, Position.from_text(_stuck_text()).legal_actions())) == sorted(
        map(str, start.legal_actions())
    )
    stuck = 0
    for action in start.legal_actions():
        q = Position.from_text(_stuck_text())
        q.play(str(action))
        p = start.copy()
        p.play(action)
        a = benediction_core_state(start)
        a.play_code(a.core.code_of(action))
        same(p, a)
        b = benediction_core_state(start)
        codes = b.step(b.core.code_of(action))
        assert sorted(map(str, map(b.to_action, codes))) == sorted(map(str, p.legal_actions()))
        assert (b.winner, b.reason, b.key) == (a.winner, a.reason, a.key)
        stuck += p.win_reason == "no legal action"
        same_position(p, q, full=True)
    assert stuck > 0
    winners, lengths, _ = benediction_core_state(start).random_playouts(200, seed=1)
    assert (winners[lengths == 1] == 1).all() and (lengths == 1).any()


def test_a_position_plays_random_games_from_its_own_arrays_as_its_core_state_does():
    """``Position.random_playouts`` (the MCTS leaf's path: no ``CoreState`` built) gives
    the games ``core_state().random_playouts`` gives, from positions deep in a game and
    in the middle of a turn (the position's undo log is not the playouts' to write), and
    leaves the position as it was."""
    rng = random.Random(5)
    checked = 0
    for rules in (Rules(), Rules(board_side=5, first_turn_actions=2, max_turns=40)):
        for _ in range(15):
            p = Position.initial(rules)
            for _ in range(rng.randrange(0, 60)):
                if p.is_over:
                    break
                p.play(rng.choice(list(p.legal_actions())))
            if p.is_over:
                continue
            before, key, history = p.to_text(), p.key, list(p.history)
            seed = rng.randrange(1 << 30)
            got = p.random_playouts(6, seed, 300)
            want = p.core_state().random_playouts(6, seed, 300)
            assert (got[0] == want[0]).all() and (got[1] == want[1]).all()
            assert got[2] == want[2]
            assert (p.to_text(), p.key, list(p.history)) == (before, key, history)
            if history:
                p.undo()  # the undo log is intact
            checked += 1
    assert checked >= 20


def test_the_kernel_plays_out_positions_and_states_of_this_engine_only():
    """The product turns no foreign object into a state: an oracle position (the same
    read API, another engine) is refused, the product's Position and a CoreState play."""
    from hexgames.benediction.kernel import kernel

    p = Position.initial(Rules(max_turns=40))
    for state in (p, p.core_state()):
        seats, lengths = kernel().playouts(state, 5, seed=2)
        assert (lengths > 0).all()
        assert len(seats) == 5 and set(seats.tolist()) <= {-1, 0, 1}
    with pytest.raises(ValueError, match="Benediction Position or CoreState"):
        kernel().playouts(Oracle.initial(Rules(max_turns=40)), 5)


def test_is_warm_names_compiled_functions_that_exist():
    """``is_warm`` asks numba's cache about these functions: each must be a compiled
    function of its module (a renamed one would make ``is_warm`` false for ever)."""
    from numba.core.registry import CPUDispatcher

    from hexgames.benediction import kernel as face

    assert face._ENTRY_POINTS
    for module, names in face._ENTRY_POINTS.items():
        for name in names:
            assert isinstance(getattr(module, name), CPUDispatcher), (module.__name__, name)
