"""Exceptions shared by every game engine.

An action that a position refuses raises :class:`IllegalAction`. It subclasses
``ValueError`` so that callers who only care about "bad input" can catch that, while
the web server and the terminal game can tell a refused action from a programming error.
A refused action never changes the position.

The reason may be given as a :class:`~hexgames.phrases.Phrase` (a template and its
values) so that the site can show it in the player's language; ``str(error)`` is always
the English text.
"""

from __future__ import annotations

from typing import Any

from hexgames.phrases import Phrase


class IllegalAction(ValueError):
    """An action was malformed or is not legal in the current position.

    The message names the reason in words a player understands, e.g.
    ``"e4 is locked: it already moved this turn"``.
    """

    def __init__(self, reason: str | Phrase = "", /, **params: Any) -> None:
        """``IllegalAction("{point} is empty", point="e4")`` or ``IllegalAction(phrase)``;
        a plain string with no values still works (it is shown in English)."""
        if isinstance(reason, Phrase):
            phrase = reason
        elif params:
            phrase = Phrase(reason, **params)
        else:
            phrase = Phrase(reason.replace("{", "{{").replace("}", "}}"))
        self.phrase = phrase
        super().__init__(str(phrase))
