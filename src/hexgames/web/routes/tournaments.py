"""Tournaments over HTTP (docs/web-api.md, "Tournaments"): create one, list them, read
one, join, leave, pause; ``/ws/tournaments/{id}`` pushes the tournament as it changes;
the pages ``/tournaments`` and ``/tournament/{id}``.

Every call that changes something also takes an HTML form's post (``application/
x-www-form-urlencoded``) and then answers 303 to the tournament's page, or the page of
the refusal: the pages work without scripts (the script only makes them live).

A creation request is read field by field so that every refusal is a 400 naming the
field (``kind``, ``minutes``, ``rounds``, ``game``, ``options``, ``control``...). The
game, its rules options and the clock are checked here as the lobby checks them;
what makes a tournament (kind, length, size, start) by
:mod:`hexgames.web.tournaments.model`. The director (:mod:`.tournaments.director`) does
the rest: the countdown, the pairings, the standings.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from hexgames.game import game_names, get_game
from hexgames.phrases import N_, Phrase
from hexgames.web.game.clocks import TimeControl
from hexgames.web.game.errors import socket_error
from hexgames.web.game.options import parse_options
from hexgames.web.http.errors import ERRORS, ErrorRule
from hexgames.web.http.identity import PagePlayer, Player, current_player, known_player
from hexgames.web.http.language import page, request_translator, said
from hexgames.web.http.origins import refused_from_another_site
from hexgames.web.http.state import Service, Site, app_state
from hexgames.web.ratings.games import rating_in, rating_pool
from hexgames.web.service import GameService
from hexgames.web.storage import StorageUnavailable
from hexgames.web.storage.sql_tournaments import TournamentRefused, TournamentUnknown
from hexgames.web.tournaments.model import FIELDS, SettingsError

__all__ = ["MAX_TOTAL_WATCHERS", "MAX_WATCHERS", "PUSH_SECONDS", "RESYNC_SECONDS",
           "TournamentFeed", "router"]

log = logging.getLogger(__name__)
router = APIRouter()

#: The request's fields beside the tournament's own settings (model.FIELDS).
SITE_FIELDS = frozenset({"game", "options", "control"})
#: Sockets watching one tournament, on this process (more are refused, 1013).
MAX_WATCHERS = 500
#: Sockets watching tournaments, all together, on this process (more are refused, 1013).
MAX_TOTAL_WATCHERS = 2000
#: Seconds between two looks at a watched tournament (its new state is pushed if changed).
PUSH_SECONDS = 1.0
#: The clocks of the view: their ticking alone is no change (the page counts down).
CLOCK_FIELDS = frozenset({"countdown_ms", "remaining_ms"})
#: Seconds after which an unchanged tournament is sent again, to set the page's clocks.
RESYNC_SECONDS = 30.0
#: Tournaments listed per section of the list.
LISTED = 50


def _field(name: str, reason: object) -> SettingsError:
    """The refusal of a field: ``reason`` a phrase, or an error saying its own."""
    return SettingsError(name, said(reason) if isinstance(reason, BaseException) else reason)


def checked_site_fields(data: Mapping[str, Any], rated: bool, kind: object
                        ) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The game, its options and the clock of a creation request, checked as the lobby
    checks a challenge's; :class:`SettingsError` naming the field otherwise."""
    name = data.get("game")
    if not isinstance(name, str) or name not in game_names():
        raise _field("game", Phrase("must be one of {names}", names=", ".join(game_names())))
    game = get_game(name)
    raw_options = data.get("options", {})
    if not isinstance(raw_options, dict):
        raise _field("options", Phrase("must be an object"))
    try:
        options = parse_options(game, raw_options)
    except ValueError as error:
        raise _field("options", error) from error
    try:
        control = TimeControl.parse(data.get("control"))
        if rated:
            control.check_rated()
    except ValueError as error:
        raise _field("control", error) from error
    if not control.timed:
        raise _field("control", Phrase("a tournament is played with a clock"))
    if kind == "arena" and control.kind != "realtime":
        raise _field("control", Phrase("an arena is played with a real-time clock"))
    return name, options, control.to_dict()


