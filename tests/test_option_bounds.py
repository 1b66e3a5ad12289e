"""Every rules option is bounded where its game declares it (issue 31: "a public site no
one can freeze").

One anonymous ``POST /api/games`` for Dendria with ``quiet_limit=2000000`` froze every
other client for seconds (the engine sizes tables by the quiet limit), and ``10**23``
for minutes while memory grew by gigabytes; a lobby challenge with ``quiet_limit=10**9``
was listed, and froze the server for whoever accepted it. So each ``"int"`` option
declares a finite range (``Option.minimum``/``maximum``), and every entry point refuses
a value outside it with a ``ValueError`` (a 400 on the web) naming the option and the
range: the rules themselves (``make_rules``), the CLI's ``--set``, OpenSpiel,
PettingZoo, the vector environment, and the web's games and challenges. A new option
declared without a maximum fails :func:`test_every_int_option_declares_a_finite_range`.

No timing is asserted: "refused before anything is built" is checked by making the
engine's core impossible to build while the refusals run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from hexgames.cli import main as cli_main
from hexgames.game import Option, game_names, get_game, parse_settings
from hexgames.web.app import create_app

#: (game, option) for every int option of every registered game.
INT_OPTIONS = [
    (name, option.name)
    for name in game_names()
    for option in get_game(name).options
    if option.kind == "int"
]
#: A value no option takes, as a browser or a script could send it.
DIGITS_5000 = "1" * 5000
#: Longest message a refusal may be (the web clips at 300; ours stay well below).
SHORT = 200


def option_of(game: str, name: str) -> Option:
    return next(option for option in get_game(game).options if option.name == name)


def bad_values(option: Option) -> list[Any]:
    """Values just outside the range, far outside it, and a 5000-digit string."""
    assert option.minimum is not None and option.maximum is not None
    return [option.maximum + 1, option.minimum - 1, 10**23, -(10**23), DIGITS_5000]


def range_words(option: Option) -> str:
    return f"from {option.minimum} to {option.maximum}"


def assert_names_range(message: str, option: Option) -> None:
    assert option.name in message, message
    assert range_words(option) in message, message
    assert len(message) <= SHORT, message


@pytest.fixture
def no_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building any game's compiled core fails loudly: a refusal must come first."""
    from hexgames.benediction import core as benediction_core
    from hexgames.dendria import core as dendria_core

    def forbidden(self: Any, *args: Any, **kwargs: Any) -> None:
        raise AssertionError("a core was built for options that should have been refused")

    for module in (benediction_core, dendria_core):
        monkeypatch.setattr(module.Core, "__init__", forbidden)
        monkeypatch.setattr(module, "core_for", lambda *args: forbidden(None))


# ------------------------------------------------------------------ declarations
@pytest.mark.parametrize("game", game_names())
def test_every_int_option_declares_a_finite_range(game: str) -> None:
    for option in get_game(game).options:
        if option.kind != "int":
            continue
        assert option.minimum is not None, f"{game} option {option.name} has no minimum"
        assert option.maximum is not None, f"{game} option {option.name} has no maximum"
        assert option.minimum <= option.maximum < 10**6
        if option.default is None:
            assert option.nullable
        else:
            assert option.minimum <= option.default <= option.maximum
        assert option.describe_valid().startswith(f"an integer {range_words(option)}")


# ------------------------------------------------------------------ the rules
@pytest.mark.parametrize("game, name", INT_OPTIONS)
def test_make_rules_refuses_every_value_outside_the_range(
    game: str, name: str, no_core: None
) -> None:
    hex_game = get_game(game)
    option = option_of(game, name)
    for value in bad_values(option):
        with pytest.raises(ValueError) as refused:
            hex_game.make_rules(**{name: value})
        assert option.name in str(refused.value) and len(str(refused.value)) <= SHORT
        with pytest.raises(ValueError):
            hex_game.new(**{name: value})  # no core is built first (see no_core)
    with pytest.raises(ValueError) as huge:
        hex_game.make_rules(**{name: 10**5000})  # repr() of it would raise by itself
    assert "digits" in str(huge.value) and len(str(huge.value)) <= SHORT


@pytest.mark.parametrize("game, name", INT_OPTIONS)
def test_the_bounds_themselves_are_accepted(game: str, name: str) -> None:
    hex_game = get_game(game)
    option = option_of(game, name)
    for value in (option.minimum, option.maximum):
        rules = hex_game.make_rules(**{name: value})
        assert hex_game.rules_options(rules)[name] == value


@pytest.mark.parametrize("game", game_names())
def test_a_game_with_every_option_at_its_maximum_plays(game: str) -> None:
    hex_game = get_game(game)
    largest = {o.name: o.maximum for o in hex_game.options if o.kind == "int"}
    position = hex_game.new(**largest)
    action = next(iter(position.legal_actions()))
    position.play(action)
    assert position.ply == 1
    assert hex_game.max_game_length(position.rules) < 2**31  # OpenSpiel's int


# ------------------------------------------------------------------ command line
@pytest.mark.parametrize("game, name", INT_OPTIONS)
def test_the_command_line_refuses_out_of_range_options(
    game: str, name: str, no_core: None, capsys: pytest.CaptureFixture[str]
) -> None:
    option = option_of(game, name)
    for value in bad_values(option):
        with pytest.raises(ValueError) as refused:
            parse_settings(get_game(game), [f"{name}={value}"])
        assert_names_range(str(refused.value), option)
    assert cli_main(["play", game, "--set", f"{name}={DIGITS_5000}"]) == 2
    said = capsys.readouterr()
    message = said.out + said.err
    assert_names_range(message.strip().removeprefix("error: "), option)


