"""Conditional moves (lichess's "conditional premoves") in correspondence games.

While the opponent is to act, a player may store *lines*: the turn(s) they expect the
opponent to play and their reply to each, alternately, in the game's notation (a turn
may be several actions: Benediction's two, Dendria's steps). When the opponent plays
exactly the expected turn, the server plays the stored reply at once, in the same
request and under the same per-game lock as the opponent's action (each reply action
checked by the engine and stored at the next ply, like any action); any deviation drops
the line. Lines are checked when stored (legal in sequence from the position), bounded
(``MAX_LINE_ACTIONS``, ``MAX_LINE_TURNS``, ``MAX_LINES`` per seat and game), kept in
storage (:meth:`~hexgames.web.storage.Storage.add_conditional_line`) so that they survive
restarts and serve every server process, and shown only to the seat that stored them.

How far a line was followed is read from the game's actions
(:mod:`~hexgames.web.play.conditional_lines`, the lines as data), so lines need no update
when actions are stored through another process. Several lines form a tree: a new line
that answers the same opponent turns differently from a stored one is refused, one that
only extends a stored line replaces it. Only the protocol is used (``current_seat``,
``is_turn_start``, notation), so every game works the same.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Sequence
from typing import Any

from hexgames.errors import IllegalAction
from hexgames.game import GameState
from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.web.game.matches import ENGLISH, MAX_PLIES, Match, play_checked, render
from hexgames.web.play.change_feed import ChangeFeed
from hexgames.web.play.clock_watch import ClockWatch
from hexgames.web.play.conditional_lines import (
    MAX_LINE_ACTIONS,
    MAX_LINE_TURNS,
    complete,
    digest,
    future,
    legal_entries,
    relation,
    walk,
)
from hexgames.web.play.live_games import LiveGames, iso_now
from hexgames.web.play.storage_calls import WriteUnconfirmed
from hexgames.web.storage import ConditionalLine, Mode, StaleWrite, StorageUnavailable

__all__ = ["MAX_LINES", "MAX_LINE_ACTIONS", "MAX_LINE_TURNS", "ConditionalMoves",
           "LineNotFound", "refusal", "takes_lines"]

log = logging.getLogger(__name__)

#: A seat has at most this many lines in a game (see docs/web.md, "Limits"; a line's own
#: bounds are in :mod:`~hexgames.web.play.conditional_lines`).
MAX_LINES = 10
#: Replies played after one action at most (both players' lines may follow each other).
MAX_CHAIN = 2 * MAX_LINE_TURNS * MAX_LINES
#: Time controls that take lines (real-time games have premoves, in the page).
CONTROLS = ("correspondence", "untimed")
NO_SEAT = N_("conditional moves belong to a player: this link holds no seat in this game")


def takes_lines(match: Match) -> bool:
    """An online game whose time control takes conditional lines."""
    return match.stored.mode == Mode.ONLINE and match.meta.control_kind in CONTROLS


def refusal(match: Match) -> Phrase | None:
    """Why the game takes no conditional lines now (``None``: it does)."""
    if match.stored.mode != Mode.ONLINE:
        return Phrase("conditional moves are for online games")
    if not takes_lines(match):
        return Phrase("conditional moves are for correspondence games (real-time games "
                      "have premoves)")
    if match.is_over:
        return Phrase("the game is over: {result}", result=match.result_phrase())
    return None


def owner_seat(match: Match, token: str | None) -> int:
    """The one seat the token holds (403 for a spectator)."""
    seats = match.seats_of(token)
    if not seats:
        raise PermissionError(NO_SEAT)
    return min(seats)


class LineNotFound(LookupError):
    """No line with that id among the token's (a 404)."""


