"""Dendria's MCTS iterations in compiled code (``hexgames.dendria._search`` on the
game-agnostic ``hexgames._ctree``): the same search as the Python tree of
:class:`MCTSPlayer` with random games at the leaves, which Dendria's levels use."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hexgames.ai import levels
from hexgames.ai.mcts import MCTSPlayer
from hexgames.dendria import Position, Rules
from hexgames.dendria import _search as search
from hexgames.dendria.evaluation import action_priors, winning_actions
from hexgames.dendria.kernel import kernel

SETTINGS = (0.6, 3.0, 1.0, True)  # exploration, widen_base, widen_factor, tactics
SMALL = Rules(board_side=4)


def random_position(seed: int, steps: int | None = None, rules: Rules = SMALL) -> Position:
    """A position reached by seeded random play, not over."""
    rng = random.Random(seed)
    while True:
        p = Position.initial(rules)
        for _ in range(rng.randrange(2, 80) if steps is None else steps):
            if p.is_over:
                break
            p.play(rng.choice(list(p.legal_actions())))
        if not p.is_over:
            return p


def position_with_a_win(seed: int) -> Position:
    """A position (reached by random play, quiet limit 2) where the player to act can
    end the game at once with the lead."""
    rng = random.Random(seed)
    while True:
        p = Position.initial(Rules(board_side=4, quiet_limit=2))
        for _ in range(300):
            if p.is_over:
                break
            if winning_actions(p):
                return p
            p.play(rng.choice(list(p.legal_actions())))


def summary(tree: search.TreeSearch) -> list[tuple[str, int, float]]:
    return [(str(c["action"]), c["visits"], c["value"]) for c in tree.children()]


@pytest.mark.parametrize("seed", range(16))
def test_compiled_priors_equal_the_python_priors(seed: int) -> None:
    rules = Rules() if seed % 4 == 0 else SMALL
    p = random_position(seed, rules=rules)
    steps = list(p.legal_actions())
    assert search.priors_of(p, steps) == pytest.approx(action_priors(p, steps))


def test_compiled_wins_at_once_agree_with_the_python_winning_actions() -> None:
    """Both ways the answer can go, on positions near the quiet limit and after a pass
    (where only pass, end and swap can end the game)."""
    answers = {True: 0, False: 0}
    for seed in range(60):
        rng = random.Random(seed)
        p = Position.initial(Rules(board_side=4, quiet_limit=2, pie=seed % 2 == 0))
        for _ in range(120):
            if p.is_over:
                break
            expected = bool(winning_actions(p))
            assert search.wins_at_once_of(p) == expected, (seed, p.to_text())
            answers[expected] += 1
            p.play(rng.choice(list(p.legal_actions())))
    assert answers[True] >= 20 and answers[False] >= 20


def test_a_search_leaves_the_position_alone_and_counts_every_iteration() -> None:
    p = random_position(3)
    text, history = p.to_text(), list(p.history)
    tree = kernel().tree_search()
    assert tree.set_root(p) == 0
    assert tree.run(300, 1, *SETTINGS) == 300
    assert p.to_text() == text and list(p.history) == history
    children = tree.children()
    assert tree.NI[tree.root, 3] == 300  # the root's visits
    assert sum(c["visits"] for c in children) == 300
    legal = set(p.legal_actions())
    assert {c["action"] for c in children} | set(tree.untried()) == legal
    assert len(children) + len(tree.untried()) == len(legal)
    # the child tried first is one the priors rank highest
    best = max(action_priors(p, list(legal)))
    assert action_priors(p, [children[0]["action"]])[0] == best


def test_the_same_seed_searches_the_same_tree() -> None:
    p = random_position(5)
    trees = []
    for seed in (42, 42, 43):
        tree = kernel().tree_search()
        tree.set_root(p)
        tree.run(200, seed, *SETTINGS)
        trees.append(summary(tree))
    assert trees[0] == trees[1]
    assert trees[2] != trees[0]


def test_a_full_tree_grows_and_searches_as_a_large_one_would() -> None:
    p = random_position(7)
    small = search.TreeSearch(nodes=8, pool=64)
    small.set_root(p)
    assert small.run(400, 1, *SETTINGS) == 400
    assert len(small.NI) > 8 and len(small.PA) > 64
    large = search.TreeSearch()
    large.set_root(p)
    large.run(400, 1, *SETTINGS)
    assert summary(small) == summary(large)


def test_a_search_without_undo_room_asks_for_more_and_goes_on() -> None:
    p = random_position(8, rules=Rules())
    while not p.is_turn_start():
        p.play(p.legal_actions()[0])
    text = p.to_text()
    tree = search.TreeSearch()
    tree.set_root(p)
    n = tree._core.n
    # room for the root's line and a few steps: deeper lines ask for more
    tree._s.log = np.zeros((4 * n + 66, 2), np.int64)
    tree._s.frames = np.zeros((2 * n + 67, tree._s.frames.shape[1]), np.int64)
    assert tree.run(3000, 1, *SETTINGS) == 3000
    assert len(tree._s.frames) > 2 * n + 67  # room was added
    assert sum(c["visits"] for c in tree.children()) == 3000
    assert p.to_text() == text


def test_the_solver_proves_an_immediate_win() -> None:
    for seed in range(4):
        p = position_with_a_win(seed)
        wins = set(winning_actions(p))
        tree = kernel().tree_search()
        tree.set_root(p)
        tree.run(500, seed, *SETTINGS)
        sign = 1.0 if p.current_seat == 0 else -1.0
        assert tree.solved() == sign
        player = MCTSPlayer("dendria", iterations=500, seed=seed, tactics=False)
        assert player._tree is not None
        choice = player.choose(p)
        assert player.last_stats["reason"] == "proven win"
        # an immediate win, or a step after which the same player wins at once
        if choice not in wins:
            p.play(choice)
            assert not p.is_over and p.current_seat == (0 if sign > 0 else 1)
            assert winning_actions(p)


def test_steps_that_let_the_opponent_win_at_once_are_proven_lost() -> None:
    """With tactics, a new node whose player to act (the opponent, after a turn's end)
    can end the game at once with the lead is proven, a loss for the player who led
    there, at its first visit and never visited again."""
    proven = 0
    for seed in range(300):
        p = random_position(300 + seed, rules=Rules(board_side=4, quiet_limit=2))
        if not p.is_turn_start():
            continue
        mover = p.current_seat
        losing = []
        for step in p.legal_actions():
            p.play(step)
            if not p.is_over and p.current_seat != mover and winning_actions(p):
                losing.append(step)
            p.undo()
        if not losing:
            continue
        tree = kernel().tree_search()
        tree.set_root(p)
        tree.run(300, seed, *SETTINGS)
        sign = 1.0 if mover == 0 else -1.0
        for child in tree.children():
            if child["action"] in losing:
                assert child["result"] == -sign and child["visits"] == 1
                proven += 1
        if proven >= 3:
            break
    assert proven >= 3


def test_dendria_levels_use_the_compiled_tree() -> None:
    for level in (2, 3, 4, 5):
        assert levels.player("dendria", level, seed=1)._tree is not None  # type: ignore[attr-defined]
    assert MCTSPlayer("dendria", use_heuristic=True)._tree is None


def test_the_tree_is_kept_along_the_steps_played_since() -> None:
    """The next search starts from the kept node of the steps played since (the chosen
    one and any forced ones: a plant is often followed by ``end`` alone)."""
    checked = 0
    for seed in range(40):
        p = random_position(seed, steps=12)
        player = MCTSPlayer("dendria", iterations=400, seed=3)
        tree = player._tree
        step = player.choose(p)
        if not player.last_stats.get("iterations"):  # forced: nothing searched
            continue
        node = tree.root
        while True:
            node = tree._child(node, tree._action_code(step))
            p.play(step)
            if node < 0 or p.is_over or len(p.legal_actions()) > 1:
                break
            step = p.legal_actions()[0]
        if node < 0 or p.is_over:
            continue
        visits = int(tree.NI[node, 3])
        player.choose(p)
        assert player.last_stats["reused"] == visits > 0
        player.reset()
        player.choose(p)
        assert player.last_stats["reused"] == 0
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_a_tree_of_another_variant_is_not_reused() -> None:
    tree = kernel().tree_search()
    tree.set_root(Position.initial(SMALL))
    tree.run(100, 1, *SETTINGS)
    standard = Position.initial()
    assert tree.set_root(standard) == 0
    assert tree.run(100, 1, *SETTINGS) == 100
    assert {c["action"] for c in tree.children()} <= set(standard.legal_actions())


@pytest.mark.parametrize("seed", range(4))
def test_compiled_search_plays_legal_steps_through_whole_games(seed: int) -> None:
    """Seeded games of a cheap compiled-tree player against random play: every choice is
    legal and leaves the position as it was."""
    rng = random.Random(seed)
    p = Position.initial(Rules(board_side=4, pie=seed % 2 == 1))
    player = MCTSPlayer("dendria", iterations=40, seed=seed)
    assert player._tree is not None
    for _ in range(600):
        if p.is_over:
            break
        if p.current_seat == seed % 2:
            text = p.to_text()
            step = player.choose(p)
            assert p.to_text() == text
        else:
            step = rng.choice(list(p.legal_actions()))
        assert step in set(p.legal_actions())
        p.play(step)
    assert p.is_over


def test_compiled_calls_are_sized_to_the_time_left() -> None:
    """A Dendria iteration plays a whole random game (about 1.5 ms on side 7): under a
    deadline the calls run as many iterations as the pace so far leaves time for, so a
    short time limit is not overrun by a fixed chunk of iterations."""
    player = MCTSPlayer("dendria", iterations=5000, seed=1)
    chunk = player._chunk
    assert chunk(5000, 0, None, 0.0, 0.0) == player._CHUNK
    assert chunk(7, 40, None, 1.0, 0.0) == 7  # the budget's rest
    assert chunk(5000, 0, 10.0, 0.0, 0.0) == 1  # no pace known yet: one
    # 8 iterations in 0.5 s (1/16 s each) and 5/16 s left: 5
    assert chunk(5000, 8, 0.8125, 0.5, 0.0) == 5
    assert chunk(5000, 8, 10.0, 0.5, 0.0) == player._CHUNK
    assert chunk(5000, 8, 0.51, 0.5, 0.0) == 1  # never none


@pytest.mark.parametrize("seconds", [0.05, 1e-9])
def test_a_time_limited_compiled_search_chooses_a_legal_step(seconds: float) -> None:
    p = random_position(13, rules=Rules())
    while not p.is_turn_start():
        p.play(p.legal_actions()[0])
    player = MCTSPlayer("dendria", time_limit=seconds, seed=1)
    assert player._tree is not None
    assert player.choose(p) in set(p.legal_actions())
    assert player.last_stats["iterations"] >= 1


def test_pondering_grows_the_compiled_tree_for_the_next_choice() -> None:
    p = random_position(12, steps=20)
    while not p.is_turn_start():
        p.play(p.legal_actions()[0])
    player = MCTSPlayer("dendria", iterations=300, seed=4)
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 10

    pondered = player.ponder(p, stop)
    assert pondered > 0
    player.choose(p)
    assert player.last_stats["reused"] == pondered
