"""HTTP routes of player profiles (docs/web.md, "Players and ratings"), lichess-style:

- ``GET /api/players/{name}/history``: the rating after each rated game, per pool (a
  game and its variant), for the profile's graphs;
- ``GET /api/players/{name}/stats``: wins, draws and losses per game, overall, rated,
  by colour played and by seat, and against the most frequent opponents;
- ``GET /api/players/{name}/games``: the finished games, newest first, searchable by
  opponent, result, dates, game, variant and rated, a page at a time;
- ``GET /api/players/{name}/export``: every finished game's record in a zip, streamed
  (the records are those of ``GET /api/games/{id}/record``).

Statistics and search read the filed results of :mod:`hexgames.web.ratings.results`; games
that ended before results were filed are filed here, a bounded number per request
(``complete: false`` says some are left for the next one).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import date, timedelta
from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse

from hexgames.errors import IllegalAction
from hexgames.game import game_names, get_game
from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.web.game.matches import ENGLISH, reason_phrase
from hexgames.web.game.records import ZipStream, record_filename, stored_record
from hexgames.web.http.addresses import client_address
from hexgames.web.http.client_limits import Exports
from hexgames.web.http.errors import error_response
from hexgames.web.http.language import request_translator
from hexgames.web.http.state import Service, Site
from hexgames.web.ratings.games import pool_title
from hexgames.web.ratings.results import file_missing
from hexgames.web.routes.players import no_player
from hexgames.web.service import GameService
from hexgames.web.storage import GameQuery, ListedGame, PlayerRecord, name_key

#: Points of each pool's rating graph (the most recent ones).
MAX_HISTORY_POINTS = 1000
#: Games per page of the game search (default 20), and the last page one may ask for.
MAX_PER_PAGE = 50
MAX_PAGE = 1000
#: Opponents listed in the statistics (those met most often).
TOP_OPPONENTS = 10
#: Exports: games in one zip (the most recent finished ones), uncompressed bytes of
#: records in one zip, zips being written at once by this process (503 beyond), and
#: exports per client address per window of seconds (429 beyond).
MAX_EXPORT_GAMES = 1000
MAX_EXPORT_BYTES = 64 * 1024 * 1024
MAX_EXPORTS = 2
EXPORTS_PER_WINDOW = 5
EXPORT_WINDOW = 600.0

router = APIRouter()

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")


def _day(value: str | None, what: str) -> date | None:
    """A ``YYYY-MM-DD`` query value (``ValueError``, a 400, naming it otherwise)."""
    if value is None or value == "":
        return None
    if not _DAY.fullmatch(value):
        raise ValueError(Phrase("{what} must be a date written YYYY-MM-DD, not {value}",
                                what=what, value=repr(value[:20])))
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError(Phrase("{what}: {value} is not a date of the calendar", what=what,
                                value=repr(value))) from None


def game_query(opponent: str | None, result: str | None, since: str | None,
               until: str | None, game: str | None, pool: str | None,
               rated: bool | None) -> GameQuery:
    """The search's filters, checked (``ValueError`` naming the bad one: a 400)."""
    if opponent is not None and opponent.strip():
        opponent = opponent.strip()
        if not _NAME.fullmatch(opponent):
            raise ValueError(Phrase("opponent: {name} is not a player's name",
                                    name=repr(opponent[:40])))
    else:
        opponent = None
    first, last = _day(since, "since"), _day(until, "until")
    if first and last and first > last:
        raise ValueError(Phrase("since ({first}) is after until ({last})", first=first,
                                last=last))
    known = game_names()
    if game and game not in known:
        raise ValueError(Phrase("game: no game {game}; known: {known}", game=repr(game[:40]),
                                known=", ".join(known)))
    if pool and pool.partition(" ")[0] not in known:
        raise ValueError(Phrase("pool: {pool} is not a game's rating pool",
                                pool=repr(pool[:60])))
    return GameQuery(
        opponent=name_key(opponent) if opponent else None, result=result,
        since=first.isoformat() if first else None,
        until=(last + timedelta(days=1)).isoformat() if last else None,
        game=game or None, pool=pool or None, rated=rated)


def _counts() -> dict[str, int]:
    return {"games": 0, "wins": 0, "draws": 0, "losses": 0}


def _add(counts: dict[str, int], result: str, number: int) -> None:
    counts["games"] += number
    counts[{"win": "wins", "draw": "draws", "loss": "losses"}[result]] += number


