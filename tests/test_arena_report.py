"""The designer's balance report: statistics, Markdown and plots, and ``hexgames report``."""

from __future__ import annotations

import pytest

from hexgames.arena.match import GameResult
from hexgames.arena.report.budget import (
    Calibration,
    Machine,
    calibrate,
    estimate,
    pick_level,
    sample_decisions,
)
from hexgames.arena.report.markdown import write_report
from hexgames.arena.report.stats import analyse, phase_of, wilson
from hexgames.cli import main
from hexgames.game import get_game

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def result(index: int, winner: int | None, turns: int, reason: str, margin=None) -> GameResult:
    returns = {0: (1.0, -1.0), 1: (-1.0, 1.0), None: (0.0, 0.0)}[winner]
    # branching: 10 legal actions in the first third, 20 in the middle, 30 at the end
    branching = [(t, (10, 20, 30)[phase_of(t, turns)]) for t in range(1, turns + 1)]
    return GameResult(index, ("p", "p"), returns, winner, turns, 2 * turns, reason, 1.0,
                      margin=margin, branching=branching)


def test_phases_split_a_game_into_thirds():
    assert [phase_of(t, 9) for t in range(1, 10)] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert phase_of(1, 1) == 0 and phase_of(5, 5) == 2


def test_analyse_counts_results_lengths_branching_and_endings():
    results = [
        result(0, 0, 9, "king captured", 2.0),
        result(1, 0, 12, "blessed king", 1.5),
        result(2, 1, 6, "king captured", -3.0),
        result(3, None, 30, "turn limit"),
    ]
    balance = analyse(results)
    assert (balance.seat0_wins, balance.seat1_wins, balance.draws) == (2, 1, 1)
    assert balance.seat0_rate == 0.5 and balance.draw_rate == 0.25
    assert balance.seat0_interval == wilson(2, 4)
    assert balance.turns == [9, 12, 6, 30] and balance.actions == [18, 24, 12, 60]
    assert balance.branching_by_phase == {"opening": 10, "middle": 20, "end": 30}
    assert balance.endings[("king captured", 0)] == 1
    assert balance.endings[("king captured", 1)] == 1
    assert balance.endings[("turn limit", None)] == 1
    assert balance.margins == [2.0, 1.5, -3.0]


def test_analyse_needs_games():
    with pytest.raises(ValueError, match="no games"):
        analyse([])


def test_write_report_makes_markdown_and_png_plots(tmp_path):
    balance = analyse([result(0, 0, 9, "king captured", 1.0), result(1, 1, 12, "blessed king")])
    paths = write_report(tmp_path, balance, title="Test", options={"board_side": 5}, player="L1")
    names = {p.name for p in paths}
    assert names == {"report.md", "games.csv", "lengths.png", "branching.png", "endings.png",
                     "margins.png"}
    for path in paths:
        if path.suffix == ".png":
            assert path.read_bytes()[:8] == PNG_MAGIC
    text = (tmp_path / "report.md").read_text()
    assert "score rate 50.0%" in text and "won 1 = **50.0%**" in text
    assert "board_side=5" in text and "![endings](endings.png)" in text


def test_report_cli_on_a_small_dendria_variant(tmp_path, capsys):
    out = tmp_path / "report"
    code = main(["report", "dendria", "--set", "board_side=3", "--games", "6", "--player", "random",
                 "--jobs", "1", "--out", str(out)])
    assert code == 0
    text = (out / "report.md").read_text()
    assert "First player" in text and "Wilson" in text and "## Score margins" in text
    assert "both passed" in text or "quiet limit" in text
    assert len(list((out / "games").glob("game-*.txt"))) == 6
    assert (out / "margins.png").read_bytes()[:8] == PNG_MAGIC
    assert "games/s" in capsys.readouterr().out


def test_report_cli_refuses_a_bad_player(tmp_path, capsys):
    assert main(["report", "benediction", "--player", "L9", "--out", str(tmp_path)]) == 2
    assert "level must be one of" in capsys.readouterr().out


