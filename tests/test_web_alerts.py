"""Turn alerts on the server: the alerts socket hears every turn that passes to its player,
in any of their online games (also through another server process), and correspondence
turns are emailed, through a real SMTP server (aiosmtpd), once per turn, only to a
verified address whose owner opted in; a mail server that never answers holds up no
request, and the mail queue stays bounded.

Nothing here measures time: what a thread or task does meanwhile is waited for with a
bound (``wait_until``), and "no alert" is checked by a ``ping`` answered after it would
have come (a socket's messages keep their order).
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

import test_web_storage
from hexgames.i18n import translator
from hexgames.web.accounts.mail import MailSettings
from hexgames.web.app import create_app
from hexgames.web.storage import open_storage
from mail_support import DeadServer, MailServer, wait_until
from test_web_lobby import play_turn, seek_and_accept, state, visitor

postgres_cluster = test_web_storage.postgres_cluster
postgres_url = test_web_storage.postgres_url
backend = test_web_storage.backend

CORRESPONDENCE = {"kind": "correspondence", "days": 3}
SITE = "https://games.example.org"


def settings(port: int, timeout: float = 10.0) -> MailSettings:
    return MailSettings(host="127.0.0.1", port=port, tls="none", sender="games@example.org",
                        site_url=SITE, timeout=timeout)


def named(client: TestClient, who: str, name: str) -> None:
    with visitor(client, who):
        assert client.post("/api/me/name", json={"name": name}).status_code == 200


def turns(socket: Any) -> list[dict[str, Any]]:
    """The ``your_turn`` messages that came before the answer to a ``ping`` sent now."""
    socket.send_json({"type": "ping"})
    came = []
    while (message := socket.receive_json())["type"] != "pong":
        assert message["type"] == "your_turn", message
        came.append(message)
    return came


def next_turn(socket: Any) -> dict[str, Any] | None:
    """The one ``your_turn`` message that came (``None``: none; two fail)."""
    came = turns(socket)
    assert len(came) <= 1, came
    return came[0] if came else None


def wait_turn(socket: Any, timeout: float = 30.0) -> dict[str, Any]:
    """A ``your_turn`` message that comes from another thread or process (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        turn = next_turn(socket)
        if turn is not None:
            return turn
        assert time.monotonic() < deadline, "no turn alert came"
        time.sleep(0.05)


def opened(socket: Any) -> None:
    assert socket.receive_json()["type"] == "hello"  # registered before this arrives


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as test_client:
        yield test_client


def test_every_turn_of_any_game_reaches_the_players_alerts_socket(client: TestClient) -> None:
    named(client, "ann", "Ann")
    named(client, "bob", "Bob")
    with visitor(client, "ann"):  # Ann posts, Bob accepts; Ann plays the second colour
        first, (bob_first, ann_first) = seek_and_accept(client, CORRESPONDENCE, color="blue")
        second, (bob_second, ann_second) = seek_and_accept(client, None, color="light",
                                                           game="dendria")
    ann_tokens = {first: ann_first, second: ann_second}
    bob_tokens = {first: bob_first, second: bob_second}
    with visitor(client, "ann"), client.websocket_connect("/ws/alerts") as ann:
        opened(ann)
        for game_id in (first, second):
            assert next_turn(ann) is None  # Bob (the first seat) is to move: no alert
            play_turn(client, game_id, bob_tokens[game_id])
            turn = next_turn(ann)
            assert turn is not None, game_id
            view = state(client, game_id, ann_tokens[game_id])
            assert turn["id"] == game_id and turn["url"] == f"/play/{game_id}"
            assert turn["ply"] == view["ply"] and turn["seat"] == 1
            assert turn["opponent"] == "Bob"
            assert turn["last"] == view["history"][-1]["notation"]
            assert turn["title"] == view["title"]
            assert next_turn(ann) is None  # once per turn
        assert next_turn(ann) is None
        assert turn["control"] == "untimed" and turn["deadline"] is None
        # Ann's own turn ends: the alert is Bob's, not hers.
        with visitor(client, "bob"), client.websocket_connect("/ws/alerts") as bob:
            opened(bob)
            play_turn(client, first, ann_tokens[first])
            assert next_turn(ann) is None
            turn = next_turn(bob)
            assert turn is not None and turn["id"] == first and turn["opponent"] == "Ann"
            assert turn["control"] == "correspondence" and turn["deadline"] > 0


def test_no_alert_for_games_against_the_computer_or_at_one_screen(client: TestClient) -> None:
    client.get("/api/me")
    with client.websocket_connect("/ws/alerts") as mine:
        opened(mine)
        for mode in ("ai", "hotseat"):
            created = client.post("/api/games", json={"game": "benediction", "mode": mode,
                                                      "level": 1}).json()
            for _ in range(3):  # the human's turn, then the computer's or the other seat's
                view = state(client, created["id"], created["token"])
                if view["your_turn"]:
                    client.post(f"/api/games/{created['id']}/actions", json={
                        "token": created["token"], "action": view["legal"][0]["action"],
                        "ply": view["ply"]})
                assert next_turn(mine) is None


def test_a_friends_game_alerts_its_first_mover_once_the_invitation_is_taken(
        client: TestClient) -> None:
    named(client, "ann", "Ann")
    named(client, "bob", "Bob")
    with visitor(client, "ann"):
        made = client.post("/api/games", json={"game": "benediction", "mode": "online",
                                               "seat": 0}).json()
        with client.websocket_connect("/ws/alerts") as ann:
            opened(ann)
            with client.websocket_connect(f"/ws/games/{made['id']}?token={made['token']}"):
                assert next_turn(ann) is None  # Ann's move, but nobody to play yet
            with visitor(client, "bob"):
                invite = made["links"]["seats"][1].split("token=")[1]
                claimed = client.post(f"/api/games/{made['id']}/claim", json={"token": invite})
                assert claimed.json()["role"] == "player"
            turn = next_turn(ann)
            assert turn is not None and (turn["id"], turn["ply"]) == (made["id"], 0)
            assert turn["opponent"] == "Bob" and turn["last"] is None


def test_the_alerts_socket_needs_an_identity_and_answers_pings(tmp_path: Path) -> None:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as fresh:
        with fresh.websocket_connect("/ws/alerts") as socket:  # no cookie yet
            assert socket.receive_json()["type"] == "error"
        fresh.get("/api/me")
        with fresh.websocket_connect("/ws/alerts") as socket:
            opened(socket)
            socket.send_text("not json")  # ignored
            assert next_turn(socket) is None


def test_alerts_sockets_are_bounded_per_player(client: TestClient) -> None:
    client.get("/api/me")
    alerts = client.app.state.site.turn_alerts
    alerts.per_player = 2
    with client.websocket_connect("/ws/alerts") as one, \
            client.websocket_connect("/ws/alerts") as two:
        opened(one)
        opened(two)
        with client.websocket_connect("/ws/alerts") as three:
            refused = three.receive_json()
            assert refused["type"] == "error" and "at most 2 pages" in refused["message"]


def test_a_turn_stored_by_another_process_reaches_a_socket_there(postgres_url: str) -> None:
    """Two server processes on one PostgreSQL database: Ann's alerts socket is on the
    second, which does not hold the game; Bob moves through the first."""
    with TestClient(create_app(database_url=postgres_url, ai_processes=1)) as one, \
            TestClient(create_app(database_url=postgres_url, ai_processes=1)) as two:
        named(one, "ann", "Ann")
        named(one, "bob", "Bob")
        with visitor(one, "ann"):
            game_id, (bob_token, ann_token) = seek_and_accept(one, CORRESPONDENCE,
                                                              color="blue")
            two.cookies = httpx.Cookies(one.cookies)  # the same browser on the other
        with two.websocket_connect("/ws/alerts") as ann:
            opened(ann)
            assert game_id not in two.app.state.site.service.games.matches
            play_turn(one, game_id, bob_token)
            turn = wait_turn(ann)
            view = state(one, game_id, ann_token)
            assert (turn["id"], turn["ply"], turn["opponent"]) == (game_id, view["ply"], "Bob")
            assert turn["last"] == view["history"][-1]["notation"]


# ------------------------------------------------------------------ turn emails
@pytest.fixture
def smtp() -> Iterator[MailServer]:
    with MailServer() as server:
        yield server


@pytest.fixture
def mailing(tmp_path: Path, smtp: MailServer) -> Iterator[TestClient]:
    app = create_app(data_dir=tmp_path, ai_processes=1, mail=settings(smtp.port))
    with TestClient(app) as test_client:
        yield test_client


def settled(client: TestClient) -> None:
    """Wait (bounded) until the turn checks have run and the mailer is idle."""
    emails = client.app.state.site.turn_emails
    wait_until(lambda: not emails._tasks and emails.mailer.idle(), "the mailer to finish")


def link(message: Any, path: str) -> str:
    found = re.search(re.escape(SITE + path) + r"\S*", message.get_content())
    assert found, message.get_content()
    return found.group(0)


def test_correspondence_turns_are_emailed_once_each_to_a_verified_opt_in(
        mailing: TestClient, smtp: MailServer) -> None:
    client = mailing
    named(client, "ann", "Ann")
    named(client, "bob", "Bob")
    with visitor(client, "ann"):
        game_id, (bob_token, ann_token) = seek_and_accept(client, CORRESPONDENCE,
                                                          color="blue")
        answer = client.post("/api/me/alerts", json={"email": " Ann@Example.ORG ",
                                                     "turn_emails": True})
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"email_available": True, "email": "Ann@example.org",
                                 "email_verified": False, "turn_emails": True}
    wait_until(lambda: smtp.received, "the verification email")
    (to, verification), = smtp.received
    assert to == ["Ann@example.org"] and "Confirm" in verification["Subject"]
    confirm = link(verification, "/alerts/verify?token=")

    play_turn(client, game_id, bob_token)  # not verified yet: no email
    settled(client)
    assert len(smtp.received) == 1

    assert client.get(confirm.removeprefix(SITE)).status_code == 200
    assert client.get(confirm.removeprefix(SITE)).status_code == 404  # once
    with visitor(client, "ann"):
        assert client.get("/api/me/alerts").json()["email_verified"] is True
    play_turn(client, game_id, ann_token)
    play_turn(client, game_id, bob_token)
    wait_until(lambda: len(smtp.received) == 2, "the turn email")
    (to, email) = smtp.received[1]
    view = state(client, game_id, ann_token)
    assert to == ["Ann@example.org"] and email["To"] == "Ann@example.org"
    assert email["Subject"] == "Your turn: Benediction against Bob"
    assert email["From"] == "games@example.org"
    body = email.get_content()
    assert f"{SITE}/play/{game_id}" in body
    assert f"Bob played {view['history'][-1]['notation']}" in body and "3 days per turn" in body
    stop = link(email, "/alerts/stop?player=")
    assert email["List-Unsubscribe"] == f"<{stop}>"

    # The same turn seen again (a player connects; a restarted process forgot it): no
    # second email, the storage's mark holds.
    client.app.state.site.turn_alerts._last.clear()
    with client.websocket_connect(f"/ws/games/{game_id}?token={ann_token}") as socket:
        socket.receive_json()
    settled(client)
    assert len(smtp.received) == 2

    # Opted out by the email's own link: no more.
    page = client.get(stop.removeprefix(SITE))
    assert page.status_code == 200 and "stopped" in page.text
    assert client.get(stop.removeprefix(SITE) + "x").status_code == 404
    with visitor(client, "ann"):
        assert client.get("/api/me/alerts").json()["turn_emails"] is False
    play_turn(client, game_id, ann_token)
    play_turn(client, game_id, bob_token)
    settled(client)
    assert len(smtp.received) == 2

    # On again: the next turn is emailed.
    with visitor(client, "ann"):
        client.post("/api/me/alerts", json={"turn_emails": True})
    play_turn(client, game_id, ann_token)
    play_turn(client, game_id, bob_token)
    wait_until(lambda: len(smtp.received) == 3, "the next turn email")


