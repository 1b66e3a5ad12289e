"""Words meant for a player, kept translatable: :class:`Phrase` and the ``N_`` marker.

The engines, lessons and server explain themselves in English. A message that a player
may read in another language is built as a :class:`Phrase`: an English template with
named ``{placeholders}`` plus its values, so that the site can look the template up in a
catalog (:mod:`hexgames.i18n`) and fill in the same values. ``str(phrase)`` is the
English text, so a library user who never translates sees exactly what they always did.

:func:`nphrase` is the plural form (a template per count). ``N_`` marks a literal for
the catalog extractor (``tools/i18n.py update``) without translating it where it stands:
the language is known only where a player reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def N_(message: str) -> str:
    """Mark ``message`` for the catalog; it is translated later, where it is shown."""
    return message


class Phrase:
    """An English template, its values, and (optionally) a plural form.

    Values that are themselves phrases are translated too (a colour name, a reason
    inside a reason); any other value (a point name, a number) is inserted as it is:
    notation stays the same in every language.
    """

    __slots__ = ("count", "params", "plural", "template")

    def __init__(self, template: str, /, **params: Any) -> None:
        self.template = template
        self.plural: str | None = None
        self.count: int | None = None
        self.params: Mapping[str, Any] = params

    def render(self, gettext: Callable[[str], str],
               ngettext: Callable[[str, str, int], str]) -> str:
        """The phrase in the language of ``gettext``/``ngettext``; English where the
        catalog has no (or a broken) translation, never an exception."""
        values = {key: value.render(gettext, ngettext) if isinstance(value, Phrase) else value
                  for key, value in self.params.items()}
        if self.plural is not None and self.count is not None:
            template = ngettext(self.template, self.plural, self.count)
        else:
            template = gettext(self.template)
        try:
            return template.format(**values)
        except (KeyError, IndexError, ValueError, AttributeError):
            return self.english()

    def english(self) -> str:
        values = {key: str(value) for key, value in self.params.items()}
        template = self.template
        if self.plural is not None and self.count is not None and self.count != 1:
            template = self.plural
        try:
            return template.format(**values)
        except (KeyError, IndexError, ValueError, AttributeError):
            return template

    def __str__(self) -> str:
        return self.english()

    def __repr__(self) -> str:
        return f"Phrase({self.english()!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Phrase):
            return self.english() == other.english()
        if isinstance(other, str):
            return self.english() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.english())


def nphrase(singular: str, plural: str, count: int, /, **params: Any) -> Phrase:
    """A phrase whose wording depends on ``count`` (given to the template as ``{n}``),
    like gettext's ``ngettext``: ``nphrase("{n} checker", "{n} checkers", 3)``."""
    phrase = Phrase(singular, n=count, **params)
    phrase.plural, phrase.count = plural, count
    return phrase


Text = str | Phrase
"""What a player reads: plain English, or a translatable :class:`Phrase`."""
