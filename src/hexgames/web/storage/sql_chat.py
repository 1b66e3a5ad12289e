"""Chat messages, their reports and silenced players, in SQL (issue 42).

A message is numbered in its room (``seq``) by the one statement that stores it, under a
lock of the game's row where the database has row locks (PostgreSQL): two processes
posting to one room at the same instant store two messages, one after the other, never
the same number twice. Rooms, bounds and who may read or post are decided above
(:mod:`hexgames.web.chat.rules`); the storage holds the room's size bound and the
silences, which every process must see alike.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from hexgames.phrases import N_, Phrase
from hexgames.web.storage.errors import ChatRefused
from hexgames.web.storage.records import ChatMessage, ChatReport
from hexgames.web.storage.sql_connection import SqlConnection

_COLUMNS = "game_id, room, seq, player_id, name, text, at"
_REPORT_COLUMNS = "id, game_id, room, seq, reporter_id, reported_id, text, at, status"


def new_report_id() -> str:
    """A fresh report id, in hex: a moderator types it after ``hexgames moderate close``, and
    an id of URL-safe base64 could begin with ``-``, which the command line reads as an
    option (one report in 64 could not be closed without ``--``)."""
    return secrets.token_hex(8)


def _message(row: Sequence[object]) -> ChatMessage:
    game_id, room, seq, player_id, name, text, at = row
    return ChatMessage(str(game_id), str(room), int(str(seq)), str(player_id), str(name),
                       str(text), int(str(at)))


def _report(row: Sequence[object]) -> ChatReport:
    report_id, game_id, room, seq, reporter, reported, text, at, status = row
    return ChatReport(str(report_id), str(game_id), str(room), int(str(seq)), str(reporter),
                      str(reported), str(text), int(str(at)), str(status))


class ChatTables(SqlConnection):
    """The chat statements of the SQL storage (see :class:`~.interface.Storage`)."""

    def post_chat(self, game_id: str, room: str, player_id: str, name: str, text: str,
                  at: int, room_limit: int) -> ChatMessage:
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT until FROM chat_silences WHERE player_id = ? "
                                     "AND until > ?"), (player_id, int(at)))
            if cursor.fetchone() is not None:
                raise ChatRefused(N_("a moderator has silenced you in chat for now"))
            cursor.execute(self._sql(f"SELECT id FROM games WHERE id = ?{self.for_update}"),
                           (game_id,))
            if cursor.fetchone() is None:
                raise ChatRefused(Phrase("there is no game {id}", id=repr(game_id)))
            cursor.execute(self._sql(
                f"INSERT INTO chat_messages ({_COLUMNS}) "
                "SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM chat_messages "
                "WHERE game_id = ? AND room = ? HAVING COALESCE(MAX(seq), 0) < ? "
                "RETURNING seq"),
                (game_id, room, player_id, name, text, int(at), game_id, room,
                 int(room_limit)))
            row = cursor.fetchone()
            if row is None:
                raise ChatRefused(Phrase("this chat is full: {limit} messages",
                                         limit=room_limit))
            # The other server processes push it to their sockets (a ``chat.<room>``
            # change numbered by the message).
            self._notify(cursor, game_id, f"chat.{room}", int(row[0]))
        return ChatMessage(game_id, room, int(row[0]), player_id, name, text, int(at))

    def chat_messages(self, game_id: str, room: str, after: int = 0,
                      limit: int = 200) -> list[ChatMessage]:
        with self._transaction() as cursor:
            cursor.execute(self._sql(
                f"SELECT {_COLUMNS} FROM chat_messages WHERE game_id = ? AND room = ? "
                "AND seq > ? ORDER BY seq LIMIT ?"), (game_id, room, int(after), int(limit)))
            return [_message(row) for row in cursor.fetchall()]

    def newest_chat_messages(self, game_id: str, room: str,
                             limit: int = 200) -> list[ChatMessage]:
        with self._transaction() as cursor:
            cursor.execute(self._sql(
                f"SELECT {_COLUMNS} FROM chat_messages WHERE game_id = ? AND room = ? "
                "ORDER BY seq DESC LIMIT ?"), (game_id, room, int(limit)))
            return [_message(row) for row in reversed(cursor.fetchall())]

    def chat_posts_since(self, player_id: str, since: int) -> int:
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT COUNT(*) FROM chat_messages WHERE player_id = ? "
                                     "AND at > ?"), (player_id, int(since)))
            return int(cursor.fetchone()[0])

    def report_chat(self, game_id: str, room: str, seq: int, reporter_id: str,
                    at: int) -> ChatReport | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(
                "SELECT player_id, text FROM chat_messages WHERE game_id = ? AND room = ? "
                "AND seq = ?"), (game_id, room, int(seq)))
            found = cursor.fetchone()
            if found is None:
                return None
            report = ChatReport(new_report_id(), game_id, room, int(seq),
                                reporter_id, str(found[0]), str(found[1]), int(at))
            cursor.execute(self._sql(
                f"INSERT INTO chat_reports ({_REPORT_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (game_id, room, seq, reporter_id) DO NOTHING"),
                (report.id, game_id, room, int(seq), reporter_id, report.reported_id,
                 report.text, int(at), report.status))
            if cursor.rowcount != 1:  # reported before by this player: the first report
                cursor.execute(self._sql(
                    f"SELECT {_REPORT_COLUMNS} FROM chat_reports WHERE game_id = ? "
                    "AND room = ? AND seq = ? AND reporter_id = ?"),
                    (game_id, room, int(seq), reporter_id))
                return _report(cursor.fetchone())
        return report

    def chat_reports(self, status: str | None = "open", limit: int = 100) -> list[ChatReport]:
        with self._transaction() as cursor:
            where, values = ("WHERE status = ? ", (status,)) if status else ("", ())
            cursor.execute(self._sql(f"SELECT {_REPORT_COLUMNS} FROM chat_reports {where}"
                                     "ORDER BY at, id LIMIT ?"), (*values, int(limit)))
            return [_report(row) for row in cursor.fetchall()]

    def close_chat_report(self, report_id: str) -> bool:
        with self._transaction() as cursor:
            cursor.execute(self._sql("UPDATE chat_reports SET status = 'closed' WHERE id = ? "
                                     "AND status = 'open'"), (report_id,))
            return bool(cursor.rowcount == 1)

    def silence_chat(self, player_id: str, until: int, reason: str, at: int) -> None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(
                "INSERT INTO chat_silences (player_id, until, reason, at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (player_id) DO UPDATE SET until = excluded.until, "
                "reason = excluded.reason, at = excluded.at"),
                (player_id, int(until), reason, int(at)))

    def chat_silenced_until(self, player_id: str, now: int) -> int | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT until FROM chat_silences WHERE player_id = ? "
                                     "AND until > ?"), (player_id, int(now)))
            row = cursor.fetchone()
        return int(row[0]) if row else None
