"""The pgx-style functional environments (``hexgames.integrations.functional``) against
the product's engine: every game of a batch, every step, in the agent's view (absolute,
player-relative with the board and ids turned, channels-last), across ends, no-op steps
of finished games and fresh starts; states copied, saved, restored, cut and stepped on
a subset."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hexgames.game import get_game
from hexgames.integrations import views
from hexgames.integrations.functional import Env, State, make

#: (game, options) small enough that random games end within the steps played.
VARIANTS = [
    ("benediction", {"board_side": 4, "max_turns": 30}),
    ("dendria", {"board_side": 4, "quiet_limit": 1}),
]
VIEWS = [{}, {"player_relative": True}, {"channels_last": True},
         {"player_relative": True, "channels_last": True}]


def expected_view(env: Env, position: Any) -> tuple[np.ndarray, list[int]]:
    """The observation and the sorted legal ids the agent to act should see in
    ``position``, built from the engine and :mod:`hexgames.integrations.views`."""
    game, seat = env.game, position.current_seat
    planes = game.observation(position, seat)
    ids = [int(game.action_to_id(position, a)) for a in position.legal_actions()]
    if env.player_relative:
        planes = views.player_relative(game, position, seat, planes)
        if views.sees_turned_board(game, position, seat):
            perm = views.action_permutation(game, env.rules)
            ids = [int(perm[i]) for i in ids]
    if env.channels_last:
        planes = views.channels_last(planes)
    return planes, sorted(ids)


def engine_action(env: Env, position: Any, action: int) -> Any:
    """The engine's action for the agent's id ``action``."""
    game, seat = env.game, position.current_seat
    if env.player_relative and views.sees_turned_board(game, position, seat):
        action = int(views.action_permutation(game, env.rules)[action])
    return game.action_from_id(position, action)


def check_game(env: Env, state: State, b: int, position: Any) -> None:
    """Game ``b`` of ``state`` is ``position`` as the agent sees it."""
    planes, ids = expected_view(env, position)
    assert state.current_player[b] == position.current_seat, f"game {b}: seat to act"
    assert np.array_equal(state.observation[b], planes), f"game {b}: observation"
    assert int(state.step_count[b]) == position.ply
    if position.is_over:
        assert state.terminated[b] and not state.truncated[b]
        assert state.legal_action_mask[b].all(), "a terminated game's mask is all True"
    else:
        assert not state.terminated[b]
        assert np.flatnonzero(state.legal_action_mask[b]).tolist() == ids, f"game {b}: ids"


@pytest.mark.parametrize("view", VIEWS, ids=str)
@pytest.mark.parametrize(("name", "options"), VARIANTS, ids=str)
def test_states_step_like_the_engine_until_the_games_end(name, options, view):
    """Random play in 5 games: each step, each game is the engine's position (mask,
    seat, planes, steps); a game that ends gets the engine's returns, then stays as it
    is (no-op steps with zero rewards) until it is reset in its slot."""
    env = make(name, **options, **view)
    game = get_game(name)
    state = env.init(np.arange(5))
    positions = [game.new_position(env.rules) for _ in range(5)]
    assert state.observation.shape == (5, *env.observation_shape)
    assert (state.episode == 0).all()
    episodes = np.zeros(5, np.int64)
    ended = resets = 0
    for _ in range(150):
        for b, position in enumerate(positions):
            check_game(env, state, b, position)
        actions = env.random_actions(state)
        before = [p.is_over for p in positions]
        for b, position in enumerate(positions):
            if not position.is_over:
                position.play(engine_action(env, position, int(actions[b])))
        state = env.step(state, actions)
        for b, position in enumerate(positions):
            if before[b]:  # stepped as a no-op
                assert tuple(state.rewards[b]) == (0.0, 0.0)
            elif position.is_over:
                assert tuple(state.rewards[b]) == position.returns()
                ended += 1
            else:
                assert tuple(state.rewards[b]) == (0.0, 0.0)
        if all(p.is_over for p in positions) or ended >= 3:
            finished = np.array([p.is_over for p in positions])
            state = env.reset(state, finished)
            episodes[finished] += 1
            assert np.array_equal(state.episode, episodes)
            for b in np.flatnonzero(finished):
                positions[b] = game.new_position(env.rules)
            resets += 1
            ended = 0
    assert resets > 0, "games ended and started again"


@pytest.mark.parametrize(("name", "options"), VARIANTS, ids=str)
def test_truncation_at_max_actions_keeps_the_real_mask(name, options):
    env = make(name, max_actions=6, **options)
    game = get_game(name)
    state = env.init(np.arange(3))
    positions = [game.new_position(env.rules) for _ in range(3)]
    for _ in range(6):
        actions = env.random_actions(state)
        for b, p in enumerate(positions):
            p.play(game.action_from_id(p, int(actions[b])))
        state = env.step(state, actions)
    for b, p in enumerate(positions):
        if not p.is_over:
            assert state.truncated[b] and not state.terminated[b]
            assert tuple(state.rewards[b]) == (0.0, 0.0)
            assert np.flatnonzero(state.legal_action_mask[b]).tolist() == expected_view(env, p)[1]
    # a truncated game is finished: stepping it does nothing
    again = env.step(state, env.random_actions(state))
    for name_, array in state.arrays().items():
        if name_ != "rewards":
            assert np.array_equal(array[state.truncated], again.arrays()[name_][state.truncated])


@pytest.mark.parametrize(("name", "options"), VARIANTS, ids=str)
def test_step_returns_a_new_state_and_inplace_steps_the_given_one(name, options):
    env = make(name, **options)
    state = env.init(np.arange(4))
    for _ in range(5):
        state = env.step(state, env.random_actions(state))
    kept = state.copy()
    actions = env.random_actions(state)
    new = env.step(state, actions)
    for key, array in state.arrays().items():
        assert np.array_equal(array, kept.arrays()[key]), f"{key} changed"
        assert not np.shares_memory(array, new.arrays()[key])
    same = env.step(state, actions, inplace=True)
    assert same is state
    for key, array in new.arrays().items():
        assert np.array_equal(array, state.arrays()[key]), key


@pytest.mark.parametrize(("name", "options"), VARIANTS, ids=str)
def test_a_subset_steps_and_the_others_stay_exactly_as_they_were(name, options):
    """Stepping games 1 and 3 (by mask, by indices) changes nothing of 0, 2 and 4, and
    games 1 and 3 end as they do when stepped in a batch of their own."""
    env = make(name, **options)
    state = env.init(np.arange(5))
    for _ in range(3):
        state = env.step(state, env.random_actions(state))
    chosen = np.array([False, True, False, True, False])
    alone = state.take(chosen)
    for where in (chosen, np.array([1, 3])):
        stepped = env.step(state, env.random_actions(state), where=where)
        for key, array in state.arrays().items():
            assert np.array_equal(array[~chosen], stepped.arrays()[key][~chosen]), key
        assert (stepped.step_count[chosen] == state.step_count[chosen] + 1).all()
    alone = env.step(alone, env.random_actions(alone))
    for key, array in alone.arrays().items():
        assert np.array_equal(array, stepped.arrays()[key][chosen]), key
    # writing the sub-batch back into its slots gives the same batch
    back = state.copy()
    back.put(chosen, alone)
    for key, array in back.arrays().items():
        assert np.array_equal(array, stepped.arrays()[key]), key


@pytest.mark.parametrize(("name", "options"), VARIANTS, ids=str)
def test_saved_states_restore_exactly_and_step_on_identically(name, options, tmp_path):
    env = make(name, **options)
    state = env.init(np.arange(6) + 100)
    for _ in range(12):
        state = env.step(state, env.random_actions(state))
    path = tmp_path / "games.npz"
    state.save(path)
    restored = env.load(path)
    for _ in range(30):
        state = env.step(state, env.random_actions(state))
        restored = env.step(restored, env.random_actions(restored))
        for key, array in state.arrays().items():
            assert np.array_equal(array, restored.arrays()[key]), key
    other = make(name, player_relative=True, **options)
    with pytest.raises(ValueError, match="another environment"):
        other.load(path)
    with pytest.raises(ValueError, match="another environment"):
        other.step(state, env.random_actions(state))


@pytest.mark.parametrize(("name", "options"), VARIANTS, ids=str)
def test_random_actions_of_a_game_do_not_depend_on_its_batch(name, options):
    """Seed 7 plays the same game alone and in a batch with others."""
    env = make(name, **options)
    alone, batch = env.init(np.array([7])), env.init(np.array([3, 7, 9]))
    for _ in range(25):
        a, b = env.random_actions(alone), env.random_actions(batch)
        assert a[0] == b[1]
        assert batch.legal_action_mask[np.arange(3), b].all()
        alone, batch = env.step(alone, a), env.step(batch, b)


@pytest.mark.parametrize(("name", "options"), VARIANTS, ids=str)
def test_bad_input_is_refused_and_nothing_is_played(name, options):
    env = make(name, **options)
    state = env.init(np.arange(3))
    kept = state.copy()
    actions = env.random_actions(state)
    bad = actions.copy()
    bad[2] = int(np.flatnonzero(~state.legal_action_mask[2])[0])
    with pytest.raises(ValueError, match="not legal in game 2"):
        env.step(state, bad, inplace=True)
    with pytest.raises(ValueError, match="not legal in game 0"):
        env.step(state, np.array([-1, actions[1], actions[2]]), inplace=True)
    with pytest.raises(ValueError, match="shape"):
        env.step(state, actions[:2], inplace=True)
    with pytest.raises(ValueError, match="integer"):
        env.step(state, actions.astype(float), inplace=True)
    with pytest.raises(ValueError, match="boolean selection"):
        env.step(state, actions, where=np.array([True, False]), inplace=True)
    with pytest.raises(ValueError, match="out of range"):
        env.step(state, actions, where=[5], inplace=True)
    for key, array in state.arrays().items():
        assert np.array_equal(array, kept.arrays()[key]), key
    # an illegal id in a game that is not stepped is not read
    env.step(state, bad, where=np.array([True, True, False]), inplace=True)
    with pytest.raises(ValueError, match="seeds"):
        env.init(3)
    with pytest.raises(ValueError, match="valid options"):
        make(name, board_size=4)
    with pytest.raises(ValueError, match="player_relative"):
        make(name, player_relative="yes")
    with pytest.raises(ValueError, match="known games"):
        make("chess")


def test_the_engine_state_of_a_game_is_its_position():
    env = make("dendria", board_side=4, quiet_limit=1)
    state = env.init(np.arange(2))
    for _ in range(8):
        state = env.step(state, env.random_actions(state))
    core = env.position(state, 1)
    assert sorted(core.legal_codes().tolist()) == np.flatnonzero(
        state.legal_action_mask[1]).tolist()
    with pytest.raises(IndexError, match="game 2"):
        env.position(state, 2)
    assert isinstance(Env("benediction", board_side=4), Env)
