"""Credentials, pure: display names, password hashes, cookie secrets and seat tokens.

Everything here is a function of its arguments (and of ``secrets`` for fresh randomness):
no HTTP, no storage call, no service. The FastAPI side of identities (the cookie, the
request's player, login and logout) is :mod:`hexgames.web.http.identity`, built on this; the
game logic (:mod:`hexgames.web.game.matches`) needs only :func:`seat_token`, and importing it
from here keeps the game logic free of any web framework.

- **Names** (:func:`validate_name`): 3 to 20 ASCII letters, digits, ``_`` and ``-``,
  starting with a letter; some names and prefixes are the site's own. A new identity gets
  a guest name (:func:`guest_name`, ``Guest-k3x9q2``).
- **Passwords**: scrypt from the standard library with a per-password salt, compared in
  constant time (:func:`hash_password`, :func:`verify_password`).
- **Secrets**: a browser's identity secret is 32 random bytes; only its SHA-256 is stored
  (:func:`hash_secret`), so a copy of the database does not let anyone act as a player.
- **Seat tokens** (:func:`seat_token`): an HMAC under the site's key of a game, a seat and
  the identity holding it, so any browser of that identity can take its seat up again.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from functools import cache
from typing import Any

from hexgames.phrases import N_, Phrase
from hexgames.web.storage import hash_token

__all__ = [
    "GUEST_PREFIX",
    "InvalidName",
    "check_password_rules",
    "dummy_hash",
    "guest_name",
    "hash_password",
    "hash_secret",
    "new_secret",
    "new_token",
    "seat_token",
    "validate_name",
    "verify_password",
    "well_formed",
]

#: Random bytes in a secret (the cookie holds them base64url-encoded: 43 characters).
SECRET_BYTES = 32
#: Random bytes in a seat token (a game's link: 24 characters).
TOKEN_BYTES = 18
#: Names: 3 to 20 characters, ASCII letters, digits, ``_`` and ``-``, starting with a
#: letter (ASCII only: no look-alike letters from other scripts).
NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]{2,19}")
NAME_RULES = N_("3 to 20 characters: letters A-Z, digits, '_' and '-', starting with a letter")
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
#: Longest cookie secret looked up (a real one has 43 characters).
MAX_SECRET = 100


class InvalidName(ValueError):
    """A display name that breaks the rules (the message says which)."""


# ---------------------------------------------------------------------- names
def validate_name(name: Any) -> str:
    """The name as it will be stored (surrounding spaces dropped), or ``InvalidName``."""
    if not isinstance(name, str):
        raise InvalidName(N_("a name must be a string"))
    name = name.strip()
    if not NAME_PATTERN.fullmatch(name):
        raise InvalidName(Phrase("a name has {rules}", rules=Phrase(NAME_RULES)))
    folded = name.casefold()
    if folded in RESERVED_NAMES or folded.startswith(RESERVED_PREFIXES):
        raise InvalidName(Phrase("the name {name} is reserved", name=repr(name)))
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
        raise ValueError(Phrase("a password has {minimum} to {maximum} characters",
                                minimum=PASSWORD_MIN, maximum=PASSWORD_MAX))


@cache
def dummy_hash() -> str:
    """A hash to check against when the name is unknown (same cost as a real one), so
    that a login's timing does not tell known names apart."""
    return hash_password("not-a-real-password", salt=b"\0" * SALT_BYTES)


# ------------------------------------------------------------------ secrets
def new_secret() -> str:
    return secrets.token_urlsafe(SECRET_BYTES)


def new_token() -> str:
    """A fresh seat token (a player's link to their seat; only its hash is stored)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_secret(secret: str) -> str:
    """The stored form of a cookie secret: ``sha256:<hex>``."""
    return hash_token(secret)


def well_formed(secret: str | None) -> bool:
    """Worth looking up: present and not absurdly long (a client sends what it likes)."""
    return bool(secret) and len(secret or "") <= MAX_SECRET


def seat_token(key: bytes, game_id: str, seat: int, player_id: str) -> str:
    """The seat credential of ``player_id`` in seat ``seat`` of ``game_id``: an HMAC
    under the site's key, so any browser of that identity can get it (``claim``) and
    nobody else can compute it. Starts with ``id.`` (other tokens never do)."""
    mac = hmac.new(key, f"{game_id}\x00{seat}\x00{player_id}".encode(), hashlib.sha256)
    return "id." + base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")