HANGUL = re.compile("[\uac00-\ud7a3]")


def test_turn_emails_are_in_the_language_of_the_page_that_set_them(
        mailing: TestClient, smtp: MailServer) -> None:
    """Ann turns them on from a Korean page, Bob from an English one: each turn email is
    in its player's language (the verification email already was)."""
    client = mailing
    named(client, "ann", "Ann")
    named(client, "bob", "Bob")
    with visitor(client, "ann"):
        game_id, (bob_token, ann_token) = seek_and_accept(client, CORRESPONDENCE,
                                                          color="blue")
        ann = client.get("/api/me").json()["id"]
        answer = client.post("/api/me/alerts", headers={"Accept-Language": "ko"},
                             json={"email": "ann@example.org", "turn_emails": True})
        assert answer.status_code == 200, answer.text
    with visitor(client, "bob"):
        answer = client.post("/api/me/alerts", json={"email": "bob@example.org",
                                                     "turn_emails": True})
        assert answer.status_code == 200, answer.text
    wait_until(lambda: len(smtp.received) == 2, "the verification emails")
    for to, verification in smtp.received:
        korean = to == ["ann@example.org"]
        assert bool(HANGUL.search(verification["Subject"])) is korean
        assert client.get(link(verification, "/alerts/verify?token=")
                          .removeprefix(SITE)).status_code == 200

    play_turn(client, game_id, bob_token)  # Ann's turn
    play_turn(client, game_id, ann_token)  # Bob's
    wait_until(lambda: len(smtp.received) == 4, "the turn emails")
    emails = {tuple(to): email for to, email in smtp.received[2:]}
    korean, english = emails[("ann@example.org",)], emails[("bob@example.org",)]

    template = translator("ko").gettext("Your turn: {game} against {opponent}")
    assert HANGUL.search(template), template
    subject = korean["Subject"]
    assert HANGUL.search(subject) and "Bob" in subject
    for part in re.split(r"\{\w+\}", template):
        assert part in subject, (part, subject)
    body = korean.get_content()
    assert HANGUL.search(body) and f"{SITE}/play/{game_id}" in body
    assert korean["List-Unsubscribe"] == f"<{link(korean, '/alerts/stop?player=')}>"

    assert english["Subject"] == "Your turn: Benediction against Ann"
    body = english.get_content()
    assert not HANGUL.search(body) and "It is your turn" in body

    # Turning them on again from a Portuguese page makes them Portuguese; the stop link
    # (or a change without a language) keeps what is stored.
    storage = client.app.state.site.service.storage
    assert storage.alert_settings(ann).language == "ko"
    with visitor(client, "ann"):
        client.post("/api/me/alerts?lang=pt", json={"turn_emails": True})
    assert storage.alert_settings(ann).language == "pt"
    stop = link(korean, "/alerts/stop?player=")
    assert client.get(stop.removeprefix(SITE)).status_code == 200
    settings_now = storage.alert_settings(ann)
    assert settings_now.turn_emails is False and settings_now.language == "pt"


