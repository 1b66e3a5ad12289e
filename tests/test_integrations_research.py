"""Research-adapter conventions (issue 15, items 1-6 and 9): action strings for every id,
undo, the length bound and how a stopped game is scored, option errors, forced steps,
player-relative and channels-last observations, board diagrams."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402

from hexgames.game import get_game  # noqa: E402
from hexgames.integrations import common, views  # noqa: E402
from hexgames.integrations import openspiel as hex_openspiel  # noqa: E402
from hexgames.integrations.pettingzoo import benediction_v0, dendria_v0  # noqa: E402

SMALL = {"benediction": "benediction(board_side=4)", "dendria": "dendria(board_side=3)"}


def random_walk(state, steps: int, seed: int) -> list[int]:
    rng = np.random.RandomState(seed)
    played = []
    for _ in range(steps):
        if state.is_terminal():
            break
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        played.append(action)
    return played


# ---------------------------------------------------------------- 1. action strings
@pytest.mark.parametrize("spec", ["benediction", "dendria"])
def test_every_action_id_has_a_string_in_any_state(spec: str) -> None:
    game = pyspiel.load_game(spec)
    state = game.new_initial_state()
    random_walk(state, 7, seed=1)
    for current in (game.new_initial_state(), state):
        player = current.current_player()
        legal = set(current.legal_actions())
        for action in range(game.num_distinct_actions()):
            text = current.action_to_string(player, action)
            assert text
            if action in legal:
                assert not text.startswith("<invalid")
                assert current.string_to_action(text) == action


def test_an_id_naming_no_action_gets_a_placeholder() -> None:
    state = pyspiel.load_game("benediction").new_initial_state()
    assert state.action_to_string(0, 122) == "<invalid 122>"
    assert state.action_to_string(0, 0) == "@a1"  # well formed, illegal: still notation
    assert state.action_to_string(0, 10**6) == "<invalid 1000000>"


@pytest.mark.parametrize(
    "spec",
    [
        "dendria(board_side=3,auto_forced=true,max_actions=40)",
        "dendria(board_side=4,player_relative=true,channels_last=true)",
        "benediction(board_side=4,auto_forced=true,player_relative=true)",
    ],
)
def test_openspiel_random_simulation_test_passes_with_adapter_parameters(spec: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(spec), num_sims=2, serialize=True, verbose=False)


# ---------------------------------------------------------------------- 2. undo
@pytest.mark.parametrize("name", ["benediction", "dendria"])
@pytest.mark.parametrize("auto_forced", [False, True])
def test_undo_action_takes_back_to_exactly_the_earlier_states(name: str, auto_forced: bool) -> None:
    game = pyspiel.load_game(SMALL[name].replace(")", f",auto_forced={auto_forced})"))
    state = game.new_initial_state()
    snapshots = []
    rng = np.random.RandomState(5)
    for _ in range(25):
        if state.is_terminal():
            break
        snapshots.append((str(state), state.position.key, state.legal_actions(),
                          state.history(), state.history_str()))
        state.apply_action(int(rng.choice(state.legal_actions())))
    for snapshot in reversed(snapshots):
        last = state.full_history()[-1]
        state.undo_action(last.player, last.action)
        assert (str(state), state.position.key, state.legal_actions(), state.history(),
                state.history_str()) == snapshot
        assert state.move_number() == len(snapshot[3])
    assert state.is_initial_state()
    with pytest.raises(ValueError, match="initial state"):
        state.undo_action(0, 0)


def test_undo_refuses_an_action_that_is_not_the_last_and_replays_match() -> None:
    game = pyspiel.load_game(SMALL["dendria"])
    state = game.new_initial_state()
    played = random_walk(state, 4, seed=2)
    while len(state.legal_actions()) < 2:
        played.append(state.legal_actions()[0])
        state.apply_action(played[-1])
    first, other = state.legal_actions()[:2]
    player = state.current_player()
    state.apply_action(first)
    with pytest.raises(ValueError, match="last action"):
        state.undo_action(player, other)
    state.undo_action(player, first)
    state.apply_action(other)
    replay = game.new_initial_state()
    for action in [*played, other]:
        replay.apply_action(action)
    assert state.history() == replay.history()
    assert state.position.key == replay.position.key
    assert str(state.clone()) == str(replay)


# ------------------------------------------------------------ 3. length bound
def test_dendria_has_a_realistic_bound_and_max_actions_changes_it() -> None:
    assert pyspiel.load_game("dendria").max_game_length() == 5000
    assert pyspiel.load_game("dendria(board_side=5)").max_game_length() == 5000
    assert pyspiel.load_game("dendria(max_actions=300)").max_game_length() == 300
    proven = get_game("dendria").max_game_length(get_game("dendria").make_rules())
    assert pyspiel.load_game("dendria(max_actions=0)").max_game_length() == proven
    bened = get_game("benediction")
    assert pyspiel.load_game("benediction").max_game_length() == bened.max_game_length(
        bened.make_rules()
    )
    with pytest.raises(ValueError, match="max_actions"):
        pyspiel.load_game("dendria(max_actions=-2)")


@pytest.mark.parametrize("seed", range(4))
def test_a_stopped_dendria_game_is_scored_by_the_current_score(seed: int) -> None:
    game = pyspiel.load_game("dendria(board_side=3,max_actions=14)")
    state = game.new_initial_state()
    random_walk(state, 100, seed=seed)
    assert state.is_terminal()
    position = state.position
    if position.is_over:
        assert state.returns() == list(position.returns())
        return
    assert common.ply(position) == 14
    score = position.score()
    difference = score[position.color_of_seat(0)] - score[position.color_of_seat(1)]
    assert state.returns() == [float(np.sign(difference)), float(-np.sign(difference))]


def test_stopped_returns_follow_the_score_and_are_draws_without_one() -> None:
    dendria = get_game("dendria")
    position = dendria.position_from_text(
        "Dendria v1: size=3 to-move=dark\ndark trees: a1 a2\nlight seeds: c5", None
    )
    assert position.score()["dark"] > position.score()["light"]
    assert common.stopped_returns(dendria, position) == (1.0, -1.0)
    benediction = get_game("benediction")
    assert common.stopped_returns(benediction, benediction.new()) == (0.0, 0.0)


def test_pettingzoo_truncation_is_rewarded_by_the_score() -> None:
    env = dendria_v0.raw_env(board_side=3, max_actions=10)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    stopped = False
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        if termination or truncation:
            stopped = stopped or (truncation and info.get("stopped", False))
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    position = env.position
    assert stopped != position.is_over
    if stopped:
        assert common.ply(position) == 10
        expected = common.stopped_returns(get_game("dendria"), position)
        assert (totals["player_0"], totals["player_1"]) == expected


# --------------------------------------------------------------- 4. option errors
def test_pettingzoo_unknown_option_lists_valid_options_with_ranges() -> None:
    with pytest.raises(ValueError) as error:
        benediction_v0.env(foo=3)
    text = str(error.value)
    assert "no option 'foo'" in text
    assert "board_side (an integer from 4 to 7)" in text
    assert "supply (an integer from 1 to 2000, or none (off))" in text
    with pytest.raises(ValueError, match=r"board_side must be an integer from 3 to 11, got 99"):
        dendria_v0.env(board_side=99)
    with pytest.raises(ValueError, match="pie must be true or false"):
        dendria_v0.env(pie=3)


def test_a_bad_supply_says_what_is_valid() -> None:
    with pytest.raises(ValueError, match=r"from 1 to 2000, or none \(off\), got -3"):
        benediction_v0.env(supply=-3)
    with pytest.raises(ValueError, match=r"supply must be an integer from 1 to 2000, or 0 \(off\)"):
        pyspiel.load_game("benediction(supply=-3)")
    with pytest.raises(ValueError, match=r"its parameters are: .*max_actions"):
        hex_openspiel.params_from_options(get_game("dendria"), {"colour": 1})


# ------------------------------------------------------------- 5. forced steps
def test_auto_forced_leaves_only_real_decisions_in_openspiel() -> None:
    counts = {}
    for flag in (False, True):
        game = pyspiel.load_game(f"dendria(board_side=5,auto_forced={str(flag).lower()})")
        state = game.new_initial_state()
        rng = np.random.RandomState(3)
        singles = decisions = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            decisions += 1
            singles += len(legal) == 1
            state.apply_action(int(rng.choice(legal)))
        counts[flag] = (singles, decisions)
    assert counts[False][0] > 0
    assert counts[True][0] == 0
    assert counts[True][1] < counts[False][1]


def test_auto_forced_in_pettingzoo_masks_always_offer_a_choice() -> None:
    env = dendria_v0.raw_env(board_side=3, auto_forced=True)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    steps = 0
    for _agent in env.agent_iter():
        observation, _, termination, truncation, _info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        assert observation["action_mask"].sum() >= 2
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        steps += 1
    assert steps < common.ply(env.position)  # forced steps were played for the agents


# ----------------------------------------------------------- 6. observation views
def test_player_relative_dendria_puts_the_observers_pieces_first() -> None:
    game = get_game("dendria")
    position = game.new(board_side=3)
    position.play("c3")
    position.play("end")
    absolute = game.observation(position, 1)  # seat 1 plays light
    relative = views.player_relative(game, position, 1)
    assert np.array_equal(relative[0:3], absolute[3:6])
    assert np.array_equal(relative[3:6], absolute[0:3])
    assert position.to_move == "light"
    assert relative[7].sum() == absolute[6].sum()  # "observer to move" everywhere
    assert np.array_equal(views.player_relative(game, position, 0), game.observation(position, 0))


def test_player_relative_benediction_turns_the_board_for_blue() -> None:
    game = get_game("benediction")
    position = game.new()
    red = game.observation(position, 0)
    blue_relative = views.player_relative(game, position, 1)
    # The start is the same for both sides seen from their own wall.
    for plane in (0, 1, 2, 3, 8, 9, 10):
        assert np.array_equal(blue_relative[plane], red[plane]), plane
    assert blue_relative[11].sum() == 0  # red to act: not the observer


def test_blue_seen_relatively_is_red_seen_from_its_own_side() -> None:
    """The same men, Red to act or Blue to act: in the relative view (board and action
    ids turned for Blue) both players face exactly the same position and choices."""
    game = get_game("benediction")
    rules = game.make_rules(board_side=4)
    men = "R:C12D12k3E12\nB:C56D56k7E56"
    red = game.position_from_text("Benediction v1: R-D2 B D6\n" + men, rules)
    blue = game.position_from_text("Benediction v1: R D2 B-D6\n" + men, rules)
    turned = views.action_permutation(game, rules)
    assert np.array_equal(turned[turned], np.arange(len(turned)))  # an involution
    red_ids = sorted(game.action_to_id(red, a) for a in red.legal_actions())
    blue_ids = sorted(int(turned[game.action_to_id(blue, a)]) for a in blue.legal_actions())
    assert red_ids == blue_ids
    red_view = views.player_relative(game, red, 0)
    blue_view = views.player_relative(game, blue, 1)
    differing = [p for p in range(len(red_view)) if not np.array_equal(red_view[p], blue_view[p])]
    assert differing == [14]  # only "observer plays Red"


def test_relative_action_ids_turn_with_the_board_in_both_adapters() -> None:
    game = pyspiel.load_game("benediction(board_side=4,player_relative=true)")
    hex_game = get_game("benediction")
    turned = views.action_permutation(hex_game, hex_game.make_rules(board_side=4))
    state = game.new_initial_state()
    assert state.legal_actions() == sorted(
        hex_game.action_to_id(state.position, a) for a in state.position.legal_actions()
    )  # Red: unchanged
    state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 1
    absolute = sorted(hex_game.action_to_id(state.position, a)
                      for a in state.position.legal_actions())
    assert state.legal_actions() == sorted(int(turned[i]) for i in absolute)
    relative = state.legal_actions()[3]
    expected = hex_game.action_from_id(state.position, int(turned[relative]))
    assert state.action_to_string(1, relative) == str(expected)
    state.apply_action(relative)
    assert state.position.history[-1] == expected

    env = benediction_v0.raw_env(board_side=4, player_relative=True)
    env.reset()
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))
    mask = env.observe("player_1")["action_mask"]
    absolute_mask = np.zeros_like(mask)
    for action in env.position.legal_actions():
        absolute_mask[hex_game.action_to_id(env.position, action)] = 1
    assert np.array_equal(mask, absolute_mask[turned])
    chosen = int(np.flatnonzero(mask)[-1])
    expected = hex_game.action_from_id(env.position, int(turned[chosen]))
    env.step(chosen)
    assert env.position.history[-1] == expected


def test_openspiel_player_relative_parameter_changes_the_tensor() -> None:
    game = pyspiel.load_game("dendria(board_side=3,player_relative=true)")
    state = game.new_initial_state()
    state.apply_action(state.string_to_action("c3"))
    hex_game = get_game("dendria")
    expected = views.player_relative(hex_game, state.position, 1).ravel()
    assert np.array_equal(np.asarray(state.observation_tensor(1)), expected)


def test_openspiel_channels_last_parameter_gives_alphazero_layout() -> None:
    game = pyspiel.load_game("benediction(board_side=4,channels_last=true)")
    assert game.observation_tensor_shape() == [7, 7, 18]
    state = game.new_initial_state()
    tensor = np.asarray(state.observation_tensor(0)).reshape(7, 7, 18)
    expected = get_game("benediction").observation(state.position, 0)
    assert np.array_equal(tensor, np.moveaxis(expected, 0, -1))


@pytest.mark.parametrize(
    ("module", "options"),
    [(benediction_v0, {"board_side": 4}), (dendria_v0, {"board_side": 3})],
)
def test_channels_last_relative_environments_pass_the_api_test(module, options) -> None:
    env = module.env(channels_last=True, player_relative=True, **options)
    env.reset(seed=0)
    shape = env.observation_space("player_0")["observation"].shape
    planes, width, _ = get_game(module.name[:-3]).observation_shape(
        env.unwrapped.rules
    )
    assert shape == (width, width, planes)
    assert env.observe("player_1")["observation"].shape == shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(module.env(channels_last=True, player_relative=True, **options),
                 num_cycles=60)


# -------------------------------------------------------------- 9. text and ansi
@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_str_is_the_board_diagram_and_the_observation_string_the_position_text(
    name: str,
) -> None:
    state = pyspiel.load_game(SMALL[name]).new_initial_state()
    random_walk(state, 3, seed=0)
    hex_game = get_game(name)
    assert str(state) == hex_game.render_text(state.position)
    assert "\n" in str(state)
    assert state.observation_string(0) == state.position.to_text()


@pytest.mark.parametrize("module", [benediction_v0, dendria_v0])
def test_ansi_render_mode_returns_the_coloured_diagram(module) -> None:
    env = module.env(render_mode="ansi")
    env.reset()
    text = env.render()
    assert isinstance(text, str) and "\x1b[" in text
    assert env.unwrapped.metadata["render_modes"] == ["human", "ansi", "rgb_array"]
