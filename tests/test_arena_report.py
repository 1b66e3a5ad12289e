"""The designer's balance report: statistics, Markdown and plots, and ``hexgames report``."""

from __future__ import annotations

import pytest

from hexgames.arena.match import GameResult
from hexgames.arena.report import analyse, phase_of, wilson
from hexgames.arena.report_md import write_report
from hexgames.cli import main

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