def statistics(rows: list[tuple[str, str, int, str, bool, str, int]]
               ) -> list[dict[str, Any]]:
    """Per game: all, rated, by colour played (in the game's colour order), by seat
    (with the colour the seat starts with) and by variant, from ``result_counts`` rows."""
    games: dict[str, dict[str, Any]] = {}
    for game_name, pool, seat, color, rated, result, number in rows:
        entry = games.get(game_name)
        if entry is None:
            try:
                game = get_game(game_name)
                title, colors = game.title, list(game.colors)
            except (KeyError, ValueError):
                title, colors = game_name, []
            entry = games[game_name] = {
                "game": game_name, "title": title, "colors": colors,
                "all": _counts(), "rated": _counts(),
                "by_color": {c: {"color": c, **_counts()} for c in colors},
                "by_seat": {s: {"seat": s, "color": c, **_counts()}
                            for s, c in enumerate(colors)},
                "by_variant": {},
            }
        _add(entry["all"], result, number)
        if rated:
            _add(entry["rated"], result, number)
        _add(entry["by_color"].setdefault(color, {"color": color, **_counts()}),
             result, number)
        _add(entry["by_seat"].setdefault(seat, {"seat": seat, "color": None, **_counts()}),
             result, number)
        _add(entry["by_variant"].setdefault(
            pool, {"pool": pool, "title": pool_title(pool), **_counts()}), result, number)
    return [{**entry, "by_color": list(entry["by_color"].values()),
             "by_seat": [entry["by_seat"][s] for s in sorted(entry["by_seat"])],
             "by_variant": list(entry["by_variant"].values())}
            for entry in games.values()]


def opponents(rows: list[tuple[str, str, str, int]]) -> list[dict[str, Any]]:
    """The opponents met most often (then by name), with the player's results."""
    met: dict[str, dict[str, Any]] = {}
    for _, name, result, number in rows:
        _add(met.setdefault(name, {"name": name, **_counts()}), result, number)
    ranked = sorted(met.values(), key=lambda entry: (-entry["games"], entry["name"].lower()))
    return ranked[:TOP_OPPONENTS]


def listed_line(listed: ListedGame, words: Translator = ENGLISH) -> dict[str, Any]:
    """A game of the search as the API shows it (``reason_text`` and the opponent's
    ``name_text``: in ``words``' language)."""
    result = listed.result
    other = 1 - result.seat
    seat = listed.players[other] if 0 <= other < len(listed.players) else {}
    if result.opponent_id:
        opponent = {"name": listed.opponent_name or "?", "player": True}
    elif seat.get("kind") == "ai":
        computer = Phrase("Computer (level {level})", level=seat.get("level"))
        opponent = {"name": str(computer), "name_text": words.text(computer), "player": False,
                    "level": seat.get("level")}
    else:
        opponent = {"name": str(seat.get("name") or "—"), "player": False}
    try:
        title = get_game(result.game).title
    except (KeyError, ValueError):
        title = result.game
    reason = (listed.reason or "")[:120] or None
    return {
        "id": result.game_id, "game": result.game, "title": title, "pool": result.pool,
        "variant": pool_title(result.pool), "rated": result.rated, "mode": listed.mode,
        "seat": result.seat, "color": result.color, "result": result.result,
        "opponent": opponent, "reason": reason,
        "reason_text": words.text(reason_phrase(reason)) if reason else None,
        "ended_at": result.ended_at,
    }


async def player_named(service: GameService, name: str) -> PlayerRecord | None:
    record: PlayerRecord | None = await service.call_storage(
        service.storage.player_by_name, name[:40])
    return record


async def file_then(service: GameService, exports: Exports, player_id: str) -> bool:
    """File the player's unfiled finished games (a bounded number; one filing at a
    time: replays are CPU work); True when none is left."""
    async with exports.filing:
        return await file_missing(service.storage, service.call_storage,
                                  service.call_thread, player_id)


def unknown(name: str, request: Request) -> JSONResponse:
    return error_response(404, no_player(name), request)


@router.get("/api/players/{name}/history")
async def history(name: str, request: Request, service: Service) -> Any:
    """The rating after each rated game, per pool (oldest first; at most the last
    ``MAX_HISTORY_POINTS`` of each pool)."""
    record = await player_named(service, name)
    if record is None:
        return unknown(name, request)
    points = await service.call_storage(service.storage.rating_history, record.id,
                                        MAX_HISTORY_POINTS)
    pools: dict[str, dict[str, Any]] = {}
    for point in points:
        pool = pools.setdefault(point.pool, {
            "pool": point.pool, "title": pool_title(point.pool),
            "game": point.pool.partition(" ")[0], "points": []})
        pool["points"].append({"at": point.rated_at, "rating": round(point.rating, 1),
                               "deviation": round(point.deviation, 1),
                               "games": point.games, "game_id": point.game_id})
    return {"name": record.name, "pools": list(pools.values())}


