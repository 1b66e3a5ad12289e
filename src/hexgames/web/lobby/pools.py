"""Quick pairing: one click joins a pool (a game and a time control) and the server finds
the opponent, as lichess's pools do.

**Pools.** For every game, with its default options: real time 1+1, 3+2, 5+3 and 10+5
(minutes + seconds of increment) and correspondence 1 day per turn (:data:`POOL_CONTROLS`).
A named player joins rated (unless they ask for a casual game), a guest casual (as the
lobby's rated rules say); rated and casual players are never paired together.

**Waiting.** An entry (a :class:`~hexgames.web.storage.PoolEntry`) lives in storage, so
every server process sees every pool. A player waits in one pool at most (joining another
leaves the first); they leave by the cancel button, when their last lobby socket closes
(:meth:`Pools.player_left`), or when their page stops asking for news: an entry with no
sign of life (the page's poll, :meth:`Pools.mine`) for ``POOL_STALE`` seconds leaves.

**Matching** (a *wave*: right after each join, and every ``POOL_WAVE`` seconds in every
process): the waiting entries are paired longest-waiting first; an entry is paired with the
waiting entry of the same pool and rated flag whose rating is closest, provided the
difference is within its rating range, which widens with the time it has waited
(:func:`rating_range`)::

    range(w) = POOL_RANGE_BASE + POOL_RANGE_WIDEN * w      (w: seconds waited)

that is ±100 at once, ±400 after 30 s, ±700 after a minute. (The first entry of the
order is the longest waiting, so its range is the widest of the two.) A pairing is one
transaction (both entries ``waiting`` -> ``paired`` and the game stored, or nothing), so
processes matching at once pair an entry once. The game is created as an accepted
challenge's is; both players are sent there: a ``pool_paired`` message on their lobby
sockets of the pairing process, and their pages' poll everywhere else.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import secrets
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass
from typing import Any

from hexgames.errors import IllegalAction
from hexgames.game import game_names, get_game
from hexgames.i18n import Translator
from hexgames.phrases import N_, Phrase
from hexgames.web.accounts.credentials import new_token
from hexgames.web.game.clocks import TimeControl
from hexgames.web.game.matches import ENGLISH
from hexgames.web.game.options import parse_options
from hexgames.web.play.clock_watch import ClockWatch
from hexgames.web.play.live_games import LiveGames, iso_now
from hexgames.web.ratings.games import rating_in, rating_pool
from hexgames.web.storage import GameMeta, Mode, PairingTaken, PoolEntry, StoredGame, hashed

__all__ = [
    "POOL_CONTROLS",
    "PoolFull",
    "PoolSpec",
    "Pools",
    "entry_view",
    "pair_up",
    "pool_specs",
    "rating_range",
]

log = logging.getLogger(__name__)

#: The pools' time controls: (label, control) for every game.
POOL_CONTROLS: tuple[tuple[str, TimeControl], ...] = (
    ("1+1", TimeControl("realtime", 60.0, 1.0)),
    ("3+2", TimeControl("realtime", 180.0, 2.0)),
    ("5+3", TimeControl("realtime", 300.0, 3.0)),
    ("10+5", TimeControl("realtime", 600.0, 5.0)),
    (N_("1 day"), TimeControl("correspondence", days=1)),
)
#: The rating range: ±``POOL_RANGE_BASE`` at once, wider by ``POOL_RANGE_WIDEN`` a second.
POOL_RANGE_BASE = 100.0
POOL_RANGE_WIDEN = 10.0
#: Seconds between two waves of matching (each process), while anybody waits.
POOL_WAVE = 2.0
#: Seconds a waiting entry lives without a sign of life (its page polls every 2.5 s);
#: entries no longer waiting are deleted after ``POOL_FORGET`` seconds.
POOL_STALE = 20.0
POOL_FORGET = 86_400.0
#: Players waiting in one pool (503 past it), and entries waiting from one client
#: address in all pools (409 past it, whatever identities it makes up).
MAX_POOL_WAITING = 200
MAX_POOL_WAITING_PER_ADDRESS = 5
#: Times one wave pairs again around blocked pairs (see :meth:`Pools._pairs`).
BLOCK_ROUNDS = 4


class PoolFull(RuntimeError):
    """As many players wait in the pool as it holds: try again in a moment (503)."""


@dataclass(frozen=True)
class PoolSpec:
    """One pool: a game (default options) and a time control; ``id`` is
    ``"<game>-<label>"`` with the label's spaces dropped (``"dendria-3+2"``,
    ``"benediction-1day"``)."""

    id: str
    game: str
    label: str
    control: TimeControl

    def view(self, waiting: int = 0, words: Translator = ENGLISH) -> dict[str, Any]:
        """The pool as the lobby lists it; ``label_text`` and ``time_text``: its label
        and time control in ``words``' language."""
        return {"id": self.id, "game": self.game, "title": get_game(self.game).title,
                "label": self.label, "label_text": words.gettext(self.label),
                "control": self.control.to_dict(), "time": self.control.describe(),
                "time_text": words.text(self.control.phrase()), "waiting": waiting}


