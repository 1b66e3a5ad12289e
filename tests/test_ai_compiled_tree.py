"""The MCTS tree in compiled code (``hexgames._ctree`` and Benediction's ``_search``):
the same algorithm as the Python tree of :class:`MCTSPlayer`, used by level 5."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hexgames.ai import levels
from hexgames.ai.mcts import MCTSPlayer
from hexgames.benediction import Position, Rules
from hexgames.benediction import _search as search
from hexgames.benediction.evaluation import action_priors
from hexgames.benediction.kernel import kernel
from hexgames.game import get_game

SETTINGS = (0.6, 3.0, 1.0, True)  # exploration, widen_base, widen_factor, tactics


def random_position(seed: int, plies: int | None = None, rules: Rules | None = None) -> Position:
    """A position reached by seeded random play, not over."""
    rng = random.Random(seed)
    while True:
        p = Position.initial(rules) if rules is not None else Position.initial()
        for _ in range(rng.randrange(2, 40) if plies is None else plies):
            if p.is_over:
                break
            p.play(rng.choice(list(p.legal_actions())))
        if not p.is_over:
            return p


def position_with_a_win(seed: int) -> Position:
    """A position (reached by random play) where the player to act can win at once."""
    rng = random.Random(seed)
    while True:
        p = Position.initial()
        for _ in range(200):
            if p.is_over:
                break
            if p.immediate_wins():
                return p
            p.play(rng.choice(list(p.legal_actions())))


@pytest.mark.parametrize("seed", range(12))
def test_compiled_priors_equal_the_python_priors(seed: int) -> None:
    rules = Rules(board_side=4) if seed % 3 == 0 else None
    p = random_position(seed, rules=rules)
    actions = list(p.legal_actions())
    assert search.priors_of(p, actions) == pytest.approx(action_priors(p, actions))


def test_a_search_leaves_the_position_alone_and_counts_every_iteration() -> None:
    p = random_position(3)
    text, history = p.to_text(), list(p.history)
    tree = kernel().tree_search()
    assert tree.set_root(p) == 0
    done = tree.run(300, 1, *SETTINGS)
    assert done == 300
    assert p.to_text() == text and list(p.history) == history
    children = tree.children()
    assert tree.NI[tree.root, 3] == 300  # the root's visits
    assert sum(c["visits"] for c in children) == 300
    legal = set(p.legal_actions())
    assert {c["action"] for c in children} | set(tree.untried()) == legal
    assert len(children) + len(tree.untried()) == len(legal)
    # the children tried first are those the priors rank highest
    ranked = sorted(zip(action_priors(p, list(legal)), map(str, legal), strict=True),
                    reverse=True)
    assert action_priors(p, [children[0]["action"]])[0] == ranked[0][0]


def test_the_same_seed_searches_the_same_tree() -> None:
    p = random_position(5)
    counts = []
    for _ in range(2):
        tree = kernel().tree_search()
        tree.set_root(p)
        tree.run(200, 42, *SETTINGS)
        counts.append([(str(c["action"]), c["visits"], c["value"]) for c in tree.children()])
    assert counts[0] == counts[1]
    other = kernel().tree_search()
    other.set_root(p)
    other.run(200, 43, *SETTINGS)
    assert [(str(c["action"]), c["visits"], c["value"]) for c in other.children()] != counts[0]


def test_a_full_tree_grows_and_searches_as_a_large_one_would() -> None:
    p = random_position(7)
    small = search.TreeSearch(nodes=8, pool=64)
    small.set_root(p)
    assert small.run(400, 1, *SETTINGS) == 400
    assert len(small.NI) > 8 and len(small.PA) > 64
    assert sum(c["visits"] for c in small.children()) == 400
    large = search.TreeSearch()
    large.set_root(p)
    large.run(400, 1, *SETTINGS)
    assert [(c["action"], c["visits"], c["value"]) for c in small.children()] == [
        (c["action"], c["visits"], c["value"]) for c in large.children()]


def test_a_search_without_undo_room_asks_for_more_and_goes_on() -> None:
    from hexgames.benediction._layout import M_FCAP

    p = random_position(8)
    text = p.to_text()
    tree = search.TreeSearch()
    tree.room_frames = 3  # room for a line of one action: deeper ones ask for more
    tree.set_root(p)
    assert tree._meta[M_FCAP] == 3
    assert tree.run(300, 1, *SETTINGS) == 300
    assert tree._meta[M_FCAP] > 3  # room was added
    assert sum(c["visits"] for c in tree.children()) == 300
    assert p.to_text() == text


def test_the_solver_proves_an_immediate_win() -> None:
    for seed in range(4):
        p = position_with_a_win(seed)
        wins = set(p.immediate_wins())
        tree = kernel().tree_search()
        tree.set_root(p)
        tree.run(2000, seed, *SETTINGS)
        sign = 1.0 if p.current_seat == 0 else -1.0
        assert tree.solved() == sign
        player = MCTSPlayer("benediction", use_heuristic=False, iterations=2000, seed=seed,
                            tactics=False)
        assert player._tree is not None
        assert player.choose(p) in wins
        assert player.last_stats["reason"] == "proven win"


def test_actions_that_let_the_opponent_win_at_once_are_proven_lost() -> None:
    """With tactics, a new node whose player to act can win at once is proven (a loss
    for the player who led there); a child proven lost is not the choice while another
    is not proven lost."""
    checked = 0
    for seed in range(400):
        p = random_position(100 + seed)
        if p.actions_left != 1:  # the turn's last action: the opponent acts next
            continue
        losing = []
        for action in p.legal_actions():
            p.play(action)
            if not p.is_over and p.immediate_wins():
                losing.append(action)
            p.undo()
        if not losing or len(losing) == len(p.legal_actions()):
            continue
        tree = kernel().tree_search()
        tree.set_root(p)
        tree.run(600, seed, *SETTINGS)
        sign = 1.0 if p.current_seat == 0 else -1.0
        for child in tree.children():
            if child["action"] in losing:
                # proven at its first visit, and never visited again
                assert child["result"] == -sign and child["visits"] == 1
        if tree.solved() == -sign:  # every action loses, some only later in the turn
            continue
        choice = MCTSPlayer("benediction", use_heuristic=False, iterations=600, seed=seed,
                            safety=False).choose(p)
        assert choice not in losing
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_level_5_uses_the_compiled_tree_where_the_game_offers_one() -> None:
    assert levels.player("benediction", 5, seed=1)._tree is not None  # type: ignore[attr-defined]
    assert levels.player("benediction", 4, seed=1)._tree is None  # type: ignore[attr-defined]


class _NoTree:
    """The game's kernel, except that it offers no compiled tree."""

    def __init__(self) -> None:
        self.inner = kernel()
        self.name = self.inner.name

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def tree_search(self) -> None:
        return None


