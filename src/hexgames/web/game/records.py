"""Game records as the site writes them: one game (``GET /api/games/{id}/record``), or
all of a player's finished games in a zip (``GET /api/players/{name}/export``).

The zip is written as it is sent (:class:`ZipStream`): one game replayed and compressed
at a time, so memory holds one record whatever the number of games, and the client
receives the first games while later ones are still being replayed. Its bounds are in
:mod:`hexgames.web.routes.profiles`. Nothing here knows about HTTP.
"""

from __future__ import annotations

import io
import zipfile
from datetime import datetime

from hexgames.web.game.matches import Match
from hexgames.web.storage import StoredGame

__all__ = ["ZipStream", "record_filename", "record_tags", "record_text", "stored_record"]


def record_tags(match: Match) -> dict[str, str]:
    """The tags the site writes into a game's record: site, date, mode, each colour's
    player, and a result the position cannot know (a resignation, a timeout)."""
    players = match.players_view()
    tags = {
        "Site": "hexgames",
        "Date": match.stored.created_at[:10],
        "Mode": match.stored.mode,
    }
    for player in players:
        tags[player["color"].capitalize()] = player["name"]
    if match.is_over and not match.position.is_over and match.stored.winner:
        # A resignation is not in the position, so the game's writer cannot know it:
        # say it in tags of our own (the writers keep unknown tags; see import_record),
        # and in the standard Result/Termination tags where the game's writer keeps them.
        winner = match.stored.winner
        ended = match.meta.termination
        if winner == "draw":  # a draw called when the opponent left (web/play/absence.py)
            tags["Result"] = "1/2-1/2"
        else:
            tags["Winner"] = winner
            tags["Result"] = "1-0" if match.position.seat_of(winner) == 0 else "0-1"
        tags["Ending"] = match.stored.reason or ""
        tags["Termination"] = (ended if ended in ("timeout", "opponent left")
                               else "resignation")
    return tags


def record_text(match: Match) -> str:
    """The game's record, as ``GET /api/games/{id}/record`` downloads it."""
    return str(match.game.write_record(match.position, record_tags(match)))


def record_filename(game_name: str, game_id: str) -> str:
    """The record's file name (the download's and the zip entry's)."""
    return f"{game_name}-{game_id}.txt"


def stored_record(stored: StoredGame) -> str:
    """:func:`record_text` of a stored game (replayed: blocking, call it in a thread)."""
    return record_text(Match(stored))


class _Sink(io.RawIOBase):
    """An unseekable file that keeps what is written until :meth:`take` hands it out
    (zipfile then writes each entry's sizes after its data, as a stream must)."""

    def __init__(self) -> None:
        super().__init__()
        self._parts: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        self._parts.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        data = b"".join(self._parts)
        self._parts.clear()
        return data


class ZipStream:
    """A zip written piece by piece: :meth:`add` an entry, then :meth:`take` the bytes
    written so far (send them); :meth:`close` writes the central directory (take them
    too). Entries are deflated."""

    def __init__(self) -> None:
        self._sink = _Sink()
        self._zip = zipfile.ZipFile(self._sink, "w", zipfile.ZIP_DEFLATED)
        self.entries = 0

    def add(self, name: str, text: str, stamp: str | None = None) -> None:
        """Add ``text`` (UTF-8) as ``name``, dated ``stamp`` (ISO 8601; default now)."""
        try:
            moment = datetime.fromisoformat(stamp) if stamp else datetime.now()
        except ValueError:
            moment = datetime.now()
        when = (max(1980, moment.year), moment.month, moment.day, moment.hour,
                moment.minute, moment.second)
        info = zipfile.ZipInfo(name, date_time=when)
        info.compress_type = zipfile.ZIP_DEFLATED
        self._zip.writestr(info, text.encode("utf-8"))
        self.entries += 1

    def take(self) -> bytes:
        return self._sink.take()

    def close(self) -> bytes:
        self._zip.close()
        return self.take()
