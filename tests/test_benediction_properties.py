"""Property-based tests of the Benediction engine: make/unmake, legality, formats."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexgames import IllegalAction
from hexgames.benediction import Action, Position, Rules, read_record, write_record

rules_strategy = st.builds(
    Rules,
    board_side=st.integers(4, 7),
    first_turn_actions=st.integers(1, 2),
    max_stack=st.sampled_from([2, 3, 8, 15]),
    supply=st.sampled_from([None, 1, 4]),
    max_turns=st.sampled_from([None, 12, 40]),
)
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=True, database=None,
)


def snapshot(p: Position) -> tuple[object, ...]:
    return (
        p.to_text(), p.key, p.to_move, p.actions_left, p.turn_number, p.winner,
        p.win_reason, tuple(p.history), p.is_turn_start(), frozenset(p.legal_actions()),
    )


def play_randomly(p: Position, rng: random.Random, steps: int) -> list[tuple[object, ...]]:
    """Play up to ``steps`` random actions; the snapshot before each one."""
    seen = []
    for _ in range(steps):
        if p.is_over:
            break
        seen.append(snapshot(p))
        p.play(rng.choice(p.legal_actions()))
    return seen


@SETTINGS
@given(rules=rules_strategy, seed=st.integers(0, 2**32), steps=st.integers(1, 80))
def test_undo_restores_every_earlier_state(rules, seed, steps):
    p = Position.initial(rules)
    seen = play_randomly(p, random.Random(seed), steps)
    copy = p.copy()
    final = snapshot(p)
    while seen:
        p.undo()
        assert snapshot(p) == seen.pop()
    assert snapshot(copy) == final, "a copy is independent of the original"


def random_action(p: Position, rng: random.Random) -> Action:
    labels = p.board.labels
    kind = rng.choice(["move", "merge", "split", "drop", "block"])
    if kind in ("drop", "block"):
        return Action(kind, None, rng.choice(labels))
    origin = rng.choice([label for label, m in p.iter_men() if m.color == p.to_move])
    return Action(kind, origin, rng.choice(labels), rng.randint(1, 4) if kind == "split" else 0)


@SETTINGS
@given(rules=rules_strategy, seed=st.integers(0, 2**32), steps=st.integers(1, 60))
def test_listed_actions_are_accepted_and_others_refused(rules, seed, steps):
    rng = random.Random(seed)
    p = Position.initial(rules)
    play_randomly(p, rng, steps)
    if p.is_over:
        return
    listed = p.legal_actions()
    assert len(listed) == len(set(listed)), "each legal action exactly once"
    for action in rng.sample(listed, min(8, len(listed))):
        fresh = p.copy()  # no cached legal list: play validates from scratch
        fresh.play(str(action))
        fresh.undo()
        assert fresh.to_text() == p.to_text() and fresh.key == p.key
    before = (p.to_text(), p.key)
    for _ in range(25):
        action = random_action(p, rng)
        if action in listed:
            continue
        for target in (p, p.copy()):
            try:
                target.play(action)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"{action} was accepted but is not listed")
        assert (p.to_text(), p.key) == before


@SETTINGS
@given(rules=rules_strategy, seed=st.integers(0, 2**32), steps=st.integers(0, 80))
def test_board_text_round_trips(rules, seed, steps):
    p = Position.initial(rules)
    play_randomly(p, random.Random(seed), steps)
    q = Position.from_text(p.to_text(), rules)
    assert q.to_text() == p.to_text()
    assert q.key == p.key
    assert set(q.legal_actions()) == set(p.legal_actions())
    assert (q.winner, q.win_reason, q.actions_left) == (p.winner, p.win_reason, p.actions_left)
    if p.winner != "draw":
        assert q.to_move == p.to_move


@SETTINGS
@given(rules=rules_strategy, seed=st.integers(0, 2**32), steps=st.integers(0, 80))
def test_records_round_trip(rules, seed, steps):
    p = Position.initial(rules)
    play_randomly(p, random.Random(seed), steps)
    q, tags = read_record(write_record(p, {"Red": "r", "Blue": "b"}))
    assert (q.to_text(), q.key, q.history, q.rules) == (p.to_text(), p.key, p.history, rules)
    assert tags["Result"] == {None: "*", "red": "1-0", "blue": "0-1", "draw": "1/2-1/2"}[p.winner]
    assert tags.get("Termination") == p.win_reason
    assert q.outcome() == p.outcome()
