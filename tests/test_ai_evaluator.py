"""``MCTSPlayer(game, evaluator=f, evaluator_batch=K)``: a learned value (and policy)
valuing the search's leaves K at a time (issue 30, item 4), in the compiled trees of both
games and in the Python tree (a game whose kernel offers none).

What is checked: the evaluator sees the documented batches, each leaf exactly as the
functional (pgx-style) vector environment gives that position; its values are backed up
for the right seat; a perfect evaluator finds a winning line its policy ranks second;
its policy orders the expansion; bad answers raise ``ValueError`` and leave the player
usable; the player plays in ``hexgames arena`` through a ``module:callable`` spec.
"""

from __future__ import annotations

import csv
import dataclasses
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hexgames.ai.mcts import MCTSPlayer
from hexgames.cli import main
from hexgames.game import Game, GameState, get_game
from hexgames.integrations.functional import Env, State, make

#: (game, rules options) of the small variants the tests search.
VARIANTS = {"benediction": {"board_side": 4}, "dendria": {"board_side": 4}}
TREES = ("compiled", "python")


def _game(name: str, tree: str) -> Game:
    """The game, or (``tree="python"``) the same game whose kernel offers no compiled
    tree: the search then runs in Python."""
    game = get_game(name)
    return game if tree == "compiled" else dataclasses.replace(game, kernel=None)


def _root(name: str, want: Callable[[GameState], bool], seed: int = 0,
          ) -> tuple[Env, State, GameState]:
    """The first position of seeded random games of the functional environment that
    ``want`` accepts, with its functional state (one game) and the engine's position."""
    game = get_game(name)
    env = make(name, **VARIANTS[name])
    for attempt in range(seed, seed + 50):
        state = env.init(np.array([attempt]))
        position = game.new_position(game.make_rules(**VARIANTS[name]))
        for _ in range(80):
            if want(position) and len(position.legal_actions()) >= 3:
                return env, state, position
            action = env.random_actions(state)
            env.step(state, action, inplace=True)
            position.play(game.action_from_id(position, int(action[0])))
            if state.terminated[0] or state.truncated[0]:
                break
    raise AssertionError("no such position in 50 random games")


def _late(position: GameState) -> bool:
    return position.ply >= 6


def _turn_start(position: GameState) -> bool:
    return _late(position) and position.is_turn_start()


def _mid_turn(position: GameState) -> bool:
    """Benediction: between the two actions of a turn; Dendria: after a dendrid's leg
    (the observation then shows where the leg started)."""
    if not _late(position) or position.is_turn_start():
        return False
    steps = getattr(position, "turn_steps", None)
    return steps is None or any(step.kind == "leg" for step in steps())


class Recorder:
    """An evaluator that keeps every batch it is given and answers ``answer(obs, masks,
    seats)`` (default: seeded random values, no policy)."""

    def __init__(self, answer: Callable[..., Any] | None = None) -> None:
        self.batches: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.answer = answer
        self._rng = np.random.default_rng(0)

    def __call__(self, observations: np.ndarray, masks: np.ndarray, seats: np.ndarray) -> Any:
        self.batches.append((observations.copy(), masks.copy(), seats.copy()))
        if self.answer is not None:
            return self.answer(observations, masks, seats)
        return self._rng.uniform(-1, 1, len(seats))


def _key(observation: np.ndarray, mask: np.ndarray, seat: int) -> tuple[bytes, bytes, int]:
    return observation.tobytes(), np.packbits(mask).tobytes(), int(seat)


