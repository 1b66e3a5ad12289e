"""Exceptions shared by every game engine.

An action that a position refuses raises :class:`IllegalAction`. It subclasses
``ValueError`` so that callers who only care about "bad input" can catch that, while
the web server and the terminal game can tell a refused action from a programming error.
A refused action never changes the position.
"""


class IllegalAction(ValueError):
    """An action was malformed or is not legal in the current position.

    The message names the reason in words a player understands, e.g.
    ``"e4 is locked: it already moved this turn"``.
    """
