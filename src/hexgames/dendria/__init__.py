"""Dendria (Saïd Galdseid, 2023): an exact rules engine and its formats.

>>> from hexgames.dendria import Position
>>> p = Position.initial()
>>> p.play_turn("g7")
>>> p.to_move
'light'

Modules: :mod:`.rules` (options), :mod:`.steps` (steps and notation), :mod:`.position`
(the engine), :mod:`.board_analysis` (the public whole-board analysis engines build on),
:mod:`.textformat` (position text), :mod:`.records` (game records),
:mod:`.render` (terminal and SVG drawings), :mod:`.gestures` (web input),
:mod:`.evaluation` (AI knowledge), :mod:`.encoding` (research action ids/observations),
:mod:`.spec` (the :class:`hexgames.game.Game` description).
"""

from __future__ import annotations

import importlib
from typing import Any

from hexgames.dendria.board_analysis import Analysis, Group
from hexgames.dendria.position import Piece, Position, Termination
from hexgames.dendria.rules import Rules
from hexgames.dendria.steps import Step

__all__ = [
    "GAME", "Analysis", "Group", "Piece", "Position", "Rules", "Step", "Termination",
    "read_record", "svg", "write_record",
]

_LAZY = {
    "GAME": "hexgames.dendria.spec",
    "svg": "hexgames.dendria.render",
    "ascii_board": "hexgames.dendria.render",
    "read_record": "hexgames.dendria.records",
    "write_record": "hexgames.dendria.records",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
