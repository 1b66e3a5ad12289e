"""Chat in games (issue 42), its core: the rooms' rules, the message check, and the
storage of messages, reports, silences and relations on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import time
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import test_web_storage
from hexgames.cli import main
from hexgames.web.chat.rules import (
    MAX_TEXT,
    ChatGame,
    Reader,
    Room,
    checked_text,
    post_refusal,
    readable_rooms,
)
from hexgames.web.storage import ChatRefused, PlayerRecord, open_storage, sql_chat
from hexgames.web.storage.sql_chat import new_report_id
from test_web_storage import _game, postgres_cluster, postgres_url  # noqa: F401 - fixtures

where = test_web_storage.where  # a fixture: open_storage arguments of each backend

PLAYER, WATCHER = Reader(player=True, named=True), Reader(player=False, named=True)
GUEST = Reader(player=False, named=False)
RATED_LIVE = ChatGame(against_computer=False, rated=True, over=False)
RATED_OVER = ChatGame(against_computer=False, rated=True, over=True)
CASUAL_LIVE = ChatGame(against_computer=False, rated=False, over=False)
COMPUTER = ChatGame(against_computer=True, rated=False, over=False)


# ------------------------------------------------------------------ the rooms
@pytest.mark.parametrize("game,reader,rooms", [
    (RATED_LIVE, PLAYER, (Room.PLAYERS,)),  # players do not see the spectators' room
    (RATED_OVER, PLAYER, (Room.PLAYERS, Room.SPECTATORS)),
    (CASUAL_LIVE, PLAYER, (Room.PLAYERS, Room.SPECTATORS)),
    (RATED_LIVE, WATCHER, (Room.SPECTATORS,)),  # a stranger never reads the players'
    (CASUAL_LIVE, GUEST, (Room.SPECTATORS,)),
    (COMPUTER, PLAYER, ()),
])
def test_who_reads_which_room(game: ChatGame, reader: Reader, rooms: tuple[Room, ...]) -> None:
    assert readable_rooms(game, reader) == rooms


@pytest.mark.parametrize("game,reader,room,refused", [
    (RATED_LIVE, PLAYER, Room.PLAYERS, None),
    (RATED_LIVE, PLAYER, Room.SPECTATORS, "during a rated game"),
    (RATED_OVER, PLAYER, Room.SPECTATORS, None),
    (RATED_LIVE, WATCHER, Room.PLAYERS, "only the two players"),
    (RATED_LIVE, WATCHER, Room.SPECTATORS, None),
    (CASUAL_LIVE, GUEST, Room.SPECTATORS, "guests do not write"),
    (COMPUTER, PLAYER, Room.PLAYERS, "against the computer"),
])
def test_who_writes_in_which_room(game: ChatGame, reader: Reader, room: Room,
                                  refused: str | None) -> None:
    reason = post_refusal(game, reader, room)
    assert (reason is None) if refused is None else (refused in str(reason))


# ------------------------------------------------------------------ the text
@given(st.text(max_size=4 * MAX_TEXT + 10))
@example("\u202egnp.exe\u202c hello")  # a bidirectional override, removed
@example("a\u200bb\n\n\tc   d")  # zero width and white space runs
@example("x" * (MAX_TEXT + 1))
def test_a_checked_message_is_plain_bounded_text_or_a_clear_refusal(raw: str) -> None:
    try:
        text = checked_text(raw)
    except ValueError as error:
        assert "chat message" in str(error)
        return
    assert 0 < len(text) <= MAX_TEXT
    assert text == text.strip() and "  " not in text
    assert not any(unicodedata.category(char).startswith("C") for char in text)
    assert checked_text(text) == text  # checking twice changes nothing


@pytest.mark.parametrize("raw,expected", [
    ("  hello\n\nthere ", "hello there"),
    ("see https://example.com/<b>x</b>", "see https://example.com/<b>x</b>"),  # text
    ("\u202ereversed\u202c", "reversed"),
])
def test_messages_as_stored(raw: str, expected: str) -> None:
    assert checked_text(raw) == expected


@pytest.mark.parametrize("raw,reason", [
    ("", "needs some words"), (" \u200b\n", "needs some words"), (7, "is text"),
    ("y" * (MAX_TEXT + 1), f"at most {MAX_TEXT}"), (None, "is text"),
])
def test_bad_messages_are_refused_saying_why(raw: Any, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        checked_text(raw)


# ------------------------------------------------------------------ storage
def _players(storage: Any, *names: str) -> None:
    for name in names:
        storage.create_player(PlayerRecord(name, name, "2026-01-01T00:00:00+00:00"),
                              f"secret-{name}")


def test_messages_are_numbered_per_room_and_read_after_a_number(
        where: dict[str, object]) -> None:
    storage: Any = open_storage(**where)
    storage.create_game(_game("g1"))
    posted = [storage.post_chat("g1", "players", "ann", "Ann", f"hi {n}", 1000 + n, 10)
              for n in range(3)]
    watcher = storage.post_chat("g1", "spectators", "bob", "Bob", "go", 2000, 10)
    assert [m.seq for m in posted] == [1, 2, 3] and watcher.seq == 1
    assert [m.text for m in storage.chat_messages("g1", "players", after=1)] == ["hi 1", "hi 2"]
    assert storage.chat_messages("g1", "spectators") == [watcher]
    assert [m.text for m in storage.newest_chat_messages("g1", "players", 2)] == \
        ["hi 1", "hi 2"]
    assert storage.newest_chat_messages("g1", "spectators", 5) == [watcher]
    assert storage.newest_chat_messages("g2", "players", 5) == []
    assert storage.chat_posts_since("ann", 1000) == 2
    storage.close()


def test_a_full_room_an_unknown_game_and_a_silenced_writer_store_nothing(
        where: dict[str, object]) -> None:
    storage: Any = open_storage(**where)
    storage.create_game(_game("g1"))
    for n in range(2):
        storage.post_chat("g1", "players", "ann", "Ann", f"m{n}", n, 2)
    with pytest.raises(ChatRefused, match="full: 2 messages"):
        storage.post_chat("g1", "players", "ann", "Ann", "one more", 5, 2)
    with pytest.raises(ChatRefused, match="no game"):
        storage.post_chat("nope", "players", "ann", "Ann", "hello", 5, 2)
    storage.silence_chat("bob", until=10_000, reason="insults", at=100)
    with pytest.raises(ChatRefused, match="silenced"):
        storage.post_chat("g1", "spectators", "bob", "Bob", "hello", 500, 2)
    assert storage.chat_silenced_until("bob", 500) == 10_000
    assert storage.chat_silenced_until("bob", 10_000) is None  # ended
    storage.post_chat("g1", "spectators", "bob", "Bob", "back", 10_001, 2)
    assert [m.text for m in storage.chat_messages("g1", "spectators")] == ["back"]
    assert len(storage.chat_messages("g1", "players")) == 2
    storage.close()


def test_a_report_keeps_a_copy_once_per_reporter(
        where: dict[str, object]) -> None:
    storage: Any = open_storage(**where)
    storage.create_game(_game("g1"))
    storage.post_chat("g1", "spectators", "bob", "Bob", "rude words", 10, 10)
    first = storage.report_chat("g1", "spectators", 1, "ann", 20)
    again = storage.report_chat("g1", "spectators", 1, "ann", 30)
    other = storage.report_chat("g1", "spectators", 1, "cy", 40)
    assert first == again and first.reported_id == "bob" and first.text == "rude words"
    assert other.id != first.id
    assert storage.report_chat("g1", "spectators", 9, "ann", 50) is None
    assert [r.id for r in storage.chat_reports()] == [first.id, other.id]
    assert storage.close_chat_report(first.id) and not storage.close_chat_report(first.id)
    assert [r.id for r in storage.chat_reports()] == [other.id]
    assert [r.status for r in storage.chat_reports(None)] == ["closed", "open"]
    storage.close()


def test_follows_blocks_and_muted_chats(where: dict[str, object]) -> None:
    storage: Any = open_storage(**where)
    _players(storage, "ann", "bob", "cy")
    storage.create_game(_game("g1"))
    assert storage.set_relation("ann", "bob", "follow", True, 1)
    assert not storage.set_relation("ann", "bob", "follow", True, 2)  # once
    storage.set_relation("cy", "bob", "follow", True, 3)
    assert storage.relations_of("ann", "follow") == ["bob"]
    assert storage.related_to("bob", "follow") == ["ann", "cy"]
    storage.set_relation("bob", "cy", "block", True, 4)
    assert storage.blocked_between([("cy", "bob"), ("ann", "bob")]) == {("cy", "bob")}
    assert storage.set_relation("bob", "cy", "block", False, 5)
    assert storage.blocked_between([("cy", "bob")]) == set()
    with pytest.raises(ValueError, match="relation"):
        storage.set_relation("ann", "bob", "befriend", True, 6)
    storage.mute_chat("ann", "g1", True)
    storage.mute_chat("ann", "g1", True)
    assert storage.chat_muted("ann", "g1") and not storage.chat_muted("bob", "g1")
    storage.mute_chat("cy", "g1", True)
    assert storage.chat_muters("g1", ["bob", "cy", "ann", "cy"]) == {"ann", "cy"}
    assert storage.chat_muters("g2", ["ann"]) == set() and storage.chat_muters("g1", []) == set()
    storage.mute_chat("ann", "g1", False)
    assert not storage.chat_muted("ann", "g1")
    assert storage.chat_muters("g1", ["ann", "bob", "cy"]) == {"cy"}
    storage.close()


def test_two_processes_posting_to_one_room_at_once_store_both(
        postgres_url: str) -> None:  # noqa: F811
    """Two connections (as two server processes) post 20 messages each into one room at
    the same time: 40 messages, numbered 1-40 without a gap or a repeat."""
    setup: Any = open_storage(database_url=postgres_url)
    setup.create_game(_game("g1"))
    stores = [open_storage(database_url=postgres_url) for _ in range(2)]
    start = threading.Barrier(2, timeout=30)
    failures: list[BaseException] = []

    def post(index: int) -> None:
        try:
            start.wait()
            for n in range(20):
                stores[index].post_chat("g1", "spectators", f"p{index}", "P", f"{n}",
                                        n, 1000)
        except BaseException as error:  # reported below
            failures.append(error)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures and not any(t.is_alive() for t in threads)
    seqs = [m.seq for m in setup.chat_messages("g1", "spectators", limit=100)]
    assert seqs == list(range(1, 41))
    for storage in (*stores, setup):
        storage.close()


# ------------------------------------------------------------------ moderation
def test_a_moderator_lists_closes_and_silences_from_the_command_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Beside a running server's SQLite (its storage stays open throughout)."""
    monkeypatch.setenv("COLUMNS", "240")
    storage: Any = open_storage(data_dir=tmp_path)
    _players(storage, "ann", "bob")
    storage.create_game(_game("g1"))
    storage.post_chat("g1", "spectators", "bob", "bob", "you play like a potato", 10, 10)
    report = storage.report_chat("g1", "spectators", 1, "ann", 20)
    base = ["moderate", "--data-dir", str(tmp_path)]

    assert main([*base, "reports"]) == 0
    listed = capsys.readouterr().out
    assert report.id in listed and "potato" in listed and "ann" in listed

    assert main([*base, "silence", "bob", "--hours", "2", "--reason", "insults"]) == 0
    assert "silenced in chat until" in capsys.readouterr().out
    with pytest.raises(ChatRefused, match="silenced"):
        storage.post_chat("g1", "spectators", "bob", "bob", "again", int(time.time() * 1000),
                          10)
    assert main([*base, "unsilence", "bob"]) == 0
    storage.post_chat("g1", "spectators", "bob", "bob", "sorry", int(time.time() * 1000), 10)

    assert main([*base, "close", report.id]) == 0
    capsys.readouterr()
    assert main([*base, "reports"]) == 0
    assert "no open reports" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="no open report"):
        main([*base, "close", report.id])
    with pytest.raises(SystemExit, match="no player named 'zed'"):
        main([*base, "silence", "zed", "--reason", "x"])
    with pytest.raises(SystemExit, match="--hours"):
        main([*base, "silence", "bob", "--hours", "0", "--reason", "x"])
    storage.close()


