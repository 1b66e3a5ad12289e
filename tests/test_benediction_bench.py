"""``python -m hexgames.bench``: game-agnostic engine speed measurement."""

import pytest

from hexgames import bench
from hexgames.cli import main as cli_main
from hexgames.game import get_game


def test_measure_reports_positive_rates_for_a_variant():
    m = bench.measure(get_game("benediction"), {"max_turns": 20}, runs=2, seconds=0.05)
    assert m.variant == "max_turns=20" and m.runs == 2
    assert m.generations_per_s > 0 and m.play_undo_per_s > 0 and m.games_per_s > 0
    assert 1 <= m.mean_game_length <= 40 * 2


def test_bench_prints_a_table_for_the_games_bench_variants(capsys):
    assert bench.main(["benediction", "--runs", "1", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "max_turns=200" in out and "generations/s" in out and "games/s" in out


def test_bench_set_overrides_the_variants(capsys):
    code = bench.main(
        ["benediction", "--runs", "1", "--seconds", "0.05", "--set", "max_turns=10",
         "--set", "board_side=4"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "max_turns=10" in out and "board_side=4" in out


@pytest.mark.parametrize(
    "argv,message",
    [
        (["chess"], "unknown game"),
        (["benediction", "--set", "colour=red"], "no option 'colour'"),
        (["benediction", "--set", "max_stack=99"], "max_stack must be an integer from 2 to 15"),
        (["benediction", "--set", "max_stack"], "expects option=value"),
        (["benediction", "--runs", "0"], "--runs must be at least 1"),
    ],
)
def test_bench_reports_bad_arguments(argv, message, capsys):
    assert bench.main(argv) == 2
    assert message in capsys.readouterr().out


def test_bench_is_a_hexgames_subcommand_with_help(capsys):
    with pytest.raises(SystemExit) as info:
        cli_main(["bench", "--help"])
    assert info.value.code == 0
    assert "--seconds" in capsys.readouterr().out


def test_bench_json_reports_python_and_kernel_rates(capsys):
    import json

    code = bench.main(
        ["benediction", "--runs", "1", "--seconds", "0.05", "--set", "max_turns=20", "--json",
         "--no-anchor"]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "benediction" and report["anchor"] is None
    assert report["actions_per_s"] > 0 and report["kernel_actions_per_s"] > 0
    variant = report["variants"][0]
    assert variant["options"] == {"max_turns": 20}
    assert variant["kernel_games_per_s"] > 0 and variant["core_loop_actions_per_s"] > 0


def test_bench_reports_a_missing_anchor(capsys, tmp_path):
    code = bench.main(
        ["benediction", "--runs", "1", "--seconds", "0.05", "--set", "max_turns=10", "--json",
         "--no-kernel", "--anchor", str(tmp_path / "nothing.c")]
    )
    assert code == 0
    import json

    report = json.loads(capsys.readouterr().out)
    assert report["anchor"] is None and "does not exist" in report["anchor_note"]
    assert report["kernel_actions_per_s"] is None


ANCHOR = bench.default_anchor(get_game("benediction"))
assert ANCHOR is not None


@pytest.mark.skipif(
    not ANCHOR.is_file() or bench.shutil.which("gcc") is None,
    reason="the C anchor (../shared/bench/bened.c) or gcc is not available",
)
def test_bench_compiles_and_runs_the_c_anchor_in_the_same_run(capsys):
    import json

    code = bench.main(
        ["benediction", "--runs", "1", "--seconds", "0.05", "--set", "max_turns=10", "--json",
         "--anchor", str(ANCHOR)]
    )
    assert code == 0
    anchor = json.loads(capsys.readouterr().out)["anchor"]
    assert anchor["actions_per_s"] > 0 and anchor["kernel_actions_per_s"] > 0
    assert anchor["kernel_ratio"] > 0 and anchor["python_ratio"] > 0


def test_bench_startup_measures_a_cold_and_a_cached_process(capsys):
    """``--startup``: the cold process compiles the rules core and the cached one, on the
    same cache directory, compiles nothing (it loads what the cold one saved)."""
    import json

    code = bench.main(["benediction", "--startup", "--runs", "1", "--json",
                       "--set", "board_side=4"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "benediction" and report["options"] == {"board_side": 4}
    cold, cached = report["starts"]
    assert (cold["kind"], cached["kind"]) == ("cold", "cached")
    assert cold["compiled"] > 0 and cold["loaded"] == 0
    assert cached["compiled"] == 0 and cached["loaded"] > 0
    expected = len(get_game("benediction").new(board_side=4).legal_actions())
    assert cold["actions"] == cached["actions"] == expected
    for start in (cold, cached):
        assert 0 < start["to_list_s"] <= start["process_s"] and start["cpu_s"] > 0
    assert report["cold_s"] == [round(cold["to_list_s"], 3)]
    assert report["cold_median_s"] == cold["to_list_s"]
    if ANCHOR.is_file() and bench.shutil.which("gcc") is not None:
        assert len(report["anchor_actions_per_s"]) == 1 and report["anchor_note"] is None
    else:
        assert report["anchor_actions_per_s"] is None and report["anchor_note"]


def test_bench_startup_reports_a_start_that_fails(tmp_path):
    from hexgames.bench_startup import start_process

    with pytest.raises(RuntimeError, match=r"(?s)the cold start failed.*unknown game"):
        start_process("chess", {}, str(tmp_path), "cold")
    with pytest.raises(RuntimeError, match=r"the cached start did not list its actions "
                                           r"within 0\.01 s"):
        start_process("benediction", {}, str(tmp_path), "cached", timeout_s=0.01)


def test_bench_startup_table_and_bad_rounds(capsys):
    from rich.console import Console

    from hexgames.bench_startup import Start, print_report, summarize

    starts = [Start("cold", 9.5, 9.9, 9.2, 17, 0, 25), Start("cached", 0.8, 1.1, 0.9, 0, 2, 25)]
    report = summarize("dendria", {}, starts, [400_000.0])
    assert report["cold_median_s"] == 9.5 and report["cached_s"] == [0.8]
    print_report(report, Console(width=120))
    out = capsys.readouterr().out
    assert "9.50 s" in out and "cached" in out and "400,000" in out
    assert bench.main(["dendria", "--startup", "--runs", "0"]) == 2
    assert "--runs must be at least 1" in capsys.readouterr().out
