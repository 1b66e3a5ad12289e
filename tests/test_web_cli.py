"""``hexgames serve``: its help, and clear refusals instead of tracebacks."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hexgames.cli import main


def test_serve_has_help_naming_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["serve", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--host", "--port", "--data-dir", "--database-url", "--ai-processes"):
        assert flag in text


def test_serve_refuses_an_unsupported_database_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--database-url", "mysql://x/y", "--port", "0"]) == 2
    assert "unsupported DATABASE_URL" in capsys.readouterr().out


def test_serve_refuses_a_busy_port(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port), "--data-dir", str(tmp_path)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().out


def test_serve_refuses_a_port_out_of_range(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "70000", "--data-dir", str(tmp_path)]) == 2
    assert "--port must be between 0 and 65535" in capsys.readouterr().out


def test_serve_warms_the_engines_and_says_so_on_a_cold_cache(tmp_path) -> None:
    """Before printing its URL, ``serve`` compiles (or loads) every game's compiled
    engine; on a cold cache it says so rather than looking hung. With more than one core
    the games compile in processes of their own at once, so this process only loads
    them: numba counts cache hits and no misses for each game's legal-list code. A fresh
    interpreter and an empty cache directory: nothing is compiled or loaded before."""
    script = textwrap.dedent("""
        import json
        import hexgames.benediction._position_kernels as benediction
        import hexgames.dendria.core as dendria
        from hexgames.game import get_game
        from hexgames.web.engine.workers import usable_cores
        from hexgames.web.cli import warm_up_engines
        said, again = [], []
        warm_up_engines(said.append)
        warm_up_engines(again.append)
        lists = [len(get_game(g).new().legal_actions()) for g in ("benediction", "dendria")]
        entries = (benediction.pos_generate, dendria.generate)
        print(json.dumps({
            "said": said, "again": again, "lists": lists, "cpus": usable_cores(),
            "misses": sum(sum(f.stats.cache_misses.values()) for f in entries),
            "hits": sum(sum(f.stats.cache_hits.values()) for f in entries)}))
    """)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path),
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "src")}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=900, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["said"] == ["compiling the rules engine, once..."]
    assert result["again"] == []  # cached now: nothing to say
    assert all(n > 0 for n in result["lists"])
    assert any(tmp_path.glob("benediction_*/core.*.nbi"))
    assert any(tmp_path.glob("dendria_*/core.*.nbi"))
    if result["cpus"] > 1:
        assert result["misses"] == 0 and result["hits"] >= 2, result


def test_a_compiling_process_that_cannot_start_is_left_out(monkeypatch) -> None:
    """No Python to start (an embedded interpreter, a removed venv): ``serve`` goes on,
    compiling in its own process, instead of failing."""
    from hexgames.web import cli

    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    cli._compile_in_processes(["benediction", "dendria"])  # no error, nothing started


def _fake_warm_up(cold: bool):
    def warm_up_engines(announce=None) -> float:
        if cold and announce is not None:
            announce("compiling the rules engine, once...")
        return 42.4 if cold else 0.8
    return warm_up_engines


def test_a_cached_start_says_nothing(monkeypatch, capsys) -> None:
    from rich.console import Console

    from hexgames.web import cli

    monkeypatch.setattr(cli, "warm_up_engines", _fake_warm_up(cold=False))
    cli.warm_up_visibly(Console(force_terminal=True))
    assert capsys.readouterr().out == ""


def test_a_cold_start_says_so_and_then_how_long_it_took(monkeypatch, capsys) -> None:
    """Piped (a log, ``make play`` under a supervisor): plain lines."""
    from rich.console import Console

    from hexgames.web import cli

    monkeypatch.setattr(cli, "warm_up_engines", _fake_warm_up(cold=True))
    cli.warm_up_visibly(Console(file=io.StringIO(), force_terminal=False))
    assert capsys.readouterr().out.splitlines() == [
        "compiling the rules engine, once...",
        "rules engine compiled in 42 s; later starts load it from the cache",
    ]


def test_a_cold_start_at_a_terminal_shows_the_seconds_passing(monkeypatch, capsys) -> None:
    from rich.console import Console

    from hexgames.web import cli

    screen = io.StringIO()
    seen: list[str] = []

    def warm_up_engines(announce=None) -> float:
        announce("compiling the rules engine, once...")
        seen.append(screen.getvalue())  # what the terminal shows while compiling
        return 42.4

    monkeypatch.setattr(cli, "warm_up_engines", warm_up_engines)
    cli.warm_up_visibly(Console(file=screen, force_terminal=True, width=100))
    assert "compiling the rules engine, once... (once per machine and version)" in seen[0]
    assert "0:00:0" in seen[0]  # the elapsed-time column
    assert capsys.readouterr().out == (
        "rules engine compiled in 42 s; later starts load it from the cache\n")


@pytest.mark.parametrize("url,expected", [
    (None, "SQLite in {data}"),
    ("", "SQLite in {data}"),
    ("postgresql://user@localhost/games", "PostgreSQL"),
    (" postgres://db/games", "PostgreSQL"),
    ("sqlite:///{tmp}/other.db", "SQLite in {tmp}/other.db"),
])
def test_the_start_up_line_names_the_storage_it_opens(url, expected, tmp_path) -> None:
    from hexgames.web.cli import storage_description

    data = tmp_path / "data"
    url = url if url is None else url.format(tmp=tmp_path)
    assert storage_description(data, url) == expected.format(data=data, tmp=tmp_path)
