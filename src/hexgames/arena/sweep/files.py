"""What a variant sweep writes while it runs, and reads back to rebuild its report.

A sweep may play for hours; its report must never be lost to a failure after the games.
So a sweep writes, into its output folder:

* ``sweep.json`` before the first game: the run's settings (game, grid, fixed options,
  players, skill trace, games per variant, seed, action cap), and its duration once done;
* each game's record (``games/<variant>/game-0001.txt``, the skill trace's in
  ``games/<variant>/trace-<player>/``) and its line in ``results.csv`` as the game
  finishes (:class:`~hexgames.arena.gamecsv.GameLog`; scores as :mod:`hexgames.arena.gamecsv` says).

``hexgames sweep --report-only DIR`` reads them back (:func:`load`): every line of
``results.csv`` becomes a :class:`~hexgames.arena.match.GameResult` again, its branching
and margin replayed from the record, so the report is the one the run would have written,
also for a run that stopped early (with the games it finished). A sweep written before
``sweep.json`` existed is read too: the settings then come from the records' tags and
the variant labels (the seed is not known).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hexgames.arena.gamecsv import read_rows, result_columns, seat0_score
from hexgames.arena.match import CAPPED, GameResult
from hexgames.arena.replay import Replay, replay
from hexgames.arena.sweep.stats import label, variants
from hexgames.game import Game, find_option, game_names, get_game, parse_settings

RUN_FILE = "sweep.json"
RESULTS_FILE = "results.csv"
#: ``results.csv``'s columns (``seat0_result`` is seat 0's return, +1/0/-1, as before
#: ``seat0_score``; ``trace`` is empty for the variants' own games, else the player).
RESULT_COLUMNS = ("variant", "game", "seat0", "seat1", "seat0_score", "winning_seat",
                  "seat0_result", "turns", "actions", "end_reason", "seconds", "trace",
                  "record")


@dataclass
class SweepRun:
    """The settings of a sweep, as ``sweep.json`` keeps them."""

    game: str
    grid: dict[str, list[Any]]
    fixed: dict[str, Any]
    players: tuple[str, str]
    games: int
    trace: list[str] = field(default_factory=list)
    seed: int | None = 0
    max_actions: int | None = None
    where: str = ""
    #: Seconds from the first game to the last (``None`` until the run is complete).
    seconds: float | None = None
    #: Games played in all (the skill trace's included), once complete.
    played: int | None = None

    def save(self, directory: Path) -> Path:
        path = directory / RUN_FILE
        data = {"format": 1, **asdict(self), "players": list(self.players)}
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        return path

    @classmethod
    def read(cls, directory: Path) -> SweepRun:
        data = json.loads((directory / RUN_FILE).read_text(encoding="utf-8"))
        if data.pop("format", None) != 1:
            raise ValueError(f"{directory / RUN_FILE}: unknown format")
        data["players"] = tuple(data["players"])
        return cls(**data)


def folder_name(text: str) -> str:
    """A variant label or player spec as a folder name (``board_side-4_pie-true``)."""
    return re.sub(r"[^\w.+-]", "_", text.replace(" ", "_").replace("=", "-"))


def record_path(directory: Path, label: str, trace: str, game: int) -> Path:
    """Where the record of game ``game`` (1-based) of a variant is kept."""
    folder = directory / "games" / folder_name(label)
    if trace:
        folder = folder / f"trace-{folder_name(trace)}"
    return folder / f"game-{game:04d}.txt"


def result_row(directory: Path, label: str, trace: str, result: GameResult) -> dict[str, Any]:
    """The line of ``results.csv`` for one game."""
    path = record_path(directory, label, trace, result.index + 1)
    return {"variant": label, **result_columns(result, legacy_return=True), "trace": trace,
            "record": path.relative_to(directory).as_posix()}


@dataclass
class Loaded:
    """A sweep read back: its settings and, per variant label, its games."""

    run: SweepRun
    labels: list[str]
    options: dict[str, dict[str, Any]]
    #: label -> the variant's own games, with their replays (``None`` without a record).
    results: dict[str, list[GameResult]]
    replays: dict[str, list[Replay | None]]
    #: label -> trace player -> its games (scores only).
    traced: dict[str, dict[str, list[GameResult]]]
    missing_records: int = 0


def load(directory: Path) -> Loaded:
    """Read a sweep folder back (see the module); ``ValueError`` says what is missing."""
    results_path = directory / RESULTS_FILE
    if not results_path.is_file():
        raise ValueError(f"{results_path} not found: is {directory} a sweep's output folder?")
    rows = read_rows(results_path)
    if not rows:
        raise ValueError(f"{results_path} has no games")
    has_run_file = (directory / RUN_FILE).is_file()
    run = SweepRun.read(directory) if has_run_file else _infer_run(directory, rows)
    game = get_game(run.game)
    names = list(run.grid)
    options = {label(variant, names): variant
               for variant in variants(game, run.fixed, run.grid)}
    loaded = Loaded(run, [name for name in options if _has(rows, name)], options, {}, {}, {})
    ordered = sorted(rows, key=lambda row: (row.get("trace", ""), row["variant"],
                                            int(row["game"])))
    for row in ordered:
        name, trace = row["variant"], row.get("trace", "")
        if name not in options:
            raise ValueError(f"{results_path}: variant {name!r} is not in the grid of "
                             f"{RUN_FILE}")
        if trace:
            result = _result(row, "", None)
            loaded.traced.setdefault(name, {}).setdefault(trace, []).append(result)
            continue
        path = directory / row["record"] if row.get("record") else record_path(
            directory, name, "", int(row["game"]))
        record = path.read_text(encoding="utf-8") if path.is_file() else ""
        seen = replay(game, record, branching=True) if record else None
        loaded.missing_records += not record
        loaded.results.setdefault(name, []).append(_result(row, record, seen))
        loaded.replays.setdefault(name, []).append(seen)
    return loaded


def _has(rows: Sequence[Mapping[str, str]], name: str) -> bool:
    return any(row["variant"] == name and not row.get("trace") for row in rows)


def _result(row: Mapping[str, str], record: str, seen: Replay | None) -> GameResult:
    """A line of ``results.csv`` (and its replayed record) as a :class:`GameResult`."""
    score = seat0_score(row, legacy_return=True)
    winning = {1.0: 0, 0.0: 1}.get(score)
    returns = {0: (1.0, -1.0), 1: (-1.0, 1.0), None: (0.0, 0.0)}[winning]
    capped = row["end_reason"] == CAPPED
    return GameResult(
        index=int(row["game"]) - 1,
        players=(row["seat0"], row["seat1"]),
        returns=returns,
        winning_seat=winning,
        turns=int(row["turns"]),
        actions=int(row["actions"]),
        end_reason=row["end_reason"],
        seconds=float(row["seconds"] or 0.0),
        margin=None if seen is None or capped else seen.margin,
        branching=list(seen.branching) if seen is not None else [],
        record=record,
    )


def _infer_run(directory: Path, rows: Sequence[Mapping[str, str]]) -> SweepRun:
    """The settings of a sweep written before ``sweep.json``: the game and every
    variant's options from the records' tags, the swept options from the labels."""
    labels = list(dict.fromkeys(row["variant"] for row in rows))
    game: Game | None = None
    found: list[dict[str, Any]] = []
    for name in labels:
        first = next(row for row in rows if row["variant"] == name)
        path = record_path(directory, name, "", int(first["game"]))
        if not path.is_file():
            raise ValueError(
                f"{directory / RUN_FILE} is missing and so is {path}: the sweep's settings "
                "cannot be recovered"
            )
        record = path.read_text(encoding="utf-8")
        if game is None:
            game = _game_of_record(record, path)
        _end, tags = game.read_record(record)
        options = tags.get("Options", "default")
        found.append(parse_settings(game, [] if options == "default" else options.split()))
    assert game is not None
    swept = [find_option(game, item.partition("=")[0]).name for item in labels[0].split()]
    grid: dict[str, list[Any]] = {name: [] for name in swept}
    for variant in found:
        for name in swept:
            if variant.get(name) not in grid[name]:
                grid[name].append(variant.get(name))
    fixed = {k: v for k, v in found[0].items() if k not in swept}
    first = rows[0]
    players = (first["seat0"], first["seat1"])
    games = max(sum(1 for row in rows if row["variant"] == name) for name in labels)
    return SweepRun(game=game.name, grid=grid, fixed=fixed, players=players, games=games,
                    seed=None)


def _game_of_record(record: str, path: Path) -> Game:
    """The registered game whose records read this one (its ``Game`` tag names it)."""
    title = re.search(r'^\[Game "([^"]*)"\]', record, flags=re.MULTILINE)
    for name in game_names():
        game = get_game(name)
        if title is not None and title.group(1) in (game.title, game.name):
            return game
    raise ValueError(f"{path}: no registered game matches this record's Game tag")
