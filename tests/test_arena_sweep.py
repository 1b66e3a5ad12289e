"""``hexgames sweep``: the grid, the designer metrics, the recommendation and the report."""

from __future__ import annotations

import csv
import json
import shutil
import statistics
from collections import Counter

import pytest

from hexgames.arena.match import CAPPED, GameResult
from hexgames.arena.sweep.stats import (
    VariantStats,
    parse_grid,
    recommend,
    schedule,
    score_interval,
    summarise,
    variants,
)
from hexgames.cli import main
from hexgames.game import get_game

BENEDICTION = get_game("benediction")


def test_the_grid_is_parsed_and_checked_by_the_options():
    grid = parse_grid(BENEDICTION, ["board_side=4,5", "max_stack=2, 8", "supply=none,3"])
    assert grid == {"board_side": [4, 5], "max_stack": [2, 8], "supply": [None, 3]}
    assert parse_grid(get_game("dendria"), ["pie=on,off"]) == {"pie": [True, False]}


@pytest.mark.parametrize(
    "items, message",
    [
        (["colour=red,blue"], r"no option 'colour'.*board_side"),
        (["board_side=3,4"], r"board_side must be an integer from 4 to 7, got 3"),
        (["board_side=four"], "expects an integer"),
        (["board_side=4,4"], "twice"),
        (["board_side=4", "board_side=5"], "twice"),
        (["board_side"], "option=value1,value2"),
        ([], "at least one option"),
    ],
)
def test_bad_grids_are_refused(items, message):
    with pytest.raises(ValueError, match=message):
        parse_grid(BENEDICTION, items)


def test_variants_are_the_cartesian_product_on_top_of_the_fixed_options():
    grid = {"board_side": [4, 5, 6], "first_turn_actions": [1, 2]}
    options = variants(BENEDICTION, {"max_turns": 50}, grid)
    assert len(options) == 6
    assert {(o["board_side"], o["first_turn_actions"]) for o in options} == {
        (b, f) for b in (4, 5, 6) for f in (1, 2)}
    assert all(o["max_turns"] == 50 for o in options)
    with pytest.raises(ValueError, match="both fixed"):
        variants(BENEDICTION, {"board_side": 4}, {"board_side": [5]})


def test_the_schedule_alternates_seats_and_repeats_the_seeds_per_variant():
    work = schedule([{"board_side": 4}, {"board_side": 5}], ("L1", "random"), 3, seed=2,
                    game_name="benediction")
    assert len(work) == 6
    assert [task.specs for _, task in work[:3]] == [("L1", "random"), ("random", "L1"),
                                                    ("L1", "random")]
    assert [task.seed for _, task in work[:3]] == [task.seed for _, task in work[3:]]
    assert [task.seed for _, task in work[:3]] == [2_000_006, 2_000_007, 2_000_008]
    assert all(setup.track_branching for setup, _ in work)


def result(winner: int | None, branching=(), end="king captured", turns=10) -> GameResult:
    returns = {None: (0.0, 0.0), 0: (1.0, -1.0), 1: (-1.0, 1.0)}[winner]
    return GameResult(index=0, players=("a", "a"), returns=returns, winning_seat=winner,
                      turns=turns, actions=2 * turns, end_reason=end, seconds=0.1,
                      branching=list(branching))


def test_metrics_count_draws_as_half_and_branching_over_real_decisions():
    games = [
        result(0, [(1, 10), (1, 1), (2, 20)]),
        result(1, [(1, 1), (2, 30)]),
        result(None, [(1, 4)], end=CAPPED),
        result(0, [(1, 2)], end="blessed king"),
    ]
    stats = summarise("v", {"board_side": 4}, games)
    assert (stats.seat0_wins, stats.seat1_wins, stats.draws, stats.capped) == (2, 1, 1, 1)
    assert stats.first_player_score == pytest.approx(2.5 / 4)
    assert stats.decisive_share == pytest.approx(0.75)
    assert stats.branching == pytest.approx((10 + 1 + 20 + 1 + 30 + 4 + 2) / 7)
    assert stats.decision_branching == pytest.approx((10 + 20 + 30 + 4 + 2) / 5)
    assert stats.forced_share == pytest.approx(2 / 7)
    assert stats.endings == Counter({"king captured": 2, CAPPED: 1, "blessed king": 1})
    low, high = stats.score_interval
    assert low < stats.first_player_score < high