def test_report_ids_never_begin_with_a_dash_which_the_command_line_reads_as_an_option() -> None:
    """A URL-safe id began with ``-`` one time in 64 and ``close`` then refused it."""
    ids = [new_report_id() for _ in range(2000)]
    assert not [found for found in ids if found.startswith("-")]
    assert len(set(ids)) == len(ids)


def test_an_older_report_id_that_begins_with_a_dash_closes_after_a_double_dash(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    storage: Any = open_storage(data_dir=tmp_path)
    _players(storage, "ann", "bob")
    storage.create_game(_game("g1"))
    storage.post_chat("g1", "spectators", "bob", "bob", "you play like a potato", 10, 10)
    monkeypatch.setattr(sql_chat, "new_report_id", lambda: "-Zq3x_old")
    report = storage.report_chat("g1", "spectators", 1, "ann", 20)
    assert report.id == "-Zq3x_old"
    base = ["moderate", "--data-dir", str(tmp_path)]
    assert main([*base, "close", "--", report.id]) == 0
    assert "report -Zq3x_old closed" in capsys.readouterr().out
    assert main([*base, "reports"]) == 0
    assert "no open reports" in capsys.readouterr().out
    storage.close()


def test_the_listing_shows_a_message_as_written_whatever_its_brackets_and_colons(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A chat message is the writer's text: ``[/b]`` once made ``reports`` fail for every
    report (rich read it as markup), ``[red]`` and ``:smile:`` were drawn, not shown."""
    monkeypatch.setenv("COLUMNS", "240")
    storage: Any = open_storage(data_dir=tmp_path)
    _players(storage, "ann", "bob")
    storage.create_game(_game("g1"))
    written = "close [/b] and [red]x[/red] :smile:"
    storage.post_chat("g1", "spectators", "bob", "bob", written, 10, 10)
    storage.report_chat("g1", "spectators", 1, "ann", 20)
    assert main(["moderate", "--data-dir", str(tmp_path), "reports"]) == 0
    assert written in capsys.readouterr().out
    storage.close()
