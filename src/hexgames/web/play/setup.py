"""New games: created from the home page, uploaded as a record, and their seats claimed.

:meth:`GameSetup.create` makes a game against the computer, at one screen (hot seat) or
online (the opponent's link is an invitation: the first browser to open it takes the
seat, :meth:`GameSetup.claim`); :meth:`GameSetup.import_record` continues an uploaded
record at one screen. Only hashes of seat tokens are stored.
"""

from __future__ import annotations

import secrets
from typing import Any

from hexgames.ai.levels import LEVELS
from hexgames.game import Game, game_names, get_game, reason_of
from hexgames.phrases import N_, Phrase
from hexgames.web.accounts.credentials import new_token, seat_token
from hexgames.web.engine.workers import AiBusy
from hexgames.web.game.clocks import TimeControl
from hexgames.web.game.matches import MAX_PLIES, MODES, Match, joined, start_position
from hexgames.web.game.options import parse_options
from hexgames.web.play.ai_queue import AiQueue
from hexgames.web.play.change_feed import ChangeFeed
from hexgames.web.play.clock_watch import ClockWatch
from hexgames.web.play.live_games import LiveGames, iso_now
from hexgames.web.storage import Mode, SeatPlayer, StoredGame, hashed

__all__ = ["INVITE_OPEN", "MAX_RECORD", "MAX_START", "GameSetup", "checked_start",
           "resigned_from_tags"]

#: Largest record accepted by the upload (characters); see docs/web.md.
MAX_RECORD = 1_000_000
#: Largest start position text accepted when creating a game (characters).
MAX_START = 20_000
#: ``players[seat]["invite"]`` while a seat's invitation link has not been opened.
INVITE_OPEN = "open"


def resigned_from_tags(match: Match, tags: dict[str, str]) -> None:
    """Restore a resignation or timeout stated by a record's tags, which the position
    itself cannot express.

    Accepted: this site's own ``Winner``/``Ending`` pair (a colour of the game and an
    ending that says "resigned"), or ``Result`` ``1-0``/``0-1`` with ``Termination``
    ``resignation``/``timeout``/``opponent left`` (or ``1/2-1/2`` with ``opponent left``:
    a draw called when a player left). The reason shown is written here, never taken from
    the tags: a record cannot make the site display words of its uploader's choosing.
    """
    colors = tuple(match.game.colors)
    winner: str | None = None
    how = "resigned"
    raw_winner = str(tags.get("Winner", "")).strip().lower()[:20]
    ending = str(tags.get("Ending", "")).strip().lower()
    if raw_winner in colors and ending.endswith("resigned"):
        winner = raw_winner
    result = str(tags.get("Result", "")).strip()
    termination = str(tags.get("Termination", "")).strip().lower()
    hows = {"resignation": "resigned", "timeout": "ran out of time",
            "opponent left": "left the game"}
    if winner is None and result in ("1-0", "0-1") and termination in hows:
        winner = match.position.color_of_seat(0 if result == "1-0" else 1)
        how = hows[termination]
    if winner is None and result == "1/2-1/2" and termination == "opponent left":
        match.stored.status, match.stored.winner = "over", "draw"
        match.stored.reason = N_("a player left the game")
        return
    if winner is None:
        return
    loser = colors[1] if winner == colors[0] else colors[0]
    match.stored.status, match.stored.winner = "over", winner
    match.stored.reason = f"{loser.capitalize()} {how}"


#: Largest start position text accepted when creating a game (characters).

def checked_start(game: Game, options: dict[str, Any], start: str) -> str:
    """A start text the engine reads with these rules, in its own words (so the stored
    text is canonical); ``ValueError`` when it is malformed or the game is over there."""
    if len(start) > MAX_START:
        raise ValueError(Phrase("a start position is at most {limit} characters",
                                limit=MAX_START))
    position = start_position(game, options, start)
    outcome = position.outcome()
    if outcome is not None:
        raise ValueError(Phrase("the game is already over in this position: {outcome}",
                                outcome=outcome.phrase()))
    return position.to_text()