def test_a_kernel_without_a_compiled_tree_plays_the_leaves_for_the_python_tree() -> None:
    """``tree_search()`` may answer ``None``: the search then runs in Python, its new
    leaves valued by the kernel's random games (never by the heuristic)."""
    import dataclasses

    game = dataclasses.replace(get_game("benediction"), kernel=_NoTree)
    player = MCTSPlayer(game, use_heuristic=False, iterations=40, seed=1, tactics=False)
    assert player._tree is None and isinstance(player._kernel, _NoTree)
    asked = []
    player._know = dataclasses.replace(player._know,
                                       heuristic=lambda pos: asked.append(pos) or 0.0)
    p = random_position(5, plies=6)
    assert player.choose(p) in set(p.legal_actions())
    assert player.last_stats["iterations"] > 1 and not asked


def test_the_tree_is_kept_across_the_actions_of_a_turn() -> None:
    p = random_position(11, plies=10)
    while p.actions_left != 2 or p.is_over:
        p.play(p.legal_actions()[0])
    player = MCTSPlayer("benediction", use_heuristic=False, iterations=400, seed=3)
    first = player.choose(p)
    kept = {c["action"]: c["visits"] for c in player._tree.children()}
    p.play(first)
    assert not p.is_turn_start()
    player.choose(p)
    assert player.last_stats["reused"] == kept[first] > 0
    assert player.last_stats["share"] == player.continuation_share
    player.reset()
    player.choose(p)
    assert player.last_stats["reused"] == 0


def test_a_tree_of_another_variant_is_not_reused() -> None:
    tree = kernel().tree_search()
    small = Position.initial(Rules(board_side=4))
    tree.set_root(small)
    tree.run(100, 1, *SETTINGS)
    standard = Position.initial()
    assert tree.set_root(standard) == 0
    assert tree.run(100, 1, *SETTINGS) == 100
    assert set(c["action"] for c in tree.children()) <= set(standard.legal_actions())


def test_pondering_grows_the_compiled_tree_for_the_next_choice() -> None:
    p = random_position(12, plies=9)
    while not p.is_turn_start() or p.is_over:
        p.play(p.legal_actions()[0])
    player = MCTSPlayer("benediction", use_heuristic=False, iterations=300, seed=4)
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 10

    pondered = player.ponder(p, stop)
    assert pondered > 0
    player.choose(p)
    assert player.last_stats["reused"] == pondered