def test_an_older_database_gains_the_language_of_turn_emails(
        backend: tuple[str, dict]) -> None:
    kind, where = backend
    open_storage(**where).close()
    statements = (  # the player_alerts table before the language was stored
        "DROP TABLE player_alerts",
        "CREATE TABLE player_alerts (player_id TEXT PRIMARY KEY, email TEXT, "
        "verified INTEGER NOT NULL DEFAULT 0, turn_emails INTEGER NOT NULL DEFAULT 0, "
        "verify_hash TEXT, updated_at TEXT NOT NULL)",
        "INSERT INTO player_alerts VALUES ('p1', 'ann@example.org', 1, 1, NULL, 't')",
    )
    if kind == "sqlite":
        with sqlite3.connect(where["data_dir"] / "hexgames.sqlite3") as db:
            for statement in statements:
                db.execute(statement)
        db.close()
    else:
        import psycopg

        with psycopg.connect(where["database_url"], autocommit=True) as db:
            for statement in statements:
                db.execute(statement)
    storage = open_storage(**where)
    try:
        old = storage.alert_settings("p1")
        assert old is not None and old.email == "ann@example.org" and old.verified
        assert old.turn_emails and old.language is None  # English, as before
        storage.set_turn_emails("p1", True, "t2", "ko")
        assert storage.alert_settings("p1").language == "ko"
        storage.set_turn_emails("p1", False, "t3")  # no language given: kept
        assert storage.alert_settings("p1").language == "ko"
        storage.set_alert_email("p1", "ann@example.com", "sha256:z", "t4", "pt")
        assert storage.alert_settings("p1").language == "pt"
    finally:
        storage.close()
    storage = open_storage(**where)  # the migration runs again: nothing to do
    try:
        assert storage.alert_settings("p1").language == "pt"
    finally:
        storage.close()