def _tree_lines(player: MCTSPlayer, game: Game, position: GameState
                ) -> list[tuple[list[int], int, float | None]]:
    """``(research ids from the root, visits, proven value)`` of every node of the
    player's kept tree (compiled or Python) below the root."""
    pos = position.copy()
    lines: list[tuple[list[int], int, float | None]] = []

    def walk(children: list[tuple[Any, int, float | None, Any]], ids: list[int]) -> None:
        for action, visits, result, node in children:
            line = [*ids, int(game.action_to_id(pos, action))]
            lines.append((line, visits, result))
            pos.play(action)
            walk(kids(node), line)
            pos.undo()

    tree = player._tree
    if tree is not None:
        def kids(node: Any) -> list[tuple[Any, int, float | None, Any]]:
            return [(c["action"], c["visits"], c["result"], c["node"])
                    for c in tree.children(node)]
        walk(kids(tree.root), [])
    else:
        def kids(node: Any) -> list[tuple[Any, int, float | None, Any]]:
            return [(c.action, c.visits, c.result, c) for c in node.children]
        walk(kids(player._root), [])
    return lines


@pytest.mark.parametrize("tree", TREES)
@pytest.mark.parametrize("where", ["late", "mid-turn"])
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_leaves_are_seen_as_the_vector_environment_sees_them(name, where, tree):
    env, state, position = _root(name, _late if where == "late" else _mid_turn)
    game = _game(name, tree)
    recorder = Recorder()
    player = MCTSPlayer(game, iterations=80, seed=3, evaluator=recorder, evaluator_batch=6)
    player.choose(position)
    assert player.last_stats["tree"] == tree
    assert player.last_stats["evaluated"] == sum(len(s) for _, _, s in recorder.batches) > 40
    # the documented batches
    planes = env.observation_shape
    for observations, masks, seats in recorder.batches:
        size = len(seats)
        assert 1 <= size <= 6
        assert observations.dtype == np.float32 and observations.shape == (size, *planes)
        assert masks.dtype == np.bool_ and masks.shape == (size, env.num_actions)
        assert seats.dtype == np.int32 and set(seats.tolist()) <= {0, 1}
    assert max(len(s) for _, _, s in recorder.batches) > 1  # leaves come in batches
    # every node valued once is a leaf the evaluator saw, as the functional env gives it
    seen = {_key(o, m, s) for obs, masks, seats in recorder.batches
            for o, m, s in zip(obs, masks, seats, strict=True)}
    root = _key(state.observation[0], state.legal_action_mask[0], state.current_player[0])
    valued, reachable = {root}, {root}
    for ids, visits, result in _tree_lines(player, get_game(name), position):
        leaf = state.copy()
        for action_id in ids:
            leaf = env.step(leaf, np.array([action_id]))
        if leaf.terminated[0]:
            continue
        key = _key(leaf.observation[0], leaf.legal_action_mask[0], leaf.current_player[0])
        reachable.add(key)
        if result is None and visits > 0:
            valued.add(key)
    assert valued <= seen <= reachable
    assert len(valued) > 20


@pytest.mark.parametrize("tree", TREES)
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_values_are_backed_up_for_the_seat_to_act(name, tree):
    """Every leaf is worth +0.5 to its seat to act: a root child is worth +0.5 to the
    root's mover where the mover acts again, -0.5 where the opponent does."""
    game = _game(name, tree)
    signs = set()
    for where in (_turn_start, _mid_turn):
        _, _, position = _root(name, where)
        player = MCTSPlayer(game, iterations=40, seed=1, tactics=False, widen_base=500,
                            evaluator=lambda o, m, s: np.full(len(s), 0.5))
        player.choose(position)
        root = (player._root if player._tree is None
                else player._root_from_tree(player._tree, position))
        mover = position.current_seat
        for child in root.children:
            after = _position_after(position, [child.action])
            if child.visits != 1 or after.is_over:
                continue
            sign = 1.0 if after.current_seat == mover else -1.0
            assert child.mover == mover and child.mean() == pytest.approx(0.5 * sign)
            signs.add(sign)
    assert signs == {1.0, -1.0}


def _position_after(position: GameState, actions: list[Any]) -> GameState:
    after = position.copy()
    for action in actions:
        after.play(action)
    return after


def _own(position: GameState) -> list[Any]:
    """The actions after which the mover acts again, with a choice."""
    return [a for a in position.legal_actions()
            if not (after := _position_after(position, [a])).is_over
            and after.current_seat == position.current_seat and len(after.legal_actions()) >= 2]