def test_report_help_offers_the_cluster(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["report", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert "--cluster {auto,local}" in text and "Ray" in text


# ------------------------------- issue 41 row 8: players chosen by a time budget
def test_the_budget_picks_the_strongest_level_that_fits_and_calibrates_no_further():
    per_decision = {"L1": 0.001, "L2": 0.01, "L3": 0.1, "L4": 1.0, "L5": 10.0}
    asked = []

    def cost_of(spec):
        asked.append(spec)
        return Calibration(spec, per_decision[spec], decisions_per_game=10)

    # 10 games of L3 and of its trace L1: 10 * (10 * 0.1 + 10 * 0.001) = 10.1 s
    level, tried = pick_level(cost_of, budget_seconds=30, games=10, jobs=1)
    assert level == "L3"
    assert tried["L3"] == pytest.approx(10.1) and tried["L4"] == pytest.approx(100.1)
    assert "L5" not in asked  # the climb stops at the first level that does not fit
    assert pick_level(cost_of, 30, games=10, jobs=4)[0] == "L4"  # 100.1 / 4 s
    assert pick_level(cost_of, 0, games=10, jobs=1)[0] == "L1"  # nothing fits: level 1
    assert estimate({"L1": cost_of("L1")}, ["L1", "L1"], games=3, jobs=2) == pytest.approx(
        3 * 2 * 0.01 / 2)


def test_a_loaded_machine_gives_each_worker_its_share_of_a_core():
    assert Machine().share(8) == 1.0  # cores unknown (a cluster): a whole core each
    assert Machine(cores=2, others=0.0).share(2) == 1.0
    assert Machine(cores=2, others=2.0).share(2) == pytest.approx(0.5)
    assert Machine(cores=16, others=1.0).share(4) == 1.0
    costs = {"L3": Calibration("L3", 0.1, decisions_per_game=10)}
    idle = estimate(costs, ["L3"], games=10, jobs=2)
    assert estimate(costs, ["L3"], 10, 2, Machine(2, 2.0)) == pytest.approx(2 * idle)

    def cost_of(spec):
        return Calibration(spec, {"L1": 0.001, "L2": 0.01}.get(spec, 1.0), 10)

    # 10 games of L2 with L1 beside: 1.1 s of CPU; fits 1 s on an idle pair of cores,
    # not on one shared with two busy processes
    assert pick_level(cost_of, 1.0, games=10, jobs=2)[0] == "L2"
    assert pick_level(cost_of, 1.0, games=10, jobs=2, machine=Machine(2, 2.0))[0] == "L1"


def test_calibration_times_a_player_on_real_decisions_of_the_variant():
    game = get_game("dendria")
    sample = sample_decisions(game, {"board_side": 3}, seed=1)
    assert 1 <= len(sample.positions) <= 4 and sample.decisions_per_game > 0
    assert all(len(p.legal_actions()) > 1 and not p.is_over for p in sample.positions)
    cost = calibrate(game, "L1", sample)
    assert cost.spec == "L1" and cost.seconds_per_decision >= 0
    assert cost.decisions_per_game == sample.decisions_per_game


def test_report_cli_without_player_plays_the_level_the_budget_allows(tmp_path, capsys):
    out = tmp_path / "budget"
    code = main(["report", "dendria", "--set", "board_side=3", "--games", "2", "--budget", "0",
                 "--trace", "none", "--jobs", "1", "--out", str(out)])
    assert code == 0
    console = capsys.readouterr().out
    assert "estimated " in console and " min for 2 games at level L1" in console
    assert "time: estimated " in console and ", measured " in console
    text = (out / "report.md").read_text()
    assert "- Players chosen by the time budget (0 min): `L1`, the weakest level" in text
    assert "- Time: estimated " in text and " min before the run, measured " in text
    assert "self-play of `L1` in both seats" in text
    assert "- Cost measured before the run (CPU per real decision on this variant" in text
    assert "- Machine: " in text and "% of a core; " in text and " min of CPU in all" in text


def test_report_cli_explicit_player_wins_over_the_budget(tmp_path, capsys):
    out = tmp_path / "explicit"
    assert main(["report", "dendria", "--set", "board_side=3", "--games", "2", "--budget",
                 "0", "--player", "random", "--trace", "none", "--jobs", "1",
                 "--out", str(out)]) == 0
    assert "at level random" in capsys.readouterr().out
    text = (out / "report.md").read_text()
    assert "self-play of `random`" in text and "chosen by the time budget" not in text
    assert "- Time: estimated " in text
    assert main(["report", "dendria", "--budget", "-1", "--out", str(out)]) == 2
    assert "--budget must be" in capsys.readouterr().out
