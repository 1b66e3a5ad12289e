"""The thin layer over the compiled core: what ``Position`` adds around it (the lazy
``ActionList``, buffers that grow, copies, pickling). The rules themselves are compared
with the oracle in ``tests/test_benediction_core.py``."""

from __future__ import annotations

import copy
import pickle
import random
import weakref

import numpy as np
import pytest

from hexgames import IllegalAction
from hexgames.benediction import Action, Position, Rules
from hexgames.benediction.position import BLESSED, KING, RED, ActionList
from oracles.benediction_position import Position as Oracle


def played(rules: Rules, actions: int, seed: int = 1) -> Position:
    rng = random.Random(seed)
    p = Position.initial(rules)
    while p.ply < actions and not p.is_over:
        legal = p.legal_actions()
        p.play(legal[rng.randrange(len(legal))])
    return p


def test_an_action_list_is_a_snapshot_sequence():
    p = Position.initial()
    listed = p.legal_actions()
    assert isinstance(listed, ActionList)
    before = list(listed)
    assert listed == before and listed == tuple(before) and listed != before[1:]
    assert listed[0] == before[0] and listed[-1] == before[-1] and listed[1:3] == before[1:3]
    with pytest.raises(IndexError):
        listed[len(before)]
    assert before[3] in listed and "e3e4" not in listed
    assert listed.__add__([before[0]]) == [*before, before[0]]
    assert listed.copy() == before and repr(listed) == repr(before)
    assert p.legal_action_count() == len(listed)
    p.play(listed[0])
    p.play(p.legal_actions()[0])
    p.undo()
    assert list(listed) == before  # playing and undoing did not change it
    assert p.legal_actions() is p.legal_actions()  # one list per position state


def test_lists_kept_across_plays_and_undos_stay_snapshots():
    """play/undo list into a spare buffer when no ActionList holds it any more: lists
    that are kept (every third, and the last one of each step) never change, while the
    position follows the oracle."""
    rng = random.Random(7)
    p, o = Position.initial(), Oracle.initial()
    kept: list[tuple[ActionList, list[Action]]] = []
    for step in range(120):
        if p.is_over:
            break
        legal = p.legal_actions()
        if step % 3 == 0:
            kept.append((legal, list(legal)))
        action = legal[rng.randrange(len(legal))]
        p.play(action)
        o.play(action)
        if step % 5 == 4:  # an undo, then the same action again
            undone = p.undo()
            o.undo()
            assert list(p.legal_actions()) == o.legal_actions()
            p.play(undone)
            o.play(undone)
        assert list(p.legal_actions()) == o.legal_actions()
    assert all(list(listed) == snapshot for listed, snapshot in kept)
    q = p.copy()  # a copy lists into buffers of its own
    held = p.legal_actions()
    snapshot = list(held)
    while not q.is_over and q.ply < p.ply + 30:
        q.play(q.legal_actions()[0])
    while p.ply:
        p.undo()
    assert list(held) == snapshot


def test_an_unkept_list_lends_its_buffer_to_the_next_one():
    """The common loop (list, pick, play, drop the list) alternates two buffers instead
    of making one per action: the list two steps back used the same one."""
    p = Position.initial()
    seen: list[weakref.ref[np.ndarray]] = []
    for step in range(40):
        legal = p.legal_actions()
        seen.append(weakref.ref(legal._lx))
        if step >= 2:
            assert seen[step - 2]() is legal._lx
        p.play(legal[len(legal) // 2])
        del legal


def test_iterating_the_list_while_playing_each_action_on_the_position():
    p = played(Rules(), 12)
    text, key = p.to_text(), p.key
    seen = []
    for action in p.legal_actions():
        p.play(action)
        seen.append(p.key)
        p.undo()
    assert (p.to_text(), p.key) == (text, key)
    assert len(seen) == len(p.legal_actions())


def test_a_long_legal_list_grows_its_buffer():
    """Side 7 full of big blessed stacks: far more legal actions than the first buffer
    holds; the engine agrees with the oracle on each, and after playing."""
    rules = Rules(board_side=7, max_stack=15)
    o = Oracle.initial(rules)
    n = len(o.board.labels)
    for i in range(0, n, 3):
        if o.owners[i] == 0:
            o._put(i, RED, 8, BLESSED)  # test set-up of the oracle's board
    o._put(o.board.index("g2"), RED, 8, KING)
    text = o.to_text()
    p = Position.from_text(text, rules)
    q = Oracle.from_text(text, rules)
    assert len(p.legal_actions()) > 1000
    assert set(p.legal_actions()) == set(q.legal_actions())
    action = p.legal_actions()[-1]
    p.play(action)
    q.play(action)
    assert set(p.legal_actions()) == set(q.legal_actions()) and p.key == q.key
    p.undo()
    assert set(p.legal_actions()) == set(Oracle.from_text(text, rules).legal_actions())


def test_copies_and_pickles_are_independent_and_keep_their_history():
    p = next(  # past the first room for undo records (64)
        p for seed in range(100) if (p := played(Rules(max_turns=80), 90, seed)).ply > 64
    )
    listed = p.legal_actions()
    for other in (p.copy(), copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert (other.to_text(), other.key, list(other.history)) == (
            p.to_text(), p.key, list(p.history)
        )
        assert other.legal_actions() == listed
        assert other.turn_ends() == p.turn_ends()
        if not other.is_over:
            other.play(other.legal_actions()[0])
        while other.history:
            other.undo()
        assert other.key == Position.initial(Rules(max_turns=80)).key
    assert p.legal_actions() == listed and p.ply > 64


def test_refused_actions_change_nothing_and_say_why():
    p = Position.initial(Rules(max_stack=3))
    key = p.key
    for action, words in [
        ("e3-4-e5", "cannot split e3: a single checker"),
        (Action("merge", "e3", "e4"), "cannot merge onto e4"),
        ("a1x", "is not an action"),
        ("z9z8", "not a point"),
    ]:
        with pytest.raises(IllegalAction, match=words):
            p.play(action)
        assert p.key == key and p.ply == 0
    with pytest.raises(IllegalAction):
        p.play(42)  # type: ignore[arg-type]


def test_the_board_arrays_are_read_only_live_views():
    p = Position.initial()
    owners = p.owners
    with pytest.raises(ValueError):
        owners[0] = 1  # type: ignore[index]
    e3 = p.board.index("e3")
    assert owners[e3] == RED
    p.play("e3e4")
    assert owners[e3] == 0
