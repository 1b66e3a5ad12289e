"""OpenSpiel parameters of a hexgames game, and back to its rules options.

Every rules option of a game is an OpenSpiel parameter with the option's default.
OpenSpiel parameters cannot be ``None``, so a nullable option is "off" when its parameter
is :func:`off_value`. :data:`ADAPTER_PARAMETERS` are the adapter's own parameters, the
same for every game. Used by :mod:`hexgames.integrations.openspiel`, which re-exports
these names.
"""

from __future__ import annotations

from typing import Any

from hexgames.game import Game, Option, quote_value
from hexgames.integrations import common

__all__ = [
    "ADAPTER_PARAMETERS",
    "adapter_settings",
    "describe_parameter",
    "describe_parameters",
    "off_value",
    "options_from_params",
    "params_from_options",
]


def off_value(option: Option) -> int:
    """The integer that stands for ``None`` ("off") in a nullable int option's parameter.

    ``0`` when the option's values start above zero (the natural "unlimited"), ``-1``
    when they start at zero. An option without a minimum of 0 or more has no free value;
    a game declaring one is refused here rather than silently misread.
    """
    if option.minimum is not None and option.minimum > 0:
        return 0
    if option.minimum == 0:
        return -1
    raise ValueError(
        f"nullable option {option.name!r} may be negative, so no integer is free to mean "
        "'off' in an OpenSpiel parameter"
    )


#: Parameters of the adapter itself, added to every game's options, with their defaults.
ADAPTER_PARAMETERS: dict[str, Any] = {
    "max_actions": common.DEFAULT_MAX_ACTIONS,
    "auto_forced": False,
    "player_relative": False,
    "channels_last": False,
}


def _parameter_default(option: Option) -> Any:
    if option.kind == "bool":
        return bool(option.default)
    if option.kind == "int":
        if option.default is None:
            return off_value(option)
        return int(option.default)
    raise ValueError(f"option {option.name!r} has unsupported kind {option.kind!r}")


def describe_parameter(option: Option) -> str:
    """What values an option's OpenSpiel parameter takes: the option's own range, with
    :func:`off_value` standing for "off" (``"an integer of at least 1, or 0 (off)"``)."""
    text = option.describe_valid()
    if option.nullable and option.kind == "int":
        text = text.replace("or none (off)", f"or {off_value(option)} (off)")
    return text


def describe_parameters(game: Game) -> str:
    """Every parameter of ``game``'s OpenSpiel game with the values it takes."""
    rules = ", ".join(f"{o.name} ({describe_parameter(o)})" for o in game.options)
    return (
        f"{rules}, max_actions (an integer of at least 1, or 0 for the game's own bound), "
        "auto_forced (true or false), player_relative (true or false), "
        "channels_last (true or false)"
    )


def params_from_options(game: Game, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """OpenSpiel parameters for rules ``options``: every rules option (defaults filled
    in) and the adapter's own parameters (:data:`ADAPTER_PARAMETERS`; given values kept)."""
    params = {option.name: _parameter_default(option) for option in game.options}
    params.update(ADAPTER_PARAMETERS)
    for name, value in (options or {}).items():
        if name in ADAPTER_PARAMETERS:
            params[name] = value
            continue
        option = _option(game, name)
        if option.nullable and value is None:
            params[option.name] = off_value(option)
        else:
            params[option.name] = bool(value) if option.kind == "bool" else int(value)
    return params


def options_from_params(game: Game, params: dict[str, Any]) -> dict[str, Any]:
    """Rules options for ``Game.make_rules`` from OpenSpiel parameters (the adapter's own
    parameters are skipped).

    ``ValueError`` names an unknown parameter (listing every parameter and its values)
    or a bad value (saying what the parameter takes, :func:`describe_parameter`)."""
    options: dict[str, Any] = {}
    for name, value in params.items():
        if name in ADAPTER_PARAMETERS:
            continue
        option = _option(game, name)
        if option.kind == "int" and option.nullable and value == off_value(option):
            options[option.name] = None
            continue
        try:
            options[option.name] = option.validate(value)
        except ValueError:
            raise ValueError(
                f"{game.name} parameter {name} must be {describe_parameter(option)}, "
                f"got {quote_value(value)}"
            ) from None
    return options


def adapter_settings(params: dict[str, Any]) -> dict[str, Any]:
    settings = {name: params.get(name, default) for name, default in ADAPTER_PARAMETERS.items()}
    for name in ("auto_forced", "player_relative", "channels_last"):
        if not isinstance(settings[name], bool):
            raise ValueError(f"parameter {name} must be true or false, got {settings[name]!r}")
    max_actions = settings["max_actions"]
    if isinstance(max_actions, bool) or not isinstance(max_actions, int) or max_actions < 0:
        raise ValueError(
            "parameter max_actions must be an integer of at least 1, or 0 for the game's "
            f"own bound, got {max_actions!r}"
        )
    return settings


def _option(game: Game, name: str) -> Option:
    for option in game.options:
        if name == option.name or name in option.aliases:
            return option
    raise ValueError(
        f"{game.name} has no option {name!r}; its parameters are: {describe_parameters(game)}"
    )
