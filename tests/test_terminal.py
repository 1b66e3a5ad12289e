"""The terminal game: scripted sessions for both games, the error paths, and the command."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from hexgames.ai import RandomPlayer
from hexgames.game import get_game
from hexgames.terminal import Session, line_reader, run_session

GAMES = {
    "benediction": ["max_turns=40"],
    "dendria": ["board_side=5", "quiet_limit=2"],
}


def random_game_turns(name: str, settings: list[str], seed: int) -> tuple[list[str], object]:
    """The turns (one line each, actions separated by spaces) of a random game, and its
    final position."""
    game = get_game(name)
    options = dict(s.split("=") for s in settings)
    position = game.new(**{k: int(v) for k, v in options.items()})
    rng = random.Random(seed)
    turns: list[str] = []
    current: list[str] = []
    while not position.is_over:
        action = rng.choice(position.legal_actions())
        position.play(action)
        current.append(str(action))
        if position.is_turn_start() or position.is_over:
            turns.append(" ".join(current))
            current = []
    return turns, position


def session(name: str, settings: list[str], output: io.StringIO, **kw) -> Session:
    game = get_game(name)
    options = dict(s.split("=") for s in settings)
    position = game.new(**{k: int(v) for k, v in options.items()})
    return Session(game, position, output, **kw)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_scripted_hot_seat_game_plays_to_the_end(name):
    turns, final = random_game_turns(name, GAMES[name], seed=7)
    output = io.StringIO()
    played = session(name, GAMES[name], output)
    assert played.play(line_reader(turns, output)) == 0
    text = output.getvalue()
    assert played.position.is_over
    assert [str(a) for a in played.position.history] == [str(a) for a in final.history]
    assert "Illegal" not in text
    winner = final.winner
    if winner == "draw":
        assert "Game over: a draw." in text
    else:
        assert f"Game over: {winner.capitalize()} wins." in text
    assert text.count("Game over") == 1


@pytest.mark.parametrize("name", sorted(GAMES))
def test_run_session_against_the_random_player_reaches_the_end(name):
    game = get_game(name)
    output = io.StringIO()
    # The human answers with the first legal action each time, through a reader that
    # looks at the live position: a full game against the seeded random opponent.
    holder: dict[str, Session] = {}

    def read(prompt: str) -> str | None:
        position = holder["session"].position
        if position.is_over:
            return None
        return str(sorted(position.legal_actions(), key=str)[0])

    position = game.new(**{k: int(v) for k, v in (s.split("=") for s in GAMES[name])})
    holder["session"] = Session(
        game, position, output, opponent=RandomPlayer(3), human_seat=1,
        opponent_name="random player",
    )
    assert holder["session"].play(read) == 0
    text = output.getvalue()
    assert position.is_over
    assert f"{game.colors[0].capitalize()} (random player) plays:" in text
    assert "Game over" in text and "Input ended" in text


def test_an_illegal_action_is_explained_and_its_line_is_taken_back():
    output = io.StringIO()
    played = session("benediction", [], output)
    played.play(line_reader(["e3e4", "e7e6 e6e9", "zz9", "moves", "quit"], output))
    text = output.getvalue()
    # Red's first turn has one action: e3e4. Blue's bad second action undoes its first.
    assert [str(a) for a in played.position.history] == ["e3e4"]
    assert "(nothing was played from this line)" in text
    assert "Illegal: 'zz9' is not an action" in text
    assert "legal actions:" in text and "e7e6" in text
    assert text.rstrip().endswith("Bye.")


def test_a_line_may_not_run_into_the_computers_turn():
    output = io.StringIO()
    played = session("benediction", [], output, opponent=RandomPlayer(1), human_seat=0)
    played.play(line_reader(["e3e4 e7e6", "quit"], output))
    assert "Your turn ends before 'e7e6'" in output.getvalue()
    assert played.position.history == []


def test_undo_takes_back_the_humans_turn_and_the_reply():
    output = io.StringIO()
    played = session("benediction", [], output, opponent=RandomPlayer(2), human_seat=0)
    played.play(line_reader(["undo", "e3e4", "undo", "board"], output))
    text = output.getvalue()
    assert "Nothing to undo." in text
    assert "Took back 3 actions." in text  # Red's e3e4 and Blue's two replies
    assert played.position.history == []
    # After the take-back Red is to act again: the computer did not move meanwhile.
    assert played.position.to_move == "red"


def test_a_forced_step_is_played_and_a_swap_is_announced():
    output = io.StringIO()
    played = session("dendria", ["board_side=5"], output)
    played.play(line_reader(["e5"], output))
    assert "Only one action was possible, played for you: end" in output.getvalue()
    assert played.position.to_move == "light" and played.position.is_turn_start()
    played.play(line_reader(["swap"], output))
    assert "The players swapped colours: the first player now plays light." in output.getvalue()


def test_against_the_computer_a_swap_says_which_colour_you_now_play():
    output = io.StringIO()
    computer = SwapFirst()
    played = session("dendria", ["board_side=5"], output, opponent=computer, human_seat=0)
    played.play(line_reader(["e5", "quit"], output))
    assert "Light (computer) plays: swap" in output.getvalue()
    assert "The colours were swapped: you now play light." in output.getvalue()


class SwapFirst:
    """A computer player that takes the pie rule's swap whenever it may."""

    def choose(self, position):
        steps = position.legal_actions()
        return next((s for s in steps if str(s) == "swap"), steps[0])


