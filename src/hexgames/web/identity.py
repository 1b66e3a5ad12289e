"""Who is playing: persistent identities behind a cookie, display names and passwords.

A visitor gets an identity on the first page or API call that asks for one
(:func:`current_player`): a player row with a guest name (``Guest-k3x9q2``) and a long
random secret (32 bytes) sent to the browser in the ``hexgames_id`` cookie (HttpOnly,
SameSite=Lax, Secure over https). The database keeps only the secret's SHA-256, so a
copy of the database does not let anyone act as a player. One player may have several
such secrets (one per browser: a login from another device adds one).

A player may pick a display name (:func:`validate_name`: unique ignoring case) and protect
the identity with a password (scrypt from the standard library, a per-password salt,
compared in constant time), which lets them claim it from another browser
(``POST /api/login``).

Seats: a seat held by an identity (``players[seat]["player_id"]``) can be taken up again
from any browser of that identity without the seat's link: :func:`seat_token` derives,
from a site secret, a seat credential that :meth:`Match.seats_of` accepts.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, HTTPException
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hexgames.web.limits import client_address
from hexgames.web.storage import (
    NameTaken,
    PlayerRecord,
    Storage,
    StorageUnavailable,
    hash_token,
)

if TYPE_CHECKING:
    from hexgames.web.service import GameService

__all__ = [
    "COOKIE",
    "CurrentPlayer",
    "IdentityCookie",
    "InvalidName",
    "KnownPlayer",
    "NameTaken",
    "PagePlayer",
    "Player",
    "current_player",
    "hash_password",
    "known_player",
    "validate_name",
    "verify_password",
]

#: The cookie holding a browser's identity secret.
COOKIE = "hexgames_id"
#: Random bytes in a secret (the cookie holds them base64url-encoded: 43 characters).
SECRET_BYTES = 32
#: Cookie lifetime: 400 days, the most browsers keep (renewed by every login).
COOKIE_MAX_AGE = 400 * 24 * 3600
#: Names: 3 to 20 characters, ASCII letters, digits, ``_`` and ``-``, starting with a
#: letter (ASCII only: no look-alike letters from other scripts).
NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]{2,19}")
NAME_RULES = ("3 to 20 characters: letters A-Z, digits, '_' and '-', starting with a letter")
#: Names nobody may pick (compared ignoring case), and prefixes the site uses itself.
RESERVED_NAMES = frozenset({
    "admin", "administrator", "anonymous", "api", "bot", "computer", "guest", "hexgames",
    "me", "mod", "moderator", "none", "null", "owner", "player", "root", "server", "site",
    "staff", "support", "system", "undefined", "you", "leaderboard", "lobby",
})
RESERVED_PREFIXES = ("guest-", "guest_", "computer", "admin", "mod-", "mod_")
GUEST_PREFIX = "Guest-"
_GUEST_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"

#: scrypt parameters (RFC 7914's interactive setting, n=2^14, r=8: 16 MiB, tens of ms).
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SCRYPT_LENGTH = 32
SALT_BYTES = 16
PASSWORD_MIN = 8
PASSWORD_MAX = 200
#: New identities one client address may create per window of seconds (issue 31:
#: 10,000 in 53 s); past them 429 with ``Retry-After`` (a page still loads, without one).
NEW_IDENTITIES_PER_ADDRESS = 60
NEW_IDENTITY_WINDOW = 3600.0


class InvalidName(ValueError):
    """A display name that breaks the rules (the message says which)."""


@dataclass(frozen=True)
class Player:
    """An identity as the routes see it."""

    id: str
    name: str
    has_password: bool = False
    created_at: str = ""

    @property
    def guest(self) -> bool:
        """Still the name the site gave it."""
        return self.name.startswith(GUEST_PREFIX)

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name}

    def me(self) -> dict[str, Any]:
        """What ``GET /api/me`` answers (only to the player themself)."""
        return {"id": self.id, "name": self.name, "guest": self.guest,
                "has_password": self.has_password, "created_at": self.created_at}

    @classmethod
    def of(cls, record: PlayerRecord) -> Player:
        return cls(record.id, record.name, record.password is not None, record.created_at)


# ---------------------------------------------------------------------- names
def validate_name(name: Any) -> str:
    """The name as it will be stored (surrounding spaces dropped), or ``InvalidName``."""
    if not isinstance(name, str):
        raise InvalidName("a name must be a string")
    name = name.strip()
    if not NAME_PATTERN.fullmatch(name):
        raise InvalidName(f"a name has {NAME_RULES}")
    folded = name.casefold()
    if folded in RESERVED_NAMES or folded.startswith(RESERVED_PREFIXES):
        raise InvalidName(f"the name {name!r} is reserved")
    return name


def guest_name() -> str:
    return GUEST_PREFIX + "".join(secrets.choice(_GUEST_ALPHABET) for _ in range(6))


# ---------------------------------------------------------------- passwords
def hash_password(password: str, salt: bytes | None = None) -> str:
    """``scrypt$n$r$p$<salt hex>$<hash hex>`` of ``password`` (a fresh salt by default)."""
    check_password_rules(password)
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=SCRYPT_N, r=SCRYPT_R,
                            p=SCRYPT_P, dklen=SCRYPT_LENGTH)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str | None) -> bool:
    """True when ``password`` hashes to ``stored`` (constant-time comparison)."""
    if not stored or not isinstance(password, str) or len(password) > PASSWORD_MAX:
        return False
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        computed = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(salt),
                                  n=int(n), r=int(r), p=int(p), dklen=len(digest) // 2,
                                  maxmem=256 * 1024 * 1024)
    except ValueError:
        return False
    return hmac.compare_digest(computed.hex(), digest)


def check_password_rules(password: Any) -> None:
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise ValueError(f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")


# ------------------------------------------------------------------ secrets
def new_secret() -> str:
    return secrets.token_urlsafe(SECRET_BYTES)


def hash_secret(secret: str) -> str:
    """The stored form of a cookie secret: ``sha256:<hex>``."""
    return hash_token(secret)


def _well_formed(secret: str | None) -> bool:
    return bool(secret) and len(secret or "") <= 100


def seat_token(key: bytes, game_id: str, seat: int, player_id: str) -> str:
    """The seat credential of ``player_id`` in seat ``seat`` of ``game_id``: an HMAC
    under the site's key, so any browser of that identity can get it (``claim``) and
    nobody else can compute it. Starts with ``id.`` (other tokens never do)."""
    mac = hmac.new(key, f"{game_id}\x00{seat}\x00{player_id}".encode(), hashlib.sha256)
    return "id." + base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")


# ---------------------------------------------------------------- requests
def _service(connection: HTTPConnection) -> GameService:
    return connection.app.state.service


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


async def known_player(connection: HTTPConnection) -> Player | None:
    """The identity whose cookie the request (or WebSocket handshake) carries, if any;
    never creates one."""
    cached = connection.scope.get("hexgames.player")
    if cached is not None:
        return cached
    secret = connection.cookies.get(COOKIE)
    if not _well_formed(secret):
        return None
    service = _service(connection)
    record = await service.call_storage(service.storage.player_by_session,
                                        hash_secret(str(secret)))
    if record is None:
        return None
    player = Player.of(record)
    connection.scope["hexgames.player"] = player
    return player


async def current_player(request: HTTPConnection) -> Player:
    """The request's identity, created (with its cookie) when it has none. A FastAPI
    dependency: ``player: Player = Depends(current_player)``, or call it directly."""
    player = await known_player(request)
    if player is not None:
        return player
    service = _service(request)
    limiter = getattr(request.app.state, "new_identities", None)
    wait = limiter.hit(client_address(request.scope)) if limiter is not None else None
    if wait is not None:
        raise HTTPException(429, "too many new players from this address; try again in "
                                 f"{int(wait) // 60 + 1} min",
                            headers={"Retry-After": str(int(wait) + 1)})
    secret = new_secret()
    for _ in range(5):  # a guest name may (rarely) be taken
        record = PlayerRecord(id=secrets.token_urlsafe(12), name=guest_name(),
                              created_at=_now())
        try:
            await service.call_storage(service.storage.create_player, record,
                                       hash_secret(secret))
            break
        except NameTaken:
            continue
    else:  # pragma: no cover - 31^6 names
        raise RuntimeError("could not find a free guest name")
    player = Player.of(record)
    request.scope["hexgames.player"] = player
    set_identity_cookie(request, secret)
    return player


#: ``player: CurrentPlayer`` in a route's parameters: the request's identity (created
#: with its cookie when the browser has none).
CurrentPlayer = Annotated[Player, Depends(current_player)]
async def page_player(request: HTTPConnection) -> Player | None:
    """For pages: :func:`current_player`, but ``None`` when the storage is not answering
    (the page itself still loads; its API calls then report the problem)."""
    try:
        return await current_player(request)
    except StorageUnavailable:
        return None
    except HTTPException as refused:  # too many new identities from this address
        if refused.status_code == 429:
            return None
        raise


#: ``player: PagePlayer`` in a page's route (see :func:`page_player`).
PagePlayer = Annotated[Player | None, Depends(page_player)]
#: ``player: KnownPlayer``: the request's identity if its cookie names one, else ``None``
#: (API clients that keep no cookies create no identities).
KnownPlayer = Annotated[Player | None, Depends(known_player)]


def set_identity_cookie(request: HTTPConnection, secret: str | None) -> None:
    """Have :class:`IdentityCookie` send the cookie with the response (``None``: clear it)."""
    request.scope["hexgames.cookie"] = cookie_header(secret, request.url.scheme in ("https", "wss"))


def cookie_header(secret: str | None, secure: bool) -> str:
    value, age = (secret, COOKIE_MAX_AGE) if secret else ("", 0)
    parts = [f"{COOKIE}={value}", "Path=/", f"Max-Age={age}", "HttpOnly", "SameSite=Lax"]
    if secure:
        parts.append("Secure")
    return "; ".join(parts)


class IdentityCookie:
    """ASGI middleware: adds the ``Set-Cookie`` that :func:`current_player` (or a login)
    asked for to whatever response the route returns."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and "hexgames.cookie" in scope:
                headers = [*message.get("headers", ()),
                           (b"set-cookie", scope["hexgames.cookie"].encode("latin-1"))]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_cookie)