def test_real_time_and_untimed_turns_are_not_emailed(mailing: TestClient,
                                                     smtp: MailServer) -> None:
    client = mailing
    named(client, "ann", "Ann")
    storage = client.app.state.site.service.storage
    with visitor(client, "ann"):
        me = client.get("/api/me").json()["id"]
    storage.set_alert_email(me, "ann@example.org", "sha256:x", "2026-01-01T00:00:00+00:00")
    assert storage.verify_alert_email("sha256:x", "2026-01-01T00:00:00+00:00") == me
    storage.set_turn_emails(me, True, "2026-01-01T00:00:00+00:00")
    with visitor(client, "ann"):
        for control in (None, {"kind": "realtime", "base_s": 600, "increment_s": 0}):
            game_id, (bob_token, _) = seek_and_accept(client, control, color="blue")
            play_turn(client, game_id, bob_token)
    settled(client)
    assert smtp.received == []


def test_the_email_settings_are_validated(mailing: TestClient, tmp_path: Path) -> None:
    client = mailing
    client.get("/api/me")
    guest = client.post("/api/me/alerts", json={"email": "a@example.org"})
    assert guest.status_code == 400 and "named players" in guest.json()["error"]
    named(client, "ann", "Ann")
    with visitor(client, "ann"):
        for bad in ("nobody", "a@b", "a b@example.org", "x@example.org\r\nBcc: y@z.org",
                    "a" * 250 + "@example.org", "ann@exa_mple.org"):
            refused = client.post("/api/me/alerts", json={"email": bad})
            assert refused.status_code == 400, bad
        assert client.post("/api/me/alerts", json={"turn_emails": "yes"}).status_code == 400
        assert client.post("/api/me/alerts", json={"other": 1}).status_code == 400
        for _ in range(3):
            assert client.post("/api/me/alerts",
                               json={"email": "ann@example.org"}).status_code == 200
        limited = client.post("/api/me/alerts", json={"email": "ann@example.org"})
        assert limited.status_code == 429 and "Retry-After" in limited.headers
        cleared = client.post("/api/me/alerts", json={"email": None}).json()
        assert cleared["email"] is None and cleared["turn_emails"] is False
    with TestClient(create_app(data_dir=tmp_path / "other", ai_processes=1)) as plain:
        named(plain, "cid", "Cid")
        with visitor(plain, "cid"):
            assert plain.get("/api/me/alerts").json()["email_available"] is False
            off = plain.post("/api/me/alerts", json={"email": "cid@example.org"})
            assert off.status_code == 409 and "sends no email" in off.json()["error"]