class GameSetup:
    """Creating games and handing out their seats."""

    def __init__(self, games: LiveGames, feed: ChangeFeed, clocks: ClockWatch,
                 ai: AiQueue) -> None:
        self.games = games
        self.feed = feed
        self.clocks = clocks
        self.ai = ai

    async def create(
        self,
        game_name: str,
        options: dict[str, Any] | None,
        mode: str,
        seat: int = 0,
        level: int = 3,
        start: str | None = None,
        control: dict[str, Any] | None = None,
        player: Any = None,
        rated: bool = False,
        opponent: Any = None,
    ) -> tuple[Match, list[str | None]]:
        """A new game; returns it with the seat tokens (the creator's seat first for AI).

        ``start``: a start position in the game's board text (the board editor's),
        read with the rules of ``options`` (``ValueError`` with the reader's message).
        ``player`` (a :class:`~hexgames.web.http.identity.Player`) takes the creator's seat
        (not in hot-seat games); ``opponent`` the other seat of an online game (a lobby
        pairing: no invitation then). ``rated`` is allowed for online games only; its
        result counts only when both seats end up held by two different identities.
        """
        game = get_game(game_name)
        rules_options = parse_options(game, options)
        if start is not None:
            start = await self.games.calls.call_thread(checked_start, game, rules_options, start)
        if mode not in MODES:
            raise ValueError(Phrase("unknown mode {mode}; expected one of {modes}",
                                    mode=repr(mode), modes=", ".join(MODES)))
        if seat not in (0, 1):
            raise ValueError(Phrase("seat must be 0 or 1, got {seat}", seat=repr(seat)))
        time_control = TimeControl.parse(control)
        if time_control.timed and mode != Mode.ONLINE:
            raise ValueError(N_("clocks are for online games (untimed against the computer "
                                "and at one screen)"))
        human: SeatPlayer = {"kind": "human", "level": None}
        players: list[SeatPlayer]
        if mode == Mode.AI:
            if level not in LEVELS:
                raise ValueError(Phrase("AI level must be 1 to 5, got {level}", level=repr(level)))
            if self.ai.workers.busy(level):
                raise AiBusy(N_("the computer is busy with other games; try again in a minute"))
            token = new_token()
            players = [human.copy(), human.copy()]
            players[1 - seat] = {"kind": "ai", "level": level}
            tokens: list[str | None] = [None, None]
            tokens[seat] = token
        elif mode == Mode.HOTSEAT:
            token = new_token()
            players, tokens = [human.copy(), human.copy()], [token, token]
        else:
            players, tokens = [human.copy(), human.copy()], [new_token(), new_token()]
            # The opponent's link is an invitation: the first browser to open it takes
            # the seat and gets a credential of its own (see claim).
            if opponent is None:
                players[1 - seat]["invite"] = INVITE_OPEN
            else:
                players[1 - seat]["player_id"] = opponent.id
        if rated and mode != Mode.ONLINE:
            raise ValueError(N_("only online games between two players can be rated"))
        if rated:
            time_control.check_rated()
        if player is not None and mode != Mode.HOTSEAT:
            players[seat]["player_id"] = player.id
        stamp = iso_now()
        stored = StoredGame(
            id=secrets.token_urlsafe(9),
            game=game.name,
            options=rules_options,
            mode=Mode(mode),
            players=players,
            seat_tokens=[hashed(token) for token in tokens],  # only hashes are kept
            status="playing",
            winner=None,
            reason=None,
            created_at=stamp,
            updated_at=stamp,
            start=start,
            rated=bool(rated),
        )
        # built in a thread: a start position's reading and a new variant's tables take
        # time that other clients must not wait for
        match = await self.games.build(stored)
        if mode == Mode.ONLINE:
            self.clocks.start_clock(match, time_control)
        await self.games.calls.call(self.games.storage.create_game, stored)
        self.games.hold(match)
        self.ai.schedule(match)
        self.clocks.watch(match)
        return match, tokens

    async def import_record(self, text: str, game_name: str | None = None) -> tuple[Match, str]:
        """A hot-seat game continuing from an uploaded record (any registered game).

        Parsing and replaying run in a thread (a long record must not stall the server),
        and both are linear in the record's length.
        """
        if not isinstance(text, str) or not text.strip():
            raise ValueError(N_("the record is empty"))
        if len(text) > MAX_RECORD:
            raise ValueError(Phrase("a record is at most {limit} characters, not {count}",
                                    limit=MAX_RECORD, count=len(text)))
        if game_name is not None and game_name not in game_names():
            known = ", ".join(game_names())
            raise ValueError(Phrase("unknown game {name}; known games: {games}",
                                    name=repr(game_name[:40]), games=known))
        match, token = await self.games.calls.call_thread(self.read_record, text, game_name)
        await self.games.calls.call(self.games.storage.create_game, match.stored)  # its result too
        self.games.hold(await self.games.adopt(match))
        return match, token

    def read_record(self, text: str, game_name: str | None) -> tuple[Match, str]:
        """The hot-seat game of an uploaded record, with its one seat token (CPU work:
        run in a work thread); ``ValueError`` naming what each game's reader said."""
        errors: list[Phrase | str] = []
        for name in [game_name] if game_name else game_names():
            game = get_game(name)
            try:
                position, tags = game.read_record(text)
            except ValueError as error:
                errors.append(Phrase("{game}: {reason}", game=game.title,
                                     reason=reason_of(error)))
                continue
            options = dict(game.rules_options(position.rules))
            actions = [str(action) for action in position.history]
            if len(actions) > MAX_PLIES:
                raise ValueError(Phrase("a game is at most {limit} actions long",
                                        limit=MAX_PLIES))
            start = None
            if "Start" in tags:  # the record's own start position (records write it so)
                start = "\n".join(part.strip() for part in tags["Start"].split("/"))
                start_position(game, options, start)  # raises ValueError if malformed
            token = new_token()
            stamp = iso_now()
            stored = StoredGame(
                id=secrets.token_urlsafe(9),
                game=game.name,
                options=options,
                mode=Mode.HOTSEAT,
                players=[{"kind": "human", "level": None}, {"kind": "human", "level": None}],
                seat_tokens=[hashed(token), hashed(token)],
                status="playing",
                winner=None,
                reason=None,
                created_at=stamp,
                updated_at=stamp,
                actions=actions,
                start=start,
            )
            match = Match(stored)  # replays the stored form: raises if it does not
            if not match.sync_result():
                resigned_from_tags(match, tags)
            return match, token
        raise ValueError(Phrase("not a game record this site can read: {reasons}",
                                reasons=joined(errors)))

    async def claim(self, game_id: str, token: str | None, have: str | None,
                    player: Any = None) -> dict[str, Any]:
        """:meth:`_claim_once`, again on the re-read game when another process changed
        its seats first: of two browsers claiming one invitation through two processes at
        once, exactly one becomes its player."""
        result: dict[str, Any] = await self.feed.conditionally(
            game_id, self._claim_once, game_id, token, have, player)
        return result

    async def _claim_once(self, game_id: str, token: str | None, have: str | None,
                          player: Any = None) -> dict[str, Any]:
        """A browser opened a link with ``token`` (it already holds ``have``, if any; it
        is ``player``, an identity, if known).

        An online game's invitation is claimed once: the first browser to open it takes
        the seat with a fresh credential of its own (the link's token stops working), and
        the seat then belongs to that browser's identity; whoever opens the link later is
        a spectator and is told so. The game's creator opening their opponent's link is
        told so and keeps their own seat. A browser of an identity that holds a seat gets
        that seat's identity-derived credential (another device, no link needed).
        """
        games = self.games
        async with games.locked(game_id, token, seat=False) as held:
            match, seats = held.match, held.seats
            mine = match.seats_of(have)
            owned = match.seats_of_player(player.id) if player is not None else frozenset()
            if owned and not mine and match.seat_key is not None:
                have = seat_token(match.seat_key, match.id, min(owned), player.id)
                mine = match.seats_of(have)
            if mine and not seats:
                return {"role": "player", "token": have, "seats": sorted(mine), "notice": None}
            if not seats:
                notice = (N_("this invitation has already been taken by another browser: "
                             "you are watching") if token else None)
                return {"role": "spectator", "token": None, "seats": [], "notice": notice}
            if mine and mine != seats:
                return {
                    "role": "player", "token": have, "seats": sorted(mine),
                    "notice": N_("this is your opponent's invitation link: send it to them; "
                                 "you keep your own seat"),
                }
            players = match.stored.players
            open_seats = [s for s in sorted(seats) if players[s].get("invite") == INVITE_OPEN]
            if not open_seats:
                return {"role": "player", "token": token, "seats": sorted(seats), "notice": None}
            seat = open_seats[0]
            fresh = new_token()
            tokens = list(match.stored.seat_tokens)
            tokens[seat] = hashed(fresh)
            new_players = [entry.copy() for entry in players]
            new_players[seat].pop("invite", None)
            if player is not None:
                new_players[seat]["player_id"] = player.id
            stamp = iso_now()
            match.stored.version = await games.calls.call(
                games.storage.set_seats, game_id, new_players, tokens, stamp,
                match.stored.version)  # MetaConflict if another process claimed first
            match.stored.seat_tokens, match.stored.players = tokens, new_players
            match.stored.updated_at = stamp
            clock = match.clock()
            if (clock is not None and not match.is_over and not clock.started()
                    and clock.abort_at is None):  # the first-turn limit starts again
                clock.resume(match.position.current_seat, games.now())
                match.set_clock(clock)
                match.stored.version = await games.calls.call(
                    games.storage.set_meta, game_id, match.meta, stamp, match.stored.version)
                self.clocks.watch(match)
            if player is not None:
                match.names[player.id] = player.name
        games.hub.publish(match)  # a socket still using the old link now only watches
        return {"role": "player", "token": fresh, "seats": [seat], "notice": None}

