"""The per-game CSV files of the arena (``results.csv``), the balance report
(``games.csv``) and the sweep (``results.csv``): one scoring convention, written as games
finish.

**Scores.** Every file scores a seat the way Elo and the reports' score rates do:
``seat0_score`` is **1 for a win of seat 0, 0.5 for a draw** (games stopped by the action
cap included) **and 0 for a loss**; ``winning_seat`` is 0, 1 or empty for a draw. Seat 0
acts first. Files written before this convention had only ``seat0_result``, which meant
seat 0's return (+1 / 0 / -1) in ``results.csv`` and the score (1 / 0.5 / 0) in
``games.csv``; each file keeps that column with its old meaning for the scripts that read
it, and :func:`seat0_score` reads either.

**Never lose a run.** :class:`GameLog` appends each game's line as the game finishes and
flushes it, so a run that is interrupted or fails while writing its report keeps every
finished game; :meth:`GameLog.finish` rewrites the file in schedule order at the end.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from hexgames.arena.match import GameResult

__all__ = ["GameLog", "read_rows", "result_columns", "seat0_score", "write_rows"]


def result_columns(result: GameResult, *, legacy_return: bool) -> dict[str, Any]:
    """The columns every per-game file shares, scored by the convention above.

    ``legacy_return``: also write ``seat0_result`` as seat 0's return (+1/0/-1), as
    ``results.csv`` always has; otherwise as the score (``games.csv``'s old column).
    """
    return {
        "game": result.index + 1,
        "seat0": result.players[0],
        "seat1": result.players[1],
        "seat0_score": _number(result.score_of_seat(0)),
        "winning_seat": "" if result.winning_seat is None else result.winning_seat,
        "seat0_result": (_number(result.returns[0]) if legacy_return
                         else _number(result.score_of_seat(0))),
        "turns": result.turns,
        "actions": result.actions,
        "end_reason": result.end_reason,
        "seconds": f"{result.seconds:.2f}",
    }


def _number(value: float) -> str:
    return f"{value:g}"


def seat0_score(row: Mapping[str, str], *, legacy_return: bool) -> float:
    """Seat 0's score (1, 0.5 or 0) from a row of any version of these files.

    ``legacy_return`` says how to read a file that predates ``seat0_score``: True for
    ``results.csv`` (its ``seat0_result`` was the return, +1/0/-1)."""
    if row.get("seat0_score", "") != "":
        value = float(row["seat0_score"])
    elif row.get("seat0_result", "") != "":
        value = float(row["seat0_result"])
        if legacy_return:
            value = (value + 1.0) / 2.0
    else:
        raise ValueError(f"row of game {row.get('game', '?')} has no seat0_score")
    if value not in (0.0, 0.5, 1.0):
        raise ValueError(f"row of game {row.get('game', '?')}: seat 0 scored {value}, "
                         "expected 1, 0.5 or 0")
    return value


def read_rows(path: Path) -> list[dict[str, str]]:
    """Every row of a per-game CSV file."""
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write_rows(path: Path, rows: Sequence[Mapping[str, Any]],
               columns: Sequence[str] | None = None) -> Path:
    """Write ``rows`` (the columns of every row, in order of first appearance, unless
    ``columns`` names them); ``None`` is written empty. Replaces the file at once."""
    names = list(columns or [])
    for row in rows:
        names += [key for key in row if key not in names]
    temporary = path.with_name(path.name + ".partial")
    with temporary.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=names, restval="")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if v is None else v for k, v in row.items()})
    os.replace(temporary, path)
    return path


class GameLog:
    """A per-game CSV file that grows line by line as games finish (see the module)."""

    def __init__(self, path: Path, columns: Sequence[str]) -> None:
        self.path = path
        self.columns = list(columns)
        self._handle: TextIO | None = None
        self._writer: csv.DictWriter[str] | None = None

    def __enter__(self) -> GameLog:
        self._handle = self.path.open("w", newline="", encoding="utf-8")
        self._writer = csv.DictWriter(self._handle, fieldnames=self.columns, restval="")
        self._writer.writeheader()
        self._handle.flush()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def add(self, row: Mapping[str, Any]) -> None:
        """Append one game's line and flush it to the file."""
        if self._writer is None or self._handle is None:
            raise RuntimeError("GameLog.add outside its with-block")
        self._writer.writerow({k: "" if v is None else v for k, v in row.items()})
        self._handle.flush()

    def finish(self, rows: Sequence[Mapping[str, Any]]) -> Path:
        """Rewrite the file with ``rows`` (every game, in schedule order)."""
        self.__exit__(None, None, None)
        return write_rows(self.path, rows, self.columns)
