"""The `hexgames` command: every subcommand is reachable and has --help."""

import subprocess
import sys

import pytest

from hexgames.cli import SUBCOMMANDS, main


def test_top_level_help_lists_every_subcommand(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for name in SUBCOMMANDS:
        assert name in out


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_subcommand_has_help(name, capsys):
    with pytest.raises(SystemExit) as stop:
        main([name, "--help"])
    assert stop.value.code == 0
    assert f"hexgames {name}" in capsys.readouterr().out


def test_unknown_subcommand_is_an_error():
    result = subprocess.run(
        [sys.executable, "-m", "hexgames", "frobnicate"], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "invalid choice" in result.stderr