def test_a_dead_mail_server_holds_up_no_request_and_the_queue_stays_bounded(
        tmp_path: Path) -> None:
    with DeadServer() as dead:
        app = create_app(data_dir=tmp_path, ai_processes=1, mail=settings(dead.port, 600))
        with TestClient(app) as client:
            emails = client.app.state.site.turn_emails
            mailer = emails.mailer
            named(client, "ann", "Ann")
            storage = client.app.state.site.service.storage
            with visitor(client, "ann"):
                me = client.get("/api/me").json()["id"]
            storage.set_alert_email(me, "ann@example.org", "sha256:y", "2026-01-01T00:00")
            storage.verify_alert_email("sha256:y", "2026-01-01T00:00")
            storage.set_turn_emails(me, True, "2026-01-01T00:00")
            with visitor(client, "ann"):
                game_id, (bob_token, ann_token) = seek_and_accept(client, CORRESPONDENCE,
                                                                  color="blue")
            play_turn(client, game_id, bob_token)
            wait_until(lambda: mailer.busy and dead.connections, "the mailer to connect")
            # The mail server holds the email (ten minutes' timeout): the game goes on.
            for _ in range(3):
                play_turn(client, game_id, ann_token)
                play_turn(client, game_id, bob_token)
            assert mailer.busy and mailer.sent == mailer.failed == 0
            # Flooding the queue drops what does not fit, at once.
            message = mailer.message("x@example.org", "test", "test")
            accepted = sum(mailer.submit(message) for _ in range(3 * mailer._queue.maxsize))
            assert accepted <= mailer._queue.maxsize
            assert mailer.waiting() <= mailer._queue.maxsize
            assert mailer.dropped == 3 * mailer._queue.maxsize - accepted
    # The server is gone: the stuck conversation fails, and stopping never waits.
    wait_until(lambda: mailer.failed >= 1, "the stuck email to be given up")
    assert mailer.join(30)