class ConditionalMoves:
    """Conditional lines of the games held here: stored, shown, removed and followed."""

    def __init__(self, games: LiveGames, feed: ChangeFeed, clocks: ClockWatch) -> None:
        self.games = games
        self.feed = feed
        self.clocks = clocks
        self._tasks: set[asyncio.Task[None]] = set()

    async def _current(self, game_id: str) -> Match:
        """The game, brought up to the stored one first when other processes write it."""
        match = await self.games.get(game_id)
        if self.games.storage.shared:
            match = await self.feed.refresh(game_id) or match
        return match

    async def _stored(self, game_id: str) -> list[ConditionalLine]:
        return list(await self.games.calls.call(self.games.storage.conditional_lines, game_id))

    def _view(self, match: Match, seat: int, lines: list[ConditionalLine]) -> list[dict[str, Any]]:
        notations = [ply.notation for ply in match.plies]
        digests: dict[int, str] = {}
        shown = []
        for line in lines:
            left = future(line, notations, digests) if line.seat == seat else None
            if left is None or not left.turns:
                continue
            shown.append({"id": line.id, "created_at": line.created_at,
                          "followed": left.index,
                          "turns": self._turns(match.position, seat, left.turns,
                                               left.index)})
        return shown

    @staticmethod
    def _turns(position: GameState, seat: int, turns: Sequence[Sequence[str]],
               first: int = 0) -> list[dict[str, Any]]:
        """Turns for the page: who plays each (the line's even turns are the opponent's),
        with the colours of ``position``."""
        out = []
        for number, actions in enumerate(turns, start=first):
            mover = seat if number % 2 else 1 - seat
            out.append({"seat": mover, "color": position.color_of_seat(mover),
                        "yours": mover == seat, "actions": list(actions)})
        return out

    # ----------------------------------------------------------- the owner's calls
    async def lines(self, game_id: str, token: str | None,
                    words: Translator = ENGLISH) -> dict[str, Any]:
        """The token's lines in the game (what is left of each), and whether it may
        store more now (``reason``: why not, in English; ``reason_text``: the same in
        ``words``' language)."""
        match = await self._current(game_id)
        seat = owner_seat(match, token)
        why = refusal(match)
        if why is None and match.position.current_seat == seat:
            why = Phrase("it is your turn: lines are stored while your opponent is to act")
        shown = [] if refusal(match) else self._view(match, seat, await self._stored(game_id))
        return {"seat": seat, "ply": len(match.plies), "can_add": why is None,
                "reason": str(why) if why is not None else None,
                "reason_text": words.text(why) if why is not None else None,
                "lines": shown, "max_lines": MAX_LINES, "max_actions": MAX_LINE_ACTIONS,
                "max_turns": MAX_LINE_TURNS}

    def _check_open(self, match: Match, seat: int) -> None:
        why = refusal(match)
        if why is not None:
            raise IllegalAction(why)
        if match.position.current_seat == seat:
            raise IllegalAction("it is your turn: store conditional moves while your "
                                "opponent is to act")

    async def preview(self, game_id: str, token: str | None, actions: Any,
                      flip: bool = False, words: Translator = ENGLISH) -> dict[str, Any]:
        """The board after a line being entered, with the legal actions (and their
        clicks) of the side to act then: what the page's line editor shows."""
        match = await self._current(game_id)
        seat = owner_seat(match, token)
        self._check_open(match, seat)
        start, latest, game = match.position.copy(), match.latest_turn(), match.game
        plies = len(match.plies)

        def work() -> dict[str, Any]:
            line = walk(start, actions)
            position = line.position
            full = sum(len(turn) for _, turn in line.turns) >= MAX_LINE_ACTIONS
            return {
                "ply": plies, "line": [a for _, turn in line.turns for a in turn],
                "turns": self._turns(position, seat, [turn for _, turn in line.turns]),
                "to_move": position.to_move, "current_seat": position.current_seat,
                "yours": position.current_seat == seat, "turn_start": position.is_turn_start(),
                "over": position.is_over, "complete": complete(line, seat),
                "svg": render(game, position, latest=line.last or latest, flip=flip),
                "legal": [] if full else legal_entries(game, position, words),
            }

        return dict(await self.games.calls.call_thread(work))

    async def store(self, game_id: str, token: str | None, actions: Any) -> dict[str, Any]:
        """Check a line from the position as it stands and store it (see the module)."""
        games = self.games
        await self._current(game_id)  # brought up to the stored game first
        async with games.locked(game_id, token, no_seat=NO_SEAT) as held:
            match, seat = held.match, min(held.seats)
            self._check_open(match, seat)
            start = match.position.copy()
            notations = [ply.notation for ply in match.plies]
            line = await games.calls.call_thread(walk, start, actions)
            if not line.turns:
                raise ValueError(N_("the line is empty: the turn you expect, then your reply"))
            if not complete(line, seat):
                raise IllegalAction("a line ends with a whole turn of yours: {advice}",
                                    advice=Phrase("add your reply to the turn you expect")
                                    if line.turns[-1][0] != seat
                                    else Phrase("finish your turn"))
            turns = tuple(tuple(turn) for _, turn in line.turns)
            replaces = []
            digests: dict[int, str] = {}
            for old in await self._stored(game_id):
                left = future(old, notations, digests) if old.seat == seat else None
                if left is None or not left.turns:
                    continue
                kind = relation(turns, left.turns)
                if kind == "conflict":
                    raise IllegalAction("this line answers a turn differently from one of "
                                        "your stored lines; remove that one first")
                if kind == "covered":
                    raise IllegalAction("you already have this line")
                if kind == "extends":
                    replaces.append(old.id)
            stored = ConditionalLine(
                id=secrets.token_urlsafe(9), game_id=game_id, seat=seat, ply=len(notations),
                digest=await games.calls.call_thread(digest, notations), turns=turns,
                created_at=iso_now())
            outcome = await games.calls.call(games.storage.add_conditional_line, stored,
                                             MAX_LINES, replaces)
            if outcome == "full":
                raise IllegalAction("you have {count} lines in this game, the most there "
                                    "may be; remove one first", count=MAX_LINES)
            if outcome != "stored":
                self.feed.reload_later(game_id)
                raise IllegalAction("the position changed before your line arrived; "
                                    "look again")
            shown = self._view(match, seat, await self._stored(game_id))
        added = next((entry for entry in shown if entry["id"] == stored.id), None)
        return {"line": added, "replaced": replaces, "lines": shown}

    async def remove(self, game_id: str, token: str | None, line_id: str,
                     words: Translator = ENGLISH) -> dict[str, Any]:
        """Delete one of the token's lines (404 when it has no such line)."""
        match = await self.games.get(game_id)
        seat = owner_seat(match, token)
        removed = await self.games.calls.call(self.games.storage.delete_conditional_lines,
                                              game_id, [line_id[:64]], seat)
        if not removed:
            raise LineNotFound(N_("you have no such line in this game (played or dropped?)"))
        return await self.lines(game_id, token, words)

    # ------------------------------------------------------------------ following
    async def follow(self, match: Match) -> int:
        """After an action is stored (under the game's lock): drop the lines the game
        left, and play the reply of each line whose expected turn was just completed,
        then the replies that answers (a chain), at most ``MAX_CHAIN``. Returns the
        replies' actions played. A failure is logged, never raised: the action that
        called this is stored whatever happens to the replies."""
        if not takes_lines(match) or match.lines_held == 0:
            return 0  # (no line stored when the action was: nothing to read)
        try:
            return await self._follow(match)
        except (StaleWrite, WriteUnconfirmed, StorageUnavailable) as error:
            log.warning("conditional moves of game %s not played: %s", match.id, error)
            if match.id not in self.games.matches:  # the stored game differs: show it
                task = asyncio.create_task(self._show_stored(match.id))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        except Exception:
            log.exception("conditional moves of game %s failed", match.id)
        return 0

    async def _show_stored(self, game_id: str) -> None:
        """Read a game whose reply was refused by storage (another writer stored that ply
        first) once its lock is free, and show it to its sockets."""
        try:
            self.games.hub.publish(await self.games.get(game_id))
        except Exception:
            log.exception("could not reload game %s", game_id)

    async def _follow(self, match: Match) -> int:
        games = self.games
        lines = await self._stored(match.id)
        if not lines:
            return 0
        if match.is_over:
            await games.calls.call(games.storage.delete_conditional_lines, match.id)
            return 0
        played = 0
        for _ in range(MAX_CHAIN):
            notations = [ply.notation for ply in match.plies]
            digests: dict[int, str] = {}
            gone, reply, seat = [], None, None
            for line in lines:
                left = future(line, notations, digests)
                if left is None or not left.turns:
                    gone.append(line.id)
                elif (reply is None and left.due() and not match.is_over
                      and match.position.current_seat == line.seat
                      and match.position.is_turn_start()):
                    reply, seat = left.turns[0], line.seat
            if gone:
                await games.calls.call(games.storage.delete_conditional_lines, match.id, gone)
                lines = [line for line in lines if line.id not in gone]
            if reply is None or seat is None:
                return played
            if not await self._play(match, seat, reply):
                dropped = [line.id for line in lines if line.seat == seat]
                await games.calls.call(games.storage.delete_conditional_lines, match.id,
                                       dropped)
                lines = [line for line in lines if line.id not in dropped]
                return played
            played += len(reply)
        return played

    async def _play(self, match: Match, seat: int, reply: Sequence[str]) -> bool:
        """Play a stored reply for ``seat``: checked whole on a copy first (False: the
        engine refuses it now), then action by action like any action (stored at the
        next ply, the clock switched)."""
        probe = match.position.copy()
        try:
            for text in reply:
                play_checked(probe, text)
        except ValueError:
            return False
        if len(match.plies) + len(reply) > MAX_PLIES:
            return False
        for text in reply:
            first = len(match.plies)
            ply = match.play_for_seat(seat, text)
            await self.games.save_or_take_back(match, first, ply.notation)
        return True