def test_save_writes_a_record_that_reads_back(tmp_path: Path):
    record = tmp_path / "game.txt"
    output = io.StringIO()
    played = session("dendria", ["board_side=5"], output)
    played.play(line_reader(["e5", "swap", f"save {record}", "save", "save /no/such/dir/x"],
                            output))
    text = output.getvalue()
    assert f"Saved the game record to {record}." in text
    assert "Usage: save FILE" in text
    assert "Could not save to /no/such/dir/x" in text
    position, tags = get_game("dendria").read_record(record.read_text())
    assert [str(s) for s in position.history] == [str(s) for s in played.position.history]
    assert tags["Dark"] == "human" and tags["Light"] == "human"


def test_menu_bad_options_and_colours():
    output = io.StringIO()
    assert run_session(None, ["7", "chess", "2", "quit"], output) == 0
    text = output.getvalue()
    assert "1. Benediction" in text and "2. Dendria" in text
    assert text.count("Please answer a number from 1 to 2") == 2
    assert "Dendria: type `help`" in text

    output = io.StringIO()
    assert run_session("benediction", [], output, settings=["board_side=3"]) == 2
    assert "error: option board_side must be an integer from 4 to 7, got 3" in output.getvalue()
    output = io.StringIO()
    assert run_session("dendria", [], output, settings=["colour=red"]) == 2
    expected = "Dendria has no option 'colour'; options: board_side, pie, quiet_limit"
    assert expected in output.getvalue()
    output = io.StringIO()
    assert run_session("dendria", [], output, color="red") == 2
    assert "Dendria is played by dark and light; no colour 'red'" in output.getvalue()
    output = io.StringIO()
    assert run_session(None, [], output) == 0
    assert "No game chosen." in output.getvalue()


def test_the_ai_opponent_plays_when_chosen():
    output = io.StringIO()
    lines = ["e5", "quit"]
    status = run_session(
        "dendria", lines, output, opponent="ai", level=1, color="dark", seed=5,
        settings=["board_side=5"],
    )
    text = output.getvalue()
    assert status == 0
    assert "You play dark against the AI (level 1)." in text
    assert "Light (AI) plays:" in text


def test_the_command_runs_a_game_from_standard_input():
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    result = subprocess.run(
        [sys.executable, "-m", "hexgames", "play", "dendria", "--opponent", "human",
         "--set", "board_side=3", "--set", "pie=off"],
        input="b2\npass\npass\n",
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "dark> b2" in result.stdout
    # Dark planted, then both passed: the game ends with no forest on the board.
    assert "Game over: a draw." in result.stdout
    assert "\x1b[" not in result.stdout  # no colours when the output is not a terminal

    bad = subprocess.run(
        [sys.executable, "-m", "hexgames", "play", "chess"],
        capture_output=True, text=True, timeout=60, env=env,
    )
    assert bad.returncode == 2
    assert "unknown game 'chess'" in bad.stderr

    usage = subprocess.run(
        [sys.executable, "-m", "hexgames", "play", "--help"],
        capture_output=True, text=True, timeout=60, env=env,
    )
    assert usage.returncode == 0
    for flag in ("--opponent", "--level", "--color", "--set", "--seed"):
        assert flag in usage.stdout
