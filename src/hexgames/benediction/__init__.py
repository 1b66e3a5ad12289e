"""Benediction (Alek Erickson): an exact, fast rules engine and its formats.

>>> from hexgames.benediction import Position
>>> p = Position.initial()
>>> p.play("e3e4")
>>> p.to_move
'blue'

Modules: :mod:`.rules` (options), :mod:`.actions` (actions and notation),
:mod:`.position` (the engine), :mod:`.textformat` (board text), :mod:`.records` (game
records), :mod:`.render` (terminal and SVG drawings), :mod:`.gestures` (web input),
:mod:`.evaluation` (AI knowledge), :mod:`.encoding` (research action ids/observations),
:mod:`.spec` (the :class:`hexgames.game.Game` description).
"""

from __future__ import annotations

import importlib
from typing import Any

from hexgames.benediction.actions import Action
from hexgames.benediction.position import Man, Position, Termination
from hexgames.benediction.rules import Rules

__all__ = [
    "GAME",
    "Action",
    "Man",
    "Position",
    "Rules",
    "Termination",
    "read_record",
    "svg",
    "write_record",
]

_LAZY = {
    "GAME": "hexgames.benediction.spec",
    "svg": "hexgames.benediction.render",
    "ascii_board": "hexgames.benediction.render",
    "read_record": "hexgames.benediction.records",
    "write_record": "hexgames.benediction.records",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
