"""Look-alike names: a *skeleton* of a display name, in the spirit of Unicode's UTS #39.

Two names with the same skeleton read the same to a person (``AIice`` with a capital i
and ``Alice``; ``Ann0`` and ``AnnO``; ``rnike`` and ``mike``), so the site refuses a
name whose skeleton is another player's (see :mod:`hexgames.web.http.identity` and the
storage's ``name_skeleton`` column). The skeleton is:

1. the name in NFKC (full-width and other compatibility forms become plain letters);
2. each character replaced by its prototype from :data:`PROTOTYPES` (a small table of
   the common look-alikes: capital I, digit 1, ``|`` and the other vertical strokes
   read as ``l``; digit 0 as ``O``; Cyrillic and Greek letters that look like Latin ones
   as those Latin letters), case kept, as UTS #39 does;
3. separators dropped (:data:`SEPARATORS`: hyphen, underscore, dot, spaces and the
   other punctuation: ``Mal-lory`` reads as ``Mallory``);
4. the sequences of :data:`SEQUENCES` (``rn`` reads as ``m``, ``vv`` as ``w``) replaced;
5. case-folded, since names are already unique ignoring case.

Changing any of this changes stored skeletons: :data:`SKELETON_VERSION` is raised with
it, and the storage recomputes every player's skeleton once when it finds an older
version (existing names all stay; only new names and renames are compared).

Not the whole of Unicode's confusables.txt (names are ASCII letters, digits, ``_`` and
``-``; the Cyrillic and Greek rows only matter if that rule is ever relaxed), and no
dependency. A skeleton is only compared, never shown.
"""

from __future__ import annotations

import unicodedata

__all__ = ["PROTOTYPES", "SEPARATORS", "SEQUENCES", "SKELETON_VERSION", "skeleton"]

#: Raised whenever :func:`skeleton` changes (stored skeletons are then recomputed).
SKELETON_VERSION = 2

_GROUPS = {
    # Vertical strokes: capital I, small l, digit 1, pipe, Greek/Cyrillic capital iota/i,
    # dotless i, Cyrillic palochka.
    "l": "Il1|\u0399\u0406\u04c0\u04cf\u0131\u01c0\u2223\u2160\u217c",
    "O": "0O\u039f\u041e\u0555\u2c9e",
    "o": "o\u03bf\u043e\u0585",
    # Cyrillic small letters that look like Latin ones.
    "a": "\u0430\u03b1",
    "c": "\u0441\u03f2",
    "d": "\u0501",
    "e": "\u0435",
    "h": "\u04bb",
    "i": "\u0456\u03b9",
    "j": "\u0458",
    "k": "\u03ba",
    "p": "\u0440\u03c1",
    "q": "\u051b",
    "s": "\u0455",
    "u": "\u03c5",
    # y and v read alike in many fonts (``MallorvDY6`` beside ``MalloryDY6``): both v.
    "v": "\u03bdy\u0443\u03b3",
    "w": "\u051d",
    "x": "\u0445\u03c7",
    # Capitals (Cyrillic, then Greek).
    "A": "\u0410\u0391",
    "B": "\u0412\u0392",
    "C": "\u0421\u03f9",
    "E": "\u0415\u0395",
    "H": "\u041d\u0397",
    "J": "\u0408",
    "K": "\u041a\u039a",
    "M": "\u041c\u039c",
    "N": "\u039d",
    "P": "\u0420\u03a1",
    "S": "\u0405",
    "T": "\u0422\u03a4",
    "X": "\u0425\u03a7",
    "V": "Y\u04ae\u03a5",
    "Z": "\u0396",
}
#: Character -> the character it is read as (case kept).
PROTOTYPES: dict[str, str] = {
    char: prototype for prototype, chars in _GROUPS.items() for char in chars
    if char != prototype
}
#: Characters a reader skips when comparing names (any Unicode punctuation, space or
#: control character is dropped too: see :func:`_kept`).
SEPARATORS = "-_.\u2010\u2011\u2012\u2013\u2014\u00b7 "
#: Letter pairs read as one letter (after :data:`PROTOTYPES`, before case folding).
SEQUENCES = (("rn", "m"), ("vv", "w"))


def skeleton(name: str) -> str:
    """The form two look-alike names share (``skeleton("AIice") == skeleton("alice")``)."""
    text = unicodedata.normalize("NFKC", name.strip())
    text = "".join(PROTOTYPES.get(char, char) for char in text if _kept(char))
    for sequence, prototype in SEQUENCES:
        text = text.replace(sequence, prototype)
    return text.casefold()


def _kept(char: str) -> bool:
    """Not a separator: letters, digits and symbols are read; punctuation (``-``, ``_``,
    ``.``...), spaces and control characters are not. The vertical strokes of
    :data:`PROTOTYPES` (``|``...) are kept: they read as ``l``."""
    if char in PROTOTYPES:
        return True
    return char not in SEPARATORS and unicodedata.category(char)[0] not in "PZC"
