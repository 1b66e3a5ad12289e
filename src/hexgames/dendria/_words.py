"""The words of Dendria's messages to players: colours, pieces and step kinds as
translatable :class:`~hexgames.phrases.Phrase` values.

A message about a piece names it as a word (``"dark seed"``), never as notation, so the
site can show it in the player's language; ``str()`` of each word is the English the
engine always used.
"""

from __future__ import annotations

from hexgames.phrases import N_, Phrase

#: Colours as the rules' messages name them, in lower case (``"the dark seedbed"``).
COLOR_WORDS: dict[str, str] = {
    # i18n: a colour of Dendria's pieces, in lower case inside a sentence
    "dark": N_("dark"),
    # i18n: a colour of Dendria's pieces, in lower case inside a sentence
    "light": N_("light"),
}

#: Colours as a player's name (``"Dark wins"``).
COLOR_TITLES: dict[str, str] = {"dark": N_("Dark"), "light": N_("Light")}

#: The contents of a cell by piece code (0 empty, then the dark and the light pieces).
PIECE_WORDS: tuple[str, ...] = (
    # i18n: what a cell holds: nothing
    N_("empty"),
    N_("dark seed"), N_("dark tree"), N_("dark dendrid"),
    N_("light seed"), N_("light tree"), N_("light dendrid"),
)

#: Step kinds as nouns (``"a plant starts a turn"``).
STEP_WORDS: dict[str, str] = {
    # i18n: a Dendria step kind, as a noun ("a plant starts a turn")
    "plant": N_("plant"),
    # i18n: a Dendria step kind: the first leg of a dendrid move
    "leg": N_("leg"),
    # i18n: a Dendria step kind: a dendrid's move going on after a stop
    "continue": N_("continue"),
    "sprout": N_("sprout"),
    "grow": N_("grow"),
    "convert": N_("convert"),
    # i18n: a Dendria step kind: ending the turn
    "end": N_("end"),
    # i18n: a Dendria step kind: passing the whole turn
    "pass": N_("pass"),
    # i18n: a Dendria step kind: the pie rule's exchange of colours
    "swap": N_("swap"),
}


def _word(table: dict[str, str], name: str) -> Phrase:
    return Phrase(table[name]) if name in table else Phrase(
        name.replace("{", "{{").replace("}", "}}"))


def color_word(color: str) -> Phrase:
    """``"dark"``/``"light"`` as a word of a sentence."""
    return _word(COLOR_WORDS, color)


def color_title(color: str) -> Phrase:
    """``"Dark"``/``"Light"``: a colour as a player's name."""
    return _word(COLOR_TITLES, color)


def piece_word(code: int) -> Phrase:
    """What a cell holding piece code ``code`` holds (``"dark seed"``, ``"empty"``)."""
    return Phrase(PIECE_WORDS[code])


def step_word(kind: str) -> Phrase:
    """A step kind as a noun."""
    return _word(STEP_WORDS, kind)
