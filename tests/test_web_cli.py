"""``hexgames serve``: its help, and clear refusals instead of tracebacks."""

from __future__ import annotations

import socket

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


def test_serve_warms_the_engines_and_says_so_on_a_cold_cache(monkeypatch, tmp_path) -> None:
    """Before printing its URL, ``serve`` compiles (or loads) every game's compiled
    engine; on a cold cache it says so rather than looking hung."""
    from hexgames.benediction import Position
    from hexgames.web.cli import warm_up_engines

    said: list[str] = []
    assert warm_up_engines(said.append) >= 0
    assert set(said) <= {"compiling the rules engine, once..."}
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # nothing cached there
    said.clear()
    warm_up_engines(said.append)
    assert "compiling the rules engine, once..." in said
    assert len(Position.initial().legal_actions()) > 0
