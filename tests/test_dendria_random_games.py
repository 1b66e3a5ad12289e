"""Many random games play to the end without error, on the default board and others.

The 500 games on side 7 are split into chunks so that ``pytest -n auto`` spreads them
over the CPUs. Each game checks the invariants a finished game must satisfy.
"""

import random

import pytest

from hexgames.dendria import Position, Rules

CHUNKS = 10
GAMES_PER_CHUNK = 50


def play_random_game(seed: int, rules: Rules) -> Position:
    rng = random.Random(seed)
    p = Position.initial(rules)
    turns_without_plant = 0
    while not p.is_over:
        actions = p.legal_actions()
        assert actions, f"no legal step in a game that is not over:\n{p.to_text()}"
        step = rng.choice(actions)
        p.play(step)
        if step.kind in ("end", "pass", "swap"):
            planted = any(s.kind == "plant" for s in _last_turn(p))
            turns_without_plant = 0 if planted else turns_without_plant + 1
            assert p.quiet_turns == turns_without_plant
        assert p.turn_number < 10_000, "a game that never ends"
    return p


def _last_turn(p: Position):
    history = p.history
    steps = [history[-1]]
    for step in reversed(history[:-1]):
        if step.kind in ("end", "pass", "swap"):
            break
        steps.append(step)
    return steps


def check_finished(p: Position) -> None:
    assert p.legal_actions() == []
    assert p.end_reason in ("both passed", "quiet limit")
    if p.end_reason == "both passed":
        assert [s.kind for s in p.history[-2:]] == ["pass", "pass"]
    else:
        assert p.quiet_turns == p.rules.quiet_turns
    score = p.score()
    if score["dark"] == score["light"]:
        assert p.winner == "draw" and p.returns() == (0.0, 0.0)
    else:
        winner = max(score, key=score.__getitem__)
        assert p.winner == winner
        seat = p.seat_of(winner)
        assert p.returns()[seat] == 1.0 and p.returns()[1 - seat] == -1.0


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games_on_the_default_board_finish(chunk):
    rules = Rules()
    for game in range(GAMES_PER_CHUNK):
        check_finished(play_random_game(chunk * GAMES_PER_CHUNK + game, rules))


@pytest.mark.parametrize(
    "rules",
    [Rules(board_side=3), Rules(board_side=5, pie=False), Rules(board_side=9, quiet_limit=3),
     Rules(board_side=11, quiet_limit=2)],
    ids=str,
)
def test_random_games_on_other_boards_finish(rules):
    for seed in range(10):
        check_finished(play_random_game(seed, rules))