# ------------------------------------------------------------------ research adapters
@pytest.mark.parametrize("game, name", INT_OPTIONS)
def test_the_research_adapters_refuse_out_of_range_options(
    game: str, name: str, no_core: None
) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo")
    from hexgames.integrations import openspiel as hex_openspiel
    from hexgames.integrations.pettingzoo import environment_module
    from hexgames.integrations.vector import VectorEnv

    option = option_of(game, name)
    game_class = hex_openspiel.register(game)
    off = hex_openspiel.off_value(option) if option.nullable else None
    for value in bad_values(option):
        with pytest.raises(ValueError) as refused:
            environment_module(game).env(**{name: value})
        assert_names_range(str(refused.value), option)
        with pytest.raises(ValueError) as refused:
            VectorEnv(game, 2, **{name: value})
        assert_names_range(str(refused.value), option)
        if isinstance(value, str) or value == off:
            continue  # OpenSpiel parameters are typed: 0 means "off" for a nullable one
        with pytest.raises(ValueError) as refused:
            game_class({name: value})
        assert_names_range(str(refused.value), option)
        if abs(value) < 2**31:
            with pytest.raises(ValueError) as refused:
                pyspiel.load_game(f"{game}({name}={value})")
            assert_names_range(str(refused.value), option)
        else:  # OpenSpiel's own parameter parser refuses it before the adapter sees it
            with pytest.raises((pyspiel.SpielError, RuntimeError, ValueError)):
                pyspiel.load_game(f"{game}({name}={value})")


@pytest.mark.parametrize("game, name", INT_OPTIONS)
def test_openspiel_accepts_the_maximum(game: str, name: str) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from hexgames.integrations import openspiel  # noqa: F401 - registers the games

    option = option_of(game, name)
    loaded = pyspiel.load_game(f"{game}({name}={option.maximum})")
    assert loaded.get_parameters()[name] == option.maximum


# ------------------------------------------------------------------ web
@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as test_client:
        yield test_client


def refused_bodies(game: str, name: str) -> list[dict[str, Any]]:
    return [{"game": game, "options": {name: value}}
            for value in bad_values(option_of(game, name))]


@pytest.mark.parametrize("game, name", INT_OPTIONS)
def test_the_web_refuses_out_of_range_options_for_games_and_challenges(
    client: TestClient, game: str, name: str
) -> None:
    option = option_of(game, name)
    for path in ("/api/games", "/api/seeks"):
        for body in refused_bodies(game, name):
            response = client.post(path, json=body)
            assert response.status_code == 400, (path, body["options"], response.text)
            assert_names_range(response.json()["error"], option)
        # a 5000-digit JSON number (not a string): refused as the client's fault too
        raw = f'{{"game": "{game}", "options": {{"{name}": {DIGITS_5000}}}}}'
        response = client.post(path, content=raw,
                               headers={"content-type": "application/json"})
        assert 400 <= response.status_code < 500, (path, response.text)
    assert client.get("/api/seeks").json()["seeks"] == []  # nothing refused was listed
    # the server answers normal requests afterwards, and the maximum itself is accepted
    created = client.post("/api/games", json={"game": game, "options": {name: option.maximum}})
    assert created.status_code == 201, created.text
    shown = client.get(f"/api/games/{created.json()['id']}").json()
    assert shown["options"][name] == option.maximum
    posted = client.post("/api/seeks", json={"game": game, "options": {name: option.maximum}})
    assert posted.status_code == 201, posted.text
    assert [s["id"] for s in client.get("/api/seeks").json()["seeks"]] == [posted.json()["id"]]
    assert client.post("/api/games", json={"game": game}).status_code == 201


@pytest.mark.parametrize("game, name", INT_OPTIONS)
def test_the_editor_refuses_out_of_range_options(
    client: TestClient, game: str, name: str
) -> None:
    option = option_of(game, name)
    for body in refused_bodies(game, name):
        response = client.post("/api/editor/spec", json=body)
        assert response.status_code == 400, response.text
        assert_names_range(response.json()["error"], option)
        response = client.post("/api/analysis/position", json={**body, "actions": []})
        assert response.status_code == 400, response.text
        assert_names_range(response.json()["error"], option)


def test_a_stored_challenge_with_options_out_of_range_is_refused_on_accept(
    client: TestClient
) -> None:
    """A challenge stored before the bounds existed (``quiet_limit=10**9``) must not
    build its game: accepting it is a 400 naming the option, and the server lives on."""
    posted = client.post("/api/seeks", json={"game": "dendria"})
    assert posted.status_code == 201, posted.text
    storage = client.app.state.site.service.storage
    valid = storage.load_seek(posted.json()["id"])
    seek = replace(valid, id=valid.id + "x", options={**valid.options, "quiet_limit": 10**9})
    storage.create_seek(seek)
    saved = client.cookies
    client.cookies = httpx.Cookies()  # another visitor accepts it
    try:
        response = client.post(f"/api/seeks/{seek.id}/accept")
    finally:
        client.cookies = saved
    assert response.status_code == 400, response.text
    assert_names_range(response.json()["error"], option_of("dendria", "quiet_limit"))
    assert client.post("/api/games", json={"game": "dendria"}).status_code == 201
