"""HTTP and WebSocket routes of turn alerts (docs/web.md, "Turn alerts").

- ``WS /ws/alerts``: the ``your_turn`` messages of this browser's identity (the cookie),
  for any of its online games (:mod:`.alerts`), and the ``followed`` messages (a followed
  player started a game: :mod:`hexgames.web.alerts.follows`); ``{"type": "ping"}`` is
  answered ``pong``.
- ``GET /api/me/alerts`` and ``POST /api/me/alerts`` ``{"email"?, "turn_emails"?}``: the
  identity's turn-email settings (:mod:`.turn_emails`).
- ``GET /alerts/verify?token=`` and ``GET /alerts/stop?player=&key=``: the links of the
  verification email and of every turn email, answered with a small page.

:func:`wire_alerts` builds the alerts and wires the collaborators: the hub's and the
change feed's listeners, and the mailer when the server has mail settings.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, StrictBool, StrictStr

from hexgames.phrases import N_, Phrase
from hexgames.web.accounts.mail import Mailer, MailSettings
from hexgames.web.alerts.emails import EmailsOff, TurnEmails
from hexgames.web.alerts.follows import FollowAlerts
from hexgames.web.alerts.turns import TurnAlerts
from hexgames.web.game.errors import socket_error
from hexgames.web.http.addresses import client_address
from hexgames.web.http.identity import known_player
from hexgames.web.http.language import chosen_language, request_translator, said
from hexgames.web.http.language import page as language_page
from hexgames.web.http.origins import refused_from_another_site
from hexgames.web.http.state import AppState, Service, Site
from hexgames.web.routes.sockets import MAX_MESSAGE
from hexgames.web.service import GameService
from hexgames.web.storage import StorageUnavailable
from hexgames.web.storage.site_limits import SiteLimiter

__all__ = ["EMAIL_CHANGES_PER_ADDRESS", "close_alerts", "router", "wire_alerts"]

#: Address changes one client address may make per hour (each may send an email).
EMAIL_CHANGES_PER_ADDRESS = 10
#: Counted in storage, for the whole site.
EMAIL_CHANGES = SiteLimiter("email-change", EMAIL_CHANGES_PER_ADDRESS, 3600.0)

router = APIRouter()


def wire_alerts(service: GameService, mail: MailSettings | None = None
                ) -> tuple[TurnAlerts, TurnEmails, FollowAlerts]:
    """The turn alerts, emails and follow alerts of an app, wired into ``service`` (the
    hub's and the change feed's listeners, the started-game hook); the emails are sent
    through ``mail`` (none: no email). Close them with :func:`close_alerts` when the app
    stops."""
    alerts = TurnAlerts(service.games)
    emails = TurnEmails(service.games, Mailer(mail) if mail is not None else None)
    alerts.on_turn = emails.turn_passed
    service.hub.listeners.append(alerts.published)
    service.feed.listeners.append(alerts.heard)
    follows = FollowAlerts(service.games, alerts)
    service.games.hooks.started = follows.started
    service.feed.listeners.append(follows.heard)
    return alerts, emails, follows


def page(request: Request, title: str, text: str, status: int = 200) -> HTMLResponse:
    """A small page saying ``title`` and ``text`` (literals: looked up in the catalog)
    in the visitor's language, in the site's frame (templates/notice.html)."""
    words = request_translator(request)
    return language_page(request, "notice.html", status_code=status,
                         title=words.gettext(title), text=words.gettext(text))


class AlertsIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    #: A new address (a verification link is sent to it), or ``null`` to remove it.
    email: StrictStr | None = None
    turn_emails: StrictBool | None = None


@router.get("/api/me/alerts")
async def my_alerts(request: Request, site: Site) -> dict[str, Any]:
    """The identity's turn-email settings (and whether this server sends email)."""
    player = await known_player(request)
    return await site.turn_emails.view(player.id if player is not None else None)


@router.post("/api/me/alerts")
async def set_alerts(body: AlertsIn, request: Request, service: Service,
                     site: Site) -> dict[str, Any]:
    player = await known_player(request)
    if player is None or player.guest:
        raise HTTPException(400, N_("turn emails are for named players: pick a name on "
                                    "your player page first"))
    if "email" in body.model_fields_set:
        if body.email is not None:
            wait = await EMAIL_CHANGES.hit(service, client_address(request.scope))
            if wait is not None:
                raise HTTPException(429, Phrase("too many address changes from this "
                                                "address; try again in {minutes} min",
                                                minutes=int(wait) // 60 + 1),
                                    headers={"Retry-After": str(int(wait) + 1)})
        try:
            await site.turn_emails.set_email(player.id, player.name, body.email,
                                   request_translator(request))
        except EmailsOff as off:
            raise HTTPException(409, said(off)) from None
        except LookupError as limited:
            seconds = int(limited.args[0])
            raise HTTPException(429, Phrase("too many verification emails; try again in "
                                            "{minutes} min", minutes=seconds // 60 + 1),
                                headers={"Retry-After": str(seconds)}) from None
    if body.turn_emails is not None:
        await site.turn_emails.set_turn_emails(player.id, body.turn_emails,
                                     chosen_language(request))
    return await site.turn_emails.view(player.id)


@router.get("/alerts/verify", include_in_schema=False)
async def verify(request: Request, site: Site, token: str = "") -> HTMLResponse:
    if await site.turn_emails.verify(token):
        return page(request, N_("Email address confirmed"),
                    N_("Turn emails can now reach you. Turn them on or off with the bell "
                       "(Turn alerts) at the top of the site's pages."))
    return page(request, N_("Link not valid"),
                N_("This confirmation link is not valid any more: it was used already, "
                   "or a newer address was given since."), 404)


@router.get("/alerts/stop", include_in_schema=False)
async def stop(request: Request, site: Site, player: str = "", key: str = "") -> HTMLResponse:
    if await site.turn_emails.stop(player, key):
        return page(request, N_("Turn emails stopped"),
                    N_("You will get no more turn emails. Turn them on again with the "
                       "bell (Turn alerts) at the top of the site's pages."))
    return page(request, N_("Link not valid"),
                N_("This link does not stop anybody's emails."), 404)


@router.websocket("/ws/alerts")
async def alerts_socket(websocket: WebSocket, site: Site) -> None:
    if await refused_from_another_site(websocket):  # HTTP 403 to its handshake
        return
    await websocket.accept()
    words = request_translator(websocket)
    try:
        player = await known_player(websocket)
    except StorageUnavailable as down:
        await websocket.send_json(socket_error(said(down), words))
        await websocket.close(code=1013)
        return
    if player is None:
        await websocket.send_json(socket_error(
            N_("no identity: open a page of the site first"), words))
        await websocket.close(code=4401)
        return
    refusal = site.turn_alerts.refusal(player.id)
    if refusal is not None:
        await websocket.send_json(socket_error(refusal, words))
        await websocket.close(code=1013)
        return
    connection = site.turn_alerts.join(websocket, player.id)
    try:
        connection.send({"type": "hello", "player": player.id}, state=False)
        while not connection.closed:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            if '"ping"' in (frame.get("text") or "")[:MAX_MESSAGE]:
                connection.send({"type": "pong"}, state=False)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        site.turn_alerts.leave(websocket)


async def close_alerts(site: AppState) -> None:
    """Close the alerts sockets, stop the mailer and the follow alerts' worker (the app
    is stopping)."""
    if site.follow_alerts is not None:
        await site.follow_alerts.close()
    await site.turn_alerts.close()
    await site.turn_emails.close()
