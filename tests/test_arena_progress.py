"""Progress of the arena's commands when the output is not a terminal (nohup, CI, tee):
plain lines at a steady pace instead of a bar that only draws on a terminal."""

from __future__ import annotations

import io
import re
import time

from rich.console import Console
from rich.progress import Progress

from hexgames.arena.progress import LineProgress, game_progress
from hexgames.cli import main


def piped() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=False, width=200), out


def test_a_terminal_gets_the_bar_anything_else_gets_lines():
    console, _ = piped()
    assert isinstance(game_progress(console), LineProgress)
    terminal = Console(file=io.StringIO(), force_terminal=True)
    assert isinstance(game_progress(terminal), Progress)


def test_lines_keep_coming_while_no_game_finishes():
    console, out = piped()
    with LineProgress(console, line_seconds=0.05) as progress:
        task = progress.add_task("arena", total=2)
        deadline = time.monotonic() + 10.0  # bounded: a loaded machine may be slow
        while out.getvalue().count("arena: 0/2 games") < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        progress.advance(task)
        progress.advance(task)
    lines = out.getvalue().splitlines()
    waiting = [line for line in lines if line.startswith("arena: 0/2 games")]
    assert len(waiting) >= 3  # the first line, then one every 0.05 s while nothing finished
    assert re.fullmatch(r"arena: 2/2 games, 0:00:\d\d elapsed, done", lines[-1])
    assert not any("left" in line for line in waiting)  # no estimate before a game is done


def test_the_estimate_comes_from_the_games_done():
    console, out = piped()
    with LineProgress(console, line_seconds=60.0) as progress:
        task = progress.add_task("sweep", total=4)
        time.sleep(0.6)
        progress.advance(task)
        progress.report()  # the steady line now rather than in a minute
    line = out.getvalue().splitlines()[-1]
    found = re.fullmatch(r"sweep: 1/4 games, 0:(\d\d):(\d\d) elapsed, about 0:(\d\d):(\d\d) "
                         r"left", line)
    assert found, line
    elapsed = 60 * int(found[1]) + int(found[2])
    left = 60 * int(found[3]) + int(found[4])
    assert elapsed >= 1 and abs(left - 3 * elapsed) <= 2  # 3 games to go at 1 game's pace


def test_arena_prints_progress_lines_when_piped(tmp_path, capsys):
    code = main(["arena", "dendria", "--players", "random,greedy", "--games", "2",
                 "--set", "board_side=3", "--jobs", "1", "--out", str(tmp_path)])
    assert code == 0
    text = capsys.readouterr().out
    assert "arena: 0/2 games, 0:00:00 elapsed" in text
    assert re.search(r"arena: 2/2 games, \d:\d\d:\d\d elapsed, done", text)
