"""Live play over WebSockets: ``/ws/games/{id}?token=...``.

A browser opens one socket per game page. It receives the state at once and after every
change (its own view: legal actions only on its turn), and sends small JSON messages:
``{"type": "action", "action": "e3e4", "ply": 12}``, ``{"type": "undo"}``,
``{"type": "resign"}``, ``{"type": "ping"}`` and (online games, issue 11)
``{"type": "takeback", "answer": "offer"|"accept"|"decline"|"cancel"}``,
``{"type": "abort"}``, ``{"type": "rematch", "answer": "offer"|"decline"}``,
``{"type": "absence_claim", "claim": "victory"|"draw"}`` (:mod:`~hexgames.web.play.absence`),
``{"type": "chat", "room", "text"}`` (a chat message, as the cookie's identity:
:mod:`~hexgames.web.play.chat`; the sockets that may read the room get
``{"type": "chat", "room", "message"}``);
an action may carry ``"lag"``, the client's measured round trip in ms (credited to its clock up to
``clocks.LAG_ALLOWANCE_MS``). A refused message is answered with
``{"type": "error", "message": ...}`` to the sender only and changes nothing (``message``
in the socket's language, see :mod:`hexgames.web.http.language`: English for a client that
names none).

``/ws/lobby`` sends the lobby (``{"type": "lobby", "seeks", "playing"}``) at once and
after every change, and ``{"type": "seek_taken", "seek", "game"}`` when a challenge is
accepted (its creator's page then opens the game), and ``{"type": "pool_paired", "entry",
"pool", "game"}`` to the two players a quick-pairing pool paired (:mod:`~hexgames.web.lobby.pools`).
It reads nothing but pings; its identity's last socket closing takes it out of its pool.

Opt-ins (see docs/web.md): ``delta=1`` sends the move list's new tail only, ``svg=patch``
the board as a patch of the drawing the client already holds.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from hexgames.errors import IllegalAction
from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.web.game.errors import socket_error
from hexgames.web.game.matches import ENGLISH
from hexgames.web.http.identity import Player, known_player
from hexgames.web.http.language import request_translator, said
from hexgames.web.http.origins import refused_from_another_site
from hexgames.web.http.state import Service
from hexgames.web.play.chat import ChatForbidden, ChatTooFast, MessageNotFound
from hexgames.web.service import AiBusy, GameNotFound, GameService, WriteUnconfirmed
from hexgames.web.storage import ChatRefused, StaleWrite, StorageUnavailable

#: Longest WebSocket message read (actions are short; see docs/web.md).
MAX_MESSAGE = 4096
#: Longest piece of a client's own input quoted back in an error message.
ECHO_LIMIT = 80


router = APIRouter()


@router.websocket("/ws/games/{game_id}")
async def socket(websocket: WebSocket, game_id: str, service: Service,
                 token: str | None = None, delta: str | None = None,
                 svg: str | None = None) -> None:
    if await refused_from_another_site(websocket):  # HTTP 403 to its handshake
        return
    await websocket.accept()
    words = request_translator(websocket)  # ?lang=, the cookie or Accept-Language
    # A viewer is refused before the game is read; a token is checked first (a player
    # is never refused for viewers: see Hub.admit).
    refusal = None if token else service.hub.refusal(game_id)
    if refusal is not None:
        await websocket.send_json(socket_error(refusal, words))
        await websocket.close(code=1013)  # try again later
        return
    try:
        match = await service.get(game_id)
    except (GameNotFound, ValueError) as exc:  # ValueError: a stored game that won't replay
        await websocket.send_json(socket_error(said(exc), words))
        await websocket.close(code=4404 if isinstance(exc, GameNotFound) else 4409)
        return
    except StorageUnavailable as exc:
        await websocket.send_json(socket_error(said(exc), words))
        await websocket.close(code=1013)
        return
    notice = None
    if token and not match.seats_of(token):
        notice = socket_error(N_("this token holds no seat here: you are watching"), words)
        token = None
    seats = frozenset(match.seats_of(token)) if token else frozenset()
    try:  # who reads the chat (the cookie's identity: blocks, the players' room)
        player = await known_player(websocket)
    except StorageUnavailable:
        player = None
    if seats:  # stored before the seat is shown present: a claim on another process
        # reads it (issue 39, row 2); a storage failure leaves it to the beat
        await service.absence.arrived(service.current(game_id, match), seats)
    refusal = service.hub.admit(game_id, seats)  # no await from here until join
    if refusal is not None:
        await websocket.send_json(socket_error(refusal, words))
        await websocket.close(code=1013)
        return
    connection = service.hub.join(game_id, websocket, token, delta=delta in ("1", "true"),
                                  svg_patch=svg == "patch", words=words, seats=seats,
                                  player_id=player.id if player is not None else None)
    try:
        if notice:
            connection.send(notice)
        if token:  # a player arrived: everybody's view shows it
            service.absence.update(service.current(game_id, match))
            service.hub.publish(service.current(game_id, match))
        else:
            service.absence.update(match)
            service.hub.send_state(connection, match, service.hub.seats_present(match))
        while not connection.closed:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            if text is None:  # a binary frame: decode it rather than fail the socket
                text = (frame.get("bytes") or b"").decode("utf-8", "replace")
            reply = await handle_message(service, game_id, token, text, words, player, seats)
            if reply is not None:
                connection.send(reply)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        service.hub.leave(game_id, websocket)
        if token:  # a player left: the others see it (the live copy: a reload from
            # storage may have replaced the one this socket started with)
            current = service.current(game_id, match)
            service.absence.update(current)
            service.hub.publish(current)
            if not seats <= set(service.hub.seats_present(current)):  # its last here
                await service.absence.departed(current, seats)


@router.websocket("/ws/lobby")
async def lobby(websocket: WebSocket, service: Service) -> None:
    if await refused_from_another_site(websocket):  # HTTP 403 to its handshake
        return
    await websocket.accept()
    words = request_translator(websocket)
    if service.lobby_full():
        await websocket.send_json(socket_error(N_("the lobby is full; try again later"),
                                                words))
        await websocket.close(code=1013)
        return
    try:  # the poster's identity: its challenges are withdrawn once it has left
        player = await known_player(websocket)
    except StorageUnavailable:
        player = None
    connection = service.join_lobby(websocket, player.id if player is not None else None,
                                    words)
    try:
        connection.send(await service.lobby_state(words))
        while not connection.closed:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            if '"ping"' in (frame.get("text") or "")[:MAX_MESSAGE]:
                connection.send({"type": "pong"}, state=False)
    except (WebSocketDisconnect, RuntimeError, StorageUnavailable):
        pass
    finally:
        service.leave_lobby(websocket)


async def handle_message(
    service: GameService, game_id: str, token: str | None, text: str,
    words: Translator = ENGLISH, player: Player | None = None,
    seats: frozenset[int] = frozenset(),
) -> dict[str, Any] | None:
    """Act on one WebSocket message; returns an error message for the sender (in
    ``words``' language), or None.

    Successful changes reach the sender through the broadcast like everybody else.
    """
    def refused(reason: object) -> dict[str, Any]:
        return socket_error(reason, words)

    if len(text) > MAX_MESSAGE:
        return refused(Phrase("a message is at most {limit} bytes", limit=MAX_MESSAGE))
    try:
        message = json.loads(text)
    except json.JSONDecodeError as exc:
        return refused(Phrase("malformed JSON: {problem}", problem=exc.msg))
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return refused(N_('a message is a JSON object with a "type"'))
    kind = message["type"]
    try:
        if kind == "action":
            ply = message.get("ply")
            if ply is not None and (not isinstance(ply, int) or isinstance(ply, bool)):
                return refused(N_('"ply" must be an integer'))
            action = message.get("action")
            if not isinstance(action, str):
                return refused(N_('"action" must be a string of notation'))
            lag = message.get("lag", 0)
            if isinstance(lag, bool) or not isinstance(lag, (int, float)) or lag < 0:
                lag = 0
            await service.act(game_id, token, action, ply, lag_ms=min(float(lag), 60_000.0))
        elif kind == "undo":
            await service.undo(game_id, token)
        elif kind == "resign":
            await service.resign(game_id, token)
        elif kind in ("takeback", "rematch"):
            answer = message.get("answer", "offer")
            if not isinstance(answer, str):
                return refused(N_('"answer" must be a string'))
            if kind == "takeback":
                await service.takeback(game_id, token, answer)
            else:
                await service.rematch(game_id, token, answer)
        elif kind == "abort":
            await service.abort(game_id, token)
        elif kind == "absence_claim":  # the opponent is gone: claim victory or a draw
            claim = message.get("claim")
            if not isinstance(claim, str):
                return refused(N_('"claim" must be "victory" or "draw"'))
            await service.claim_absence(game_id, token, claim)
        elif kind == "chat":  # the message reaches the sender through the push
            await service.chat.post(game_id, player, message.get("room"),
                                    message.get("text"), seats)
        elif kind == "ping":
            return {"type": "pong"}
        else:
            return refused(Phrase("unknown message type {kind}", kind=repr(kind[:ECHO_LIMIT])))
    except (IllegalAction, PermissionError, ValueError, GameNotFound, StaleWrite,
            WriteUnconfirmed) as exc:
        return refused(said(exc))
    except (ChatForbidden, ChatTooFast, ChatRefused, MessageNotFound) as exc:
        return refused(said(exc))
    except (StorageUnavailable, AiBusy) as exc:  # the socket stays open: try again later
        return refused(said(exc))
    return None
