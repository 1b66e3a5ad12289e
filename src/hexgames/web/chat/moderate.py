"""``hexgames moderate``: the reported chat messages, and silencing a player.

A moderator works on the site's database (the one ``hexgames serve`` uses: ``--data-dir``
or ``--database-url``) while the site runs, SQLite included; every server process sees a
silence at the next message its player writes, since the storage refuses it there.

    hexgames moderate reports               # the open reports, oldest first
    hexgames moderate reports --all         # closed ones too
    hexgames moderate close REPORT_ID       # dealt with
    hexgames moderate silence NAME --hours 24 --reason "insults"
    hexgames moderate unsilence NAME
"""

from __future__ import annotations

import argparse
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from hexgames.web.storage import Storage, StorageUnavailable, open_storage

#: The longest silence one command gives (a year): a typo of hours is not a life ban.
MAX_SILENCE_HOURS = 24 * 365


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=Path, default=Path("data"),
                        help="folder of the site's SQLite database (default: ./data)")
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL"),
                        help="the site's postgresql://... or sqlite:///path database "
                             "(default: $DATABASE_URL, else SQLite in --data-dir)")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    reports = actions.add_parser("reports", help="list reported chat messages")
    reports.add_argument("--all", action="store_true", help="closed reports too")
    reports.add_argument("--limit", type=int, default=100, help="at most this many (100)")
    close = actions.add_parser("close", help="mark a report as dealt with")
    close.add_argument("report_id", help="the report's id, as `reports` lists it (an older "
                                          "id that begins with '-' goes after '--')")
    silence = actions.add_parser("silence", help="stop a player writing in chat for a time")
    silence.add_argument("name", help="the player's name")
    silence.add_argument("--hours", type=float, default=24.0,
                         help=f"how long (default 24; at most {MAX_SILENCE_HOURS})")
    silence.add_argument("--reason", required=True, help="why (kept with the silence)")
    unsilence = actions.add_parser("unsilence", help="let a silenced player write again")
    unsilence.add_argument("name")


def _now_ms() -> int:
    return int(time.time() * 1000)


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _player_id(storage: Storage, name: str) -> str:
    player = storage.player_by_name(name)
    if player is None:
        raise SystemExit(f"hexgames moderate: there is no player named {name!r}")
    return player.id


def _reports(storage: Storage, args: argparse.Namespace, console: Console) -> int:
    if not 1 <= args.limit <= 10_000:
        raise SystemExit("hexgames moderate: --limit is 1 to 10000")
    found = storage.chat_reports(None if args.all else "open", args.limit)
    if not found:
        console.print("no reports" if args.all else "no open reports")
        return 0
    names = storage.player_names(sorted({r.reported_id for r in found}
                                        | {r.reporter_id for r in found}))
    table = Table("when", "game", "room", "written by", "reported by", "message", "status")
    table.add_column("report", no_wrap=True)  # copied into ``close``: never cut
    for report in found:
        # Text, not a string: rich reads a string's ``[...]`` as markup and ``:name:`` as
        # an emoji, and a message that says ``[/b]`` made the whole listing fail.
        table.add_row(*(Text(cell) for cell in (
            _when(report.at), report.game_id, report.room,
            names.get(report.reported_id, report.reported_id),
            names.get(report.reporter_id, report.reporter_id),
            report.text, report.status, report.id)))
    console.print(table)
    return 0


def run(args: argparse.Namespace) -> int:
    console = Console()
    try:
        storage = open_storage(data_dir=args.data_dir, database_url=args.database_url,
                               beside_server=True)
    except (ValueError, StorageUnavailable) as error:
        raise SystemExit(f"hexgames moderate: cannot open the database: {error}") from error
    try:
        if args.action == "reports":
            return _reports(storage, args, console)
        if args.action == "close":
            if not storage.close_chat_report(args.report_id):
                raise SystemExit(f"hexgames moderate: no open report {args.report_id!r}")
            console.print(f"report {args.report_id} closed")
            return 0
        player_id = _player_id(storage, args.name)
        if args.action == "unsilence":
            storage.silence_chat(player_id, 0, "lifted", _now_ms())
            console.print(f"{args.name} may write in chat again")
            return 0
        if not 0 < args.hours <= MAX_SILENCE_HOURS:
            raise SystemExit(f"hexgames moderate: --hours is more than 0 and at most "
                             f"{MAX_SILENCE_HOURS}")
        until = _now_ms() + int(args.hours * 3_600_000)
        storage.silence_chat(player_id, until, args.reason, _now_ms())
        console.print(f"{args.name} is silenced in chat until {_when(until)}")
        return 0
    finally:
        storage.close()
