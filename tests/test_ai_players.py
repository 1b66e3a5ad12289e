"""The players on the toy game (tests/test_ai_toygame.py): tactics, legality, reuse."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexgames.ai import GreedyPlayer, MCTSPlayer, Player, RandomPlayer
from hexgames.ai.knowledge import brute_force_winning_actions, knowledge
from hexgames.ai.tactics import Budget, first_safe, is_safe, winning_action
from test_ai_toygame import TOY, ToyPosition

# X to move, second action of its turn: a4 completes a1-a4.
WIN_IN_ONE = """
.....
.....
x....
x.o..
x.o.o
x 1
"""

# X to move at the start of a two-action turn: a3 + a4 (in either order) wins.
WIN_IN_TWO = """
.....
.....
.....
x...o
x..oo
x 2
"""

# O to move, second action: X threatens b2-b3-b4 + b5 and b1 is taken by O.
DEFEND = """
.....
.x...
.x...
.x..o
oo..o
o 1
"""


def mcts(**kw) -> MCTSPlayer:
    kw.setdefault("iterations", 200)
    kw.setdefault("seed", 1)
    return MCTSPlayer(TOY, **kw)


def play_turn(player: Player, position: ToyPosition) -> None:
    seat = position.current_seat
    position.play(player.choose(position))
    while not position.is_over and position.current_seat == seat and not position.is_turn_start():
        position.play(player.choose(position))


def test_players_satisfy_the_protocol():
    for p in (RandomPlayer(1), GreedyPlayer(1, game=TOY), mcts()):
        assert isinstance(p, Player) and p.name


@pytest.mark.parametrize("tactics", [True, False])
def test_mcts_wins_in_one_action(tactics):
    position = ToyPosition.from_text(WIN_IN_ONE)
    assert mcts(tactics=tactics).choose(position) == "a4"


@pytest.mark.parametrize("tactics", [True, False])
def test_mcts_wins_with_the_two_actions_of_a_turn(tactics):
    position = ToyPosition.from_text(WIN_IN_TWO)
    play_turn(mcts(tactics=tactics, iterations=400), position)
    assert position.winner == "x"


def test_tactical_layer_finds_the_turn_win_without_search():
    player = mcts(iterations=1)
    position = ToyPosition.from_text(WIN_IN_TWO)
    assert player.choose(position) in {"a3", "a4"}
    assert player.last_stats["reason"] == "win"


@pytest.mark.parametrize("iterations", [1, 300])
def test_mcts_parries_a_threat_when_a_defence_exists(iterations):
    # With a single iteration the search knows nothing: the safety layer must still block.
    position = ToyPosition.from_text(DEFEND)
    assert mcts(iterations=iterations).choose(position) == "b5"


def test_safety_layer_accepts_the_block_and_rejects_the_rest():
    know = knowledge(TOY)
    position = ToyPosition.from_text(DEFEND)
    verdicts = {}
    for action in position.legal_actions():
        position.play(action)
        verdicts[action] = is_safe(know, position, 1, budget=Budget(10_000))
        position.undo()
    assert [a for a, safe in verdicts.items() if safe] == ["b5"]


def test_no_safe_action_still_returns_a_legal_action():
    # Two separate threats, one stone to place: every action loses.
    position = ToyPosition.from_text(".....\n.x..x\n.x..x\n.x..x\noo..o\no 1")
    player = mcts(iterations=50)
    action = player.choose(position)
    assert action in position.legal_actions()


def test_winning_action_finds_nothing_when_there_is_no_win():
    position = ToyPosition.from_text(DEFEND)
    assert winning_action(knowledge(TOY), position, depth=2) is None
    assert brute_force_winning_actions(position) == []


def test_greedy_takes_the_win_and_random_is_legal():
    position = ToyPosition.from_text(WIN_IN_ONE)
    assert GreedyPlayer(0, game=TOY).choose(position) == "a4"
    assert RandomPlayer(0).choose(position) in position.legal_actions()


def test_greedy_noise_must_not_be_negative():
    with pytest.raises(ValueError, match="noise"):
        GreedyPlayer(noise=-1, game=TOY)


def test_choosing_in_a_finished_game_is_an_error():
    position = ToyPosition.from_text(WIN_IN_ONE)
    position.play("a4")
    with pytest.raises(ValueError, match="over"):
        mcts().choose(position)


def test_seeded_iteration_budget_is_reproducible():
    def game(seed: int) -> list[str]:
        a, b = mcts(seed=seed, iterations=60), mcts(seed=seed + 1, iterations=60)
        position = ToyPosition()
        while not position.is_over:
            player = a if position.current_seat == 0 else b
            position.play(player.choose(position))
        return position.history

    assert game(5) == game(5)


def test_tree_is_reused_along_the_game():
    player = mcts(iterations=300)
    position = ToyPosition()
    position.play(player.choose(position))  # X's one-stone first turn
    assert player.last_stats["reused"] == 0
    # O's turn is searched from X's kept tree; O's two stones follow the tree.
    position.play(player.choose(position))
    reused_before_second = player._root.visits
    position.play(player.choose(position))
    assert player.last_stats["reused"] > 0
    assert player.last_stats["reused"] <= reused_before_second + 300


def test_tree_is_not_reused_in_an_unrelated_position():
    player = mcts(iterations=100)
    player.choose(ToyPosition.from_text(DEFEND))
    player.choose(ToyPosition.from_text(WIN_IN_TWO.replace("x 2", "o 2")))
    assert player.last_stats["reused"] == 0


def test_reset_forgets_the_tree():
    player = mcts(iterations=100)
    position = ToyPosition()
    position.play(player.choose(position))
    player.reset()
    player.choose(position)
    assert player.last_stats["reused"] == 0


def test_time_limit_is_respected_roughly():
    player = MCTSPlayer(TOY, time_limit=0.2, seed=1)
    player.choose(ToyPosition())
    assert player.last_stats["seconds"] < 1.0
    assert player.last_stats["iterations"] > 0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"iterations": 0}, "iterations"),
        ({"time_limit": 0}, "time_limit"),
        ({"continuation_share": 0}, "continuation_share"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MCTSPlayer(TOY, **kwargs)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 14))
def test_choose_never_mutates_and_returns_a_legal_action(seed, moves):
    rng = random.Random(seed)
    position = ToyPosition()
    for _ in range(moves):
        if position.is_over:
            break
        position.play(rng.choice(position.legal_actions()))
    if position.is_over:
        return
    before = (position.to_text(), position.key, list(position.history))
    for player in (mcts(iterations=30, seed=seed), GreedyPlayer(seed, game=TOY)):
        action = player.choose(position)
        assert action in position.legal_actions()
        assert (position.to_text(), position.key, list(position.history)) == before


# O to move, second action: X's b2-b3 needs two more stones (b4 and b1 or b5), a whole
# turn of X's; only b4 stops both. A threat of two actions, not one.
TWO_ACTION_THREAT = """
.....
.....
.x...
.x...
o....
o 1
"""


def test_threat_depth_decides_whether_a_two_action_threat_is_seen():
    know = knowledge(TOY)
    position = ToyPosition.from_text(TWO_ACTION_THREAT)
    candidates = ["e5", "b4"]
    shallow = first_safe(know, position, candidates, budget=Budget(10_000), threat_depth=1)
    deep = first_safe(know, position, candidates, budget=Budget(10_000), threat_depth=2)
    assert (shallow, deep) == ("e5", "b4")
    assert position.to_text() == ToyPosition.from_text(TWO_ACTION_THREAT).to_text()


def test_full_safety_blocks_the_two_action_threat_without_search():
    assert mcts(iterations=1).choose(ToyPosition.from_text(TWO_ACTION_THREAT)) == "b4"


@pytest.mark.parametrize(("options", "checked"), [({}, True), ({"safety": False}, False),
                                                  ({"tactics": False}, False)])
def test_safety_check_runs_only_when_asked(options, checked, monkeypatch):
    calls = []
    import hexgames.ai.mcts as mcts_module

    real = mcts_module.first_safe

    def spy(*args, **kwargs):
        calls.append(kwargs.get("threat_depth"))
        return real(*args, **kwargs)

    monkeypatch.setattr(mcts_module, "first_safe", spy)
    mcts(iterations=30, **options).choose(ToyPosition.from_text(TWO_ACTION_THREAT))
    assert bool(calls) == checked


def test_threat_depth_must_be_positive():
    with pytest.raises(ValueError, match="threat_depth"):
        mcts(threat_depth=0)


def test_the_leaf_evaluation_follows_the_game_unless_asked():
    """Dendria's hooks ask for whole random playouts at the leaves (its heuristic misled
    deeper searches); Benediction's search keeps the heuristic; an explicit
    ``use_heuristic`` wins. A playout-valued search never asks the heuristic."""
    import dataclasses

    from hexgames.ai.levels import player
    from hexgames.game import get_game

    dendria, benediction = get_game("dendria"), get_game("benediction")
    assert knowledge(dendria).leaf_playouts and not knowledge(benediction).leaf_playouts
    assert not MCTSPlayer(dendria).use_heuristic
    assert MCTSPlayer(dendria, use_heuristic=True).use_heuristic
    assert MCTSPlayer(benediction).use_heuristic
    assert not MCTSPlayer(benediction, use_heuristic=False).use_heuristic
    for level in (2, 3, 4, 5):
        assert not player(dendria, level).use_heuristic
        # level 5 plays random games at its leaves in every game (docs/ai.md, "Levels")
        assert player(benediction, level).use_heuristic == (level != 5)
    # without a kernel there is nothing fast to play out: the heuristic stays
    assert MCTSPlayer(dataclasses.replace(dendria, kernel=None)).use_heuristic

    search = MCTSPlayer(dendria, iterations=40, seed=2, tactics=False)
    asked = []
    search._know = dataclasses.replace(search._know,
                                       heuristic=lambda pos: asked.append(pos) or 0.0)
    position = dendria.new(board_side=5)
    assert search.choose(position) in position.legal_actions()
    assert search.last_stats["iterations"] > 1 and not asked
