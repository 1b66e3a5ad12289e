"""Turning the options a browser sends into a game's validated rules options.

The form is generated from ``Game.options``, so this is the one place that checks what
comes back: unknown names, wrong types and out-of-range values are refused with a message
naming the option, before the game's own ``make_rules`` gets the final say.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hexgames.game import Game, Option, parse_option_value, reason_of
from hexgames.i18n import DEFAULT_LANGUAGE, Translator, translator
from hexgames.phrases import Phrase


def describe_options(game: Game, words: Translator | None = None) -> list[dict[str, Any]]:
    """The options of a game as the home page's form needs them: ``label`` (the name
    in words) and ``help`` in ``words``' language (English by default)."""
    words = words or translator(DEFAULT_LANGUAGE)
    return [
        {
            "name": option.name,
            "label": words.gettext(option.name.replace("_", " ")),
            "kind": option.kind,
            "default": option.default,
            "help": words.text(option.help),
            "minimum": option.minimum,
            "maximum": option.maximum,
            "nullable": option.nullable,
        }
        for option in game.options
    ]


def _coerce(option: Option, raw: Any) -> Any:
    """One browser value as the option's type, range-checked by the option's own
    declaration (:meth:`Option.validate`: the message names the option and its range,
    and quotes a huge value only in part)."""
    if raw is None or (isinstance(raw, str) and not raw.strip() and option.nullable):
        if option.nullable:
            return None
        raise ValueError(Phrase("option {name} needs a value", name=option.name))
    if isinstance(raw, str):
        value = parse_option_value(option, raw)
    elif option.kind == "bool":
        if not isinstance(raw, bool):
            raise option.refusal(raw, "expects")
        value = raw
    elif option.kind == "int":
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise option.refusal(raw, "expects")
        value = raw
    else:
        raise ValueError(Phrase("option {name} has unknown kind {kind}", name=option.name,
                                kind=repr(option.kind)))
    return option.validate(value)


def parse_options(game: Game, raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validated rules options (every option, defaults filled in).

    Raises ``ValueError`` naming the offending option, including options the game does not
    have and combinations its ``make_rules`` refuses.
    """
    raw = dict(raw or {})
    known = {option.name: option for option in game.options}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ValueError(Phrase("{game} has no option {names}; its options are: {options}",
                                game=game.title, names=", ".join(map(repr, unknown)),
                                options=", ".join(known) or "none"))
    chosen = {name: _coerce(option, raw[name]) for name, option in known.items() if name in raw}
    try:
        rules = game.make_rules(**chosen)
    except (TypeError, ValueError) as error:
        raise ValueError(Phrase("invalid options for {game}: {reason}", game=game.title,
                                reason=reason_of(error))) from None
    return dict(game.rules_options(rules))