#: The form's numbers (whole numbers; an empty field is left out).
FORM_NUMBERS = ("minutes", "rounds", "max_players")


def is_form(request: Request) -> bool:
    return request.headers.get("content-type", "").startswith(
        "application/x-www-form-urlencoded")


async def request_fields(request: Request) -> dict[str, Any]:
    """The request's fields: its JSON object, or its form turned into the same shape
    (numbers, the checkbox ``rated``, the clock from ``clock``, ``base_minutes``,
    ``increment_s``, ``days``; ``starts_in_min`` as ``starts_in_s``)."""
    body = await request.body()
    if not is_form(request):
        try:
            data = json.loads(body or b"null")
        except ValueError as error:
            raise ValueError(Phrase("the body is not JSON")) from error
        if not isinstance(data, dict):
            raise ValueError(Phrase("the body is a JSON object of the tournament's fields"))
        return data
    form = {key: values[-1] for key, values in
            parse_qs(body.decode("utf-8", "replace"), max_num_fields=40).items()}
    fields: dict[str, Any] = {"rated": form.pop("rated", "") == "on"}
    for key in ("game", "kind"):
        if key in form:
            fields[key] = form.pop(key)
    for key in (*FORM_NUMBERS, "starts_in_min", "base_minutes", "increment_s", "days"):
        raw = form.pop(key, "").strip()
        if raw:
            try:
                fields[key] = float(raw) if key in ("base_minutes", "increment_s") else int(raw)
            except ValueError as error:
                raise _field(key, Phrase("must be a number")) from error
    # The form has both lengths: the one of the other kind is not this tournament's.
    fields.pop("rounds" if fields.get("kind") == "arena" else "minutes", None)
    if "starts_in_min" in fields:
        fields["starts_in_s"] = fields.pop("starts_in_min") * 60
    clock = form.pop("clock", "realtime")
    fields["control"] = ({"kind": "correspondence", "days": fields.pop("days", 3)}
                         if clock == "correspondence" else
                         {"kind": clock, "base_s": fields.pop("base_minutes", 3) * 60,
                          "increment_s": fields.pop("increment_s", 2)})
    fields.pop("base_minutes", None), fields.pop("increment_s", None), fields.pop("days", None)
    fields["on"] = form.pop("on", "true") != "false"
    return fields


def error_rule(error: Exception) -> ErrorRule:
    """The rule of the app's one error table for ``error``: the closest class in its
    MRO, as Starlette picks the handler (so a form's refusal has the JSON call's
    status)."""
    rules = {rule.exception: rule for rule in ERRORS}
    return next(rules[cls] for cls in type(error).__mro__ if cls in rules)


async def answered(request: Request, work: Callable[[], Awaitable[dict[str, Any]]]
                   ) -> Response | dict[str, Any]:
    """``work()``'s view as JSON; for a form, 303 to the tournament's page, or the
    refusal as a page with its status (the API's error table answers JSON calls)."""
    if not is_form(request):
        return await work()
    try:
        view = await work()
    except (ValueError, TournamentRefused, PermissionError) as error:
        status = error_rule(error).status_of(error)
        words = request_translator(request)
        return page(request, "notice.html", status_code=status,
                    title=words.gettext("Tournaments"), text=words.text(said(error)))
    return RedirectResponse(f"/tournament/{view['id']}", status_code=303)


async def _names(service: GameService, ids: set[str]) -> dict[str, str]:
    if not ids:
        return {}
    return dict(await service.call_storage(service.storage.player_names, sorted(ids)))


async def tournament_view(service: GameService, tournament_id: str,
                          viewer: Player | None) -> dict[str, Any]:
    """The tournament as the API shows it: the director's view, with names beside the
    identities, and what the viewer is to it (``you``)."""
    view = await shared_view(service, tournament_id)
    view["you"] = viewer_part(view, viewer)
    return view


