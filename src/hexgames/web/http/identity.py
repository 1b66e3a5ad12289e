"""Who is playing, as the HTTP side sees it: the identity cookie and the request's player.

A visitor gets an identity on the first page or API call that asks for one
(:func:`current_player`, a FastAPI dependency): a player row with a guest name
(``Guest-k3x9q2``) and a long random secret sent to the browser in the ``hexgames_id``
cookie (HttpOnly, SameSite=Lax, Secure over https). The database keeps only the secret's
SHA-256. One player may have several such secrets (one per browser: a login from another
device adds one). A password lets a player claim their identity from another browser
(:func:`login`).

The credentials themselves (name rules, scrypt, secrets, seat tokens) are pure functions in
:mod:`hexgames.web.accounts.credentials`; the names documented here before that split
(``validate_name``, ``hash_password``, ``verify_password``, ``seat_token``...) are still
importable from this module. Storage calls go through the app's service (anything with
``storage``, ``call_storage`` and ``call_thread``: :class:`StorageCaller`), so this module
does not depend on the service's class.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Protocol

from fastapi import Depends, HTTPException
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hexgames.phrases import Phrase
from hexgames.web.accounts.credentials import (
    GUEST_PREFIX,
    InvalidName,
    check_password_rules,
    dummy_hash,
    guest_name,
    hash_password,
    hash_secret,
    new_secret,
    seat_token,
    validate_name,
    verify_password,
    well_formed,
)
from hexgames.web.http.addresses import client_address
from hexgames.web.http.state import app_state
from hexgames.web.storage import (
    NameTaken,
    PlayerRecord,
    Storage,
    StorageUnavailable,
)

__all__ = [
    "COOKIE",
    "CurrentPlayer",
    "IdentityCookie",
    "InvalidName",
    "KnownPlayer",
    "NameTaken",
    "PagePlayer",
    "Player",
    "StorageCaller",
    "check_password_rules",
    "current_player",
    "hash_password",
    "hash_secret",
    "known_player",
    "seat_token",
    "validate_name",
    "verify_password",
]

#: The cookie holding a browser's identity secret.
COOKIE = "hexgames_id"
#: Cookie lifetime: 400 days, the most browsers keep (renewed by every login).
COOKIE_MAX_AGE = 400 * 24 * 3600
#: New identities one client address may create per window of seconds (issue 31:
#: 10,000 in 53 s); past them 429 with ``Retry-After`` (a page still loads, without one).
NEW_IDENTITIES_PER_ADDRESS = 60
NEW_IDENTITY_WINDOW = 3600.0


class StorageCaller(Protocol):
    """What this module needs of the app's service (``AppState.service``)."""

    @property
    def storage(self) -> Storage: ...

    async def call_storage(self, function: Callable[..., Any], *args: Any) -> Any: ...

    async def call_thread(self, function: Callable[..., Any], *args: Any) -> Any: ...


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


# ---------------------------------------------------------------- requests
def _service(connection: HTTPConnection) -> StorageCaller:
    return app_state(connection.app).service


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


async def known_player(connection: HTTPConnection) -> Player | None:
    """The identity whose cookie the request (or WebSocket handshake) carries, if any;
    never creates one."""
    cached = connection.scope.get("hexgames.player")
    if cached is not None:
        return cached
    secret = connection.cookies.get(COOKIE)
    if not well_formed(secret):
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
    wait = await app_state(request.app).new_identities.hit(service,
                                                           client_address(request.scope))
    if wait is not None:
        raise HTTPException(429, Phrase("too many new players from this address; try again "
                                        "in {minutes} min", minutes=int(wait) // 60 + 1),
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
    return hash_secret(str(secret)) if well_formed(secret) else None


async def logout(request: HTTPConnection) -> None:
    """Forget this browser's secret (the player stays; other browsers stay logged in)."""
    secret = request.cookies.get(COOKIE)
    if well_formed(secret):
        service = _service(request)
        await service.call_storage(service.storage.delete_session, hash_secret(str(secret)))
    request.scope.pop("hexgames.player", None)
    set_identity_cookie(request, None)
