"""Tournaments: schedules, parallel play, records, tables and the ``hexgames arena`` CLI."""

from __future__ import annotations

import csv
import sys
from collections import Counter

import pytest

from hexgames.ai import RandomPlayer
from hexgames.arena.match import CAPPED, play_game
from hexgames.arena.tournament.schedule import Setup, gauntlet, round_robin, run_all
from hexgames.arena.tournament.standings import standings
from hexgames.cli import main
from hexgames.game import get_game, parse_settings
from test_ai_toygame import TOY


def test_round_robin_meets_everyone_with_alternating_seats():
    tasks = round_robin(["a", "b", "c"], 4, seed=1)
    assert len(tasks) == 3 * 4
    seats = Counter(t.specs for t in tasks)
    for pair in (("a", "b"), ("a", "c"), ("b", "c")):
        assert seats[pair] == 2 and seats[pair[::-1]] == 2
    assert len({t.seed for t in tasks}) == len(tasks)
    assert [t.index for t in tasks] == list(range(len(tasks)))


def test_gauntlet_only_pairs_the_challenger():
    tasks = gauntlet("L3", ["random", "L1"], 3)
    assert {frozenset(t.specs) for t in tasks} == {frozenset({"L3", "random"}),
                                                   frozenset({"L3", "L1"})}
    assert sum(t.specs[0] == "L3" for t in tasks) == 4  # 2 + 1 of 3 per opponent


@pytest.mark.parametrize(
    "specs, games, message",
    [(["a"], 2, "at least two"), (["a", "a"], 2, "distinct"), (["a", "b"], 0, "at least 1")],
)
def test_bad_schedules_are_refused(specs, games, message):
    with pytest.raises(ValueError, match=message):
        round_robin(specs, games)


def test_option_settings_are_parsed_and_checked():
    game = get_game("dendria")
    assert parse_settings(game, ["board_side=5", "pie=off"]) == {"board_side": 5, "pie": False}
    # "size" is the old name of Dendria's board side: an alias, stored under the new name
    assert parse_settings(game, ["size=5"]) == {"board_side": 5}
    with pytest.raises(ValueError, match=r"no option 'colour'.*pie"):
        parse_settings(game, ["colour=red"])
    with pytest.raises(ValueError, match="option=value"):
        parse_settings(game, ["size"])
    with pytest.raises(ValueError, match="integer"):
        parse_settings(game, ["size=big"])
    with pytest.raises(ValueError, match="board_side"):
        parse_settings(game, ["board_side=99"])  # the rules refuse the range


def test_in_process_tournament_on_the_toy_game_scores_every_game():
    tasks = round_robin(["random", "greedy"], 6, seed=3)
    results = run_all(Setup("toy", {}), tasks, jobs=1, game=TOY)
    assert [r.index for r in results] == list(range(6))
    table = standings(results, ["random", "greedy"])
    assert sum(line.games for line in table.lines) == 12
    points = sum(line.wins + 0.5 * line.draws for line in table.lines)
    assert points == pytest.approx(6)
    greedy, rand = table.ratings.of("greedy"), table.ratings.of("random")
    assert greedy.elo == pytest.approx(-rand.elo)
    by_name = {line.name: line for line in table.lines}
    assert (greedy.elo > rand.elo) == (by_name["greedy"].score > by_name["random"].score)


def test_an_action_cap_scores_a_draw_and_says_so():
    players = [RandomPlayer(1), RandomPlayer(2)]
    result = play_game(TOY, TOY.make_rules(), players, max_actions=3)
    assert result.returns == (0.0, 0.0) and result.winning_seat is None
    assert result.end_reason == CAPPED and result.actions == 3
    assert "arena cap" in result.record