def test_score_interval_is_a_wilson_interval():
    assert score_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert score_interval(0, 10)[0] == 0.0
    assert score_interval(10, 10)[1] == pytest.approx(1.0)
    assert score_interval(0, 0) == (0.0, 1.0)


def variant(name: str, wins: int, draws: int, losses: int) -> VariantStats:
    games = wins + draws + losses
    return VariantStats(label=name, options={}, games=games, seat0_wins=wins,
                        seat1_wins=losses, draws=draws, capped=0, turns=[10] * games,
                        actions=[20] * games, branching=5.0, decision_branching=6.0,
                        forced_share=0.1, endings=Counter({"x": games}))


def test_the_recommendation_prefers_balance_among_decisive_variants():
    drawish = variant("drawish", 5, 90, 5)  # 50% exactly, but nearly all draws
    close = variant("close", 48, 4, 48)
    near = variant("near", 55, 0, 45)
    lopsided = variant("lopsided", 80, 0, 20)
    chosen, reasons = recommend([lopsided, drawish, near, close])
    assert [s.label for s in chosen] == ["close", "near"]
    text = "\n".join(reasons)
    assert "**close**: the first player scores 50.0%" in text
    assert "50% inside the interval" in text
    assert "are tied" in text  # close and near are not separated by 100 games
    assert "Measurably unbalanced" in text and "lopsided (80%" in text
    assert "Not considered" in text and "drawish (10%)" in text
    assert [s.label for s in recommend([lopsided, near, close, drawish])[0]] == [
        "close", "near"]  # never a measurably unbalanced variant next to balanced ones
    none, why = recommend([drawish])
    assert none == [] and "No variant" in why[0]
    least, why = recommend([lopsided, variant("worse", 90, 0, 10)])
    assert [s.label for s in least] == ["lopsided", "worse"]  # intervals overlap: tied
    assert "least unbalanced" in why[0]


def test_the_recommendation_keeps_every_variant_tied_with_the_best_and_names_the_cut():
    # Issue 41 row 9: a hard-coded top 3 dropped a promising variant without a word.
    tied = [variant(f"v{k}", 45 + k, 0, 55 - k) for k in range(5)]  # 45%..49%, all fair
    cut = variant("cut", 70, 0, 30)  # decisive, but measurably unbalanced
    chosen, reasons = recommend([cut, *tied])
    assert [s.label for s in chosen] == ["v4", "v3", "v2", "v1", "v0"]
    text = "\n".join(reasons)
    assert "these 5 variants are tied" in text
    assert "Cut: 1 qualifying variant ranked below the tie (50% outside the interval): cut" in text
    # No variant fair: the least unbalanced with every variant overlapping it.
    near, also, far = variant("near", 64, 0, 36), variant("also", 66, 0, 34), variant(
        "far", 90, 0, 10)
    chosen, reasons = recommend([far, also, near])
    assert [s.label for s in chosen] == ["near", "also"]
    assert any(r.startswith("Cut: 1 qualifying variant") and "far (90%" in r for r in reasons)