@router.get("/api/players/{name}/stats")
async def stats(name: str, request: Request, service: Service, site: Site) -> Any:
    """Wins, draws and losses per game (finished games with a result)."""
    record = await player_named(service, name)
    if record is None:
        return unknown(name, request)
    complete = await file_then(service, site.profile_exports, record.id)
    rows = await service.call_storage(service.storage.result_counts, record.id)
    met = await service.call_storage(service.storage.opponent_counts, record.id)
    per_game = statistics(rows)
    total = _counts()
    for entry in per_game:
        for key in total:
            total[key] += entry["all"][key]
    return {"name": record.name, "total": total, "games": per_game,
            "opponents": opponents(met), "complete": complete}


@router.get("/api/players/{name}/games")
async def games(name: str, request: Request, service: Service, site: Site,
                opponent: str | None = Query(None, max_length=40),
                result: Literal["win", "draw", "loss"] | None = None,
                since: str | None = Query(None, max_length=20),
                until: str | None = Query(None, max_length=20),
                game: str | None = Query(None, max_length=40),
                pool: str | None = Query(None, max_length=200), rated: bool | None = None,
                page: int = Query(1, ge=1, le=MAX_PAGE),
                per_page: int = Query(20, ge=1, le=MAX_PER_PAGE)) -> Any:
    """The player's finished games matching the filters, newest first."""
    query = game_query(opponent, result, since, until, game, pool, rated)
    record = await player_named(service, name)
    if record is None:
        return unknown(name, request)
    complete = await file_then(service, site.profile_exports, record.id)
    found, total = await service.call_storage(
        service.storage.search_games, record.id, query, (page - 1) * per_page, per_page)
    return {"name": record.name, "page": page, "per_page": per_page, "total": total,
            "pages": (total + per_page - 1) // per_page,
            "games": [listed_line(listed, request_translator(request)) for listed in found],
            "complete": complete}


@router.get("/api/players/{name}/export")
async def export(name: str, request: Request, service: Service, site: Site) -> Any:
    """Every finished game's record (the most recent ``MAX_EXPORT_GAMES``) in a zip,
    written as it is sent."""
    record = await player_named(service, name)
    if record is None:
        return unknown(name, request)
    if site.profile_exports.active >= MAX_EXPORTS:
        return error_response(503, N_("the server is writing other exports; try again "
                                      "in a minute"), request, {"Retry-After": "30"})
    wait = await site.profile_exports.rate.hit(service, client_address(request.scope))
    if wait is not None:
        return error_response(429, Phrase(
            "at most {count} exports per {minutes} minutes; try again in {seconds} s",
            count=EXPORTS_PER_WINDOW, minutes=int(EXPORT_WINDOW) // 60,
            seconds=int(wait) + 1), request, {"Retry-After": str(int(wait) + 1)})
    ids = await service.call_storage(service.storage.finished_game_ids, record.id,
                                     MAX_EXPORT_GAMES + 1)
    filename = f"hexgames-{record.name}.zip"
    return StreamingResponse(
        _zip(service, site.profile_exports, ids[:MAX_EXPORT_GAMES],
             len(ids) > MAX_EXPORT_GAMES),
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'})


async def _zip(service: GameService, exports: Exports, ids: list[str],
               more: bool) -> AsyncIterator[bytes]:
    """The zip of the records of ``ids``, written as it is sent (``more``: some were
    left out); counted in ``exports.active`` while it is written."""
    exports.active += 1
    try:
        archive, written, skipped, full = ZipStream(), 0, [], False
        for game_id in ids:
            stored = await service.call_storage(service.storage.load_game, game_id)
            if stored is None:
                continue
            try:
                text = await service.call_thread(stored_record, stored)
            except (IllegalAction, ValueError, KeyError):
                skipped.append(game_id)
                continue
            if written + len(text) > MAX_EXPORT_BYTES:
                full = True
                break
            written += len(text)
            archive.add(record_filename(stored.game, stored.id), text, stored.updated_at)
            yield archive.take()
        notes = []
        if more or full:
            notes.append(f"Only the {archive.entries} most recent finished games are in "
                         f"this file (at most {MAX_EXPORT_GAMES} games and "
                         f"{MAX_EXPORT_BYTES // 2**20} MiB of records).")
        if skipped:
            notes.append("These games no longer replay and were left out: "
                         + ", ".join(skipped))
        if notes:
            archive.add("README.txt", "\n".join(notes) + "\n")
        yield archive.close()
    finally:
        exports.active -= 1