def pool_specs() -> list[PoolSpec]:
    """Every pool: each registered game with each of :data:`POOL_CONTROLS`."""
    return [PoolSpec(f"{name}-{label.replace(' ', '')}", name, label, control)
            for name in game_names() for label, control in POOL_CONTROLS]


def rating_range(waited_ms: float) -> float:
    """How far (rating points) an entry that waited ``waited_ms`` accepts an opponent."""
    return POOL_RANGE_BASE + POOL_RANGE_WIDEN * max(0.0, waited_ms) / 1000.0


def pair_up(entries: Sequence[PoolEntry], now: float,
            apart: Set[frozenset[str]] = frozenset()) -> list[tuple[PoolEntry, PoolEntry]]:
    """The pairs a wave makes of the waiting ``entries`` at ``now`` (ms): per pool and
    rated flag, longest waiting first, each with the closest rating within its range
    (ties: the longer waiting). A rated pool never pairs two entries joined from one
    client address (``origin``): identities made up on one machine do not rate each
    other; no pool pairs two players of ``apart`` (pairs of player ids: a block).
    Pure: tests give it entries and times."""
    groups: dict[tuple[str, bool], list[PoolEntry]] = {}
    for entry in sorted(entries, key=lambda e: (e.joined_at, e.id)):
        if entry.status == "waiting":
            groups.setdefault((entry.pool, entry.rated), []).append(entry)
    pairs = []
    for group in groups.values():
        free = list(group)
        while free:
            first = free.pop(0)
            reach = rating_range(now - first.joined_at)
            candidates = [other for other in free if other.player_id != first.player_id
                          and abs(other.rating - first.rating) <= reach
                          and not (first.rated and other.origin == first.origin)
                          and frozenset((first.player_id, other.player_id)) not in apart]
            if not candidates:
                continue
            best = min(candidates, key=lambda other: (abs(other.rating - first.rating),
                                                      other.joined_at, other.id))
            free.remove(best)
            pairs.append((first, best))
    return pairs


def entry_view(entry: PoolEntry, now: float) -> dict[str, Any]:
    """An entry as its player sees it (no credential)."""
    waited = max(0, int(now) - entry.joined_at)
    return {"id": entry.id, "pool": entry.pool, "rated": entry.rated,
            "status": entry.status, "game": entry.game_id, "rating": round(entry.rating),
            "waited_ms": waited, "range": round(rating_range(waited))}