@pytest.mark.parametrize("seconds", [0.2, 1e-9])
def test_a_time_limited_compiled_search_chooses_a_legal_action(seconds: float) -> None:
    """Even a deadline gone before the search begins (the tactical layer used the time)
    leaves one iteration: the root is visited and its actions listed."""
    p = random_position(13)
    player = MCTSPlayer("benediction", use_heuristic=False, time_limit=seconds, seed=1)
    assert player._tree is not None
    assert player.choose(p) in set(p.legal_actions())
    assert player.last_stats["iterations"] >= 1


@pytest.mark.parametrize("seed", range(6))
def test_compiled_level_5_plays_legal_actions_through_whole_games(seed: int) -> None:
    """Seeded games of a cheap compiled-tree player against random play: every choice is
    legal and leaves the position as it was."""
    rng = random.Random(seed)
    p = Position.initial(Rules(board_side=4))
    player = MCTSPlayer(get_game("benediction"), use_heuristic=False, iterations=60,
                        seed=seed)
    for _ in range(300):
        if p.is_over:
            break
        if p.current_seat == seed % 2:
            text = p.to_text()
            action = player.choose(p)
            assert p.to_text() == text
        else:
            action = rng.choice(list(p.legal_actions()))
        assert action in set(p.legal_actions())
        p.play(action)


# ----------------------------------------------------------- the generic array tree
def small_tree(actions: int) -> tuple[np.ndarray, ...]:
    """A root (seat 0 to act, reached by seat 1) expanded with ``actions`` actions."""
    from hexgames import _ctree

    NI = np.zeros((64, _ctree.NI_FIELDS), np.int64)
    NV = np.zeros((64, 2))
    PA = np.zeros(256, np.int32)
    PC = np.zeros(256, np.int32)
    CT = np.zeros(3, np.int64)
    root = _ctree.new_node(NI, NV, CT, -1, 1)
    NI[root, _ctree.F_SEAT] = 0
    codes = np.arange(10, 10 + actions, dtype=np.int32)
    priors = np.arange(actions, dtype=np.float64)  # the last action ranks first
    _ctree.expand(NI, PA, CT, root, codes, priors, actions)
    return NI, NV, PA, PC, CT


def test_expand_orders_by_priors_and_widening_admits_children_gradually() -> None:
    from hexgames import _ctree

    NI, NV, PA, PC, CT = small_tree(6)
    assert PA[:6].tolist() == [15, 14, 13, 12, 11, 10]
    tried = []
    for _ in range(3):  # a node of 0 visits admits widen_base = 3 children
        child = _ctree.select(NI, NV, PA, PC, CT, 0, 0.6, 3.0, 1.0)
        NI[child, _ctree.F_SEAT] = 1
        path = np.array([0, child])
        _ctree.backup(NI, NV, path, 2, 0.0)
        tried.append(int(NI[child, _ctree.F_ACT]))
    assert tried == [15, 14, 13]
    # 3 visits: 3 + sqrt(3) allows a fourth child
    child = _ctree.select(NI, NV, PA, PC, CT, 0, 0.6, 3.0, 1.0)
    assert NI[child, _ctree.F_ACT] == 12 and NI[0, _ctree.F_NEXT] == 4


@settings(max_examples=120, deadline=None)
@given(st.lists(st.sampled_from([-1.5, -0.0, 0.0, 0.25, 0.25, 1.0, 3.0, 1e-9]),
                min_size=0, max_size=300),
       st.integers(min_value=0, max_value=40))
@example(priors=[], offset=0)
@example(priors=[0.0, -0.0, 1.0, 0.0, 1.0], offset=0)  # ties and signed zeros
@example(priors=[float(x % 7) for x in range(257)], offset=3)  # runs across 256
def test_expand_orders_like_a_stable_argsort(priors: list[float], offset: int) -> None:
    """The tree's own merge sort (``_ctree`` compiles it instead of numba's generic
    ``np.argsort``) orders exactly as ``np.argsort(-priors, kind="mergesort")``: highest
    prior first, equal priors in the given order, whatever the length."""
    from hexgames import _ctree

    m = len(priors)
    NI = np.zeros((4, _ctree.NI_FIELDS), np.int64)
    NV = np.zeros((4, 2))
    PA = np.full(offset + m + 1, -1, np.int32)
    CT = np.zeros(3, np.int64)
    CT[_ctree.C_POOL] = offset
    node = _ctree.new_node(NI, NV, CT, -1, 1)
    codes = np.arange(100, 100 + m, dtype=np.int32)
    values = np.array([*priors, 9.0], dtype=np.float64)  # a tail past m is not read
    _ctree.expand(NI, PA, CT, node, codes, values, m)
    expected = codes[np.argsort(-values[:m], kind="mergesort")]
    assert PA[offset:offset + m].tolist() == expected.tolist()
    assert PA[:offset].tolist() == [-1] * offset and PA[offset + m] == -1
    assert NI[node, _ctree.F_POOL] == offset and NI[node, _ctree.F_NORD] == m
    assert CT[_ctree.C_POOL] == offset + m


