"""Turn emails: an optional email when a correspondence game's turn passes to a player.

A named player gives an address (``POST /api/me/alerts``); it is verified by a link sent
to it (``/alerts/verify?token=...``; the database keeps the token's hash), and turn
emails go only to a verified address whose owner turned them on. Each email names the
game, the opponent's last action, the time left and the game's link, and carries a
link that stops them (``/alerts/stop?player=...&key=...``, an HMAC of the player id
under the site key: no login needed, nothing to guess).

Bounds: one email per game and turn, whatever the server processes (the storage's
:meth:`~hexgames.web.storage.Storage.claim_turn_email`), at most
:data:`TURN_EMAILS_PER_HOUR` per player, :data:`VERIFICATIONS_PER_HOUR` verification
emails per player and :data:`VERIFICATIONS_PER_RECIPIENT` per recipient address a day
(counted in storage: for the whole site, whatever the processes); the checks run in
tasks (at most :data:`MAX_PENDING` at once) and the sending in the mailer's thread
(:mod:`.mailer`), so a turn never waits for either.

Language: the verification email is written in the language of the page that gave the
address; turn emails in the language of the page the player last changed the settings from
(the address or the opt-in; stored with them), English when none is stored.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import secrets
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any

from hexgames.i18n import Translator, translator
from hexgames.phrases import N_, Phrase
from hexgames.web.accounts.mail import Mailer, validate_email
from hexgames.web.alerts.turns import Turn
from hexgames.web.game.matches import ENGLISH
from hexgames.web.play.live_games import LiveGames, iso_now
from hexgames.web.storage import hash_token
from hexgames.web.storage.site_limits import SiteLimiter

__all__ = ["TURN_EMAILS_PER_HOUR", "VERIFICATIONS_PER_HOUR", "VERIFICATIONS_PER_RECIPIENT",
           "EmailsOff", "TurnEmails"]

log = logging.getLogger(__name__)

#: Turn emails one player may be sent per hour (more turns meanwhile send none).
TURN_EMAILS_PER_HOUR = 10
#: Verification emails one player may ask for per hour (429 beyond).
VERIFICATIONS_PER_HOUR = 3
#: Verification emails sent to one address per day, whoever asks (429 beyond): many
#: identities from many client addresses cannot flood one inbox.
VERIFICATIONS_PER_RECIPIENT = 3
RECIPIENT_WINDOW = 24 * 3600.0
#: Turn checks (settings read, claim, queueing) running at once; beyond, a turn's email
#: is skipped (logged).
MAX_PENDING = 256
#: Days a turn email's mark is kept (a correspondence turn lasts 14 days at most).
KEEP_MARKS_DAYS = 15


class EmailsOff(RuntimeError):
    """This server sends no email (no ``--smtp-host``)."""


def _left(deadline: float | None, now_ms: float) -> Phrase | None:
    if deadline is None:
        return None
    hours = max(0.0, deadline - now_ms) / 3_600_000
    if hours >= 48:
        return Phrase("{days} days left", days=int(hours // 24))
    if hours >= 1:
        return Phrase("{hours} hours left", hours=int(hours))
    return Phrase("less than an hour left")


class TurnEmails:
    """Players' email settings and the turn emails of this process (see the module's doc).
    ``mailer`` is ``None`` when the server has no mail settings: nothing is sent."""

    def __init__(self, games: LiveGames, mailer: Mailer | None) -> None:
        self.games = games
        self.mailer = mailer
        # Both counted in storage, for the whole site (hexgames.web.storage.site_limits).
        self.verifications = SiteLimiter("verify-player", VERIFICATIONS_PER_HOUR, 3600.0)
        self.recipients = SiteLimiter("verify-to", VERIFICATIONS_PER_RECIPIENT,
                                      RECIPIENT_WINDOW)
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def available(self) -> bool:
        return self.mailer is not None

    async def _store(self, function: Any, *args: Any) -> Any:
        return await self.games.calls.call(function, *args)

    # What a SiteLimiter calls storage through (hexgames.web.storage.site_limits.StorageCaller).
    @property
    def storage(self) -> Any:
        return self.games.storage

    async def call_storage(self, function: Any, *args: Any) -> Any:
        return await self._store(function, *args)

    # ----------------------------------------------------------- settings
    async def view(self, player_id: str | None) -> dict[str, Any]:
        """What ``GET /api/me/alerts`` answers."""
        settings = None
        if player_id is not None:
            settings = await self._store(self.games.storage.alert_settings, player_id)
        return {
            "email_available": self.available,
            "email": settings.email if settings else None,
            "email_verified": bool(settings and settings.email and settings.verified),
            "turn_emails": bool(settings and settings.turn_emails),
        }

    async def set_email(self, player_id: str, name: str, email: str | None,
                        words: Translator = ENGLISH) -> None:
        """A new address (unverified; a verification link is sent to it, in ``words``'
        language) or none. ``ValueError`` for a malformed one, :class:`EmailsOff`
        without mail settings, ``LookupError`` (with the seconds to wait) past the
        verification limit. ``words``' language becomes the turn emails' language."""
        if email is None:
            await self._store(self.games.storage.set_alert_email, player_id, None, None,
                              iso_now(), words.language)
            return
        address = validate_email(email)
        mailer = self.mailer
        if mailer is None:
            raise EmailsOff(N_("this server sends no email (it has no SMTP settings)"))
        wait = await self.verifications.hit(self, player_id)
        if wait is None:  # (a refused player spends nothing of the recipient's budget)
            wait = await self.recipients.hit(self, address.lower())
        if wait is not None:
            raise LookupError(int(wait) + 1)
        token = secrets.token_urlsafe(24)
        await self._store(self.games.storage.set_alert_email, player_id, address,
                          hash_token(token), iso_now(), words.language)
        site = mailer.settings.site_url
        link = f"{site}/alerts/verify?token={token}"
        body = words.text(Phrase(
            "Hello {name},\n\nopen this link to confirm that {address} is yours and may get "
            "turn emails from hexgames ({site}):\n\n{link}\n\nIf you did not ask for this, "
            "ignore this email: nothing more will be sent to you.\n",
            name=name, address=address, site=site, link=link))
        mailer.submit(mailer.message(
            address, words.gettext("Confirm your email address for hexgames"), body))

    async def set_turn_emails(self, player_id: str, on: bool,
                              language: str | None = None) -> None:
        """Turn emails on or off; a ``language`` becomes the emails' language (``None``
        keeps the stored one)."""
        await self._store(self.games.storage.set_turn_emails, player_id, on, iso_now(),
                          language)

    async def verify(self, token: str) -> bool:
        if not token or len(token) > 200:
            return False
        return await self._store(self.games.storage.verify_alert_email, hash_token(token),
                                 iso_now()) is not None

    async def stop_key(self, player_id: str) -> str:
        """The key of the player's stop link (an HMAC under the site key)."""
        digest = hmac.new(await self.games.seat_key(),
                          b"turn-emails-stop\x00" + player_id.encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(digest.digest()[:18]).decode()

    async def stop(self, player_id: str, key: str) -> bool:
        """Turn the player's turn emails off if ``key`` is their stop link's."""
        if not player_id or len(player_id) > 100 or not key or len(key) > 100:
            return False
        if not hmac.compare_digest((await self.stop_key(player_id)).encode(),
                                   key.encode("utf-8", "replace")):
            return False
        await self.set_turn_emails(player_id, False)
        return True

    # -------------------------------------------------------------- turns
    def turn_passed(self, turn: Turn) -> None:
        """A turn was announced here (:class:`~.alerts.TurnAlerts`): check, in a task,
        whether it is owed an email. Never waits."""
        if self.mailer is None or turn.control != "correspondence":
            return
        if len(self._tasks) >= MAX_PENDING:
            log.warning("too many turn emails being checked; game %s's skipped", turn.game_id)
            return
        self._spawn(self._email(turn))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _email(self, turn: Turn) -> None:
        mailer, storage = self.mailer, self.games.storage
        if mailer is None:
            return
        try:
            settings = await self._store(storage.alert_settings, turn.player_id)
            if not (settings and settings.email and settings.verified
                    and settings.turn_emails):
                return
            now = datetime.now(UTC)
            claimed = await self._store(
                storage.claim_turn_email, turn.game_id, turn.ply, turn.player_id,
                now.isoformat(timespec="seconds"),
                (now - timedelta(hours=1)).isoformat(timespec="seconds"),
                TURN_EMAILS_PER_HOUR,
                (now - timedelta(days=KEEP_MARKS_DAYS)).isoformat(timespec="seconds"))
            if not claimed:
                return
            stop = (f"{mailer.settings.site_url}/alerts/stop?player={turn.player_id}"
                    f"&key={await self.stop_key(turn.player_id)}")
            mailer.submit(self.turn_email(turn, settings.email, stop,
                                          translator(settings.language)))
        except Exception:
            log.exception("could not email the turn of game %s", turn.game_id)

    def turn_email(self, turn: Turn, address: str, stop: str,
                   words: Translator = ENGLISH) -> Any:
        """The email of ``turn`` to ``address`` (``stop``: the link that stops them),
        in ``words``' language."""
        assert self.mailer is not None
        site = self.mailer.settings.site_url
        left = _left(turn.deadline, self.games.now())
        time = (Phrase("{time}; {left}", time=turn.time, left=left) if left is not None
                else turn.time)
        turn_line = Phrase("It is your turn in your correspondence game of {game} against "
                           "{opponent} ({time}).", game=turn.title, opponent=turn.opponent,
                           time=time)
        if turn.last:
            turn_line = Phrase("{opponent} played {action}. {turn}", opponent=turn.opponent,
                               action=turn.last, turn=turn_line)
        link = f"{site}/play/{turn.game_id}"
        body = words.text(Phrase(
            "{turn}\n\nPlay: {link}\n\nYou get this email because you turned on turn "
            "emails at {site}.\nStop them: {stop}\n", turn=turn_line,
            link=link, site=site, stop=stop))
        subject = words.text(Phrase("Your turn: {game} against {opponent}", game=turn.title,
                                    opponent=turn.opponent))
        return self.mailer.message(address, subject, body, {"List-Unsubscribe": f"<{stop}>"})

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self.mailer is not None:
            self.mailer.close()