async def shared_view(service: GameService, tournament_id: str) -> dict[str, Any]:
    """The tournament as every viewer sees it: the director's view, with names beside
    the identities."""
    view = await service.tournaments.director.view(tournament_id)
    ids = {line["player"] for line in view["standings"]} | {view["creator"]}
    ids |= {g[seat] for g in view["games"] for seat in ("first", "second") if g[seat]}
    names = await _names(service, ids)
    view["names"] = names
    for line in view["standings"]:
        line["name"] = names.get(line["player"], line["player"])
    if view["podium"] is not None:
        view["podium"] = view["standings"][:3]
    view["creator_name"] = names.get(view["creator"], "")
    return view


def viewer_part(view: Mapping[str, Any], viewer: Player | None) -> dict[str, Any]:
    """What ``viewer`` is to the tournament of :func:`shared_view` (``you``): no storage
    call, so a feed's many watchers each get theirs cheaply."""
    joined = viewer is not None and any(line["player"] == viewer.id and not line["withdrawn"]
                                        for line in view["standings"])
    return {"joined": joined, "player": viewer.id if viewer else None,
            "can_join": viewer is not None and not viewer.guest and not joined
            and view["status"] != "finished" and view["players"] < view["max_players"]}


async def _rating(service: GameService, player: Player, game: str,
                  options: Mapping[str, Any]) -> float:
    records = await service.call_storage(service.storage.ratings_of, player.id)
    return rating_in(records, rating_pool(game, options))


@router.post("/api/tournaments", status_code=201, response_model=None)
async def create_tournament(request: Request, service: Service,
                            site: Site) -> Response | dict[str, Any]:
    """Create a tournament (a named player; at most a few a day): ``game``, ``options``,
    ``control``, ``kind`` (``arena``|``swiss``), ``minutes`` or ``rounds``, ``rated``,
    ``starts_in_s``, and optionally ``max_players``, ``berserk``, ``streaks``."""

    async def create() -> dict[str, Any]:
        data = await request_fields(request)
        if is_form(request):
            data.pop("on", None)
        unknown = sorted(set(data) - FIELDS - SITE_FIELDS)
        if unknown:
            raise _field(str(unknown[0])[:40], Phrase("unknown field"))
        rated = data.get("rated", True)
        game, options, control = checked_site_fields(data, rated is True, data.get("kind"))
        player = await current_player(request)
        settings = {key: value for key, value in data.items() if key in FIELDS}
        settings.setdefault("rated", rated)
        record = await service.tournaments.director.create(
            player.id, player.guest, game, options, control, settings)
        if site.follow_alerts is not None:
            site.follow_alerts.tournament_created(record)  # the creator's followers' bells
        return await tournament_view(service, record.id, player)

    return await answered(request, create)


@router.get("/api/tournaments")
async def list_tournaments(service: Service) -> dict[str, Any]:
    """The upcoming, running and recently finished tournaments (``LISTED`` each)."""
    director = service.tournaments.director
    listed = {which: await director.listing(which, LISTED)
              for which in ("upcoming", "running", "recent")}
    names = await _names(service, {t["creator"] for ts in listed.values() for t in ts})
    for tournaments in listed.values():
        for tournament in tournaments:
            tournament["creator_name"] = names.get(tournament["creator"], "")
    return listed


@router.get("/api/tournaments/{tournament_id}")
async def read_tournament(tournament_id: str, request: Request,
                          service: Service) -> dict[str, Any]:
    """Status, round, countdown, standings with score and tiebreaks, games, podium."""
    return await tournament_view(service, tournament_id[:64], await known_player(request))


@router.post("/api/tournaments/{tournament_id}/join", response_model=None)
async def join_tournament(tournament_id: str, request: Request,
                          service: Service) -> Response | dict[str, Any]:
    """Enter (a named player; 409 when it has ended or is full; joining twice is
    joining once)."""
    tournament_id = tournament_id[:64]

    async def join() -> dict[str, Any]:
        player = await current_player(request)
        view = await service.tournaments.director.view(tournament_id)
        rating = await _rating(service, player, view["game"], view["options"])
        await service.tournaments.director.join(tournament_id, player.id, player.guest,
                                                rating)
        return await tournament_view(service, tournament_id, player)

    return await answered(request, join)