def test_backup_counts_values_from_each_movers_point_of_view() -> None:
    from hexgames import _ctree

    NI, NV, PA, PC, CT = small_tree(2)
    a = _ctree.select(NI, NV, PA, PC, CT, 0, 0.6, 3.0, 1.0)  # played by seat 0
    NI[a, _ctree.F_SEAT] = 1
    _ctree.backup(NI, NV, np.array([0, a]), 2, 1.0)  # seat 0 won
    assert NI[0, _ctree.F_VISITS] == NI[a, _ctree.F_VISITS] == 1
    assert NV[a, _ctree.V_VALUE] == 1.0  # good for seat 0, who chose it
    assert NV[0, _ctree.V_VALUE] == -1.0  # the root was reached by seat 1


def test_select_takes_a_proven_win_and_proves_a_node_whose_actions_all_lose() -> None:
    from hexgames import _ctree

    NI, NV, PA, PC, CT = small_tree(3)
    kids = [_ctree.select(NI, NV, PA, PC, CT, 0, 0.6, 3.0, 1.0) for _ in range(3)]
    for k in kids:
        NI[k, _ctree.F_VISITS] = 1
    NI[0, _ctree.F_VISITS] = 3
    NV[kids[1], _ctree.V_RESULT] = 1.0  # seat 0 (to act at the root) wins there
    assert _ctree.select(NI, NV, PA, PC, CT, 0, 0.6, 3.0, 1.0) == kids[1]
    assert NV[0, _ctree.V_RESULT] == 1.0
    NV[0, _ctree.V_RESULT] = np.nan
    NV[kids, _ctree.V_RESULT] = -1.0  # every action loses for seat 0
    assert _ctree.select(NI, NV, PA, PC, CT, 0, 0.6, 3.0, 1.0) == -1
    assert NV[0, _ctree.V_RESULT] == -1.0
    NV[0, _ctree.V_RESULT] = np.nan
    NV[kids[2], _ctree.V_RESULT] = 0.0  # ... but one draws: the others are never chosen
    assert _ctree.select(NI, NV, PA, PC, CT, 0, 0.6, 3.0, 1.0) == kids[2]


def test_moving_on_keeps_only_the_subtree_in_use() -> None:
    from hexgames import _ctree

    p = random_position(21, plies=6)
    tree = kernel().tree_search()
    tree.set_root(p)
    tree.run(1500, 5, *SETTINGS)
    used = int(tree.CT[_ctree.C_NODES])
    best = max(tree.children(), key=lambda c: c["visits"])
    below = [(str(c["action"]), c["visits"], c["value"], c["result"])
             for c in tree.children(best["node"])]
    p.play(best["action"])
    assert tree.set_root(p) == best["visits"]
    assert tree.root == 0
    assert [(str(c["action"]), c["visits"], c["value"], c["result"])
            for c in tree.children()] == below
    kept = int(tree.CT[_ctree.C_NODES])
    assert kept == _ctree.subtree_size(tree.NI, tree.PC, 0)[0] < used
    # the kept tree searches on: its children's visits grow by the new iterations
    tree.run(300, 6, *SETTINGS)
    assert sum(c["visits"] for c in tree.children()) == sum(v for _, v, _, _ in below) + 300


def test_a_kept_root_proven_before_it_was_expanded_still_gets_a_choice() -> None:
    """A node proven won at its first visit (its player can win at once) is never
    expanded; if it becomes the root of a later search, the choice comes from the legal
    actions, not from an empty list."""
    p = position_with_a_win(2)
    before = p.history[-1]
    p.undo()
    player = MCTSPlayer("benediction", use_heuristic=False, iterations=300, seed=1,
                        tactics=False)
    tree = player._tree
    tree.set_root(p)
    tree.run(300, 1, *SETTINGS)
    node = next((c["node"] for c in tree.children() if c["action"] == before), None)
    p.play(before)
    if node is None or tree.children(node):
        pytest.skip("the line to the won position was expanded in this search")
    assert tree.set_root(p) == 1 and tree.solved() is not None and not tree.children()
    choice = player.choose(p)  # no tactical layer before the search: the tree decides
    assert choice in set(p.legal_actions())