def test_sweep_cli_writes_a_report_with_every_variant_and_the_plots(tmp_path):
    out = tmp_path / "sweep"
    code = main(["sweep", "benediction", "--grid", "board_side=4,5",
                 "--grid", "first_turn_actions=1,2", "--set", "max_turns=12",
                 "--players", "random", "--games", "2", "--jobs", "1", "--out", str(out)])
    assert code == 0
    text = (out / "sweep.md").read_text()
    labels = [f"board_side={b} first_turn_actions={f}" for b in (4, 5) for f in (1, 2)]
    for name in labels:
        assert f"| {name} | 2 |" in text  # one row per variant, side by side
    for heading in ("## Recommendation", "## Side by side", "## Game length",
                    "## Branching", "## How games end"):
        assert heading in text
    assert "Fixed options: max_turns=12" in text
    for plot in ("balance.png", "lengths.png", "branching.png", "endings.png"):
        assert (out / plot).read_bytes().startswith(b"\x89PNG")
        assert f"]({plot})" in text
    with (out / "results.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    own = [row for row in rows if not row["trace"]]
    assert [row["variant"] for row in own] == [name for name in labels for _ in range(2)]
    assert [row["variant"] for row in rows if row["trace"] == "L1"] == [
        row["variant"] for row in own]  # the default skill trace: L1 on the same seeds
    assert len(list((out / "games").glob("*/game-*.txt"))) == 8
    assert len(list((out / "games").glob("*/trace-L1/game-*.txt"))) == 8


def test_sweep_cli_refuses_bad_input_before_playing(tmp_path, capsys):
    out = tmp_path / "never"
    assert main(["sweep", "dendria", "--grid", "board_side=2,3", "--out", str(out)]) == 2
    assert "board_side must be" in capsys.readouterr().out
    assert main(["sweep", "dendria", "--grid", "board_side=3", "--players", "wizard",
                 "--out", str(out)]) == 2
    assert "unknown player spec 'wizard'" in capsys.readouterr().out
    assert main(["sweep", "dendria", "--grid", "board_side=3", "--players", "a,b,c",
                 "--out", str(out)]) == 2
    assert not out.exists()


def test_sweep_help_lists_the_options(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["sweep", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--grid", "--set", "--players", "--games", "--jobs", "--cluster", "--out",
                 "--seed", "--max-actions", "--min-decisive"):
        assert flag in text


# ------------------------------------------------- issue 30: never lose a sweep
def test_score_intervals_contain_the_score_and_reach_0_and_1_exactly():
    for games in range(1, 201):
        for points in (0, games / 2, games):
            low, high = score_interval(points, games)
            assert 0.0 <= low <= points / games <= high <= 1.0
        # 10/10 or 30/30 decisive once gave an upper bound of 0.9999999999999999
        assert score_interval(games, games)[1] == 1.0
        assert score_interval(0, games)[0] == 0.0


DECISIVE_GRID = ["--grid", "board_side=4,5", "first_turn_actions=1,2"]


@pytest.fixture(scope="module")
def decisive_sweep(tmp_path_factory):
    """The issue's sweep with 10 games of random play: every game decisive."""
    out = tmp_path_factory.mktemp("decisive") / "sweep"
    code = main(["sweep", "benediction", *DECISIVE_GRID, "--players", "random",
                 "--games", "10", "--trace", "none", "--jobs", "1", "--out", str(out)])
    return code, out


def test_a_sweep_with_every_game_decisive_writes_its_report(decisive_sweep):
    code, out = decisive_sweep
    assert code == 0
    text = (out / "sweep.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| board_side=")]
    assert len(rows) >= 4 and all("| 100% (72-100) |" in row for row in rows[:4])
    for plot in ("balance.png", "lengths.png", "branching.png", "endings.png", "pieces.png"):
        assert (out / plot).read_bytes().startswith(b"\x89PNG")
    with (out / "results.csv").open() as handle:
        results = list(csv.DictReader(handle))
    assert len(results) == 40
    for row in results:  # one scoring convention: 1 / 0.5 / 0; the old column kept
        assert row["seat0_score"] == {"0": "1", "1": "0", "": "0.5"}[row["winning_seat"]]
        assert float(row["seat0_result"]) == 2 * float(row["seat0_score"]) - 1
        assert (out / row["record"]).is_file()


def copy_run(source, target):
    shutil.copytree(source, target)
    for path in [target / "sweep.md", *target.glob("*.png")]:
        path.unlink()
    return target


def test_report_only_rebuilds_the_same_report_from_the_saved_games(decisive_sweep, tmp_path,
                                                                    capsys):
    _code, out = decisive_sweep
    again = copy_run(out, tmp_path / "again")
    assert main(["sweep", "--report-only", str(again)]) == 0
    assert (again / "sweep.md").read_text() == (out / "sweep.md").read_text()
    assert (again / "balance.png").read_bytes().startswith(b"\x89PNG")
    capsys.readouterr()
    assert main(["sweep", "--report-only", str(tmp_path / "nothing")]) == 2
    assert "results.csv not found" in " ".join(capsys.readouterr().out.split())
    assert main(["sweep", "benediction", "--report-only", str(again)]) == 2


def test_report_only_reads_a_run_that_stopped_early(decisive_sweep, tmp_path, capsys):
    _code, out = decisive_sweep
    stopped = copy_run(out, tmp_path / "stopped")
    run = json.loads((stopped / "sweep.json").read_text())
    run["seconds"] = run["played"] = None  # as written before the first game
    (stopped / "sweep.json").write_text(json.dumps(run))
    lines = (stopped / "results.csv").read_text().splitlines()
    (stopped / "results.csv").write_text("\n".join(lines[:26]) + "\n")  # 25 games finished
    capsys.readouterr()
    assert main(["sweep", "--report-only", str(stopped)]) == 0
    assert "fewer games than the 10 asked for" in " ".join(capsys.readouterr().out.split())
    text = (stopped / "sweep.md").read_text()
    assert "| board_side=5 first_turn_actions=1 | 5 |" in text
    assert "board_side=5 first_turn_actions=2" not in text  # no game finished
    assert "Played" not in text


def test_report_only_reads_a_sweep_written_before_sweep_json(decisive_sweep, tmp_path):
    _code, out = decisive_sweep
    old = copy_run(out, tmp_path / "old")
    (old / "sweep.json").unlink()
    with (old / "results.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    columns = ["variant", "game", "seat0", "seat1", "seat0_result", "turns", "actions",
               "end_reason", "seconds"]  # the old file: seat0_result was +1/0/-1
    with (old / "results.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    assert main(["sweep", "--report-only", str(old)]) == 0
    rebuilt = (old / "sweep.md").read_text().splitlines()
    original = (out / "sweep.md").read_text().splitlines()
    assert "seed not recorded" in rebuilt[4]
    unchanged = [line for line in original if not line.startswith(("- Balance", "- Played"))]
    assert [line for line in rebuilt if not line.startswith("- Balance")] == unchanged


def test_the_sweep_table_carries_the_reports_metrics(tmp_path):
    common = ["--set", "board_side=4", "--set", "max_turns=15", "--games", "3",
              "--jobs", "1", "--seed", "2"]
    assert main(["sweep", "benediction", "--grid", "max_stack=2,15", "--players", "random",
                 *common, "--out", str(tmp_path / "sweep")]) == 0
    text = (tmp_path / "sweep").joinpath("sweep.md").read_text()
    assert "- Skill trace: `L1` in both seats" in text  # the default trace
    quality = text.split("## Game quality side by side")[1].split("##")[0]
    row = next(line for line in quality.splitlines() if line.startswith("| max_stack=15 |"))
    assert row.endswith("| `max_stack=15` |")  # never came into play on this board
    assert "**WARNING: max_stack=15: option `max_stack=15` never came into play**" in text
    trace = text.split("## Skill trace")[1].split("##")[0]
    assert "| variant | `random` | `L1` | trend |" in trace
    assert "| max_stack=2 |" in trace and "| max_stack=15 |" in trace
    usage = text.split("## Rule usage")[1].split("##")[0]
    assert "| move |" in usage and "| merge |" in usage
    # The same numbers as the balance report of that variant (the same games).
    assert main(["report", "benediction", "--set", "max_stack=15", "--player", "random",
                 *common, "--out", str(tmp_path / "report")]) == 0
    with (tmp_path / "report" / "games.csv").open() as handle:
        games = list(csv.DictReader(handle))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    lead_changes = statistics.fmean(int(game["lead_changes"]) for game in games)
    coverage = statistics.fmean(float(game["coverage"]) for game in games)
    assert cells[1] == f"{lead_changes:.1f}"
    assert abs(float(cells[3].rstrip("%")) - 100 * coverage) <= 0.6  # games.csv rounds
    report = (tmp_path / "report" / "report.md").read_text()
    assert "| `L1` | 3 |" in report and "| `L1` |" in trace