class Pools:
    """The quick-pairing pools as one server process runs them (see the module's doc)."""

    def __init__(self, games: LiveGames, clocks: ClockWatch,
                 send_to_player: Callable[[str, dict[str, Any]], None],
                 lobby_changed: Callable[[], None]) -> None:
        self.games = games
        self.clocks = clocks
        #: Push a message to a player's lobby sockets in this process (the lobby's).
        self.send_to_player = send_to_player
        self.lobby_changed = lobby_changed
        self.specs = {spec.id: spec for spec in pool_specs()}
        self._wave = asyncio.Lock()
        #: When finished entries were last deleted (ms; see :meth:`match`).
        self._forgotten_at = 0.0
        #: Whether the last wave found anybody waiting (a single-process storage skips
        #: the periodic wave while nobody waits; a shared one never does: others join).
        self._anybody = True
        self._tasks: set[asyncio.Task[Any]] = set()

    def now(self) -> float:
        return self.games.now()

    async def _store(self, function: Any, *args: Any) -> Any:
        return await self.games.calls.call(function, *args)

    # ------------------------------------------------------------- joining
    async def join(self, pool_id: str, player: dict[str, Any], rated: bool,
                   address: str | None = None) -> tuple[PoolEntry, str]:
        """``player`` (``{"player_id", "name"}``) joins the pool ``pool_id`` (leaving any
        other), then a wave runs. Returns the entry as it is after the wave (maybe
        ``paired`` already) and the seat credential of the game to come."""
        spec = self.specs.get(pool_id)
        if spec is None:
            raise ValueError(Phrase("there is no pool {pool}; pools: {pools}",
                                    pool=repr(pool_id[:40]), pools=", ".join(self.specs)))
        player_id = str(player.get("player_id") or "")
        if not player_id:
            raise PermissionError(N_("joining a pool needs an identity (the site's cookie)"))
        storage = self.games.storage
        waiting = [entry for entry in await self._store(storage.waiting_pool_entries,
                                                        MAX_POOL_WAITING * len(self.specs))
                   if entry.player_id != player_id]
        origin = await self._origin(address)
        if sum(entry.origin == origin for entry in waiting) >= MAX_POOL_WAITING_PER_ADDRESS:
            raise IllegalAction("{count} players from your address wait in pools already",
                                count=MAX_POOL_WAITING_PER_ADDRESS)
        if sum(entry.pool == pool_id for entry in waiting) >= MAX_POOL_WAITING:
            raise PoolFull(N_("this pool is full; try again in a moment"))
        token = new_token()
        moment = int(self.now())
        entry = PoolEntry(
            id=secrets.token_urlsafe(9), pool=pool_id, rated=bool(rated),
            player_id=player_id, name=str(player.get("name") or "Anonymous")[:40],
            rating=await self._rating(player_id, spec.game), token=hashed(token) or "",
            origin=origin, status="waiting", game_id=None, joined_at=moment,
            seen_at=moment)
        await self._store(storage.join_pool, entry)
        self._anybody = True
        try:
            await self.match()
        except Exception:  # the entry waits; the next wave pairs it
            log.exception("the pools' matching failed after a join")
        self.lobby_changed()  # one more waiting: the lobby's pages see the count now
        return await self._store(storage.pool_entry, entry.id) or entry, token

    async def _origin(self, address: str | None) -> str:
        key = await self.games.seat_key()
        raw = (address or "?").encode("utf-8", "replace")
        return hmac.new(key, b"address\x00" + raw, hashlib.sha256).hexdigest()[:24]

    async def _rating(self, player_id: str, game_name: str) -> float:
        """The player's current rating in the game's standard pool (1500 if none)."""
        pool = rating_pool(game_name, parse_options(get_game(game_name), None))
        return rating_in(await self._store(self.games.storage.ratings_of, player_id), pool)

    async def leave(self, player_id: str) -> bool:
        """The player leaves the pool they wait in (False: they waited in none)."""
        left = bool(await self._store(self.games.storage.leave_pool, player_id))
        if left:
            self.lobby_changed()
        return left

    def player_left(self, player_id: str) -> None:
        """The player's last lobby socket here closed: they leave their pool (a page
        that comes back joins again)."""
        with contextlib.suppress(RuntimeError):  # no running loop: nothing to do
            task = asyncio.get_running_loop().create_task(self._leave_quietly(player_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _leave_quietly(self, player_id: str) -> None:
        try:
            await self.leave(player_id)
        except Exception:
            log.exception("could not take a departed player out of their pool")

    async def mine(self, player_id: str | None) -> dict[str, Any] | None:
        """The player's latest entry (a sign of life when it waits: the page's poll)."""
        if not player_id:
            return None
        storage = self.games.storage
        entry = await self._store(storage.latest_pool_entry, player_id)
        if entry is None:
            return None
        moment = int(self.now())
        if entry.status == "waiting":
            await self._store(storage.touch_pool_entry, entry.id, moment)
        return entry_view(entry, moment)

    async def counts(self) -> dict[str, int]:
        """The players waiting in each pool (every pool, 0 included), those that still
        ask (an entry quiet for ``POOL_STALE`` is not counted)."""
        fresh = self.now() - POOL_STALE * 1000
        counts = dict.fromkeys(self.specs, 0)
        for entry in await self._store(self.games.storage.waiting_pool_entries,
                                       MAX_POOL_WAITING * len(self.specs)):
            if entry.seen_at >= fresh and entry.pool in counts:
                counts[entry.pool] += 1
        return counts

    async def overview(self, player_id: str | None = None,
                       words: Translator = ENGLISH) -> dict[str, Any]:
        """Every pool with the players waiting in it, and the player's own entry."""
        counts = await self.counts()
        return {"type": "pools",
                "pools": [spec.view(counts.get(spec.id, 0), words)
                          for spec in self.specs.values()],
                "entry": await self.mine(player_id)}

    # ------------------------------------------------------------ matching
    async def match(self) -> list[str]:
        """One wave: drop stale entries, pair the waiting ones (:func:`pair_up`) and
        start their games. Returns the new games' ids. Tests call it after moving the
        service's clock."""
        async with self._wave:
            storage = self.games.storage
            moment = int(self.now())
            stale = moment - int(POOL_STALE * 1000)
            entries = await self._store(storage.waiting_pool_entries,
                                        MAX_POOL_WAITING * len(self.specs))
            self._anybody = bool(entries)
            if (any(entry.seen_at < stale for entry in entries)
                    or moment - self._forgotten_at >= POOL_FORGET * 1000 / 24):
                # Entries that stopped asking leave; long-finished ones are deleted.
                self._forgotten_at = moment
                if await self._store(storage.drop_stale_pool_entries, stale,
                                     moment - int(POOL_FORGET * 1000)):
                    self.lobby_changed()
            entries = [e for e in entries if e.seen_at >= stale and e.pool in self.specs]
            made = []
            for first, second in await self._pairs(entries, moment):
                try:
                    made.append(await self._start(first, second))
                except PairingTaken:
                    continue  # another process paired one of them first
            if made:
                self.lobby_changed()
            return made

    async def _pairs(self, entries: list[PoolEntry],
                     moment: int) -> list[tuple[PoolEntry, PoolEntry]]:
        """:func:`pair_up`, never pairing two players when either blocked the other: the
        pairs made are checked (one bounded question), and while some are blocked the
        wave is made again without them (at most ``BLOCK_ROUNDS`` times; pairs still
        blocked then are left for the next wave)."""
        apart: set[frozenset[str]] = set()
        pairs = pair_up(entries, moment)
        for round_ in range(BLOCK_ROUNDS + 1):
            asked = [(first.player_id, second.player_id) for first, second in pairs]
            blocked = await self._store(self.games.storage.blocked_between, asked) \
                if asked else set()
            if not blocked:
                return pairs
            apart |= {frozenset(pair) for pair in blocked}
            if round_ == BLOCK_ROUNDS:
                break
            pairs = pair_up(entries, moment, apart)
        # Every pair left was asked about: only the blocked ones are dropped.
        return [(first, second) for first, second in pairs
                if frozenset((first.player_id, second.player_id)) not in apart]

    async def _start(self, first: PoolEntry, second: PoolEntry) -> str:
        """The game of a pairing, stored with it (one transaction), colours at random."""
        spec = self.specs[first.pool]
        game = get_game(spec.game)
        options = parse_options(game, None)
        seats = [first, second] if secrets.randbelow(2) else [second, first]
        stamp = iso_now()
        stored = StoredGame(
            id=secrets.token_urlsafe(9), game=game.name, options=options, mode=Mode.ONLINE,
            players=[{"kind": "human", "level": None, "player_id": entry.player_id}
                     for entry in seats],
            seat_tokens=[entry.token for entry in seats], status="playing", winner=None,
            reason=None, created_at=stamp, updated_at=stamp, rated=first.rated,
            meta=GameMeta(pool=spec.id),
        )
        match = await self.games.build(stored)  # off the loop
        self.clocks.start_clock(match, spec.control)
        await self._store(self.games.storage.pair_pool_entries, first.id, second.id, stored)
        self.games.hold(match)
        self.clocks.watch(match)
        for entry in (first, second):
            self.send_to_player(entry.player_id, {"type": "pool_paired", "entry": entry.id,
                                                  "pool": spec.id, "game": stored.id})
        return stored.id

    async def loop(self) -> None:
        """A wave every ``POOL_WAVE`` seconds (the service's task): the ranges widen."""
        while True:
            await asyncio.sleep(POOL_WAVE)
            if not (self._anybody or self.games.storage.shared):
                continue
            try:
                await self.match()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the pools' matching failed; trying again")

    def cancel_tasks(self) -> None:
        for task in list(self._tasks):
            task.cancel()
