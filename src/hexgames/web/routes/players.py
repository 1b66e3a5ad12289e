"""HTTP routes of identities, player pages and leaderboards (see docs/web.md, "Players").

- ``GET /api/me``: this browser's identity (created on first use, with its cookie).
- ``POST /api/me/name`` ``{"name"}``: pick or change the display name.
- ``POST /api/me/password`` ``{"password", "current"?}``: set or change the password.
- ``POST /api/login`` ``{"name", "password"}``: this browser becomes that player.
- ``POST /api/logout``: this browser forgets its identity.
- ``GET /api/players/{name}`` and the page ``/player/{name}``.
- ``GET /api/leaderboard?pool=...`` and the page ``/leaderboard``.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, StrictStr

from hexgames.game import get_game
from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.web.accounts import credentials
from hexgames.web.accounts.credentials import validate_name
from hexgames.web.game.matches import ENGLISH, reason_phrase
from hexgames.web.http import identity
from hexgames.web.http.addresses import client_address
from hexgames.web.http.errors import error_response
from hexgames.web.http.identity import CurrentPlayer, KnownPlayer, PagePlayer, Player
from hexgames.web.http.language import page, request_translator, said
from hexgames.web.http.not_found import not_found_response
from hexgames.web.http.origins import origin_allowed
from hexgames.web.http.state import Service
from hexgames.web.ratings.games import pool_title, rating_view
from hexgames.web.service import GameService
from hexgames.web.storage import NameLookAlike, NameTaken, PlayerRecord, StoredGame, name_key
from hexgames.web.storage.site_limits import SiteLimiter, StorageCaller

#: Wrong passwords (logins and password changes) per window: per client address, and per
#: account (the name as the account lookup folds it: `` vic``, ``VIC`` and ``vic\t`` are
#: one budget, whatever the address). Counted in storage, for the whole site
#: (:class:`LoginGuard`).
LOGIN_ATTEMPTS = 10
LOGIN_WINDOW = 300.0
#: Games listed on a player page.
PLAYER_GAMES = 100
#: Players one identity may follow, and block (past it: 409; routes/relations.py). The
#: bell reads at most 500 followers of a player per game; a profile, the viewer's lists.
MAX_RELATIONS = 500

router = APIRouter()


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True)


class NameIn(_Strict):
    name: StrictStr


class PasswordIn(_Strict):
    password: StrictStr
    #: The password in force, when there is one (changing it needs it).
    current: StrictStr | None = None


class LoginIn(_Strict):
    name: StrictStr
    password: StrictStr


#: A state-changing request from another site's page.
CROSS_SITE = N_("cross-site request refused")


def no_player(name: str) -> Phrase:
    return Phrase("there is no player {name}", name=repr(name[:40]))


def game_line(stored: StoredGame, player_id: str, names: dict[str, str],
              words: Translator = ENGLISH) -> dict[str, Any]:
    """A game on a player's page: who played it, the player's colour and the result
    (``reason_text``: ``reason`` in ``words``' language)."""
    try:
        game = get_game(stored.game)
        title, colors = game.title, list(game.colors)
    except (KeyError, ValueError):
        title, colors = stored.game, []
    seats: list[dict[str, Any]] = []
    for seat, entry in enumerate(stored.players):
        holder = entry.get("player_id")
        seats.append({
            "seat": seat,
            "kind": entry.get("kind", "human"),
            "level": entry.get("level"),
            "player": {"id": holder, "name": names.get(holder, "?")} if holder else None,
        })
    mine = [seat["seat"] for seat in seats if seat["player"] and seat["player"]["id"] == player_id]
    turn = stored.meta.turn if stored.status == "playing" else None
    reason = (stored.reason or "")[:120] or None
    return {
        "id": stored.id,
        "game": stored.game,
        "title": title,
        "colors": colors,
        "mode": stored.mode,
        "rated": stored.rated,
        "status": stored.status,
        "winner": stored.winner,
        "reason": reason,
        "reason_text": words.text(reason_phrase(reason)) if reason else None,
        "seats": seats,
        "your_seats": mine,
        # The page's player is to move in this game (their page lists these first).
        "your_turn": isinstance(turn, int) and turn in mine,
        # The seat to move while the game is played (the page names who is to move).
        "turn": turn if isinstance(turn, int) else None,
        "created_at": stored.created_at,
        "updated_at": stored.updated_at,
    }


class LoginGuard:
    """Password guessing, bounded for the whole site (counts in storage) without letting
    a stranger lock an account's owner out.

    Wrong passwords are counted per client address, per account and per (account,
    address). An address with :data:`LOGIN_ATTEMPTS` wrong passwords in the window is
    refused (429) before any check. When an *account* has had :data:`LOGIN_ATTEMPTS`
    wrong passwords (from anywhere), an address that already gave a wrong one for it is
    refused; an address that has not is still checked once: the right password logs in
    (the owner, elsewhere, is not locked out), a wrong one is answered 429 like a refusal
    (and counted). A guesser thus gets :data:`LOGIN_ATTEMPTS` guesses per account per
    window, plus one per further address it owns (each address has its own bound too).
    """

    def __init__(self, calls: StorageCaller) -> None:
        self.calls = calls
        self.by_address = SiteLimiter("login-ip", LOGIN_ATTEMPTS, LOGIN_WINDOW)
        self.by_account = SiteLimiter("login-name", LOGIN_ATTEMPTS, LOGIN_WINDOW)
        #: One wrong password of an address for an account marks the pair.
        self.by_pair = SiteLimiter("login-pair", 1, LOGIN_WINDOW)

    @staticmethod
    def keys(request: Request, name: str) -> tuple[str, str]:
        """(address, account): the account key is what the lookup
        (``player_by_name(name[:40])``) compares, so every spelling that reaches an
        account spends that account's one budget."""
        return client_address(request.scope), name_key(str(name)[:40])

    async def before(self, request: Request, name: str) -> tuple[float | None, float | None]:
        """(wait, last_chance): ``wait`` the seconds to refuse the attempt for (no
        check); else ``last_chance``, when the account's budget is spent, the seconds
        to answer a wrong password with (429 instead of 401)."""
        address, account = self.keys(request, name)
        wait = await self.by_address.spent(self.calls, address)
        if wait is not None:
            return wait, None
        spent = await self.by_account.spent(self.calls, account)
        if spent is None:
            return None, None
        if await self.by_pair.spent(self.calls, f"{account}|{address}") is not None:
            return spent, None
        return None, spent

    async def failed(self, request: Request, name: str) -> None:
        """Count a wrong password."""
        address, account = self.keys(request, name)
        await self.by_address.count(self.calls, address)
        await self.by_account.count(self.calls, account)
        await self.by_pair.count(self.calls, f"{account}|{address}")


def too_many(request: Request, wait: float) -> JSONResponse:
    return error_response(429, Phrase("too many attempts; try again in {seconds} s",
                                      seconds=int(wait) + 1), request,
                          {"Retry-After": str(int(wait) + 1)})


async def relation_view(service: StorageCaller, viewer: Player | None,
                        record: PlayerRecord) -> dict[str, Any]:
    """How the viewer stands to the player ``record``: ``following`` and ``blocked``
    (the viewer's own choices), ``you`` (their own profile) and ``named`` (whether the
    viewer may follow and block: guests may not)."""
    if viewer is None or viewer.id == record.id:
        return {"you": viewer is not None, "named": bool(viewer and not viewer.guest),
                "following": False, "blocked": False}
    follows = await service.call_storage(service.storage.relations_of, viewer.id,
                                         "follow", MAX_RELATIONS)
    blocks = await service.call_storage(service.storage.relations_of, viewer.id,
                                        "block", MAX_RELATIONS)
    return {"you": False, "named": not viewer.guest, "following": record.id in follows,
            "blocked": record.id in blocks}


async def form_token(service: GameService, player_id: str) -> str:
    """The hidden field of a profile's forms (follow, block): a keyed hash of the
    viewer's identity that another site's page cannot know. (A same-site form's
    ``Origin`` is ``null`` under the site's ``no-referrer`` policy, so the origin alone
    cannot tell the site's own forms from another's.)"""
    key = await service.seat_key()
    return hmac.new(key, b"profile-form\x00" + player_id.encode(), hashlib.sha256).hexdigest()[:32]


@router.get("/api/me")
async def me(player: CurrentPlayer) -> dict[str, Any]:
    """This browser's identity (created, with its cookie, on the first call)."""
    return player.me()


@router.post("/api/me/name")
async def rename(body: NameIn, request: Request, player: CurrentPlayer,
                 service: Service) -> Any:
    if not origin_allowed(request):
        return error_response(403, CROSS_SITE, request)
    name = validate_name(body.name)
    if name != player.name:
        try:
            await service.call_storage(service.storage.rename_player, player.id, name)
        except NameLookAlike as look_alike:
            return error_response(409, said(look_alike), request)
        except NameTaken:
            return error_response(409, Phrase("the name {name} is taken (names ignore "
                                               "case)", name=repr(name)), request)
        await service.renamed(player.id, name)
    return Player(player.id, name, player.has_password, player.created_at).me()


@router.post("/api/me/password")
async def set_password(body: PasswordIn, request: Request, player: CurrentPlayer,
                       service: Service) -> Any:
    if not origin_allowed(request):
        return error_response(403, CROSS_SITE, request)
    credentials.check_password_rules(body.password)
    if player.guest:
        return error_response(400, N_("pick a name before setting a password (you log "
                                       "in by name)"), request)
    if player.has_password:
        wait, last_chance = await LoginGuard(service).before(request, player.name)
        if wait is not None:
            return too_many(request, wait)
        record = await service.call_storage(service.storage.player_by_id, player.id)
        ok = await service.call_thread(credentials.verify_password, body.current or "",
                                       record.password if record else None)
        if not ok:
            await LoginGuard(service).failed(request, player.name)
            if last_chance is not None:
                return too_many(request, last_chance)
            return error_response(403, N_("the current password is wrong"), request)
    hashed = await service.call_thread(credentials.hash_password, body.password)
    # Every other browser of the player is logged out (a stolen cookie stops
    # working); this one stays.
    await service.call_storage(service.storage.change_password, player.id, hashed,
                               identity.current_session(request))
    return Player(player.id, player.name, True, player.created_at).me()


@router.post("/api/login")
async def login(body: LoginIn, request: Request, service: Service) -> Any:
    if not origin_allowed(request):
        return error_response(403, CROSS_SITE, request)
    wait, last_chance = await LoginGuard(service).before(request, body.name)
    if wait is not None:
        return too_many(request, wait)
    player = await identity.login(request, body.name, body.password)
    if player is None:
        await LoginGuard(service).failed(request, body.name)
        if last_chance is not None:
            return too_many(request, last_chance)
        return error_response(401, N_("wrong name or password"), request)
    return player.me()


@router.post("/api/logout")
async def logout(request: Request) -> Any:
    if not origin_allowed(request):
        return error_response(403, CROSS_SITE, request)
    await identity.logout(request)
    return {"ok": True}


#: Tournaments listed on a profile (the latest).
PLAYER_TOURNAMENTS = 20


@router.get("/api/players/{name}")
async def player_api(name: str, request: Request, service: Service,
                     viewer: KnownPlayer) -> Any:
    record = await service.call_storage(service.storage.player_by_name, name[:40])
    if record is None:
        return error_response(404, no_player(name), request)
    ratings = await service.call_storage(service.storage.ratings_of, record.id)
    games = await service.call_storage(service.storage.games_of_player, record.id,
                                       PLAYER_GAMES)
    holders = {entry["player_id"] for stored in games for entry in stored.players
               if entry.get("player_id")}
    names = await service.call_storage(service.storage.player_names, sorted(holders))
    words = request_translator(request)
    lines = [game_line(stored, record.id, names, words) for stored in games]
    return {
        "id": record.id,
        "name": record.name,
        "created_at": record.created_at,
        "ratings": [rating_view(rating) for rating in ratings],
        "playing": sorted((line for line in lines if line["status"] != "over"),
                          key=lambda line: not line["your_turn"]),
        "finished": [line for line in lines if line["status"] == "over"],
        # The tournaments the player entered, the latest first (their history).
        "tournaments": [{"id": entry.id, "kind": entry.kind, "game": entry.game,
                         "status": entry.status, "starts_at": entry.starts_at}
                        for entry in await service.call_storage(
                            service.storage.tournaments_of, record.id, PLAYER_TOURNAMENTS)],
        # How the viewer (the cookie's identity) stands to this player.
        **(await relation_view(service, viewer, record)),
    }


@router.get("/api/leaderboard")
async def leaderboard(service: Service, pool: str | None = None,
                      limit: int = Query(100, ge=1, le=500)) -> Any:
    """The pools with ratings, and the ranking of ``pool`` (default: the first)."""
    pools = await service.call_storage(service.storage.rating_pools)
    chosen = pool if pool is not None else (pools[0] if pools else None)
    rows = []
    if chosen is not None:
        rows = await service.call_storage(service.storage.leaderboard, chosen[:120], limit)
    return {
        "pools": [{"pool": name, "title": pool_title(name)} for name in pools],
        "pool": chosen,
        "players": [
            {"rank": rank, "name": name, **rating_view(record)}
            for rank, (record, name) in enumerate(rows, start=1)
        ],
    }


@router.get("/player/{name}", include_in_schema=False)
async def player_page(name: str, request: Request, player: PagePlayer, service: Service) -> Any:
    record = await service.call_storage(service.storage.player_by_name, name[:40])
    if record is None:
        return not_found_response(request)
    relation = await relation_view(service, player, record)
    token = await form_token(service, player.id) if player is not None else ""
    return page(request, "player.html", profile_name=record.name, relation=relation,
                form_token=token)


@router.get("/leaderboard", include_in_schema=False)
async def leaderboard_page(request: Request, player: PagePlayer) -> HTMLResponse:
    return page(request, "leaderboard.html")