@pytest.mark.parametrize("tree", TREES)
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_perfect_evaluator_finds_the_win_its_policy_ranks_second(name, tree):
    """Within the mover's own turn: after ``good`` then ``finish`` the mover has won, after
    the ``decoy`` and any action it has lost, and the evaluator knows it. Its policy puts
    the decoy first: only the values, backed up for the right seat, lead to ``good``.
    Both seats move at the root in turn."""
    game = get_game(name)
    for seat in (0, 1):
        _, _, position = _root(name, lambda p, s=seat: (_turn_start(p) and p.current_seat == s
                                                          and len(_own(p)) >= 2))
        mover = position.current_seat
        good, decoy = _own(position)[:2]
        # an action that is not one of the root's, so that no other order reaches the win
        root_ids = {int(game.action_to_id(position, a)) for a in position.legal_actions()}
        after_good = _position_after(position, [good])
        finish = next(a for a in reversed(after_good.legal_actions())
                      if int(game.action_to_id(after_good, a)) not in root_ids)
        outcome: dict[bytes, float] = {}  # the leaves' value for the mover
        for line, value in [([good, finish], 1.0)] + [
                ([decoy, a], -1.0) for a in _position_after(position, [decoy]).legal_actions()]:
            leaf = _position_after(position, line)
            outcome[game.observation(leaf, leaf.current_seat).tobytes()] = value
        scores = {int(game.action_to_id(position, decoy)): 2.0,
                  int(game.action_to_id(position, good)): 1.0,
                  int(game.action_to_id(after_good, finish)): 3.0}

        def perfect(observations, masks, seats, outcome=outcome, scores=scores, mover=mover):
            values = np.array([outcome.get(o.tobytes(), 0.0) for o in observations])
            policy = np.zeros(masks.shape)
            policy[:, list(scores)] = list(scores.values())
            return np.where(seats == mover, values, -values), policy

        player = MCTSPlayer(_game(name, tree), iterations=150, seed=2, tactics=False,
                            evaluator=perfect, evaluator_batch=4)
        assert player.choose(position) == good
        assert player.last_stats["tree"] == tree


@pytest.mark.parametrize("tree", TREES)
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_policy_orders_the_expansion(name, tree):
    _, _, position = _root(name, _late)
    game = get_game(name)
    ids = {a: int(game.action_to_id(position, a)) for a in position.legal_actions()}
    scores = np.random.default_rng(5).permutation(game.num_distinct_actions(position.rules))
    ranked = sorted(ids, key=lambda a: -scores[ids[a]])

    def with_policy(observations, masks, seats):
        return np.zeros(len(seats)), np.tile(scores, (len(seats), 1)).astype(np.float32)

    orders = {}
    for label, evaluator in (("policy", with_policy),
                             ("none", lambda o, m, s: np.zeros(len(s)))):
        player = MCTSPlayer(_game(name, tree), iterations=12, seed=4, tactics=False,
                            evaluator=evaluator, evaluator_batch=3)
        player.choose(position)
        if player._tree is not None:
            order = [c["action"] for c in player._tree.children()] + player._tree.untried()
        else:
            order = list(player._root.order)
        assert sorted(map(str, order)) == sorted(map(str, ranked))
        orders[label] = order
    assert orders["policy"] == ranked
    assert orders["none"] != ranked  # without a policy, the game's own priors


BAD_ANSWERS = [
    (lambda o, m, s: np.zeros(len(s) + 1), r"values must have shape \(\d+,\), one per leaf"),
    (lambda o, m, s: np.full(len(s), np.nan), r"finite numbers in \[-1, 1\].*nan for leaf 0"),
    (lambda o, m, s: np.full(len(s), 1.5), r"in \[-1, 1\] \(for the seat to act\), got 1.5"),
    (lambda o, m, s: (np.zeros(len(s)), np.zeros((len(s), 3))), r"policy must have shape"),
    (lambda o, m, s: (np.zeros(len(s)), np.where(m, np.nan, 0.0)),
     r"policy is NaN at legal id \d+ of leaf 0"),
    (lambda o, m, s: "good", r"values must be numbers"),
    (lambda o, m, s: (np.zeros(len(s)), None, None), r"values or \(values, policy\)"),
]


