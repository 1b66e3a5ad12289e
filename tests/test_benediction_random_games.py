"""Marathons: many seeded random games must all end (or hit the cap) without an error.

Split into chunks so that ``pytest -n auto`` runs them in parallel.
"""

import random
from collections import Counter

import pytest

from hexgames.benediction import Position, Rules
from hexgames.benediction.position import BLESSED, BLOCK, BLUE, KING, LOCKED, RED
from hexgames.game import GameState, get_game

GAMES = 1000
CHUNKS = 4
REASONS = {"king captured", "blessed king", "no legal action", "turn limit"}


def play_out(p: Position, rng: random.Random) -> Position:
    while not p.is_over:
        actions = p.legal_actions()
        assert actions, "a game that is not over has a legal action"
        p.play(actions[rng.randrange(len(actions))])
    return p


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_a_thousand_random_games_end_or_reach_the_cap(chunk):
    rules = Rules(max_turns=200)
    outcomes: Counter[tuple[str | None, str | None]] = Counter()
    per_chunk = GAMES // CHUNKS
    for seed in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        p = play_out(Position.initial(rules), random.Random(seed))
        assert p.win_reason in REASONS
        assert (p.winner == "draw") == (p.win_reason == "turn limit")
        assert p.turn_number <= 201 and p.legal_actions() == []
        won = {"red": (1.0, -1.0), "blue": (-1.0, 1.0), "draw": (0.0, 0.0)}
        assert p.returns() == won[p.winner]  # type: ignore[index]
        outcomes[(p.winner, p.win_reason)] += 1
    assert sum(outcomes.values()) == per_chunk
    assert len({winner for winner, _ in outcomes}) >= 2, "both sides win some random games"


@pytest.mark.parametrize("side", [4, 5, 6, 7])
@pytest.mark.parametrize("first_turn_actions", [1, 2])
def test_every_board_side_is_playable(side, first_turn_actions):
    rules = Rules(board_side=side, first_turn_actions=first_turn_actions, max_turns=150)
    for seed in range(10):
        p = play_out(Position.initial(rules), random.Random(seed))
        assert p.is_over
        q = Position.from_text(p.to_text(), rules)
        assert (q.key, q.winner) == (p.key, p.winner)


def test_the_game_protocol_object_drives_the_engine():
    game = get_game("benediction")
    state = game.new(max_turns=50, board_side=4)
    assert state.rules == Rules(max_turns=50, board_side=4)
    assert game.rules_options(state.rules) == state.rules.as_dict()
    assert game.colors == (state.color_of_seat(0), state.color_of_seat(1))
    assert state.seat_of("blue") == 1
    text_state = game.position_from_text(state.to_text(), state.rules)
    assert text_state.key == state.key
    play_out(state, random.Random(5))
    assert state.returns() != (0.0, 0.0) or state.winner == "draw"


def test_positions_satisfy_the_game_state_protocol_and_undo_stops_at_the_start():
    p = Position.initial()
    assert isinstance(p, GameState)
    with pytest.raises(IndexError, match="start position"):
        p.undo()
    p.play("e3e4")
    assert p.history == [p.parse_action("e3e4")]
    p.undo()
    assert p.history == [] and p.key == Position.initial().key


def test_the_public_board_arrays_mirror_the_board():
    p = Position.from_text("Benediction v1: R-E2 B E8\nR:E2kC3b++\nB:E8kl\nX:A1")
    b = p.board
    e2, c3, e8, a1 = (b.index(x) for x in ("e2", "c3", "e8", "a1"))
    owners, sizes, flags = p.owners, p.sizes, p.flags
    assert (owners[e2], sizes[e2], flags[e2]) == (RED, 1, KING)
    assert (owners[c3], sizes[c3], flags[c3]) == (RED, 3, BLESSED)
    assert (owners[e8], flags[e8]) == (BLUE, KING | LOCKED)
    assert owners[a1] == BLOCK
    assert (p.checker_counts[RED], p.checker_counts[BLUE]) == (4, 1)
    assert p.to_move_code == RED and p.tables.board is b
    assert p.reach_indices(c3, 3, RED) == {j: passed for j, passed in p.reach("c3")}