@router.post("/api/tournaments/{tournament_id}/leave", response_model=None)
async def leave_tournament(tournament_id: str, request: Request,
                           service: Service) -> Response | dict[str, Any]:
    """Withdraw: never paired again (a game in progress is played to its end)."""
    tournament_id = tournament_id[:64]

    async def leave() -> dict[str, Any]:
        player = await current_player(request)
        await service.tournaments.director.view(tournament_id)  # 404 for an unknown id
        await service.tournaments.director.leave(tournament_id, player.id)
        return await tournament_view(service, tournament_id, player)

    return await answered(request, leave)


@router.post("/api/tournaments/{tournament_id}/pause", response_model=None)
async def pause_tournament(tournament_id: str, request: Request,
                           service: Service) -> Response | dict[str, Any]:
    """``{"on": true}``: not paired until ``{"on": false}`` (an arena's pause)."""
    tournament_id = tournament_id[:64]

    async def pause() -> dict[str, Any]:
        fields = await request_fields(request)
        on = fields.get("on", True)
        if not isinstance(on, bool):
            raise _field("on", Phrase("must be true or false"))
        player = await current_player(request)
        await service.tournaments.director.view(tournament_id)
        await service.tournaments.director.pause(tournament_id, player.id, on)
        return await tournament_view(service, tournament_id, player)

    return await answered(request, pause)


# ---------------------------------------------------------------------- the pages
@router.get("/tournaments", include_in_schema=False)
async def tournaments_page(request: Request, player: PagePlayer,
                           service: Service) -> HTMLResponse:
    """The tournaments: upcoming, running, finished, and the form to create one."""
    listed = await list_tournaments(service)
    return page(request, "tournaments.html", listed=listed, games=game_names(),
                named=player is not None and not player.guest)


@router.get("/tournament/{tournament_id}", include_in_schema=False)
async def tournament_page(tournament_id: str, request: Request, player: PagePlayer,
                          service: Service) -> HTMLResponse:
    """One tournament, drawn by the server (its script keeps it live)."""
    view = await tournament_view(service, tournament_id[:64], player)
    return page(request, "tournament.html", t=view,
                named=player is not None and not player.guest)


class TournamentFeed:
    """One tournament's look on this process, shared by all its watchers: one poller
    computes the view once every ``PUSH_SECONDS`` and hands it to every socket (each
    adds its own ``you``), so a thousand watchers cost one look, not a thousand. The
    view is handed on only when it changed, the clocks (``countdown_ms``,
    ``remaining_ms``) aside: the page counts down itself, so an unchanged tournament
    is sent again only every ``RESYNC_SECONDS`` to set its clocks right."""

    def __init__(self) -> None:
        self.message: dict[str, Any] | None = None
        #: Why the feed stopped (a phrase, for each watcher to say in its language),
        #: and the code its sockets close with.
        self.failure: object | None = None
        self.close_code = 1013
        self.version = 0
        self._changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def publish(self, message: dict[str, Any] | None, failure: object = None,
                close_code: int = 1013) -> None:
        self.message, self.failure, self.close_code = message, failure, close_code
        self.version += 1
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def after(self, seen: int) -> int:
        """Wait for a version newer than ``seen``; that version."""
        while self.version == seen:
            await self._changed.wait()
        return self.version

    async def poll(self, service: GameService, tournament_id: str,
                   feeds: dict[str, TournamentFeed]) -> None:
        """Look every ``PUSH_SECONDS`` until cancelled (the last watcher left) or the
        tournament cannot be read (unknown, or the storage is down: said, and over)."""
        loop = asyncio.get_running_loop()
        last: dict[str, Any] | None = None
        sent_at = 0.0
        try:
            while True:
                view = await shared_view(service, tournament_id)
                compared = {k: v for k, v in view.items() if k not in CLOCK_FIELDS}
                if compared != last or loop.time() - sent_at >= RESYNC_SECONDS:
                    self.publish({"type": "tournament", **view})
                    last, sent_at = compared, loop.time()
                await asyncio.sleep(PUSH_SECONDS)
        except TournamentUnknown:
            self.publish(None, N_("no such tournament"), 4404)
        except StorageUnavailable as down:
            self.publish(None, said(down))
        except Exception:  # never leave the watchers waiting on a dead look
            log.exception("the look at tournament %s failed", tournament_id)
            self.publish(None, N_("internal error: the server could not handle this "
                                  "request"))
        if feeds.get(tournament_id) is self:
            del feeds[tournament_id]  # the next watcher looks afresh