@pytest.mark.parametrize("tree", TREES)
@pytest.mark.parametrize(("answer", "message"), BAD_ANSWERS)
def test_a_bad_answer_raises_and_the_player_goes_on(answer, message, tree):
    _, _, position = _root("dendria", _late)
    good = [False]

    def evaluator(observations, masks, seats):
        if good[0]:
            return np.zeros(len(seats)), None
        return answer(observations, masks, seats)

    player = MCTSPlayer(_game("dendria", tree), iterations=30, seed=1, evaluator=evaluator)
    with pytest.raises(ValueError, match=message):
        player.choose(position)
    good[0] = True  # the tree with pending leaves was dropped: the next search is sound
    assert player.choose(position) in position.legal_actions()
    assert player.last_stats["evaluated"] > 0 and player.last_stats["reused"] == 0


def test_the_answer_may_be_a_column_and_is_clipped_within_rounding():
    _, _, position = _root("dendria", _late)
    player = MCTSPlayer(get_game("dendria"), iterations=20, seed=1,
                        evaluator=lambda o, m, s: np.full((len(s), 1), 1.0 + 1e-7))
    assert player.choose(position) in position.legal_actions()


@pytest.mark.parametrize(
    ("options", "message"),
    [({"evaluator": 3}, "evaluator must be callable"),
     ({"evaluator": lambda o, m, s: 0, "evaluator_batch": 0}, "evaluator_batch must be a "
      "positive integer"),
     ({"evaluator": lambda o, m, s: 0, "use_heuristic": True}, "use_heuristic must be left")],
)
def test_bad_settings_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        MCTSPlayer(get_game("dendria"), **options)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_seeded_searches_repeat_and_the_tree_is_reused(name):
    _, _, position = _root(name, _late)
    choices = []
    for _ in range(2):
        player = MCTSPlayer(get_game(name), iterations=60, seed=9, evaluator=Recorder())
        choices.append((player.choose(position), player.last_stats["evaluated"]))
        after = position.copy()
        after.play(choices[-1][0])
        if not after.is_over and after.current_seat == position.current_seat:
            player.choose(after)
            stats = player.last_stats
            assert stats["reason"] != "search" or stats["reused"] > 0
    assert choices[0] == choices[1]


def test_pondering_grows_the_kept_tree_with_the_evaluator():
    _, _, position = _root("dendria", _late)
    player = MCTSPlayer(get_game("dendria"), iterations=30, seed=1, evaluator=Recorder())
    done = player.ponder(position, lambda: False, max_iterations=50)
    assert done == 50
    player.choose(position)
    assert player.last_stats["reused"] >= 50


def test_arena_plays_a_factory_player_with_an_evaluator(tmp_path):
    out = tmp_path / "arena"
    spec = "evaluated_players:mcts_with_a_value"
    assert main(["arena", "dendria", "--players", f"random,{spec}", "--games", "2",
                 "--set", "board_side=3", "--jobs", "1", "--out", str(out)]) == 0
    with (out / "results.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2 and {row["seat0"] for row in rows} == {"random", spec}
    assert f"| {spec} |" in (out / "summary.md").read_text()


def test_the_worked_example_of_the_docs_runs(tmp_path):
    """The first Python block of docs/ai.md, "Learned evaluators", as a reader runs it."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "ai.md").read_text("utf-8")
    section = text.split("## Learned evaluators", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    action, tree, evaluated = done.stdout.split()
    assert tree == "compiled" and int(evaluated) == 120
    assert action in {str(a) for a in get_game("dendria").new_position(
        get_game("dendria").make_rules(board_side=5)).legal_actions()}
