"""A tournament's settings, checked field by field.

The HTTP layer answers a bad ``POST /api/tournaments`` with a 400 that names the field
(issue 42, "Bad input"), so every check here raises :class:`SettingsError`, a
``ValueError`` that carries the field's name. The game, its rules options and the clock
are the web layer's to check (they belong to the game packages and the lobby); what is
checked here is what makes a tournament a tournament: its kind, its length, its size and
its start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from hexgames.phrases import Phrase

Kind = Literal["arena", "swiss"]
KINDS: tuple[Kind, ...] = ("arena", "swiss")
#: An arena lasts between these many minutes.
MIN_MINUTES, MAX_MINUTES = 10, 360
#: A Swiss has between these many rounds.
MIN_ROUNDS, MAX_ROUNDS = 2, 15
#: The most players a tournament may hold (and the fewest it may be limited to).
MIN_PLAYERS, MAX_PLAYERS = 2, 256
#: The latest a tournament may start after its creation, in seconds (a week).
MAX_STARTS_IN_S = 7 * 24 * 3600
#: The fields a creation request may carry, beside the web layer's own (game, options...).
FIELDS = frozenset({"kind", "minutes", "rounds", "rated", "starts_in_s", "max_players",
                    "berserk", "streaks"})


class SettingsError(ValueError):
    """A tournament setting is missing, of the wrong type or out of range."""

    def __init__(self, field: str, reason: object) -> None:
        self.field = field
        #: Why, a :class:`~hexgames.phrases.Phrase` (translated) or a text as it is.
        self.reason = reason
        super().__init__(Phrase("{field}: {reason}", field=field, reason=reason))


@dataclass(frozen=True)
class TournamentSettings:
    """What a tournament is: an arena of ``minutes`` or a Swiss of ``rounds``."""

    kind: Kind
    minutes: int | None = None
    rounds: int | None = None
    rated: bool = True
    starts_in_s: int = 0
    max_players: int = MAX_PLAYERS
    #: Arena only: whether players may go berserk, and whether win streaks double points.
    berserk: bool = True
    streaks: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise SettingsError("kind", Phrase("must be one of {names}", names=", ".join(KINDS)))
        if self.kind == "arena":
            _range("minutes", self.minutes, MIN_MINUTES, MAX_MINUTES)
            if self.rounds is not None:
                raise SettingsError("rounds", Phrase("an arena has minutes, not rounds"))
        else:
            _range("rounds", self.rounds, MIN_ROUNDS, MAX_ROUNDS)
            if self.minutes is not None:
                raise SettingsError("minutes", Phrase("a Swiss has rounds, not minutes"))
        _flag("rated", self.rated)
        _range("starts_in_s", self.starts_in_s, 0, MAX_STARTS_IN_S)
        _range("max_players", self.max_players, MIN_PLAYERS, MAX_PLAYERS)
        _flag("berserk", self.berserk)
        _flag("streaks", self.streaks)

    @classmethod
    def from_mapping(cls, data: Mapping[str, object]) -> TournamentSettings:
        """Settings from decoded JSON, ``SettingsError`` for an unknown field or a bad value
        (only the fields of :data:`FIELDS` are read; the caller takes its own out first)."""
        unknown = sorted(set(data) - FIELDS)
        if unknown:
            raise SettingsError(unknown[0], Phrase("unknown field"))
        if "kind" not in data:
            raise SettingsError("kind", Phrase("is required"))
        kind = data["kind"]
        if not isinstance(kind, str) or kind not in KINDS:
            raise SettingsError("kind", Phrase("must be one of {names}", names=", ".join(KINDS)))
        values = {name: data[name] for name in FIELDS - {"kind"} if name in data}
        return cls(kind, **values)  # type: ignore[arg-type]  # __post_init__ checks them


def _range(field: str, value: object, low: int, high: int) -> None:
    if value is None:
        raise SettingsError(field, Phrase("is required"))
    if not isinstance(value, int) or isinstance(value, bool):
        raise SettingsError(field, Phrase("must be a whole number"))
    if not low <= value <= high:
        raise SettingsError(field, Phrase("must be between {low} and {high}", low=low,
                                          high=high))


def _flag(field: str, value: object) -> None:
    if not isinstance(value, bool):
        raise SettingsError(field, Phrase("must be true or false"))
