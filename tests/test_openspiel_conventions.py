"""The OpenSpiel games follow OpenSpiel's conventions where training code relies on them:
games and states pickle into working objects (also in a fresh interpreter), ``undo_action``
leaves the serialisation and the history as they were, ``player_relative`` states serialise
as compactly as plain ones, the information-state tensor is the observation (perfect
information, also through ``rl_environment``), and every game string in docs/research.md
loads."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import rl_environment  # noqa: E402

import hexgames.integrations.openspiel  # noqa: E402, F401  (registers the games)
from hexgames.game import get_game  # noqa: E402

DOCS = Path(__file__).resolve().parents[1] / "docs" / "research.md"

#: Variants covering the adapter's parameters; small boards keep the games short.
VARIANTS = [
    "benediction(board_side=4)",
    "dendria(board_side=3)",
    "benediction(board_side=4,player_relative=true,channels_last=true)",
    "dendria(board_side=4,auto_forced=true,player_relative=true)",
]


def play_randomly(state: Any, steps: int, seed: int) -> None:
    rng = np.random.RandomState(seed)
    for _ in range(steps):
        if state.is_terminal():
            return
        state.apply_action(int(rng.choice(state.legal_actions())))


def snapshot(state: Any) -> tuple[Any, ...]:
    """Everything a caller reads about a state's past and present."""
    return (
        state.serialize(),
        state.history(),
        state.move_number(),
        state.history_str(),
        [(entry.player, entry.action) for entry in state.full_history()],
        state.is_initial_state(),
        state.observation_string(0),
        state.legal_actions(),
    )


# ------------------------------------------------------------------------------ pickle
@pytest.mark.parametrize("spec", ["benediction", "dendria", *VARIANTS])
def test_games_pickle_into_working_games(spec: str) -> None:
    game = pyspiel.load_game(spec)
    copy = pickle.loads(pickle.dumps(game))
    assert type(copy) is type(game)
    assert str(copy) == str(game) and copy.get_parameters() == game.get_parameters()
    assert copy.max_game_length() == game.max_game_length()
    assert copy.num_distinct_actions() == game.num_distinct_actions()
    ours, theirs = game.new_initial_state(), copy.new_initial_state()
    play_randomly(ours, 5, seed=1)
    play_randomly(theirs, 5, seed=1)
    assert ours.history() == theirs.history()
    assert ours.observation_tensor() == theirs.observation_tensor()


@pytest.mark.parametrize("spec", VARIANTS)
def test_states_pickle_into_working_states(spec: str) -> None:
    game = pyspiel.load_game(spec)
    state = game.new_initial_state()
    play_randomly(state, 7, seed=2)
    restored = pickle.loads(pickle.dumps(state))
    assert type(restored) is type(state)
    assert snapshot(restored) == snapshot(state)
    assert restored.position.key == state.position.key
    assert restored.observation_tensor(1) == state.observation_tensor(1)
    # pyspiel's own (C++) history is restored too, not only ours.
    assert pyspiel.State.history(restored) == state.history()
    if not restored.is_terminal():
        before = snapshot(state)
        restored.apply_action(restored.legal_actions()[-1])
        assert restored.move_number() == state.move_number() + 1
        assert snapshot(state) == before


def test_a_pickled_game_and_state_work_in_a_fresh_interpreter() -> None:
    """What AlphaZero's actor processes do: unpickle without importing hexgames first."""
    game = pyspiel.load_game("dendria(board_side=3)")
    state = game.new_initial_state()
    play_randomly(state, 3, seed=3)
    code = (
        "import pickle, sys\n"
        "game, state = pickle.loads(sys.stdin.buffer.read())\n"
        "fresh = game.new_initial_state()\n"
        "print(game.max_game_length(), state.history(), state.legal_actions(),"
        " fresh.legal_actions())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=pickle.dumps((game, state)),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    expected = (
        f"{game.max_game_length()} {state.history()} {state.legal_actions()} "
        f"{game.new_initial_state().legal_actions()}"
    )
    assert done.stdout.decode().strip() == expected


# -------------------------------------------------------------------------------- undo
@pytest.mark.parametrize("spec", VARIANTS)
def test_undo_action_leaves_serialisation_and_history_as_before(spec: str) -> None:
    game = pyspiel.load_game(spec)
    state = game.new_initial_state()
    rng = np.random.RandomState(4)
    for _ in range(25):
        if state.is_terminal():
            break
        before = snapshot(state)
        player = state.current_player()
        legal = state.legal_actions()
        for action in rng.choice(legal, size=min(3, len(legal)), replace=False):
            state.apply_action(int(action))
            assert state.move_number() == before[2] + 1
            state.undo_action(player, int(action))
            assert snapshot(state) == before
        restored = game.deserialize_state(state.serialize())
        assert pyspiel.State.history(restored) == state.history()
        state.apply_action(int(rng.choice(legal)))


