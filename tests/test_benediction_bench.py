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


ANCHOR = bench.DEFAULT_ANCHOR


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