async def login(request: HTTPConnection, name: str, password: str) -> Player | None:
    """Check a name and password; on success this browser becomes that player (a new
    secret of its own, sent as the cookie)."""
    service = _service(request)
    storage: Storage = service.storage
    record = await service.call_storage(storage.player_by_name, str(name)[:40])
    stored = record.password if record is not None else None
    # Hash even for an unknown name, so the answer's timing does not tell names apart.
    ok = await service.call_thread(verify_password, password, stored or dummy_hash())
    if record is None or stored is None or not ok:
        return None
    secret = new_secret()
    await service.call_storage(storage.add_session, hash_secret(secret), record.id, _now())
    player = Player.of(record)
    request.scope["hexgames.player"] = player
    set_identity_cookie(request, secret)
    return player


def current_session(request: HTTPConnection) -> str | None:
    """The hashed secret this browser acts with (its cookie), if any."""
    secret = request.cookies.get(COOKIE)
    return hash_secret(str(secret)) if _well_formed(secret) else None


async def logout(request: HTTPConnection) -> None:
    """Forget this browser's secret (the player stays; other browsers stay logged in)."""
    secret = request.cookies.get(COOKIE)
    if _well_formed(secret):
        service = _service(request)
        await service.call_storage(service.storage.delete_session, hash_secret(str(secret)))
    request.scope.pop("hexgames.player", None)
    set_identity_cookie(request, None)


@cache
def dummy_hash() -> str:
    """A hash to check against when the name is unknown (same cost as a real one)."""
    return hash_password("not-a-real-password", salt=b"\0" * SALT_BYTES)