@pytest.mark.parametrize("spec", VARIANTS[:2])
def test_serialize_writes_pyspiels_own_format(spec: str) -> None:
    """Before any undo our serialisation is exactly pyspiel's (C++) one."""
    game = pyspiel.load_game(spec)
    state = game.new_initial_state()
    play_randomly(state, 5, seed=5)
    assert state.serialize() == pyspiel.State.serialize(state)


# --------------------------------------------------------------------- player_relative
@pytest.mark.parametrize("name", ["benediction", "dendria"])
def test_player_relative_states_serialise_as_compactly_as_plain_ones(name: str) -> None:
    plain = pyspiel.load_game(name)
    relative = pyspiel.load_game(name, {"player_relative": True})
    states = [plain.new_initial_state(), relative.new_initial_state()]
    rng = np.random.RandomState(6)
    for _ in range(6):  # the same engine actions in both (their ids differ for Blue)
        action = rng.choice(states[0].position.legal_actions())
        for state in states:
            state.apply_action(state.id_of(action))
    plain_text, relative_text = (state.serialize() for state in states)
    assert len(relative_text) <= len(plain_text) + 8, (len(relative_text), len(plain_text))
    assert len(pickle.dumps(states[1])) <= len(pickle.dumps(states[0])) + 8
    restored = relative.deserialize_state(relative_text)
    assert restored.legal_actions() == states[1].legal_actions()
    assert restored.observation_tensor() == states[1].observation_tensor()


# ------------------------------------------------------------------ information state
@pytest.mark.parametrize("spec", VARIANTS)
def test_information_state_tensor_is_the_observation(spec: str) -> None:
    game = pyspiel.load_game(spec)
    assert game.get_type().provides_information_state_tensor
    assert game.information_state_tensor_shape() == game.observation_tensor_shape()
    state = game.new_initial_state()
    rng = np.random.RandomState(7)
    for _ in range(6):
        for player in (0, 1):
            assert state.information_state_tensor(player) == state.observation_tensor(player)
            assert state.information_state_string(player) == state.history_str()
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("spec", VARIANTS[:2])
def test_rl_environment_serves_information_states(spec: str) -> None:
    env = rl_environment.Environment(
        pyspiel.load_game(spec), observation_type=rl_environment.ObservationType.INFORMATION_STATE
    )
    rng = np.random.RandomState(8)
    time_step = env.reset()
    for _ in range(env.game.max_game_length() + 1):
        if time_step.last():
            break
        player = time_step.observations["current_player"]
        for seat in (0, 1):
            assert time_step.observations["info_state"][seat] == list(
                env.get_state.observation_tensor(seat)
            )
        time_step = env.step([int(rng.choice(time_step.observations["legal_actions"][player]))])
    assert time_step.last()
    assert time_step.rewards[0] == -time_step.rewards[1]


@pytest.mark.parametrize(
    "spec",
    [
        "benediction(board_side=4,max_turns=20,player_relative=true,auto_forced=true)",
        "dendria(board_side=4,player_relative=true,channels_last=true)",
    ],
)
def test_openspiel_random_simulation_test_passes_with_the_adapter_parameters(spec: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(spec), num_sims=2, serialize=True, verbose=False)


# ------------------------------------------------------------------------------- docs
def test_every_game_string_in_the_research_docs_loads() -> None:
    text = DOCS.read_text("utf-8")
    loaded = re.findall(r"load_game\(\s*([\"'])(.+?)\1", text)
    assert loaded, "docs/research.md loads no game"
    for _, spec in loaded:
        pyspiel.load_game(spec)
    # Parameter names in every game string, also those showing a refused value, and
    # together they name every rules option of each game (the docs list them so).
    specs = re.findall(r"\b(benediction|dendria)\(([^()]*=[^()]*)\)", text)
    documented: dict[str, set[str]] = {"benediction": set(), "dendria": set()}
    for name, arguments in specs:
        params = pyspiel.load_game(name).get_parameters()
        for argument in arguments.split(","):
            key = argument.split("=")[0].strip()
            assert key in params, f"docs/research.md: {name} has no parameter {key!r}"
            documented[name].add(key)
    for name, keys in documented.items():
        options = {option.name for option in get_game(name).options}
        assert options <= keys, f"docs/research.md never spells {sorted(options - keys)}"