#: The feeds of each app's tournaments (by its tournaments' registry), on this process.
_FEEDS: weakref.WeakKeyDictionary[object, dict[str, TournamentFeed]] = (
    weakref.WeakKeyDictionary())


def _feed(service: GameService, tournament_id: str) -> TournamentFeed:
    """The tournament's feed, its poller started by its first watcher (no await: the
    count and the feed are taken at once)."""
    feeds = _FEEDS.setdefault(service.tournaments, {})
    feed = feeds.get(tournament_id)
    if feed is None:
        feed = feeds[tournament_id] = TournamentFeed()
        feed.task = asyncio.get_running_loop().create_task(
            feed.poll(service, tournament_id, feeds))
    return feed


def _drop_feed(service: GameService, tournament_id: str) -> None:
    """The last watcher left: stop the look."""
    feed = _FEEDS.get(service.tournaments, {}).pop(tournament_id, None)
    if feed is not None and feed.task is not None:
        feed.task.cancel()


async def _drained(websocket: WebSocket) -> None:
    """Read and ignore what the client sends, until it leaves (a message asks for no
    look: the feed looks every ``PUSH_SECONDS`` anyway)."""
    while (await websocket.receive())["type"] != "websocket.disconnect":
        pass


@router.websocket("/ws/tournaments/{tournament_id}")
async def watch_tournament(websocket: WebSocket, tournament_id: str) -> None:
    """The tournament as :func:`read_tournament` gives it, at once and again whenever it
    changes (:class:`TournamentFeed`), until the client leaves. Another site's page is
    refused (4403); over ``MAX_WATCHERS`` on the tournament or ``MAX_TOTAL_WATCHERS``
    on the process, 1013; an unknown tournament is an error message and 4404, a
    storage that does not answer one and 1013."""
    if await refused_from_another_site(websocket):  # HTTP 403 to its handshake
        return
    service = app_state(websocket.app).service
    watchers: dict[str, int] = service.tournaments.watchers
    tournament_id = tournament_id[:64]
    if (watchers.get(tournament_id, 0) >= MAX_WATCHERS
            or sum(watchers.values()) >= MAX_TOTAL_WATCHERS):
        await websocket.close(code=1013)
        return
    watchers[tournament_id] = watchers.get(tournament_id, 0) + 1  # before any await
    try:
        await _watch(websocket, service, tournament_id)
    except (TimeoutError, WebSocketDisconnect, RuntimeError):
        return
    finally:
        watchers[tournament_id] -= 1
        if not watchers[tournament_id]:
            del watchers[tournament_id]
            _drop_feed(service, tournament_id)


async def _watch(websocket: WebSocket, service: GameService, tournament_id: str) -> None:
    feed = _feed(service, tournament_id)
    await websocket.accept()
    words = request_translator(websocket)
    try:
        viewer = await known_player(websocket)
    except StorageUnavailable as down:
        await websocket.send_json(socket_error(said(down), words))
        await websocket.close(code=1013)
        return
    drain = asyncio.create_task(_drained(websocket))
    drain.add_done_callback(lambda task: task.cancelled() or task.exception())
    try:
        seen = 0
        while True:
            newer = asyncio.create_task(feed.after(seen))
            await asyncio.wait({drain, newer}, return_when=asyncio.FIRST_COMPLETED)
            if not newer.done():
                newer.cancel()
                return  # the client left
            seen = newer.result()
            if feed.message is None:
                await websocket.send_json(socket_error(feed.failure, words))
                await websocket.close(code=feed.close_code)
                return
            await asyncio.wait_for(websocket.send_json(
                {**feed.message, "you": viewer_part(feed.message, viewer)}), 10)
    finally:
        drain.cancel()
