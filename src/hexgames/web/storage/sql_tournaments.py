"""Tournaments, their players and their games, in SQL (issue 42).

The one rule that matters with several server processes on one PostgreSQL: a tournament
moves on (starts, pairs a Swiss round or an arena wave, ends) only through a conditional
UPDATE of its ``step`` (:meth:`TournamentTables.store_pairing`), and the games of a
pairing are inserted in the same transaction. Every process may compute the same
pairing at the same instant; one stores it, the others store nothing and learn so.

Joins lock the tournament's row (``FOR UPDATE`` on PostgreSQL; SQLite has one writer) so
that two players taking the last place at once cannot both get it; creations lock the
creator's player row so that the per-day count cannot be passed by two requests at once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hexgames.phrases import N_, Phrase
from hexgames.web.storage.records import (
    TOURNAMENT_RESULTS,
    TournamentEntry,
    TournamentGame,
    TournamentRecord,
    TournamentState,
)
from hexgames.web.storage.sql_connection import SqlConnection

DAY_MS = 24 * 3600 * 1000
_COLUMNS = ("id, creator_id, game, kind, options, settings, control, created_at, starts_at, "
            "max_players, ends_at, status, step, version")
_PLAYER_COLUMNS = "tournament_id, player_id, rating, joined_at, paused, withdrawn"
_GAME_COLUMNS = ("tournament_id, step, board, first_id, second_id, paired_at, game_id, "
                 "result, turns, first_berserk, second_berserk, ended_at")
#: What :meth:`TournamentTables.list_tournaments` lists, and in which order.
_LISTS = {
    "upcoming": ("status = 'created'", "starts_at, id"),
    "running": ("status = 'running'", "starts_at, id"),
    "recent": ("status = 'finished'", "ends_at DESC, id"),
}


class TournamentRefused(RuntimeError):
    """A tournament call the storage (or the director) did not carry out: nothing was
    stored, and the message, a :class:`~hexgames.phrases.Phrase`, says why. The
    subclasses tell the web layer which answer to give."""


class TournamentUnknown(TournamentRefused):
    """No tournament has this id (HTTP 404)."""


class TournamentClosed(TournamentRefused):
    """The tournament has ended, or is full (HTTP 409)."""


class TournamentQuota(TournamentRefused):
    """The creator made as many tournaments in the last 24 hours as allowed (HTTP 429)."""


def _tournament(row: Sequence[Any]) -> TournamentRecord:
    (tid, creator, game, kind, options, settings, control, created, starts, size, ends,
     status, step, version) = row
    return TournamentRecord(
        str(tid), str(creator), str(game), str(kind), json.loads(options),
        json.loads(settings), json.loads(control), int(created), int(starts), int(size),
        None if ends is None else int(ends), str(status), int(step), int(version))


def _entry(row: Sequence[Any]) -> TournamentEntry:
    tid, player, rating, joined, paused, withdrawn = row
    return TournamentEntry(str(tid), str(player), float(rating), int(joined), bool(paused),
                           bool(withdrawn))


def _game(row: Sequence[Any]) -> TournamentGame:
    (tid, step, board, first, second, paired, game_id, result, turns, first_berserk,
     second_berserk, ended) = row
    return TournamentGame(
        str(tid), int(step), int(board), str(first), None if second is None else str(second),
        int(paired), None if game_id is None else str(game_id),
        None if result is None else str(result), int(turns), bool(first_berserk),
        bool(second_berserk), None if ended is None else int(ended))


class TournamentTables(SqlConnection):
    """The tournament statements of the SQL storage (see :class:`~.interface.Storage`)."""

    def create_tournament(self, tournament: TournamentRecord, daily_limit: int) -> None:
        t = tournament
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT id FROM players WHERE id = ?{self.for_update}"),
                           (t.creator_id,))
            cursor.execute(self._sql("SELECT COUNT(*) FROM tournaments WHERE creator_id = ? "
                                     "AND created_at > ?"),
                           (t.creator_id, int(t.created_at) - DAY_MS))
            if int(cursor.fetchone()[0]) >= daily_limit:
                raise TournamentQuota(Phrase(
                    "you have created {limit} tournaments in the last 24 hours, the most "
                    "allowed; try again later", limit=daily_limit))
            cursor.execute(self._sql(
                f"INSERT INTO tournaments ({_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                (t.id, t.creator_id, t.game, t.kind, json.dumps(t.options),
                 json.dumps(t.settings), json.dumps(t.control), int(t.created_at),
                 int(t.starts_at), int(t.max_players), t.ends_at, t.status, int(t.step),
                 int(t.version)))
            # The other server processes' bells (its creator's followers): "tournament".
            self._notify(cursor, t.id, "tournament", 0)

    def join_tournament(self, tournament_id: str, player_id: str, rating: float,
                        at: int) -> bool:
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT status, max_players FROM tournaments WHERE "
                                     f"id = ?{self.for_update}"), (tournament_id,))
            found = cursor.fetchone()
            if found is None:
                raise TournamentUnknown(Phrase("there is no tournament {id}",
                                               id=repr(tournament_id)))
            status, size = str(found[0]), int(found[1])
            if status == "finished":
                raise TournamentClosed(N_("this tournament has ended"))
            cursor.execute(self._sql("SELECT withdrawn FROM tournament_players WHERE "
                                     "tournament_id = ? AND player_id = ?"),
                           (tournament_id, player_id))
            mine = cursor.fetchone()
            if mine is not None and not mine[0]:
                return False  # in already
            cursor.execute(self._sql("SELECT COUNT(*) FROM tournament_players WHERE "
                                     "tournament_id = ? AND withdrawn = 0"), (tournament_id,))
            if int(cursor.fetchone()[0]) >= size:
                raise TournamentClosed(Phrase("this tournament is full: {limit} players",
                                              limit=size))
            if mine is not None:  # back after leaving: the same entry, not paused
                cursor.execute(self._sql(
                    "UPDATE tournament_players SET withdrawn = 0, paused = 0 WHERE "
                    "tournament_id = ? AND player_id = ?"), (tournament_id, player_id))
            else:
                cursor.execute(self._sql(
                    f"INSERT INTO tournament_players ({_PLAYER_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, 0, 0)"),
                    (tournament_id, player_id, float(rating), int(at)))
            return True

    def leave_tournament(self, tournament_id: str, player_id: str) -> bool:
        with self._transaction() as cursor:
            cursor.execute(self._sql(
                "UPDATE tournament_players SET withdrawn = 1 WHERE tournament_id = ? AND "
                "player_id = ? AND withdrawn = 0"), (tournament_id, player_id))
            return bool(cursor.rowcount == 1)

    def pause_tournament(self, tournament_id: str, player_id: str, paused: bool) -> bool:
        with self._transaction() as cursor:
            cursor.execute(self._sql(
                "UPDATE tournament_players SET paused = ? WHERE tournament_id = ? AND "
                "player_id = ? AND paused = ? AND withdrawn = 0"),
                (int(paused), tournament_id, player_id, int(not paused)))
            return bool(cursor.rowcount == 1)

    def list_tournaments(self, which: str, limit: int = 50) -> list[TournamentRecord]:
        if which not in _LISTS:
            raise ValueError(f"tournaments are listed as one of {sorted(_LISTS)}, "
                             f"not {which!r}")
        where, order = _LISTS[which]
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {_COLUMNS} FROM tournaments WHERE {where} "
                                     f"ORDER BY {order} LIMIT ?"), (min(int(limit), 200),))
            return [_tournament(row) for row in cursor.fetchall()]

    def due_tournaments(self, now: int, limit: int = 100, after_id: str = "") -> list[str]:
        with self._transaction() as cursor:
            cursor.execute(self._sql(
                "SELECT id FROM tournaments WHERE (status = 'running' OR "
                "(status = 'created' AND starts_at <= ?)) AND id > ? ORDER BY id LIMIT ?"),
                (int(now), after_id, int(limit)))
            return [str(row[0]) for row in cursor.fetchall()]

    def load_tournament(self, tournament_id: str) -> TournamentState | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {_COLUMNS} FROM tournaments WHERE id = ?"),
                           (tournament_id,))
            found = cursor.fetchone()
            if found is None:
                return None
            cursor.execute(self._sql(f"SELECT {_PLAYER_COLUMNS} FROM tournament_players "
                                     "WHERE tournament_id = ? ORDER BY joined_at, player_id"),
                           (tournament_id,))
            players = tuple(_entry(row) for row in cursor.fetchall())
            cursor.execute(self._sql(f"SELECT {_GAME_COLUMNS} FROM tournament_games "
                                     "WHERE tournament_id = ? ORDER BY step, board"),
                           (tournament_id,))
            games = tuple(_game(row) for row in cursor.fetchall())
        return TournamentState(_tournament(found), players, games)

    def tournament_game(self, game_id: str) -> TournamentGame | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {_GAME_COLUMNS} FROM tournament_games "
                                     "WHERE game_id = ?"), (game_id,))
            found = cursor.fetchone()
        return None if found is None else _game(found)

    def tournaments_of(self, player_id: str, limit: int = 50) -> list[TournamentRecord]:
        with self._transaction() as cursor:
            cursor.execute(self._sql(
                f"SELECT {', '.join('t.' + c for c in _COLUMNS.split(', '))} "
                "FROM tournaments t JOIN tournament_players p ON p.tournament_id = t.id "
                "WHERE p.player_id = ? ORDER BY t.starts_at DESC, t.id LIMIT ?"),
                (player_id, min(int(limit), 200)))
            return [_tournament(row) for row in cursor.fetchall()]

    def claim_tournament_step(self, tournament_id: str, expected_step: int, at: int,
                              status: str | None = None) -> bool:
        return self.store_pairing(tournament_id, expected_step, (), at, status)

    def store_pairing(self, tournament_id: str, expected_step: int,
                      games: Sequence[TournamentGame], at: int,
                      status: str | None = None) -> bool:
        if status not in (None, "running", "finished"):
            raise ValueError(f"a claim moves a tournament to running or finished, not {status!r}")
        with self._transaction() as cursor:
            cursor.execute(self._sql(
                "UPDATE tournaments SET step = step + 1, version = version + 1, "
                "status = COALESCE(?, status), "
                "ends_at = CASE WHEN ? = 'finished' AND kind <> 'arena' THEN ? ELSE ends_at END "
                "WHERE id = ? AND step = ? AND status <> 'finished'"),
                (status, status, int(at), tournament_id, int(expected_step)))
            if cursor.rowcount != 1:
                return False  # another process moved it on first: store nothing
            for game in games:
                if game.step != expected_step + 1 or game.tournament_id != tournament_id:
                    raise ValueError("a pairing's games belong to the step it claims")
                cursor.execute(self._sql(
                    f"INSERT INTO tournament_games ({_GAME_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                    (tournament_id, game.step, game.board, game.first_id, game.second_id,
                     int(game.paired_at), game.game_id, game.result, int(game.turns),
                     int(game.first_berserk), int(game.second_berserk), game.ended_at))
            return True

    def attach_tournament_game(self, tournament_id: str, step: int, board: int,
                               game_id: str | None, at: int) -> bool:
        with self._transaction() as cursor:
            if game_id is None:
                cursor.execute(self._sql(
                    "UPDATE tournament_games SET result = 'void', ended_at = ? WHERE "
                    "tournament_id = ? AND step = ? AND board = ? AND game_id IS NULL "
                    "AND result IS NULL"), (int(at), tournament_id, int(step), int(board)))
            else:
                cursor.execute(self._sql(
                    "UPDATE tournament_games SET game_id = ? WHERE tournament_id = ? AND "
                    "step = ? AND board = ? AND game_id IS NULL AND result IS NULL"),
                    (game_id, tournament_id, int(step), int(board)))
            return bool(cursor.rowcount == 1)

    def record_tournament_result(self, game_id: str, result: str, turns: int,
                                 first_berserk: bool, second_berserk: bool,
                                 at: int) -> bool:
        if result not in TOURNAMENT_RESULTS[:3]:
            raise ValueError(f"a game's result is one of {TOURNAMENT_RESULTS[:3]}, "
                             f"not {result!r}")
        with self._transaction() as cursor:
            cursor.execute(self._sql(
                "UPDATE tournament_games SET result = ?, turns = ?, first_berserk = ?, "
                "second_berserk = ?, ended_at = ? WHERE game_id = ? AND result IS NULL"),
                (result, int(turns), int(first_berserk), int(second_berserk), int(at),
                 game_id))
            return bool(cursor.rowcount == 1)
