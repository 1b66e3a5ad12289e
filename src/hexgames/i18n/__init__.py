"""The languages the site speaks: catalogs, choosing a language, translating phrases.

English is the source language: every message is written in English in the code (marked
``_()``/``N_()`` in Python, ``t()``/``tn()`` in the site's scripts, ``_()`` in the page
templates) and ``tools/i18n.py extract`` gathers them into ``messages.pot``. Each other
language has a gettext catalog next to this module (``ko.po``, ``pt.po``), read with
Babel at first use. The long texts (each game's rules guide) are translated as whole
files instead (``guide.ko.md`` beside ``guide.md``), because a guide is read as prose,
not looked up sentence by sentence.

Notation (point names, actions, the board-text format) is the same in every language.
"""

from __future__ import annotations

import gettext as _gettext
import io
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hexgames.phrases import Phrase

HERE = Path(__file__).parent

LANGUAGES: dict[str, str] = {"en": "English", "ko": "한국어", "pt": "Português"}
"""Language code -> the language's name in itself (what the switch shows)."""

DEFAULT_LANGUAGE = "en"

MAX_ACCEPT_LANGUAGE = 400
"""Longer ``Accept-Language`` headers are cut before parsing (a header is hostile input)."""


def catalog_path(language: str) -> Path:
    return HERE / f"{language}.po"


def template_path() -> Path:
    return HERE / "messages.pot"


def normalize(code: str | None) -> str | None:
    """``"pt-BR"`` -> ``"pt"``, ``"KO"`` -> ``"ko"``; ``None`` for a language not spoken."""
    if not code:
        return None
    base = code.strip().lower().replace("_", "-").split("-", 1)[0][:8]
    return base if base in LANGUAGES else None


def negotiate(accept_language: str | None) -> str:
    """The best language for an ``Accept-Language`` header (RFC 9110 weights).

    The weights are read here (Babel has no public parser for the header); choosing
    among the ranked codes (``pt-BR`` -> ``pt``) is Babel's :func:`negotiate_locale`."""
    if not accept_language:
        return DEFAULT_LANGUAGE
    from babel.core import negotiate_locale  # Babel is needed only when a header is sent

    chosen = negotiate_locale(_ranked_codes(accept_language), list(LANGUAGES), sep="-",
                              aliases={})  # no aliases: "pt" is pt, not pt_PT
    return normalize(chosen) or DEFAULT_LANGUAGE


def _ranked_codes(accept_language: str) -> list[str]:
    """The header's language codes, best first (weight, then order), without those of
    weight 0 or a weight out of range; only the first ``MAX_ACCEPT_LANGUAGE`` characters
    and 20 items are read."""
    choices: list[tuple[float, int, str]] = []
    for order, item in enumerate(accept_language[:MAX_ACCEPT_LANGUAGE].split(",")[:20]):
        code, _, rest = item.strip().partition(";")
        weight = 1.0
        for parameter in rest.split(";"):
            name, _, value = parameter.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        code = code.strip().replace("_", "-")
        if code and 0.0 < weight <= 1.0:
            choices.append((-weight, order, code))
    return [code for _, _, code in sorted(choices)]


@dataclass(frozen=True)
class Entry:
    """One message of a catalog: the English ``msgid`` (and plural) and its forms."""

    msgid: str
    plural: str | None
    forms: tuple[str, ...]
    locations: tuple[str, ...]


@cache
def _catalog(language: str) -> Any:
    """``language``'s Babel catalog, or ``None`` (English, or no catalog)."""
    path = catalog_path(language)
    if language == DEFAULT_LANGUAGE or language not in LANGUAGES or not path.exists():
        return None
    from babel.messages.pofile import read_po  # Babel is needed only to read a catalog

    with path.open("rb") as handle:
        return read_po(handle, locale=language)


PLURAL_ORDER = ("zero", "one", "two", "few", "many", "other")
"""CLDR's plural categories in the order Babel numbers them when it writes a catalog's
``Plural-Forms`` (tests/test_i18n.py checks this order against the catalogs' own
expressions, through public APIs only)."""


def plural_categories(language: str) -> list[str]:
    """The CLDR plural categories of ``language`` in gettext's order: a catalog's
    ``msgstr[i]`` is the form for category ``i`` (Babel writes ``Plural-Forms`` so)."""
    from babel import Locale

    tags = Locale.parse(normalize(language) or DEFAULT_LANGUAGE).plural_form.tags | {"other"}
    return [tag for tag in PLURAL_ORDER if tag in tags]


def plural_count(language: str) -> int:
    """How many plural forms ``language`` has (its catalog's ``Plural-Forms``)."""
    catalog = _catalog(language)
    return 2 if catalog is None else int(catalog.num_plurals)


@cache
def entries(language: str) -> tuple[Entry, ...]:
    """The translated messages of ``language``'s catalog (nothing for English)."""
    catalog = _catalog(language)
    if catalog is None:
        return ()
    found = []
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, tuple):
            forms = tuple(message.string or ())
            if all(forms):
                found.append(Entry(message.id[0], message.id[1], forms,
                                   tuple(path for path, _ in message.locations)))
        elif message.string:
            found.append(Entry(message.id, None, (str(message.string),),
                               tuple(path for path, _ in message.locations)))
    return tuple(found)


@cache
def translations(language: str) -> _gettext.NullTranslations:
    """Standard :mod:`gettext` translations for ``language`` (compiled in memory from
    its ``.po``, so there is no build step); English is the identity."""
    catalog = _catalog(normalize(language) or DEFAULT_LANGUAGE)
    if catalog is None:
        return _gettext.NullTranslations()
    from babel.messages.mofile import write_mo

    buffer = io.BytesIO()
    write_mo(buffer, catalog)  # fuzzy entries are left out
    buffer.seek(0)
    return _gettext.GNUTranslations(buffer)


@dataclass(frozen=True)
class Translator:
    """Everything a page or a response needs to speak one language."""

    language: str

    @property
    def _translations(self) -> _gettext.NullTranslations:
        return translations(self.language)

    def gettext(self, message: str) -> str:
        return self._translations.gettext(message)

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        return self._translations.ngettext(singular, plural, count)

    def text(self, message: Any) -> str:
        """A :class:`Phrase` rendered in this language; a plain string looked up as a
        whole (a message written without values); anything else as ``str``."""
        if isinstance(message, Phrase):
            return message.render(self.gettext, self.ngettext)
        text = str(message)
        return self.gettext(text) if text else text


def translator(language: str | None) -> Translator:
    return Translator(normalize(language) or DEFAULT_LANGUAGE)


def script_catalog(language: str) -> dict[str, Any]:
    """What the site's scripts need of a catalog: every translated message
    (``msgid -> msgstr``, or the list of plural forms; all of them, so that a script may
    look up a word the server sent, such as a colour's name) and the plural categories."""
    language = normalize(language) or DEFAULT_LANGUAGE
    messages: dict[str, Any] = {}
    for entry in entries(language):
        messages[entry.msgid] = list(entry.forms) if entry.plural is not None else entry.forms[0]
    return {"language": language, "plurals": plural_categories(language), "messages": messages}


def guide_path(english: Path, language: str) -> Path:
    """``guide.md`` -> ``guide.ko.md`` when translated, else the English file."""
    language = normalize(language) or DEFAULT_LANGUAGE
    if language != DEFAULT_LANGUAGE:
        translated = english.with_name(f"{english.stem}.{language}{english.suffix}")
        if translated.exists():
            return translated
    return english