def test_each_smtp_step_is_bounded_by_the_timeout() -> None:
    from hexgames.web.accounts.mail import Mailer

    with DeadServer() as dead:
        mailer = Mailer(settings(dead.port, timeout=0.5), queue_size=2)
        message = mailer.message("x@example.org", "test", "test")
        assert mailer.submit(message)
        wait_until(lambda: mailer.busy, "the mailer to take the first")
        accepted = 1 + sum(mailer.submit(message) for _ in range(5))
        assert accepted >= 3 and mailer.dropped == 6 - accepted
        assert mailer.waiting() <= 2
        # Every accepted message is given up after its timeout, with the server alive.
        wait_until(lambda: mailer.failed == accepted, "the timeouts", timeout=60)
        assert mailer.sent == 0 and mailer.idle()
        wait_until(lambda: dead.connections == accepted, "the connections")
        mailer.close()
        assert mailer.join(10)
        assert mailer.submit(message) is False  # closed


def test_turn_email_marks_are_once_per_turn_and_bounded_per_player(
        backend: tuple[str, dict]) -> None:
    _, where = backend
    storage = open_storage(**where)
    try:
        stamp = "2026-03-01T12:00:00+00:00"
        hour_ago, old = "2026-03-01T11:00:00+00:00", "2026-02-01T00:00:00+00:00"
        claim = storage.claim_turn_email
        assert claim("g1", 4, "p1", stamp, hour_ago, 3, old) is True
        assert claim("g1", 4, "p1", stamp, hour_ago, 3, old) is False  # that turn's email
        assert claim("g1", 6, "p1", stamp, hour_ago, 3, old) is True
        assert claim("g2", 1, "p1", stamp, hour_ago, 3, old) is True
        assert claim("g3", 1, "p1", stamp, hour_ago, 3, old) is False  # 3 in the hour
        assert claim("g3", 1, "p2", stamp, hour_ago, 3, old) is True  # another player's
        assert claim("g3", 1, "p2", stamp, hour_ago, 3, old) is False
        later = "2026-03-01T13:30:00+00:00"  # the hour has passed
        assert claim("g4", 1, "p1", later, "2026-03-01T12:30:00+00:00", 3, old) is True
        # Marks older than forget_before go (a correspondence turn is long over by then).
        assert claim("g1", 4, "p1", "2026-04-01T00:00:00+00:00", "2026-03-31T23:00:00+00:00",
                     3, "2026-03-15T00:00:00+00:00") is True
    finally:
        storage.close()


def test_the_settings_need_a_sender_and_a_site_and_hide_the_password() -> None:
    from argparse import Namespace

    from hexgames.web.accounts.mail import mail_settings
    from hexgames.web.supervisor import worker_command

    args = Namespace(smtp_host="mail.example.org", smtp_port=None, smtp_user="games",
                     smtp_from=None, smtp_tls="starttls", site_url="https://g.example.org")
    with pytest.raises(ValueError, match="--smtp-from"):
        mail_settings(args)
    args.smtp_from = "games@example.org"
    made = mail_settings(args, {"HEXGAMES_SMTP_PASSWORD": "s3cret-pw"})
    assert made is not None and made.port == 587 and made.password == "s3cret-pw"
    assert "s3cret-pw" not in repr(made) and "s3cret-pw" not in made.describe()
    assert mail_settings(Namespace(smtp_host=None)) is None
    args.site_url = "games.example.org"
    with pytest.raises(ValueError, match="--site-url"):
        mail_settings(args)
    args.site_url = "https://g.example.org"
    command = worker_command(Namespace(host="127.0.0.1", data_dir="d", ai_processes=None,
                                       trusted_proxy=[], **vars(args)), 8000)
    assert command[command.index("--smtp-host") + 1] == "mail.example.org"
    assert command[command.index("--site-url") + 1] == "https://g.example.org"
    assert not any("s3cret" in part for part in command)
