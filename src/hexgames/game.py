"""The one small protocol through which everything game-agnostic talks to a game.

The AI (:mod:`hexgames.ai`), the arena, the web app, the terminal game and the research
integrations never import a game package directly and never branch on a game's name:
they ask the registry (:func:`get_game`) for a :class:`Game` and use only what is declared
here. A game package provides

* a **position** class that satisfies :class:`GameState` (python-chess's ``Board``:
  ``legal_actions``/``play``/``undo`` with make/unmake, not copies), and
* one module-level :class:`Game` object that describes the game: its options, how to
  read and write positions and records, how to draw it, how the web board turns clicks
  into actions, a heuristic for the AI, and the fixed action-id / observation encoding
  for research frameworks.

Seats vs colours: seat 0 is the player who acts first in the game, seat 1 the other.
In Benediction a seat keeps its colour; in Dendria the pie rule's ``swap`` exchanges the
colours of the two seats. Results for tournaments and research are reported per seat.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, overload, runtime_checkable

from hexgames.phrases import N_, Phrase, Text

if TYPE_CHECKING:
    from hexgames.hexgrid import HexBoard
    from hexgames.hooks import AiHooks, CompiledKernel, VectorBatch

A = TypeVar("A")


class HistoryView(Sequence[A], Generic[A]):
    """A read-only, live view of a position's actions, oldest first.

    Returned by ``Position.history`` instead of a copy, so that ``len(history)`` and
    ``history[-1]`` cost O(1) however long the game is (a copy per access made code
    that looks at the last action quadratic). It follows the position: after ``play``
    or ``undo`` the same view shows the new history. Use ``list(view)`` for a snapshot.
    """

    __slots__ = ("_items",)

    def __init__(self, items: list[A]) -> None:
        self._items = items

    @overload
    def __getitem__(self, index: int) -> A: ...

    @overload
    def __getitem__(self, index: slice) -> list[A]: ...

    def __getitem__(self, index: int | slice) -> A | list[A]:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[A]:
        return iter(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HistoryView):
            return self._items == other._items
        if isinstance(other, (list, tuple)):
            return self._items == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a live view is not a value

    def __repr__(self) -> str:
        return f"HistoryView({self._items!r})"


class CommonTermination(StrEnum):
    """Ways a game ends that are decided outside the rules engine (by the players, the
    clock or the server). Every game's own ``Termination`` enum repeats these members
    with these exact values, so game-agnostic code can name them through
    ``game.termination.RESIGNATION`` whatever the game. ``OPPONENT_LEFT``: a player
    claimed the win, or called a draw, after the opponent had been gone long enough
    (the web app's absence claims)."""

    RESIGNATION = N_("resignation")
    TIMEOUT = N_("timeout")
    OPPONENT_LEFT = N_("opponent left")


def reason_of(error: BaseException) -> Text:
    """What an exception says to a player: the :class:`~hexgames.phrases.Phrase` it
    carries (``IllegalAction.phrase``, or a phrase given as a ``ValueError``'s only
    argument), else its English text. A message that wraps another error's reason passes
    this on as a value, so the whole message stays translatable."""
    phrase = getattr(error, "phrase", None)
    if isinstance(phrase, Phrase):
        return phrase
    if len(error.args) == 1 and isinstance(error.args[0], Phrase):
        return error.args[0]
    return str(error)


def word(text: Text) -> Phrase:
    """``text`` as a value of a :class:`~hexgames.phrases.Phrase` that is translated
    too: a phrase stays as it is; a plain string (a word marked with ``N_`` where it is
    defined, such as a colour or a field's label) is looked up whole."""
    if isinstance(text, Phrase):
        return text
    return Phrase(text.replace("{", "{{").replace("}", "}}"))


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended (python-chess's ``Outcome``).

    ``termination`` is a member of the game's own ``Termination`` enum (a ``StrEnum``;
    its value is the words shown to people, e.g. ``"king captured"``). ``winner`` is the
    winning colour or ``None`` for a draw; ``winner_seat`` the winning seat or ``None``.
    ``score`` is the final score per colour for games that keep one (Dendria), ``None``
    otherwise.
    """

    termination: StrEnum
    winner: str | None
    winner_seat: int | None
    score: Mapping[str, float] | None = None

    @property
    def is_draw(self) -> bool:
        return self.winner_seat is None

    def returns(self) -> tuple[float, float]:
        """Per seat: +1 win, -1 loss, 0 draw."""
        if self.winner_seat is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if self.winner_seat == 0 else (-1.0, 1.0)

    def result(self) -> str:
        """The record's result in seat order: ``"1-0"``, ``"0-1"`` or ``"1/2-1/2"``."""
        return {None: "1/2-1/2", 0: "1-0", 1: "0-1"}[self.winner_seat]

    def describe(self) -> str:
        """One line for people: ``"Red wins (king captured)"``, ``"draw (quiet limit)"``."""
        return str(self.phrase())

    def phrase(self) -> Phrase:
        """:meth:`describe` as a translatable phrase (the winner's colour and the
        termination's words are looked up too: a game marks them with ``N_``)."""
        termination = word(self.termination.value)
        if self.winner is None:
            return Phrase("draw ({termination})", termination=termination)
        return Phrase("{winner} wins ({termination})",
                      winner=word(self.winner.capitalize()), termination=termination)


@dataclass(frozen=True)
class Option:
    """One rules option of a game, described so that CLIs, the web form and OpenSpiel's
    game parameters can be generated from it without knowing the game.

    ``kind`` is ``"int"`` or ``"bool"``; ``default`` may be ``None`` for "off"
    (e.g. Benediction's unlimited ``supply``), in which case ``nullable`` is true.

    Every ``"int"`` option of a game declares both ``minimum`` and ``maximum``
    (``tests/test_option_bounds.py`` checks it): the server, the lobby and the research
    adapters take options from strangers, and an unbounded one (a quiet limit of
    ``10**23``) would let a single request size tables by it and freeze the process.
    """

    name: str
    kind: str
    default: Any
    help: str
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False
    #: Other names accepted for this option (e.g. Dendria's old ``size``).
    aliases: tuple[str, ...] = ()
    #: True for an option that changes the board itself (its size): every decision's
    #: legal actions differ from the default's, so "would the default have offered other
    #: actions?" says nothing about it and the designer reports do not ask it.
    changes_board: bool = False

    def describe_valid(self) -> str:
        """What values are valid, in words: ``"an integer from 4 to 7"``,
        ``"true or false"``, ``"an integer of at least 1, or none (unlimited)"``."""
        return str(self.valid_phrase())

    def valid_phrase(self) -> Phrase:
        """:meth:`describe_valid` as a translatable phrase."""
        if self.kind == "bool":
            text = Phrase("true or false")
        elif self.minimum is not None and self.maximum is not None:
            text = Phrase("an integer from {minimum} to {maximum}",
                          minimum=self.minimum, maximum=self.maximum)
        elif self.minimum is not None:
            text = Phrase("an integer of at least {minimum}", minimum=self.minimum)
        elif self.maximum is not None:
            text = Phrase("an integer of at most {maximum}", maximum=self.maximum)
        else:
            text = Phrase("an integer")
        return Phrase("{valid}, or none (off)", valid=text) if self.nullable else text

    def validate(self, value: Any) -> Any:
        """Check one value of this option and return it; ``ValueError`` names the option,
        the value and what is valid. The one place an option's type and range are
        checked: ``Rules``, the CLI, the web form and the research adapters all call it."""
        if value is None:
            if self.nullable:
                return None
            raise self.refusal(None)
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            raise self.refusal(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.refusal(value)
        too_small = self.minimum is not None and value < self.minimum
        too_large = self.maximum is not None and value > self.maximum
        if too_small or too_large:
            raise self.refusal(value)
        return value

    def refusal(self, value: Any, verb: str = "must be") -> ValueError:
        """The ``ValueError`` refusing ``value`` for this option: its name, what is valid
        and the value, cut short (a 5000-digit number must not become a 5000-character
        message in a web answer or a log line)."""
        values = {"name": self.name, "valid": self.valid_phrase(), "value": quote_value(value)}
        if verb == "must be":
            return ValueError(Phrase("option {name} must be {valid}, got {value}", **values))
        if verb == "expects":
            return ValueError(Phrase("option {name} expects {valid}, got {value}", **values))
        # a caller's own verb: the words around it are still translated
        return ValueError(Phrase("option {name} {verb} {valid}, got {value}", verb=verb,
                                 **values))


#: How much of a refused option value an error message quotes.
_SHOWN_CHARS = 40


def quote_value(value: Any) -> str:
    """A refused value as an error message quotes it: its ``repr``, cut to 40 characters
    (a 5000-character string must not become a 5000-character web answer or log line),
    and a huge integer described rather than written out (``repr`` of an integer of
    more than 4300 digits raises, and its digits say nothing a person needs anyway)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        sign = "-" if value < 0 else ""
        return f"{sign}an integer of about {int(value.bit_length() * 0.30103)} digits"
    shown = repr(value)
    if len(shown) > _SHOWN_CHARS:
        shown = f"{shown[:_SHOWN_CHARS]}... ({len(shown)} characters)"
    return shown


@dataclass(frozen=True)
class Gesture:
    """How a person enters an action on the web board by clicking.

    ``tool`` names a tool that must be selected first (``None`` for the default
    select-and-move tool; e.g. ``"drop"``, ``"block"``). ``points`` are the labels clicked
    in order (empty for actions entered by a button, such as ``end``/``pass``/``swap``).
    ``label`` is a short text shown on a button when one click sequence completes more
    than one action (e.g. ``"merge"``, ``"split 2"``), or for button-only actions.
    ``alternatives`` are further click sequences that enter the same action: a Dendria
    seedbed may be grown by clicking any of its seeds, although the step names one of them.
    """

    tool: str | None
    points: tuple[str, ...]
    label: str
    alternatives: tuple[tuple[str, ...], ...] = ()
    #: What the action does, in words for a player, where its label alone does not say
    #: (e.g. Dendria's pie-rule ``swap``); empty otherwise. Shown by the web page (a game
    #: marks it with ``N_`` so that the page can look it up in the catalog).
    explanation: str = ""
    #: ``label`` as a translatable phrase where it has values (``"split {n}"``); a plain
    #: label is looked up whole.
    label_phrase: Text | None = field(default=None, compare=False)

    @property
    def paths(self) -> tuple[tuple[str, ...], ...]:
        """Every click sequence that enters the action, the canonical one first."""
        return (self.points, *self.alternatives)


@dataclass(frozen=True)
class ScoreLine:
    """One line of a final score's breakdown (``Game.score_breakdown``), for people.

    ``label`` names the scoring term (``"Forests of size 3"``), ``detail`` says what the
    board shows (``"Dark 2 forests, Light 1: Dark holds the size"``) and ``points`` the
    points each colour gets from this line. The lines of a breakdown add up to the
    position's score.
    """

    label: str
    detail: str
    points: Mapping[str, float]
    #: ``label`` and ``detail`` as translatable phrases (``str()`` of each is the same
    #: English), for a page that shows the breakdown in the reader's language; ``None``:
    #: translate the plain texts as they are. Not compared: they say what the texts say.
    label_phrase: Text | None = field(default=None, compare=False)
    detail_phrase: Text | None = field(default=None, compare=False)


@dataclass(frozen=True)
class BoardSymmetry:
    """One symmetry of the hex-hex board, as a game declares it in ``Game.symmetries``
    when it preserves the game's rules.

    In centred axial coordinates ``(q, r)`` (``q = x - (side - 1)``, likewise ``r``) the
    symmetry first mirrors left-right when ``mirror`` is set, ``(q, r) -> (-q, r - q)``
    (N stays N, NE <-> NW), then turns ``turns`` times by 60 degrees clockwise,
    ``(q, r) -> (r, r - q)`` (N -> NE -> SE ...). The 12 values make up the whole
    symmetry group of the hexagon.
    """

    turns: int = 0
    mirror: bool = False

    @property
    def name(self) -> str:
        """``"identity"``, ``"mirror"``, ``"rotate60"``, ``"mirror+rotate120"`` ..."""
        turned = f"rotate{60 * (self.turns % 6)}" if self.turns % 6 else ""
        parts = [part for part in ("mirror" if self.mirror else "", turned) if part]
        return "+".join(parts) or "identity"

    def __call__(self, q: int, r: int) -> tuple[int, int]:
        """The image of the centred axial coordinates ``(q, r)``."""
        if self.mirror:
            q, r = -q, r - q
        for _ in range(self.turns % 6):
            q, r = r, r - q
        return (q, r)


#: All 12 symmetries of the hex-hex board, the identity first.
HEXAGON_SYMMETRIES: tuple[BoardSymmetry, ...] = tuple(
    BoardSymmetry(turns, mirror) for mirror in (False, True) for turns in range(6)
)


@dataclass(frozen=True)
class ViewSpec:
    """What a game's observation planes mean, as far as a player-relative view needs
    (``Game.view_spec``; used by :mod:`hexgames.integrations.views`)."""

    #: Planes that exchange when the observer plays the second colour (``game.colors[1]``):
    #: pairs ``(plane of the first colour, plane of the second)``.
    color_pairs: tuple[tuple[int, int], ...]
    #: The plane that is 1 on the board when the first colour is to move.
    first_to_move: int
    #: The plane that is 1 on every point of the board.
    on_board: int
    #: True when the board must turn half a turn for the second colour (its geometry is
    #: not the same for both colours).
    rotate: bool


def _no_token(position: Any, action: Any) -> Any:
    return None


def _no_events(position: Any, action: Any, token: Any) -> Iterable[str]:
    return ()


def _no_peaks(position: Any) -> Mapping[str, int]:
    return {}


@dataclass(frozen=True)
class RuleUsage:
    """A game's rule-usage knowledge for balance reports (``Game.rule_usage``; used by
    :mod:`hexgames.arena.replay`). Every action already counts under its kind; this adds
    the effects that are not kinds (a Benediction portal pass, curse or bridge).

    ``before(position, action)`` is called before each action is played and returns a
    token; ``after(position, action, token)`` after it, returning the names of the rule
    events the action caused (besides its kind). ``peaks(position)`` gives quantities
    whose largest value over the game is reported (e.g. the largest stack).
    ``option_events`` maps an option name to the event that shows it came into play (a
    report flags an option set away from its default whose event never happened).
    ``pieces(position)`` lists the pieces on the board as ``(cell label, colour)`` pairs,
    for board coverage and piece counts over time (``None``: the report leaves them out).
    ``limit_ends`` names the end reasons (``Outcome.termination`` values) that are limits
    rather than the game's goal (Dendria's quiet limit, Benediction's turn limit): a
    report calls it out when most games end that way. ``move_cells(position, action)``,
    called before the action is played, gives ``(from cell, to cell)`` for an action
    that carries a piece across the board (``None`` for any other), for the report's
    move distance (``None`` for the hook: the report leaves it out).
    """

    before: Callable[[Any, Any], Any] = _no_token
    after: Callable[[Any, Any, Any], Iterable[str]] = _no_events
    peaks: Callable[[Any], Mapping[str, int]] = _no_peaks
    option_events: Mapping[str, str] = field(default_factory=dict)
    pieces: Callable[[Any], Iterable[tuple[str, str]]] | None = None
    limit_ends: frozenset[str] = frozenset()
    move_cells: Callable[[Any, Any], tuple[str, str] | None] | None = None


@runtime_checkable
class GameState(Protocol):
    """What every position class provides (Benediction's and Dendria's ``Position``).

    Actions are hashable values whose ``str()`` is the game's notation; ``play`` also
    accepts that notation as a string. An action refused by ``play`` raises
    :class:`hexgames.IllegalAction` and leaves the position exactly as it was.
    """

    @property
    def rules(self) -> Any: ...

    @property
    def to_move(self) -> str:
        """Colour to act now (``"red"``/``"blue"``, ``"dark"``/``"light"``)."""

    @property
    def current_seat(self) -> int:
        """Seat (0 or 1) to act now."""

    @property
    def is_over(self) -> bool: ...

    @property
    def winner(self) -> str | None:
        """Winning colour, ``"draw"``, or ``None`` while the game goes on."""

    @property
    def key(self) -> int:
        """A hash of everything that decides the future of the game from here
        (board, player to move, turn progress): equal positions have equal keys.
        Maintained incrementally (Zobrist), so it is cheap to read."""

    @property
    def history(self) -> Sequence[Hashable]:
        """Actions played since the start position, oldest first: a live, read-only
        :class:`HistoryView` (O(1) ``len`` and indexing; not a copy)."""

    @property
    def last_action(self) -> Hashable | None:
        """The most recent action, ``None`` at the start (O(1))."""

    @property
    def ply(self) -> int:
        """Number of actions played since the start position (O(1))."""

    def outcome(self) -> Outcome | None:
        """How the game ended, ``None`` while it goes on (decided by the rules only;
        resignations and timeouts are recorded by whoever runs the game)."""

    def seat_of(self, color: str) -> int: ...

    def color_of_seat(self, seat: int) -> str: ...

    def returns(self) -> tuple[float, float]:
        """Per seat: +1 win, -1 loss, 0 draw; ``(0.0, 0.0)`` while not over."""

    def legal_actions(self) -> Sequence[Any]:
        """Every legal action (step) exactly once; empty when the game is over. A
        sequence (``len``, indexing, iteration); an engine may return a lazy read-only
        one (Benediction's :class:`~hexgames.benediction.position.ActionList`): take
        ``list(...)`` to mutate."""

    def parse_action(self, text: str) -> Any:
        """Read notation into an action of this position (raises ``IllegalAction`` when
        malformed; does not check legality)."""

    def play(self, action: Any) -> None: ...

    def undo(self) -> Hashable:
        """Take back the last action and return it (unlimited, python-chess's ``pop``;
        raises ``IndexError`` at the start)."""

    def copy(self) -> GameState:
        """An independent position with the same state and history (undo still works)."""

    def is_turn_start(self) -> bool:
        """True when no action of the current turn has been played yet."""

    def to_text(self) -> str: ...


@dataclass(frozen=True)
class BoardLegend:
    """A small position showing every marker a game's board drawing uses, and what to say
    about each: the rules page's legend (the web app cuts one picture per marker from it).

    ``text`` is the position in the game's text format; ``items`` pairs a point's label
    with the sentence about the marker drawn there (marked with ``N_``: the page shows it
    in the reader's language); the other fields are passed to
    ``render_svg`` so that the selection, the clickable points, the last turn and the
    overlays appear too. Markers every game shares (a possible click, the selection, the
    last turn) are among the items."""

    text: str
    items: tuple[tuple[str, str], ...]
    highlights: tuple[str, ...] = ()
    selected: tuple[str, ...] = ()
    last_action: tuple[str, ...] = ()
    overlays: tuple[str, ...] = ()


@dataclass(frozen=True)
class PuzzleTheme:
    """One theme of a game's puzzles (``PuzzleThemes.themes``): ``name`` is its id in
    addresses and ``puzzles.json`` (lower case, words joined by ``-``), ``title`` and
    ``description`` what the puzzle page shows (marked with ``N_``, translated there)."""

    name: str
    title: str
    description: str


@dataclass(frozen=True)
class PuzzleThemes:
    """A game's puzzle themes (``Game.puzzle_themes``; used by :mod:`hexgames.puzzles`,
    which tags each puzzle it generates, and the web app's puzzle page, which offers them).

    ``themes`` is the vocabulary in the order the page lists it; ``tag(position,
    solution)`` names the themes of a puzzle: ``position`` is its start (the hook may play
    on it; it is a copy) and ``solution`` the winning line's actions in notation. Every
    name it returns is one of ``themes``.
    """

    themes: tuple[PuzzleTheme, ...]
    tag: Callable[[GameState, Sequence[str]], Iterable[str]]


@dataclass(frozen=True)
class NativeAnchor:
    """A native (C) implementation of a game's random games that ``python -m
    hexgames.bench`` compiles and runs beside the engine, in the same run, so that a speed
    is read as a ratio to native code on the same machine at the same minute.

    ``source`` is the C file's name in the anchor directory (``../shared/bench/`` in the
    repository layout, or ``--anchor PATH``); the program plays random games of the
    standard rules, cut at ``max_actions`` actions, and prints one ``native: ...`` line.
    """

    source: str
    max_actions: int


@dataclass(frozen=True)
class Game:
    """Description of one game, as every game-agnostic part of hexgames sees it.

    Each game package builds one instance (``hexgames.benediction.GAME``,
    ``hexgames.dendria.GAME``) from its own functions.
    """

    name: str
    title: str
    #: Colours in seat order at the start: seat 0's colour first.
    colors: tuple[str, str]
    options: tuple[Option, ...]
    #: ``make_rules(**options)`` -> validated, immutable rules object.
    make_rules: Callable[..., Any]
    #: ``new_position(rules)`` -> start position.
    new_position: Callable[[Any], GameState]
    #: ``position_from_text(text, rules)`` -> position (``ValueError`` when malformed).
    position_from_text: Callable[[str, Any], GameState]
    #: ``write_record(position, tags: Mapping[str, str]) -> str``: the game record of
    #: the position's history from its start.
    write_record: Callable[[GameState, Mapping[str, str]], str]
    #: ``read_record(text) -> (position_at_end, tags)``.
    read_record: Callable[[str], tuple[GameState, dict[str, str]]]
    #: ``render_svg(position, highlights=(), **kw) -> str``; every point/cell element
    #: carries ``data-point="<label>"`` so a front end can map clicks to labels.
    render_svg: Callable[..., str]
    #: ``render_text(position, highlights=(), *, color=False) -> str`` for terminals
    #: (``color=True`` adds ANSI colours; only used when writing to a terminal).
    render_text: Callable[..., str]
    #: ``gesture(position, action) -> Gesture`` for click-based input.
    gesture: Callable[[GameState, Any], Gesture]
    #: ``heuristic(position) -> float`` in [-1, 1], positive when seat 0 stands better.
    heuristic: Callable[[GameState], float]
    #: ``num_distinct_actions(rules) -> int``: size of the fixed action-id space.
    num_distinct_actions: Callable[[Any], int]
    #: ``action_to_id(position, action) -> int`` and ``action_from_id(position, id)``.
    action_to_id: Callable[[GameState, Any], int]
    action_from_id: Callable[[GameState, int], Any]
    #: ``observation_shape(rules) -> tuple[int, ...]`` and
    #: ``observation(position, seat) -> numpy.ndarray`` (float32, that shape).
    observation_shape: Callable[[Any], tuple[int, ...]]
    observation: Callable[[GameState, int], Any]
    #: ``max_game_length(rules) -> int``: an upper bound on actions per game (for
    #: research frameworks). A game stopped at a length bound is scored by
    #: :attr:`live_score` where the game has one (the higher score wins, equal scores
    #: draw), and as a draw otherwise.
    max_game_length: Callable[[Any], int]
    #: ``rules_options(rules) -> dict``: the options a rules object was made with
    #: (``make_rules(**rules_options(r)) == r``).
    rules_options: Callable[[Any], dict[str, Any]]
    #: ``live_score(position) -> {colour: score}`` as the board stands, for games that keep
    #: a score during play (Dendria); ``None`` for games that have none (Benediction).
    live_score: Callable[[GameState], Mapping[str, float]] | None = None
    #: ``actions_left(position) -> int``: actions left in the current turn, for games
    #: whose turns have a known number of actions (Benediction); ``None`` otherwise.
    actions_left: Callable[[GameState], int] | None = None
    #: ``board(rules) -> HexBoard``: the geometry of the board (labels, coordinates,
    #: neighbours) for games played on a hex-hex board; ``None`` for games that are not.
    #: Symmetries and the turned player-relative view need it.
    board: Callable[[Any], HexBoard] | None = None
    #: The board symmetries that preserve the rules (the identity first; empty when the
    #: game declares none). Needs :attr:`board`.
    symmetries: tuple[BoardSymmetry, ...] = ()
    #: What the observation planes mean for a player-relative view (``None``: the game
    #: offers no such view).
    view_spec: ViewSpec | None = None
    #: ``score_breakdown(position) -> [ScoreLine, ...]``: how the score of the board as it
    #: stands is made up, line by line, for games that keep a score (the web page's
    #: end-of-game banner shows it); ``None`` for games that keep none.
    score_breakdown: Callable[[GameState], Sequence[ScoreLine]] | None = None
    #: ``action_for_clicks(position, tool, points) -> notation | None``: the action a
    #: click sequence would enter if it were legal (the inverse of :attr:`gesture`, for
    #: clicks that match no legal action), so that the engine can say why it is not;
    #: ``None`` when the clicks mean no action. ``None``: the game offers no such reading.
    action_for_clicks: Callable[[GameState, str | None, Sequence[str]], str | None] | None = None
    #: ``lessons() -> [hexgames.tutorial.Lesson, ...]``: the game's interactive tutorial,
    #: one rule per lesson (served by the learn page); ``None``: the game has none.
    lessons: Callable[[], Sequence[Any]] | None = None
    #: Rule events and peaks a balance report counts besides the action kinds
    #: (``None``: kinds only).
    rule_usage: RuleUsage | None = None
    #: The game's ``Termination`` enum (a ``StrEnum`` holding every way its games end,
    #: including the members of :class:`CommonTermination` with the same values).
    termination: type[StrEnum] = CommonTermination
    #: ``editor(rules) -> hexgames.editing.EditorSpec``: what the board editor may place
    #: (piece kinds with their attributes, settings such as the side to act) and how an
    #: edited board becomes the game's position text; ``None``: no editor.
    editor: Callable[[Any], Any] | None = None
    #: One line for the web app's game card (marked with ``N_``, translated there).
    tagline: str = ""
    #: Names ``render_svg(..., overlays=...)`` accepts (e.g. Dendria's fertilized and
    #: plantable cells); the web app offers them as toggles.
    overlays: tuple[str, ...] = ()
    #: The board legend of the rules page (every marker the drawing uses, explained);
    #: ``None``: no legend.
    legend: BoardLegend | None = None
    #: The rules variants (options) ``python -m hexgames.bench`` measures when none is
    #: named; ``({},)`` is the standard rules.
    bench_variants: tuple[Mapping[str, Any], ...] = ({},)
    #: The game's native (C) benchmark anchor, compiled and run beside the engine by
    #: ``python -m hexgames.bench``; ``None``: the game has none.
    native_anchor: NativeAnchor | None = None
    #: ``ai_hooks() -> AiHooks``: faster or smarter answers to questions the AI asks
    #: (:mod:`hexgames.ai.knowledge`); ``None``: the AI's game-agnostic answers only.
    ai_hooks: Callable[[], AiHooks] | None = None
    #: ``kernel() -> CompiledKernel``: the game's batched compiled kernels (random games
    #: for the AI's leaves, its compiled search tree, the benchmark, the web app's
    #: warm-up; docs/ai.md); ``None``: the game has no compiled code.
    kernel: Callable[[], CompiledKernel] | None = None
    #: The themes of the game's puzzles and how a puzzle is tagged with them (``None``:
    #: puzzles carry no themes).
    puzzle_themes: PuzzleThemes | None = None
    #: ``vector_batch(rules, num_envs) -> VectorBatch``: many games stepped together for
    #: :class:`hexgames.integrations.vector.VectorEnv`; ``None``: no vectorized
    #: environment.
    vector_batch: Callable[[Any, int], VectorBatch] | None = None

    def rules(self, **options: Any) -> Any:
        return self.make_rules(**options)

    def new(self, **options: Any) -> GameState:
        """A start position with the given rules options."""
        return self.new_position(self.make_rules(**options))


#: Registered games: name -> "module:attribute" of their :class:`Game` object.
REGISTRY: dict[str, str] = {
    "benediction": "hexgames.benediction:GAME",
    "dendria": "hexgames.dendria:GAME",
}


def game_names() -> list[str]:
    return list(REGISTRY)


def get_game(name: str) -> Game:
    """The :class:`Game` registered under ``name`` (case-insensitive).

    Raises ``ValueError`` listing the known games when the name is unknown.
    """
    key = name.strip().lower()
    if key not in REGISTRY:
        raise ValueError(Phrase("unknown game {name}; known games: {games}",
                                name=repr(name), games=", ".join(REGISTRY)))
    module_name, attribute = REGISTRY[key].split(":")
    game = getattr(importlib.import_module(module_name), attribute)
    if not isinstance(game, Game):
        raise TypeError(f"{REGISTRY[key]} is not a hexgames.game.Game")
    return game


def parse_option_value(option: Option, raw: str) -> Any:
    """Convert a command-line/web string to the option's type (``ValueError`` if not)."""
    text = raw.strip().lower()
    if option.nullable and text in {"", "none", "off", "unlimited"}:
        return None
    if option.kind == "bool":
        if text in {"1", "true", "yes", "on"}:
            return True
        if text in {"0", "false", "no", "off"}:
            return False
        raise option.refusal(raw, "expects")
    if option.kind == "int":
        digits = text.removeprefix("-").removeprefix("+").replace("_", "")
        if len(digits) > _MAX_DIGITS and digits.isdigit():
            # every option's range is far smaller: refuse without converting (``int()``
            # of a few thousand digits is slow, and above 4300 raises its own message)
            raise option.refusal(raw.strip())
        try:
            return int(text)
        except ValueError:
            raise option.refusal(raw, "expects") from None
    raise ValueError(f"option {option.name} has unknown kind {option.kind!r}")


#: Digits beyond which an option value is refused unread (no option's range comes near).
_MAX_DIGITS = 30


def find_option(game: Game, name: str) -> Option:
    """The option called ``name`` or one of its aliases (``ValueError`` listing the
    game's options when there is none)."""
    for option in game.options:
        if name == option.name or name in option.aliases:
            return option
    names = ", ".join(option.name for option in game.options) or "none"
    raise ValueError(Phrase("{game} has no option {name}; options: {options}",
                            game=game.title, name=repr(name), options=names))


def parse_settings(game: Game, settings: Iterable[str]) -> dict[str, Any]:
    """Turn command-line ``--set`` items (``["board_side=5", "pie=false"]``) into rules options.

    Shared by every command that takes ``--set``. ``ValueError`` names the problem: a
    missing ``=``, an unknown option (listing the game's options), a value of the wrong
    type, or a value or combination the game's rules refuse.
    """
    options: dict[str, Any] = {}
    for item in settings:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"--set expects option=value, got {item!r}")
        option = find_option(game, name)
        options[option.name] = parse_option_value(option, raw)
    game.make_rules(**options)  # let the rules validate ranges and combinations
    return options


def lazy(target: str) -> Any:
    """A callable standing for ``"module:function"``, imported on first call.

    Game descriptions use it so that importing a game's rules engine does not import its
    renderer, AI evaluation or research encoding (and so that those modules may import
    the engine without a cycle).
    """
    module_name, attribute = target.split(":")
    resolved: list[Any] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        if not resolved:
            resolved.append(getattr(importlib.import_module(module_name), attribute))
        return resolved[0](*args, **kwargs)

    call.__name__ = attribute
    call.__qualname__ = attribute
    call.__doc__ = f"Calls {target} (imported on first use)."
    return call


def outcome_tags(outcome: Outcome | None) -> dict[str, str]:
    """The record tags that state an outcome: ``Result`` (``"1-0"``/``"0-1"``/
    ``"1/2-1/2"``, or ``"*"`` while the game goes on) and ``Termination`` (the
    termination's words). Written by every game's ``write_record``, so a resigned or
    timed-out game's record says so."""
    if outcome is None:
        return {"Result": "*"}
    return {"Result": outcome.result(), "Termination": outcome.termination.value}


def outcome_from_tags(
    game: Game, position: GameState, tags: Mapping[str, str]
) -> Outcome | None:
    """The outcome of a recorded game: the engine's own when the position is over
    (whatever the tags claim), else an ending decided outside the engine
    (:class:`CommonTermination`: a resignation, a timeout, an absent opponent) stated by
    the tags ``Result`` and ``Termination`` (both must be well-formed and agree; a draw
    only with ``"opponent left"``), else ``None``.

    Free text in tags never becomes a result: only the game's own termination values
    are accepted, so an uploaded record cannot make the site show arbitrary words.
    """
    engine = position.outcome()
    if engine is not None:
        return engine
    termination_text = str(tags.get("Termination", "")).strip().lower()
    result = str(tags.get("Result", "")).strip()
    seats = {"1-0": 0, "0-1": 1}
    allowed = {common.value for common in CommonTermination}
    if termination_text not in allowed:
        return None
    if result == "1/2-1/2" and termination_text == CommonTermination.OPPONENT_LEFT.value:
        return Outcome(termination=game.termination(termination_text), winner=None,
                       winner_seat=None)
    if result not in seats:
        return None
    seat = seats[result]
    return Outcome(
        termination=game.termination(termination_text),
        winner=position.color_of_seat(seat),
        winner_seat=seat,
    )
