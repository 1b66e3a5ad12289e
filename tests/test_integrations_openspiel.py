"""The OpenSpiel games: loading with parameters, OpenSpiel's own consistency test, bots
playing whole games, clone/serialise and the length bound."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402

from hexgames import IllegalAction  # noqa: E402
from hexgames.game import Option, get_game  # noqa: E402
from hexgames.integrations import openspiel as hex_openspiel  # noqa: E402

#: Small variants keep OpenSpiel's per-step checks fast.
SMALL = {"benediction": "benediction(board_side=4)", "dendria": "dendria(board_side=3)"}


@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_loads_by_name_with_every_option_as_a_parameter(name: str) -> None:
    game = pyspiel.load_game(name)
    hex_game = get_game(name)
    params = game.get_parameters()
    assert set(params) == {option.name for option in hex_game.options} | set(
        hex_openspiel.ADAPTER_PARAMETERS
    )
    rules = hex_game.make_rules()
    assert game.num_distinct_actions() == hex_game.num_distinct_actions(rules)
    assert game.max_game_length() == min(5000, hex_game.max_game_length(rules))
    assert game.observation_tensor_shape() == list(hex_game.observation_shape(rules))
    game_type = game.get_type()
    assert game_type.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game_type.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game_type.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC


def test_parameters_reach_the_rules() -> None:
    game = pyspiel.load_game("dendria(board_side=5,pie=false,quiet_limit=3)")
    state = game.new_initial_state()
    assert state.position.rules == get_game("dendria").make_rules(
        board_side=5, pie=False, quiet_limit=3
    )
    bened = pyspiel.load_game("benediction(board_side=4,supply=3,max_turns=12)")
    rules = bened.new_initial_state().position.rules
    assert (rules.board_side, rules.supply, rules.max_turns) == (4, 3, 12)


def test_nullable_options_are_off_by_default() -> None:
    params = pyspiel.load_game("benediction").get_parameters()
    assert params["max_turns"] == 0 and params["supply"] == 0
    rules = pyspiel.load_game("benediction").new_initial_state().position.rules
    assert rules.max_turns is None and rules.supply is None


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game("dendria(colour=3)")
    with pytest.raises(ValueError, match="board_side"):
        pyspiel.load_game("dendria", {"board_side": 99})


@pytest.mark.parametrize(
    "spec",
    ["benediction", "benediction(board_side=4,max_turns=20,supply=2)", "dendria(board_side=5)"],
)
def test_openspiel_random_simulation_test_passes(spec: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(spec), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_action_strings_are_our_notation_and_read_back(name: str) -> None:
    game = pyspiel.load_game(SMALL[name])
    state = game.new_initial_state()
    rng = np.random.RandomState(0)
    for _ in range(6):
        position = state.position
        legal = state.legal_actions()
        assert legal == sorted(legal)
        notations = {str(action) for action in position.legal_actions()}
        strings = [state.action_to_string(state.current_player(), a) for a in legal]
        assert set(strings) == notations
        for action, text in zip(legal, strings, strict=True):
            assert state.string_to_action(text) == action
        state.apply_action(int(rng.choice(legal)))


@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_clone_is_independent_and_serialisation_round_trips(name: str) -> None:
    game = pyspiel.load_game(SMALL[name])
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[-1])
    assert len(state.history()) == 1 and len(clone.history()) == 2
    assert len(state.position.history) == 1
    text = pyspiel.serialize_game_and_state(game, clone)
    _, restored = pyspiel.deserialize_game_and_state(text)
    assert str(restored) == str(clone)
    assert restored.position.key == clone.position.key
    assert str(pickle.loads(pickle.dumps(clone))) == str(clone)


@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_observation_tensor_is_the_games_observation(name: str) -> None:
    game = pyspiel.load_game(SMALL[name])
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    hex_game = get_game(name)
    for player in (0, 1):
        expected = hex_game.observation(state.position, player).ravel()
        assert np.array_equal(np.asarray(state.observation_tensor(player)), expected)
    assert state.observation_string(0) == state.position.to_text()
    # Perfect information: the information state is the public history of actions.
    assert state.information_state_string(0) == state.information_state_string(1)


@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_mcts_bot_and_uniform_random_bot_play_whole_games(name: str) -> None:
    game = pyspiel.load_game(SMALL[name])
    rng = np.random.RandomState(7)
    bot = mcts.MCTSBot(game, 2.0, 8, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    for seats in ((bot, pyspiel.make_uniform_random_bot(1, 3)),
                  (pyspiel.make_uniform_random_bot(0, 4), bot)):
        state = game.new_initial_state()
        returns = evaluate_bots.evaluate_bots(state, list(seats), rng)
        assert returns[0] == -returns[1] and returns[0] in (-1.0, 0.0, 1.0)


def test_a_game_reaching_the_length_bound_is_a_terminal_draw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hexgames.benediction import encoding

    monkeypatch.setattr(encoding, "RESEARCH_TURN_CAP", 2)  # 3 actions without max_turns
    game = pyspiel.load_game("benediction", {"board_side": 4, "max_actions": 0})
    assert game.max_game_length() == 3
    state = game.new_initial_state()
    for _ in range(3):
        assert not state.is_terminal()
        # Blocks never win, so the engine game cannot end before the bound.
        block = next(a for a in state.legal_actions()
                     if state.action_to_string(state.current_player(), a).startswith("B"))
        state.apply_action(block)
    assert state.is_terminal() and not state.position.is_over
    assert state.returns() == [0.0, 0.0]
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.legal_actions() == []


def test_illegal_ids_are_refused_and_change_nothing() -> None:
    game = pyspiel.load_game(SMALL["dendria"])
    state = game.new_initial_state()
    before = str(state)
    legal = state.legal_actions()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    with pytest.raises(IllegalAction):
        state.apply_action(illegal)
    with pytest.raises(IllegalAction, match="outside"):
        state.apply_action(game.num_distinct_actions())
    assert str(state) == before and state.history() == []
    assert state.legal_actions() == legal


def test_off_value_is_free_for_every_nullable_option() -> None:
    for name in ("benediction", "dendria"):
        for option in get_game(name).options:
            if option.nullable:
                off = hex_openspiel.off_value(option)
                assert option.minimum is not None and off < option.minimum
    from_zero = Option("cap", "int", None, "a cap that may be 0", minimum=0, nullable=True)
    assert hex_openspiel.off_value(from_zero) == -1
    unbounded = Option("shift", "int", None, "any integer", nullable=True)
    with pytest.raises(ValueError, match="no integer is free"):
        hex_openspiel.off_value(unbounded)


def test_parameters_and_options_convert_both_ways() -> None:
    game = get_game("benediction")
    params = hex_openspiel.params_from_options(game, {"supply": None, "max_turns": 30})
    assert params["supply"] == 0 and params["max_turns"] == 30
    options = hex_openspiel.options_from_params(game, params)
    assert options["supply"] is None and options["max_turns"] == 30
    assert game.make_rules(**options) == game.make_rules(max_turns=30)
    with pytest.raises(ValueError, match="has no option 'size'"):
        hex_openspiel.params_from_options(game, {"size": 5})
    dendria = get_game("dendria")  # Dendria's old option name is an alias of board_side
    assert hex_openspiel.params_from_options(dendria, {"size": 5})["board_side"] == 5
