"""Tournament settings (hexgames.web.tournaments.model): every bad field is named."""

from __future__ import annotations

import pytest

from hexgames.web.tournaments.model import (
    MAX_MINUTES,
    MAX_PLAYERS,
    MAX_ROUNDS,
    SettingsError,
    TournamentSettings,
)


def test_an_arena_and_a_swiss() -> None:
    arena = TournamentSettings.from_mapping({"kind": "arena", "minutes": 60, "rated": False})
    assert arena.minutes == 60 and arena.rounds is None and not arena.rated and arena.berserk
    swiss = TournamentSettings.from_mapping({"kind": "swiss", "rounds": 5, "max_players": 16,
                                             "starts_in_s": 600})
    assert swiss.rounds == 5 and swiss.max_players == 16 and swiss.starts_in_s == 600


@pytest.mark.parametrize(("data", "field"), [
    ({}, "kind"),
    ({"kind": "knockout", "rounds": 3}, "kind"),
    ({"kind": 3}, "kind"),
    ({"kind": "arena"}, "minutes"),
    ({"kind": "arena", "minutes": MAX_MINUTES + 1}, "minutes"),
    ({"kind": "arena", "minutes": 5}, "minutes"),
    ({"kind": "arena", "minutes": "60"}, "minutes"),
    ({"kind": "arena", "minutes": 60.0}, "minutes"),
    ({"kind": "arena", "minutes": True}, "minutes"),
    ({"kind": "arena", "minutes": 60, "rounds": 3}, "rounds"),
    ({"kind": "swiss"}, "rounds"),
    ({"kind": "swiss", "rounds": MAX_ROUNDS + 1}, "rounds"),
    ({"kind": "swiss", "rounds": 1}, "rounds"),
    ({"kind": "swiss", "rounds": 3, "minutes": 60}, "minutes"),
    ({"kind": "swiss", "rounds": 3, "rated": "yes"}, "rated"),
    ({"kind": "swiss", "rounds": 3, "starts_in_s": -1}, "starts_in_s"),
    ({"kind": "swiss", "rounds": 3, "starts_in_s": 10**9}, "starts_in_s"),
    ({"kind": "swiss", "rounds": 3, "max_players": MAX_PLAYERS + 1}, "max_players"),
    ({"kind": "swiss", "rounds": 3, "max_players": 1}, "max_players"),
    ({"kind": "arena", "minutes": 60, "berserk": 1}, "berserk"),
    ({"kind": "arena", "minutes": 60, "streaks": None}, "streaks"),
    ({"kind": "arena", "minutes": 60, "colour": "red"}, "colour"),
])
def test_bad_settings_name_the_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(SettingsError) as raised:
        TournamentSettings.from_mapping(data)
    assert raised.value.field == field
    assert str(raised.value).startswith(f"{field}: ")
    assert isinstance(raised.value, ValueError)


def test_the_dataclass_checks_itself_too() -> None:
    with pytest.raises(SettingsError, match="rounds"):
        TournamentSettings("swiss", rounds=0)
