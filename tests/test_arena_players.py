"""Player specs of ``hexgames arena``/``report``/``sweep``: built-in ones and any player
factory named ``module:callable`` (issue 30, item 4), with helpful errors for bad specs."""

from __future__ import annotations

import csv
import sys

import pytest

from hexgames.ai.mcts import MCTSPlayer
from hexgames.arena.players import auto_trace, is_factory_spec, ladder_rank, make_player
from hexgames.cli import main
from hexgames.game import get_game
from player_factories import FirstLegal

DENDRIA = get_game("dendria")


def test_a_factory_spec_builds_the_player_with_the_game_and_the_seed():
    player = make_player(DENDRIA, "player_factories:first_legal", seed=7)
    assert isinstance(player, FirstLegal)
    assert player.name == "first-legal for dendria" and player.seed == 7
    nested = make_player(DENDRIA, "player_factories:FirstLegal", seed=None)
    assert isinstance(nested, FirstLegal) and nested.seed is None


def test_built_in_specs_keep_their_meaning():
    assert not is_factory_spec("mcts:400") and not is_factory_spec("MCTS:2s")
    assert is_factory_spec("player_factories:first_legal")
    player = make_player(DENDRIA, "mcts:40", seed=1)
    assert isinstance(player, MCTSPlayer)
    with pytest.raises(ValueError, match="unknown player spec 'wizard'"):
        make_player(DENDRIA, "wizard")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_here:make", r"no module named 'no_such_module_here' \(searched the "
         r"Python path and the current directory"),
        ("player_factories:missing", r"player_factories has no attribute 'missing'; its "
         r"public callables: .*first_legal"),
        ("player_factories:NOT_A_FACTORY", r"player_factories.NOT_A_FACTORY is a int, not a "
         r"callable factory\(game, seed\)"),
        ("player_factories:needs_three", r"must accept \(game, seed\); its signature is "
         r"needs_three\(game.*, seed.*, depth.*\)"),
        ("player_factories:not_a_player", r"returned str, which has no choose\(position\) "
         "method"),
        ("player-factories:first_legal", r"a player factory is named module:callable"),
        ("a:b:c", r"a player factory is named module:callable"),
    ],
)
def test_bad_factory_specs_say_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        make_player(DENDRIA, spec)


def test_a_module_that_fails_to_import_is_reported_with_its_error(tmp_path, monkeypatch):
    (tmp_path / "broken_factory_module.py").write_text("import not_installed_at_all\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="importing broken_factory_module failed: No module "
                       "named 'not_installed_at_all'"):
        make_player(DENDRIA, "broken_factory_module:make")


def test_the_current_directory_is_searched_for_the_module(tmp_path, monkeypatch):
    (tmp_path / "local_player_module.py").write_text(
        "from player_factories import FirstLegal\n"
        "def make(game, seed):\n    return FirstLegal(game, seed)\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "local_player_module", raising=False)
    assert isinstance(make_player(DENDRIA, "local_player_module:make"), FirstLegal)
    assert str(tmp_path) in sys.path  # kept, so worker processes find it too


def test_arena_plays_a_factory_player_in_worker_processes(tmp_path):
    out = tmp_path / "arena"
    spec = "player_factories:first_legal"
    code = main(["arena", "dendria", "--players", f"random,{spec}", "--games", "2",
                 "--set", "board_side=3", "--jobs", "2", "--out", str(out)])
    assert code == 0
    with (out / "results.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert {row["seat0"] for row in rows} == {"random", spec}  # named by its spec
    assert f"| {spec} |" in (out / "summary.md").read_text()


def test_report_and_sweep_take_factory_players_and_refuse_bad_ones(tmp_path, capsys):
    spec = "player_factories:first_legal"
    assert main(["report", "dendria", "--set", "board_side=3", "--games", "2", "--player",
                 spec, "--trace", "none", "--jobs", "1", "--out", str(tmp_path / "r")]) == 0
    assert f"self-play of `{spec}`" in (tmp_path / "r" / "report.md").read_text()
    assert main(["sweep", "dendria", "--grid", "board_side=3,4", "--players", f"{spec},random",
                 "--games", "2", "--trace", "none", "--jobs", "1",
                 "--out", str(tmp_path / "s")]) == 0
    capsys.readouterr()
    for command in (["arena", "dendria", "--players", "random,player_factories:nothing"],
                    ["report", "dendria", "--player", "player_factories:nothing"],
                    ["sweep", "dendria", "--grid", "board_side=3", "--players",
                     "player_factories:nothing"]):
        assert main([*command, "--out", str(tmp_path / "never")]) == 2
        text = " ".join(capsys.readouterr().out.split())
        assert "player_factories has no attribute 'nothing'" in text
    assert not (tmp_path / "never").exists()


def test_the_ladder_and_the_default_trace():
    assert [ladder_rank(s) for s in ("random", "greedy", "L1", "level3", "L5")] == [
        0, 1, 1, 3, 5]
    assert ladder_rank("mcts:400") is None and ladder_rank("pkg:make") is None
    assert auto_trace("L2") == ["L1"] and auto_trace("random") == ["L1"]
    assert auto_trace("L1") == ["L2"] and auto_trace("greedy") == ["L2"]