def test_arena_cli_plays_in_two_processes_and_saves_readable_records(tmp_path):
    out = tmp_path / "arena"
    code = main(["arena", "benediction", "--players", "random,greedy", "--games", "4",
                 "--jobs", "2", "--set", "max_turns=60", "--out", str(out)])
    assert code == 0
    game = get_game("benediction")
    records = sorted(out.glob("game-*.txt"))
    assert len(records) == 4
    with (out / "results.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4
    for path, row in zip(records, rows, strict=True):
        position, tags = game.read_record(path.read_text())
        assert position.rules.max_turns == 60
        assert {tags["Seat0"], tags["Seat1"]} == {"random", "greedy"}
        assert (tags["Seat0"], tags["Seat1"]) == (row["seat0"], row["seat1"])
        returned = position.returns()[0]
        assert float(row["seat0_result"]) == returned  # the old column: +1/0/-1, kept
        assert float(row["seat0_score"]) == (returned + 1) / 2  # the convention: 1/0.5/0
        assert row["winning_seat"] == {1.0: "0", -1.0: "1", 0.0: ""}[returned]
    summary = (out / "summary.md").read_text()
    assert "games/s" in summary
    results_part, head_to_head = summary.split("## Head to head")
    rows = {}
    for line in results_part.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] in ("random", "greedy"):
            elo, margin = cells[6].split(" ± ")
            rows[cells[0]] = (float(cells[5].rstrip("%")), float(elo), float(margin))
    (score_r, elo_r, margin_r), (score_g, elo_g, margin_g) = rows["random"], rows["greedy"]
    assert score_r + score_g == pytest.approx(100.0)
    assert elo_r == pytest.approx(-elo_g, abs=1)  # two players: mean 0
    assert margin_r == margin_g > 0
    if score_g != score_r:
        assert (elo_g > elo_r) == (score_g > score_r)
    else:
        assert abs(elo_g - elo_r) < 50
    # The head-to-head table: each player's points against the other, of 4 games.
    points = {name: float(score_r if name == "random" else score_g) * 4 / 100
              for name in ("random", "greedy")}
    for name in ("random", "greedy"):
        row = next(line for line in head_to_head.splitlines() if line.startswith(f"| {name} |"))
        assert f"| {points[name]:g}/4 |" in row and "| - |" in row
        assert row.count("|") == 4  # the name and one cell per player
    assert head_to_head.count("/4 |") == 2


def test_arena_cli_refuses_bad_input_before_playing(tmp_path, capsys):
    out = tmp_path / "never"
    assert main(["arena", "dendria", "--players", "random,wizard", "--out", str(out)]) == 2
    assert "unknown player spec 'wizard'" in capsys.readouterr().out
    assert main(["arena", "dendria", "--set", "size=1", "--out", str(out)]) == 2
    assert not out.exists()


def test_arena_help_lists_the_options(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["arena", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--players", "--games", "--jobs", "--set", "--gauntlet", "--out", "--cluster"):
        assert flag in text


def test_cluster_without_ray_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    out = tmp_path / "never"
    for command in (["arena", "benediction"], ["sweep", "benediction", "--grid",
                                               "board_side=4,5"]):
        assert main([*command, "--cluster", "local", "--out", str(out)]) == 2
        text = " ".join(capsys.readouterr().out.split())
        assert "--cluster needs Ray" in text and "pip install 'hexgames[cluster]'" in text
    assert not out.exists()


def test_an_unknown_cluster_mode_is_refused(capsys):
    with pytest.raises(SystemExit):
        main(["arena", "benediction", "--cluster", "everywhere"])
    assert "invalid choice" in capsys.readouterr().err


def test_cluster_auto_with_nothing_listening_fails_fast(tmp_path, capsys, monkeypatch):
    ray = pytest.importorskip("ray")
    assert not ray.is_initialized()
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")  # nothing listens on port 1
    out = tmp_path / "never"
    assert main(["arena", "benediction", "--cluster", "auto", "--out", str(out)]) == 2
    text = " ".join(capsys.readouterr().out.split())
    assert "nothing answers at RAY_ADDRESS='127.0.0.1:1'" in text
    assert not out.exists() and not ray.is_initialized()
