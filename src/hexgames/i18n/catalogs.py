"""Keeping the catalogs whole: extract every message, merge it into each language's
``.po``, and list what a language lacks (a missing or stale translation, a placeholder
lost on the way). ``tools/i18n.py`` runs these; a test fails on any gap.

Where messages come from (all under ``src/hexgames``):

* Python: ``_()``, ``N_()``, ``Phrase()``, ``nphrase()`` and
  ``IllegalAction()`` with a literal first argument;
* the site's scripts (``web/static/js``): ``t("...")`` and ``tn("one", "other", n)``;
* the page templates (``web/templates``): ``{{ _("...") }}``.
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from hexgames.i18n import DEFAULT_LANGUAGE, LANGUAGES, catalog_path, template_path

PACKAGE = Path(__file__).resolve().parent.parent

METHODS = [
    ("web/static/js/**.js", "javascript"),
    ("web/templates/**.html", "jinja2.ext:babel_extract"),
    ("**.py", "python"),
]
KEYWORDS = {
    "_": None,
    "N_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "Phrase": None,
    "nphrase": (1, 2),
    "IllegalAction": None,
    "t": None,
    "tn": (1, 2),
}
OPTIONS = {"web/templates/**.html": {"autoescape": "true"}}


def extract() -> Catalog:
    """Every message in the package's code, scripts and templates (the ``.pot``)."""
    catalog = Catalog(project="hexgames", locale=None, charset="utf-8", fuzzy=False)
    found = extract_from_dir(str(PACKAGE), METHODS, OPTIONS, KEYWORDS,
                             comment_tags=("i18n:",), strip_comment_tags=True)
    for filename, line, message, comments, context in found:
        if isinstance(message, tuple) and not all(message):
            continue
        if not message:
            continue
        catalog.add(message, None, [(f"src/hexgames/{filename}", line)],
                    auto_comments=comments, context=context)
    return catalog


def write(catalog: Catalog, path: Path) -> None:
    with path.open("wb") as handle:
        write_po(handle, catalog, width=100, sort_output=False, omit_header=False)


def read(language: str) -> Catalog:
    path = catalog_path(language)
    with path.open("rb") as handle:
        return read_po(handle, locale=language)


def update(languages: list[str] | None = None) -> list[Path]:
    """Write ``messages.pot`` and merge it into each language's ``.po`` (new messages
    empty, changed ones marked fuzzy, gone ones dropped)."""
    template = extract()
    write(template, template_path())
    written = [template_path()]
    for language in languages or list(LANGUAGES):
        if language == DEFAULT_LANGUAGE:
            continue
        path = catalog_path(language)
        if path.exists():
            with path.open("rb") as handle:
                catalog = read_po(handle, locale=language)
        else:
            catalog = Catalog(locale=language, project="hexgames", charset="utf-8")
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        write(catalog, path)
        written.append(path)
    return written


def ids(message: Message) -> tuple[str, str | None]:
    """``(msgid, plural msgid or None)`` of a catalog entry."""
    if isinstance(message.id, (tuple, list)):
        return str(message.id[0]), str(message.id[1])
    return str(message.id), None


def forms_of(message: Message) -> tuple[str, ...]:
    """A catalog entry's translation (each plural form), ``""`` where empty."""
    if isinstance(message.string, (tuple, list)):
        return tuple(str(form or "") for form in message.string)
    return (str(message.string or ""),)


def todo(language: str) -> dict[str, list[str] | str]:
    """The messages ``language`` lacks, as ``msgid -> ""`` (or, for a plural message,
    ``msgid -> [msgid, plural, "" per form]``): the input of :func:`fill`."""
    catalog = read(language)
    wanted: dict[str, list[str] | str] = {}
    for message in catalog:
        if not message.id:
            continue
        if message.fuzzy or not all(forms_of(message)):
            msgid, plural = ids(message)
            if plural is not None:
                wanted[msgid] = [msgid, plural] + [""] * catalog.num_plurals
            else:
                wanted[msgid] = ""
    return wanted


def fill(language: str, translations: dict[str, list[str] | str]) -> int:
    """Set translations (``msgid -> text``; for a plural message the list from
    :func:`todo` with its forms filled in, or just the forms) and clear their fuzzy
    marks. Returns how many messages were set; unknown msgids are ignored."""
    catalog = read(language)
    count = 0
    for message in catalog:
        if not message.id:
            continue
        key, plural = ids(message)
        given = translations.get(key)
        if not given:
            continue
        if plural is not None:
            forms = list(given) if isinstance(given, list) else [given]
            if len(forms) == catalog.num_plurals + 2 and forms[:2] == [key, plural]:
                forms = forms[2:]
            if len(forms) < catalog.num_plurals:
                forms += [forms[-1]] * (catalog.num_plurals - len(forms))
            message.string = tuple(forms[: catalog.num_plurals])
        else:
            message.string = given if isinstance(given, str) else given[-1]
        message.flags.discard("fuzzy")
        count += 1
    write(catalog, catalog_path(language))
    return count


@dataclass(frozen=True)
class Gap:
    language: str
    msgid: str
    problem: str

    def __str__(self) -> str:
        return f"{self.language}: {self.problem}: {self.msgid[:80]!r}"


def fields(text: str) -> set[str]:
    """The ``{placeholders}`` of a message (``{{`` escapes excluded)."""
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return {"<unbalanced braces>"}


def gaps(language: str, template: Catalog | None = None) -> Iterator[Gap]:
    """What ``language`` lacks against the messages in the code now."""
    template = extract() if template is None else template
    path = catalog_path(language)
    if not path.exists():
        yield Gap(language, str(path), "no catalog")
        return
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=language)
    for message in template:
        if not message.id:
            continue
        msgid, plural = ids(message)
        found = catalog.get(message.id)
        if found is None or not any(forms_of(found)):
            yield Gap(language, msgid, "missing")
            continue
        if found.fuzzy:
            yield Gap(language, msgid, "fuzzy (the English changed)")
            continue
        forms = forms_of(found)
        if not all(forms):
            yield Gap(language, msgid, "a plural form is empty")
            continue
        wanted = fields(msgid) | (fields(plural) if plural is not None else set())
        for form in forms:
            have = fields(form)
            if not have <= wanted or not (wanted - {"n"}) <= have:
                yield Gap(language, msgid, f"placeholders {sorted(have)} != {sorted(wanted)}")
                break
