"""A game being played on the site: its position, who sits where, and what each viewer sees.

A :class:`Match` wraps a stored game and the live position rebuilt from its actions. It is
synchronous and knows nothing about HTTP, WebSockets or the database: the service layer
(:mod:`hexgames.web.service`) serialises access to it, persists what changed and
broadcasts. Everything here goes through the game protocol (:mod:`hexgames.game`), so the
same code serves every registered game.

Authority: a browser acts for the seats whose secret token it presents. The server, not
the client, decides whose turn it is, and every action is checked by the engine.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import logging
import secrets
import threading
from collections.abc import Collection
from dataclasses import asdict, dataclass
from typing import Any

from hexgames.errors import IllegalAction
from hexgames.game import Game, GameState, Gesture, get_game, reason_of, word
from hexgames.i18n import DEFAULT_LANGUAGE, Translator, translator
from hexgames.phrases import N_, Phrase
from hexgames.web.accounts.credentials import seat_token
from hexgames.web.game.clocks import FIRST_TURN_LIMIT_MS, Clock, clock_in, put_clock, wall_ms
from hexgames.web.storage import (
    HASH_PREFIX,
    GameMeta,
    Mode,
    SeatPlayer,
    StoredGame,
    seat_holders,
)

MODES = tuple(Mode)
#: Longer input is refused before it reaches an engine's parser.
MAX_ACTION_LENGTH = 200
#: The longest game the site keeps (actions). Far beyond any real game; see docs/web.md.
MAX_PLIES = 50_000
#: The replay keeps a copy of the position every this many actions, so that the board
#: at any ply is at most this many actions away from a stored one.
CHECKPOINT_EVERY = 2000

log = logging.getLogger(__name__)

#: History epochs: a new one whenever a game's move list may lose entries (a new live
#: game, an undo, a reload), so a delta client is then sent the whole list again.
_EPOCHS = itertools.count(1)
#: Board drawings: each SVG a match draws gets a number of its own (unique in the
#: process, so that a copy reloaded from storage never reuses one a client holds).
_SVG_IDS = itertools.count(1)
#: The separator a board patch cuts the SVG at (see :func:`svg_patch`).
SVG_PATCH_SEPARATOR = "><"
#: Drawings kept per match, cut in pieces, as the base of a patch: the current one and
#: the one before (a client further behind, rare, gets the whole board).
SVG_PATCH_BASES = 2


@dataclass(frozen=True)
class Ply:
    """One action of the history, as the move list shows it."""

    notation: str
    seat: int
    color: str
    #: True when this action opened its player's turn (move lists group by turn).
    turn_start: bool


#: The ends the site itself writes in a game's ``reason`` (resignation, flag fall, a
#: claim on an absent opponent), "{color} ..." with the loser's colour capitalised.
ENDINGS = (N_("{color} resigned"), N_("{color} ran out of time"), N_("{color} left the game"))
#: English, the language of whoever did not say (API clients, tests).
ENGLISH = translator(DEFAULT_LANGUAGE)


def color_word(color: str) -> Phrase:
    """A colour as players read it (``"red"`` -> "Red", translated where shown; the
    game packages mark their colour names)."""
    return word(color.capitalize())


def reason_phrase(reason: str) -> Phrase:
    """A stored end-of-game reason as a phrase: the site's own endings ("Blue
    resigned") with the colour translated, anything else (an engine's termination such as
    "king captured") looked up whole."""
    for template in ENDINGS:
        tail = template.removeprefix("{color}")
        if reason.endswith(tail) and len(reason) > len(tail):
            return Phrase(template, color=word(reason[: -len(tail)]))
    return word(reason)


def joined(parts: list[Phrase | str], separator: str = "; ") -> Phrase:
    """Several reasons as one phrase (each translated, the separator kept)."""
    names = [f"part{index}" for index in range(len(parts))]
    template = separator.replace("{", "{{").replace("}", "}}").join(
        "{" + name + "}" for name in names)
    values = dict(zip(names, parts, strict=True))
    return Phrase(template, **values)


def _describe(value: Any) -> Any:
    """Make a value an engine returns (score, options) JSON-friendly without knowing it."""
    if isinstance(value, dict):
        return {str(k): _describe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_describe(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def start_position(game: Game, options: dict[str, Any], start: str | None = None) -> GameState:
    """The start position: the standard one of ``options``, or the board text ``start``."""
    rules = game.make_rules(**options)
    if start:
        return game.position_from_text(start, rules)
    return game.new_position(rules)


def rebuild(
    game: Game,
    options: dict[str, Any],
    actions: list[str],
    start: str | None = None,
    checkpoints: dict[int, GameState] | None = None,
    actions_out: list[Any] | None = None,
) -> tuple[GameState, list[Ply]]:
    """The position after ``actions`` from the start position (linear in their number).

    Raises ``IllegalAction``/``ValueError`` when the actions do not replay (e.g. a record
    edited by hand), naming the ply that failed. ``checkpoints`` (when given) receives a
    copy of the position every ``CHECKPOINT_EVERY`` actions, ``actions_out`` the played
    action objects.
    """
    if len(actions) > MAX_PLIES:
        raise ValueError(Phrase("a game is at most {limit} actions long, this one has {count}",
                                limit=MAX_PLIES, count=len(actions)))
    position = start_position(game, options, start)
    plies: list[Ply] = []
    if checkpoints is not None:
        checkpoints[0] = position.copy()
    for number, text in enumerate(actions, start=1):
        try:
            ply, action = play_checked(position, text, check_legal=False)
        except ValueError as error:
            shown = text[:40] + "…" if len(text) > 40 else text
            raise IllegalAction("action {number} ({shown}) cannot be replayed: {reason}",
                                number=number, shown=repr(shown),
                                reason=reason_of(error)) from None
        plies.append(ply)
        if actions_out is not None:
            actions_out.append(action)
        if checkpoints is not None and number % CHECKPOINT_EVERY == 0:
            checkpoints[number] = position.copy()
    return position, plies


def play_checked(position: GameState, text: str, check_legal: bool = True,
                 legal: list[Any] | None = None) -> tuple[Ply, Any]:
    """Play one action given in notation, refusing anything the engine does not list.

    The engine's ``play`` names the reason for a refusal; the membership test against
    ``legal_actions`` is a second line of defence so that a client can never slip an
    action past a lenient parser. ``legal``: those actions when already generated for
    this position (a match keeps the list it sent to the player).
    """
    if not isinstance(text, str) or not text.strip():
        raise IllegalAction("an action must be a non-empty string in the game's notation")
    if len(text) > MAX_ACTION_LENGTH:
        raise IllegalAction("an action is at most {limit} characters long",
                            limit=MAX_ACTION_LENGTH)
    if position.is_over:
        raise IllegalAction("the game is over")
    try:
        action = position.parse_action(text.strip())
    except ValueError:  # IllegalAction included: the engine's own words
        raise
    except Exception as error:  # a parser tripping on odd input is still the input's fault
        log.warning("parse_action(%r) raised %r", text, error)
        raise IllegalAction("{text} is not an action of this game",
                            text=repr(text.strip())) from None
    seat, color, start = position.current_seat, position.to_move, position.is_turn_start()
    if check_legal and action not in (position.legal_actions() if legal is None else legal):
        position.play(action)  # raises IllegalAction with the engine's reason
        position.undo()  # the engine accepted what it does not list: refuse anyway
        raise IllegalAction("{action} is not a legal action here", action=text.strip()[:40])
    position.play(action)  # the engine checks legality itself
    # str(action), not position.history[-1]: history is a copy, O(game length).
    return Ply(notation=str(action), seat=seat, color=color, turn_start=start), action


class Match:
    """A stored game plus its live position.

    ``revision`` grows with every change (action, undo, resignation), so a background AI
    search can tell whether the position it was given is still the current one.
    """

    def __init__(self, stored: StoredGame) -> None:
        self.stored = stored
        self.game: Game = get_game(stored.game)
        #: Positions every CHECKPOINT_EVERY plies (never mutated: the replay copies them).
        self.checkpoints: dict[int, GameState] = {}
        #: The played actions as the engine's objects (for drawing the latest turn).
        self.actions: list[Any] = []
        self.position, self.plies = rebuild(
            self.game, stored.options, stored.actions, stored.start,
            checkpoints=self.checkpoints, actions_out=self.actions,
        )
        self._history: list[dict[str, Any]] = [asdict(ply) for ply in self.plies]
        #: The move list as JSON, one piece per ply (a state message splices them in).
        self._history_json: list[str] = [_compact(entry) for entry in self._history]
        self._history_text: tuple[int, str] | None = None
        self._seat_plies = [0, 0]
        for ply in self.plies:
            self._seat_plies[ply.seat] += 1
        self._replay_lock = threading.Lock()
        self.revision = 0
        self.thinking = False
        #: Why the last AI search failed (shown to players until a search succeeds).
        self.ai_error: str | Phrase | None = None
        self._legal_cache: tuple[int, str, list[dict[str, Any]]] | None = None
        self._svg_cache: tuple[int, str] | None = None
        self._svg_json_cache: tuple[int, str] | None = None
        #: The number of the current drawing (see ``_SVG_IDS``), and the last few
        #: drawings cut into elements, as bases for patches.
        self.svg_id = 0
        self._svg_parts: dict[int, list[str] | str] = {}
        self._patch_cache: dict[tuple[int, int], str | None] = {}
        self._legal_json: tuple[int, str, str] | None = None
        self._legal_actions: tuple[int, list[Any]] | None = None
        self._legal_gestures: tuple[int, list[tuple[str, Gesture]]] | None = None
        #: Changes when entries of the move list are taken back (see ``_EPOCHS``).
        self.epoch = next(_EPOCHS)
        #: The site key of identity-derived seat tokens (set by the service; None: off).
        self.seat_key: bytes | None = None
        #: Names of the identities holding seats (player id -> name; set by the service).
        self.names: dict[str, str] = {}
        #: A rated game's rating changes once applied (see hexgames.web.ratings.games).
        self.rating_changes: list[dict[str, Any]] | None = None
        #: Conditional lines the game held when its last action was stored (read in that
        #: action's one write); ``None``: unknown (none stored here yet). A move of a
        #: game with none needs no look at the lines.
        self.lines_held: int | None = None
        #: The wall clock (ms) for clocks in views (the service injects its own).
        self.now: Any = wall_ms
        #: Absent players (set by :mod:`hexgames.web.play.absence`): seat -> when it was last
        #: seen (ms), and how long after that the opponent may claim (``None``: never
        #: by absence; a correspondence game ends at its deadline).
        self.gone: dict[int, float] = {}
        self.claim_after_ms: float | None = None

    # ------------------------------------------------------- clocks and offers
    @property
    def meta(self) -> GameMeta:
        return self.stored.meta

    def clock(self) -> Clock | None:
        """The game's clock as stored (``None``: untimed)."""
        return clock_in(self.stored.meta)

    def set_clock(self, clock: Clock | None) -> None:
        """Keep ``clock`` in the meta, with its flag-fall deadline (stored and indexed)."""
        if clock is not None:
            put_clock(self.stored.meta, clock)

    def offers(self) -> dict[str, Any]:
        return self.stored.meta.offers

    def can_abort(self) -> bool:
        """Before each side has moved, an online game may be aborted (no result)."""
        return (self.stored.mode == Mode.ONLINE and not self.is_over
                and min(self._seat_plies) == 0)

    def seat_has_moved(self, seat: int) -> bool:
        return self._seat_plies[seat] > 0

    def take_back_for(self, seat: int) -> int:
        """Take back ``seat``'s last action and everything after it (an accepted
        takeback request); returns how many actions."""
        return self._take_back({seat})

    def _take_back(self, seats: Collection[int]) -> int:
        """Undo the last action of any of ``seats`` and every action after it, and set
        the game playing again (an engine-decided end is undone with it); how many."""
        keep = next((i for i in range(len(self.plies) - 1, -1, -1)
                     if self.plies[i].seat in seats), None)
        if keep is None:
            raise IllegalAction("there is no action of yours to take back")
        count = len(self.plies) - keep
        for _ in range(count):
            self._pop()
        self.stored.status, self.stored.winner, self.stored.reason = "playing", None, None
        self.revision += 1
        return count

    # ------------------------------------------------------------- who may act
    @property
    def id(self) -> str:
        return self.stored.id

    @property
    def is_over(self) -> bool:
        return self.stored.status == "over" or self.position.is_over

    def seats_of(self, token: str | None) -> frozenset[int]:
        """Seats a token may act for (none for a spectator or a wrong token).

        Only hashes of the tokens are kept (``sha256:<hex>``); the comparison is in
        constant time. A plain stored token (a database from before hashing) still works.
        """
        if not token or not isinstance(token, str) or len(token) > 200:
            return frozenset()
        raw = token.encode("utf-8", "replace")  # compare_digest refuses non-ASCII str
        digest = (HASH_PREFIX + hashlib.sha256(raw).hexdigest()).encode()
        seats = set()
        if token.startswith("id.") and self.seat_key is not None:
            for seat, player_id in self.seat_holders():
                expected = seat_token(self.seat_key, self.id, seat, player_id)
                if hmac.compare_digest(expected.encode(), raw):
                    seats.add(seat)
            return frozenset(seats)
        for seat, secret in enumerate(self.stored.seat_tokens):
            if secret is None:
                continue
            offered = digest if secret.startswith(HASH_PREFIX) else raw
            if hmac.compare_digest(secret.encode(), offered):
                seats.add(seat)
        return frozenset(seats)

    def seat_holders(self) -> list[tuple[int, str]]:
        """``(seat, player id)`` for the seats an identity holds."""
        return seat_holders(self.stored.players)

    def seats_of_player(self, player_id: str | None) -> frozenset[int]:
        return frozenset(seat for seat, holder in self.seat_holders() if holder == player_id)

    def ai_level(self, seat: int) -> int | None:
        player = self.stored.players[seat]
        level = player.get("level")
        return None if player.get("kind") != "ai" or level is None else int(level)

    def ai_to_move(self) -> bool:
        return not self.is_over and self.ai_level(self.position.current_seat) is not None

    def _require_seat(self, token: str | None) -> frozenset[int]:
        seats = self.seats_of(token)
        if not seats:
            raise PermissionError(N_("this link does not hold a seat in this game "
                                     "(spectators watch)"))
        return seats

    # ----------------------------------------------------------------- changes
    def play(self, token: str | None, text: str, expected_ply: int | None = None) -> Ply:
        """Play an action for the seat the token holds; refuse out-of-turn or stale input."""
        seats = self._require_seat(token)
        if self.is_over:
            raise IllegalAction("the game is over: {result}", result=self.result_phrase())
        seat = self.position.current_seat
        if seat not in seats:
            raise IllegalAction("it is not your turn: {color} is to act",
                                color=word(self.position.to_move))
        if expected_ply is not None and expected_ply != len(self.plies):
            raise IllegalAction("the position changed before your action arrived; look again")
        return self.play_for_seat(seat, text)

    def play_for_seat(self, seat: int, text: str) -> Ply:
        """Play an action for ``seat`` (the AI's own entry point; no token involved)."""
        if self.position.current_seat != seat:
            raise IllegalAction("it is not this seat's turn")
        if len(self.plies) >= MAX_PLIES:
            raise IllegalAction("this game reached the site's limit of {limit} actions",
                                limit=MAX_PLIES)
        cached = self._legal_actions
        legal = cached[1] if cached is not None and cached[0] == self.revision else None
        ply, action = play_checked(self.position, text, legal=legal)
        self._push(ply, action)
        self.revision += 1
        return ply

    def _push(self, ply: Ply, action: Any) -> None:
        self.plies.append(ply)
        self.actions.append(action)
        self._history.append(asdict(ply))
        self._history_json.append(_compact(self._history[-1]))
        self._seat_plies[ply.seat] += 1
        number = len(self.plies)
        if number % CHECKPOINT_EVERY == 0 and number not in self.checkpoints:
            self.checkpoints[number] = self.position.copy()

    def _pop(self) -> None:
        self.epoch = next(_EPOCHS)
        self.position.undo()
        ply = self.plies.pop()
        self.actions.pop()
        self._history.pop()
        self._history_json.pop()
        self._seat_plies[ply.seat] -= 1
        with self._replay_lock:
            self.checkpoints.pop(len(self.plies) + 1, None)
            for number in [n for n in self.checkpoints if n > len(self.plies)]:
                del self.checkpoints[number]

    def take_back_unsaved(self) -> None:
        """Forget the last action (it could not be stored) and any end it caused."""
        self._pop()
        if self.stored.status == "over" and not self.position.is_over:
            self.stored.status, self.stored.winner, self.stored.reason = "playing", None, None
        self.revision += 1

    def undo(self, token: str | None) -> int:
        """Take back actions; returns how many. Refused online and when nothing is left.

        Against the AI the human gets back to their own turn: their last action and every
        AI action after it are undone, so the AI does not simply replay at once.
        """
        seats = self._require_seat(token)
        if self.stored.mode == Mode.ONLINE:
            raise IllegalAction("undo is not available in online games")
        if self.stored.status == "over" and not self.position.is_over:
            raise IllegalAction("a resigned game cannot be undone")
        # Only an engine-decided end can be undone (resignations are refused above).
        return self._take_back(seats)

    def resign(self, token: str | None) -> None:
        seats = self._require_seat(token)
        if self.is_over:
            raise IllegalAction("the game is already over: {result}",
                                result=self.result_phrase())
        current = self.position.current_seat
        seat = current if current in seats else min(seats)
        loser = self.position.color_of_seat(seat)
        winner = self.position.color_of_seat(1 - seat)
        self.stored.status, self.stored.winner = "over", winner
        self.stored.reason = f"{loser.capitalize()} resigned"
        self.revision += 1

    def sync_result(self) -> bool:
        """Copy the engine's end of game into the stored record; True when it changed."""
        if not self.position.is_over:
            return False
        winner, reason = self.position.winner, self.engine_reason()
        if (self.stored.status, self.stored.winner, self.stored.reason) == ("over", winner, reason):
            return False
        self.stored.status, self.stored.winner, self.stored.reason = "over", winner, reason
        return True

    def engine_reason(self) -> str | None:
        """The words of the rules' termination (``"king captured"``), ``None`` while the
        rules have not ended the game."""
        outcome = self.position.outcome()
        return outcome.termination.value if outcome is not None else None

    def result_text(self) -> str:
        """The end in English words (``"Red wins (Blue resigned)"``)."""
        return str(self.result_phrase())

    def result_phrase(self) -> Phrase:
        """The end in words a page translates (:meth:`result_text` in English)."""
        winner, reason = self.stored.winner, self.stored.reason
        if self.position.is_over and winner is None:
            winner, reason = self.position.winner, self.engine_reason()
        why = reason_phrase(reason) if reason else None
        if winner == "draw":
            return Phrase("draw ({reason})", reason=why) if why else Phrase("draw")
        if winner:
            color = color_word(winner)
            return (Phrase("{color} wins ({reason})", color=color, reason=why) if why
                    else Phrase("{color} wins", color=color))
        return Phrase("game over ({reason})", reason=why) if why else Phrase("game over")

    # ------------------------------------------------------------------ views
    def legal_gestures(self) -> list[tuple[str, Gesture]]:
        """Every legal action's notation with the clicks that enter it (cached per
        revision; the actions themselves are kept to check the next action against
        without generating them again)."""
        if self._legal_gestures and self._legal_gestures[0] == self.revision:
            return self._legal_gestures[1]
        actions = [] if self.is_over else list(self.position.legal_actions())
        self._legal_actions = (self.revision, actions)
        gesture = self.game.gesture
        pairs = [(str(action), gesture(self.position, action)) for action in actions]
        self._legal_gestures = (self.revision, pairs)
        return pairs

    def legal_for_client(self, words: Translator = ENGLISH) -> list[dict[str, Any]]:
        """Every legal action with the clicks that enter it, labels in ``words``'
        language (cached per revision)."""
        cached = self._legal_cache
        if cached and cached[0] == self.revision and cached[1] == words.language:
            return cached[2]
        entries = [legal_entry(notation, gesture, words)
                   for notation, gesture in self.legal_gestures()]
        self._legal_cache = (self.revision, words.language, entries)
        return entries

    def svg(self) -> str:
        if self._svg_cache and self._svg_cache[0] == self.revision:
            return self._svg_cache[1]
        svg = self.game.render_svg(self.position, last_action=self.latest_turn() or None)
        svg = str(svg)
        self._svg_cache = (self.revision, svg)
        self.svg_id = next(_SVG_IDS)
        self._svg_parts[self.svg_id] = svg  # cut in pieces when a patch needs it
        while len(self._svg_parts) > SVG_PATCH_BASES:
            del self._svg_parts[next(iter(self._svg_parts))]
        self._patch_cache.clear()
        return svg

    def _pieces(self, number: int) -> list[str] | None:
        """Drawing ``number`` cut at the patch separator (None: no longer kept)."""
        kept = self._svg_parts.get(number)
        if isinstance(kept, str):
            kept = self._svg_parts[number] = kept.split(SVG_PATCH_SEPARATOR)
        return kept

    def svg_patch_json(self, base: int) -> str | None:
        """The patch (JSON text, see :func:`svg_patch`) that turns drawing number
        ``base`` into the current one; None when ``base`` is no longer kept or the patch
        would not be much smaller than the drawing itself (send the whole SVG then).
        Computed once per pair, however many viewers."""
        svg = self.svg()
        key = (base, self.svg_id)
        if key in self._patch_cache:
            return self._patch_cache[key]
        text = None
        old = self._pieces(base)
        if old is not None:
            ops = svg_patch(old, self._pieces(self.svg_id) or [])
            if ops is not None:
                encoded = _compact(ops)
                if len(encoded) * 2 < len(svg):
                    text = encoded
        self._patch_cache[key] = text
        return text

    def latest_turn(self, ply: int | None = None) -> list[Any]:
        """The actions of the latest turn among the first ``ply`` (all by default): the
        turn in progress, or the last one completed (cost: that turn's length)."""
        end = len(self.plies) if ply is None else ply
        first = end - 1
        while first > 0 and not self.plies[first].turn_start:
            first -= 1
        return self.actions[max(first, 0):end]

    def replay_svg(self, ply: int, flip: bool = False) -> str:
        """The board after the first ``ply`` actions, from the nearest checkpoint (at
        most ``CHECKPOINT_EVERY`` actions replayed), turned half a turn when ``flip``.
        Safe to call from a thread."""
        with self._replay_lock:
            base = (ply // CHECKPOINT_EVERY) * CHECKPOINT_EVERY
            while base not in self.checkpoints:
                base -= CHECKPOINT_EVERY
            position = self.checkpoints[base].copy()
            for action in self.actions[base:ply]:
                position.play(action)
            latest = self.latest_turn(ply)
        extra = {"flip": True} if flip else {}
        return str(self.game.render_svg(position, last_action=latest or None, **extra))

    def players_view(self, words: Translator | None = None) -> list[dict[str, Any]]:
        """The seats; with ``words``, a name the site made up ("Computer (level 3)")
        also as ``name_text`` in that language (where it differs)."""
        return [
            {
                "seat": seat,
                "color": self.position.color_of_seat(seat),
                "kind": player.get("kind", "human"),
                "level": player.get("level"),
                "name": player_name(player, self.stored.mode, seat),
                **_translated("name_text", seat_name(player, self.stored.mode, seat), words),
                # The identity holding the seat ({"id", "name"}), None for an AI or a
                # seat nobody has taken with an identity.
                "player": {"id": str(player["player_id"]),
                           "name": self.names.get(str(player["player_id"]), "?")}
                if player.get("player_id") else None,
            }
            for seat, player in enumerate(self.stored.players)
        ]

    def view_json(self, token: str | None, since: int | None = None,
                  svg_base: int | None = None, words: Translator = ENGLISH,
                  **extra: Any) -> str:
        """:meth:`view` as JSON text, built without encoding the move list or the board
        again: their pieces are encoded once per position (a long game's state costs a
        string join, not a walk over every action, and the board's SVG is escaped for
        JSON once however many viewers there are).

        ``since`` (a client that opted in to deltas, see docs/web.md) replaces
        ``history`` by ``history_tail``, the entries from ply ``since`` on (``since`` is
        clamped to the history's length), and states it as ``history_since``.

        ``svg_base`` (a client that opted in to board patches and holds drawing number
        ``svg_base``) replaces ``svg`` by ``svg_patch`` when a patch is available (see
        :func:`svg_patch`); otherwise the state carries the whole ``svg`` as usual.

        ``words``: the viewer's language (the ``*_text`` fields and the labels).
        """
        state = {**self.view(token, encoded=True, words=words), **extra}
        if since is not None:
            since = max(0, min(int(since), len(self.plies)))
            del state["history"]
            state["history_since"] = since
            state["history_tail"] = _SPLICE
        patch = self.svg_patch_json(svg_base) if svg_base is not None else None
        if patch is not None:
            del state["svg"]
            state["svg_patch"] = _SVG_SPLICE
        text = _compact(state)
        text = text.replace(_SVG_SPLICE_JSON, patch or self.svg_json(), 1)
        if state["legal"]:
            text = text.replace(_LEGAL_SPLICE_JSON, self.legal_json(words), 1)
        if since is not None:
            return text.replace(_SPLICE_JSON, "[" + ",".join(self._history_json[since:]) + "]", 1)
        if self._history_text is None or self._history_text[0] != self.revision:
            self._history_text = (self.revision, "[" + ",".join(self._history_json) + "]")
        return text.replace(_SPLICE_JSON, self._history_text[1], 1)

    def legal_json(self, words: Translator = ENGLISH) -> str:
        """:meth:`legal_for_client` as JSON text (encoded once per position and
        language, each entry once per process: the same action with the same clicks
        recurs in many positions)."""
        cached = self._legal_json
        if cached is None or cached[0] != self.revision or cached[1] != words.language:
            texts = []
            for notation, gesture in self.legal_gestures():
                key = (notation, gesture, words.language)
                text = _LEGAL_ENTRIES.get(key)
                if text is None:
                    text = _compact(legal_entry(notation, gesture, words))
                    if len(_LEGAL_ENTRIES) >= 50_000:
                        _LEGAL_ENTRIES.clear()
                    _LEGAL_ENTRIES[key] = text
                texts.append(text)
            cached = self._legal_json = (self.revision, words.language,
                                         "[" + ",".join(texts) + "]")
        return cached[2]

    def svg_json(self) -> str:
        """The board as a JSON string (encoded once per position)."""
        if self._svg_json_cache and self._svg_json_cache[0] == self.revision:
            return self._svg_json_cache[1]
        text = json.dumps(self.svg())
        self._svg_json_cache = (self.revision, text)
        return text

    def view(self, token: str | None, encoded: bool = False,
             words: Translator = ENGLISH) -> dict[str, Any]:
        """The state one viewer receives: the board, the history, and (when it is their
        turn) the legal actions with their gestures. The words a page shows come in the
        viewer's language (``words``) in fields of their own (``result_text``...): the
        documented ones stay English."""
        seats = self.seats_of(token)
        position, game = self.position, self.game
        my_turn = not self.is_over and position.current_seat in seats and not self.ai_to_move()
        state: dict[str, Any] = {
            "type": "state",
            "id": self.id,
            "game": self.game.name,
            "title": self.game.title,
            "mode": self.stored.mode,
            "options": self.stored.options,
            "players": self.players_view(words),
            "your_seats": sorted(seats),
            "role": "player" if seats else "spectator",
            "ply": len(self.plies),
            "to_move": position.to_move,
            "current_seat": position.current_seat,
            "turn_start": position.is_turn_start(),
            "is_over": self.is_over,
            "winner": self.stored.winner if self.stored.status == "over" else position.winner,
            "result": self.result_text() if self.is_over else None,
            "result_text": words.text(self.result_phrase()) if self.is_over else None,
            "thinking": self.thinking,
            "ai_error": str(self.ai_error) if self.ai_error else None,
            "ai_error_text": words.text(self.ai_error) if self.ai_error else None,
            "svg": _SVG_SPLICE if encoded else self.svg(),
            "history": _SPLICE if encoded else list(self._history),
            "actions_left": game.actions_left(position) if game.actions_left else None,
            "score": _describe(game.live_score(position)) if game.live_score else None,
            "final": _final(position, game, words),
            "overlays": list(self.game.overlays),
            "your_turn": my_turn,
            "legal": (_LEGAL_SPLICE if encoded else self.legal_for_client(words))
            if my_turn else [],
            "can_undo": self.stored.mode != Mode.ONLINE
            and bool(seats)
            and any(self._seat_plies[seat] for seat in seats)
            and not (self.stored.status == "over" and not position.is_over),
            "created_at": self.stored.created_at,
            "updated_at": self.stored.updated_at,
            "rated": self.stored.rated,
            #: The tournament the game belongs to (its id), or None.
            "tournament": self.meta.tournament,
            # Per seat once a rated game's result is applied: {"seat", "player_id",
            # "before", "after", "change", "deviation"}; None otherwise.
            "rating_changes": self.rating_changes,
        }
        state.update(self._lobby_view(seats, words))
        return state

    def _lobby_view(self, seats: frozenset[int], words: Translator = ENGLISH
                    ) -> dict[str, Any]:
        """Issue 11's fields: clock, offers, rated, abort and rematch (added fields only)."""
        clock = self.clock()
        meta, offers = self.stored.meta, self.stored.meta.offers
        online = self.stored.mode == Mode.ONLINE
        takeback = offers.get("takeback")
        view = clock.view(self.now()) if clock is not None else None
        if (view is not None and clock is not None and view["abort_in_ms"] is None
                and clock.control.kind == "realtime" and not clock.started()
                and not self.is_over
                and any(player.get("invite") for player in self.stored.players)):
            # The first-turn limit waits for the invitation to be opened: all of it left.
            view["abort_in_ms"] = FIRST_TURN_LIMIT_MS
        if view is not None and clock is not None:
            view["describe_text"] = words.text(clock.control.phrase())
        return {
            "clock": view,
            "control": meta.control,
            "takeback_offer": takeback,
            "can_request_takeback": online and bool(seats) and not self.is_over
            and takeback is None and any(self._seat_plies[s] for s in seats),
            "can_abort": bool(seats) and self.can_abort(),
            "rematch_offers": list(offers.get("rematch", [])),
            "rematch": meta.rematch,
            "can_rematch": online and bool(seats) and self.is_over
            and not meta.rematch
            and not any(player.get("invite") for player in self.stored.players),
            "absent": self.absent_view(),
        }

    def absent_view(self) -> list[dict[str, Any]]:
        """The players gone from an online game under way (once each side has moved):
        ``{seat, gone_ms, claim_in_ms}``, ``claim_in_ms`` the time until the opponent may
        claim (0: now; ``None``: not by absence). See :mod:`hexgames.web.play.absence`."""
        if self.stored.mode != Mode.ONLINE or self.is_over or self.can_abort():
            return []
        moment = self.now()
        after = self.claim_after_ms
        return [{"seat": seat, "gone_ms": max(0, round(moment - since)),
                 "claim_in_ms": None if after is None
                 else max(0, round(since + after - moment))}
                for seat, since in sorted(self.gone.items())]


#: Placeholder for the move list in :meth:`Match.view_json` (unguessable, per process).
_SPLICE = "\u0000history-" + secrets.token_hex(12)
_SPLICE_JSON = json.dumps(_SPLICE)
_SVG_SPLICE = "\u0000svg-" + secrets.token_hex(12)
_SVG_SPLICE_JSON = json.dumps(_SVG_SPLICE)
_LEGAL_SPLICE = "\u0000legal-" + secrets.token_hex(12)
_LEGAL_SPLICE_JSON = json.dumps(_LEGAL_SPLICE)


#: Legal-action entries as JSON, by notation, gesture and language (bounded; see
#: legal_json).
_LEGAL_ENTRIES: dict[tuple[str, Gesture, str], str] = {}


def _translated(field: str, text: Phrase | str | None, words: Translator | None
                ) -> dict[str, str]:
    """``{field: text in words' language}`` where that differs from the English (a
    phrase only: a plain string, such as a player's own name, is never looked up)."""
    if words is None or not isinstance(text, Phrase):
        return {}
    shown = words.text(text)
    return {field: shown} if shown != str(text) else {}


def legal_entry(notation: str, gesture: Gesture, words: Translator = ENGLISH
                ) -> dict[str, Any]:
    """A legal action as a page gets it: ``label`` in English (as documented; pages
    also match on it), ``label_text`` in ``words``' language where it differs, the
    ``explanation`` (only ever shown) in that language."""
    label = gesture.label
    phrase = word(gesture.label_phrase or label) if label else None
    return {
        "action": notation,
        "tool": gesture.tool,
        "points": list(gesture.points),
        "paths": [list(path) for path in gesture.paths],
        "label": str(label),
        **_translated("label_text", phrase, words),
        # What the action does, where the game explains it (Dendria's swap); the page
        # shows it next to the button.
        **({"explanation": words.text(gesture.explanation)} if gesture.explanation else {}),
    }


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def svg_patch(old: list[str], new: list[str], window: int = 40,
              run: int = 3) -> list[Any] | None:
    """Edits that turn the drawing ``old`` into ``new``, both cut at
    :data:`SVG_PATCH_SEPARATOR`: a list of ``[at, remove, [pieces...]]``, applied in
    order to the old pieces like JavaScript's ``pieces.splice(at, remove, ...pieces)``
    (``at`` counts in the list as already edited); joining the result with the separator
    gives ``new`` exactly. Knows nothing of SVG or games: a greedy line diff that, at each
    difference, resumes at the nearest place where ``run`` pieces are equal (within
    ``window`` pieces); None when the drawings differ too much for that.

    >>> svg_patch(["a", "b", "c", "d"], ["a", "x", "c", "d"])
    [[1, 1, ['x']]]
    """
    ops: list[Any] = []
    n, m = len(old), len(new)
    i = j = 0
    while n > i and m > j and old[n - 1] == new[m - 1]:  # the same ending: skip it
        n, m = n - 1, m - 1
    while i < n and j < m:
        if old[i] == new[j]:
            i, j = i + 1, j + 1
            continue
        found = None
        for distance in range(1, window):
            for skip_old in range(distance + 1):
                a, b = i + skip_old, j + distance - skip_old
                if a < n and b < m and old[a] == new[b] and old[a:a + run] == new[b:b + run]:
                    found = (a, b)
                    break
            if found:
                break
        if found is None:
            if n - i + m - j > 2 * window:
                return None
            found = (n, m)  # the rest differs: replace it
        ops.append([j, found[0] - i, new[j:found[1]]])
        i, j = found
    if i < n or j < m:
        ops.append([j, n - i, new[j:m]])
    return ops


def render(game: Game, position: GameState, overlays: tuple[str, ...] = (),
           latest: list[Any] | None = None, flip: bool = False) -> str:
    """The board SVG with the latest turn's actions highlighted.

    The latest turn is the one in progress, or the last one completed when a new turn
    has not started: for games with several actions a turn, showing only the very last
    action would hide what the opponent just did.
    """
    if latest is None:  # not given (the rules pages): find it, at the cost of a copy
        latest = []
        probe = position.copy()
        while probe.history:
            latest.insert(0, probe.history[-1])
            probe.undo()
            if probe.is_turn_start():
                break
    extra: dict[str, Any] = {"overlays": overlays} if overlays else {}
    if flip:  # only when asked: a game's renderer need not know the option
        extra["flip"] = True
    return str(game.render_svg(position, last_action=latest or None, **extra))


def player_name(player: SeatPlayer, mode: str, seat: int) -> str:
    return str(seat_name(player, mode, seat))


def seat_name(player: SeatPlayer, mode: str, seat: int) -> Phrase | str:
    """A seat's name: the player's own (a plain string, never translated), or one the
    site makes up (a phrase)."""
    if player.get("name"):
        return str(player["name"])
    if player.get("kind") == "ai":
        return Phrase("Computer (level {level})", level=player.get("level"))
    if mode == Mode.HOTSEAT:
        return Phrase("Player {number}", number=seat + 1)
    return Phrase("You") if mode == Mode.AI else Phrase("Player {number}", number=seat + 1)


def _final(position: GameState, game: Game | None = None,
           words: Translator = ENGLISH) -> dict[str, Any] | None:
    """How the engine ended the game (``outcome()``): termination and final score, for the
    end-of-game banner, with the score's breakdown line by line where the game gives one
    (``Game.score_breakdown``; its words in ``words``' language: they are only shown);
    ``None`` while it goes on or after a resignation."""
    outcome = position.outcome()
    if outcome is None:
        return None
    final: dict[str, Any] = {
        "termination": str(outcome.termination),
        "winner": outcome.winner,
        "score": _describe(outcome.score),
    }
    if game is not None and game.score_breakdown is not None:
        final["breakdown"] = [
            {"label": words.text(line.label_phrase or line.label),
             "detail": words.text(line.detail_phrase or line.detail),
             "points": _describe(dict(line.points))}
            for line in game.score_breakdown(position)
        ]
    return final
