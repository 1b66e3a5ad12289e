"""``--set option=value`` for the arena and report commands, checked against the game."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hexgames.game import Game, parse_option_value


def parse_settings(game: Game, settings: Iterable[str]) -> dict[str, Any]:
    """Turn ``["size=5", "pie=false"]`` into validated rules options for ``game``.

    ``ValueError`` names the problem: a missing ``=``, an unknown option (listing the
    known ones), a value of the wrong type, or a combination the rules refuse.
    """
    known = {option.name: option for option in game.options}
    options: dict[str, Any] = {}
    for item in settings:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"expected option=value, got {item!r}")
        if name not in known:
            names = ", ".join(sorted(known)) or "none"
            raise ValueError(f"{game.name} has no option {name!r}; its options: {names}")
        options[name] = parse_option_value(known[name], raw)
    game.make_rules(**options)  # let the rules validate ranges and combinations
    return options
