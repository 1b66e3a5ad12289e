"""What a balance report learns by replaying each game's record: rule usage, the
heuristic's course (drama, lead changes) and colours (pie-rule swaps).

:class:`~hexgames.arena.match.GameResult` keeps the record of every game, so nothing more
has to be collected while playing: :func:`replay` reads the record back, plays it again
from the start and watches every action.

**Rule usage.** Every action counts under its kind (``action.kind``: Benediction's
``drop``/``block``/``move``/``merge``/``split``, Dendria's ``plant``/``leg``/
``continue``/``sprout``/``grow``/``convert``/``end``/``pass``/``swap``). Effects that are
not kinds (a Benediction portal pass, curse or bridge) are game knowledge, so each game's
:class:`UsageSpec` is declared in :data:`USAGE_SPECS`, keyed by game name, until
:class:`hexgames.game.Game` offers a field for it (the integrator moves each entry into
its game package). A spec also says which rule event shows that an option came into play
(``max_stack``: a stack reached the limit; ``pie``: a swap happened), so the report can
flag an option that never did: such a variant plays exactly like the default.

**Options that bind.** Whether an option set away from its default made any difference
needs no game knowledge: :func:`option_binding` replays the game under the same rules
with that one option at its default and counts the decisions at which the legal actions
(or whether the game is over) differ. None in any game means the variant offered exactly
the default's choices all along: its games say nothing about the option.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hexgames.game import Game, GameState

__all__ = ["USAGE_SPECS", "Replay", "UsageSpec", "option_binding", "replay", "usage_spec"]


@dataclass(frozen=True)
class UsageSpec:
    """A game's rule-usage knowledge (see the module docstring).

    ``before(position, action)`` is called before each action is played and returns a
    token; ``after(position, action, token)`` after it, returning the names of the rule
    events the action caused (besides its kind). ``peaks(position)`` gives quantities
    whose largest value over the game is reported (e.g. the largest stack).
    ``option_events`` maps an option name to the event that shows it came into play.
    """

    before: Callable[[Any, Any], Any] = lambda position, action: None
    after: Callable[[Any, Any, Any], Iterable[str]] = lambda position, action, token: ()
    peaks: Callable[[Any], Mapping[str, int]] = lambda position: {}
    option_events: Mapping[str, str] = field(default_factory=dict)


# -------------------------------------------------------------------- Benediction
def _bened_before(position: Any, action: Any) -> tuple[bool, frozenset[str], int, int]:
    passed = False
    if action.kind in ("move", "merge", "split"):
        man = position.man_at(action.origin)
        steps = action.count if action.kind == "split" else man.size
        target = position.board.index(action.target)
        for index, through_wall in position.reach(action.origin, steps, man.color):
            if index == target:
                passed = through_wall
    blessed = frozenset(label for label, man in position.iter_men() if man.blessed)
    cursed = sum(1 for _, man in position.iter_men() if man.cursed)
    return passed, blessed, cursed, _empty_supplies(position)


def _empty_supplies(position: Any) -> int:
    if position.rules.supply is None:
        return 0
    return sum(1 for color in ("red", "blue") if position.supply_left(color) == 0)


def _bened_after(position: Any, action: Any, token: Any) -> list[str]:
    passed, blessed_before, cursed_before, empty_before = token
    events = []
    if passed:
        events.append("portal pass")
    if sum(1 for _, man in position.iter_men() if man.cursed) > cursed_before:
        events.append("curse")
    newly = {label for label, man in position.iter_men() if man.blessed} - blessed_before
    if newly - {action.target}:
        events.append("bridge")  # men blessed away from the action's point: a bridge
    built = position.man_at(action.target)
    if action.kind in ("merge", "split") and built is not None and (
        built.size >= position.rules.max_stack
    ):
        events.append("stack built at the limit")
    if _empty_supplies(position) > empty_before:
        events.append("supply exhausted")
    if position.is_over and position.win_reason == "turn limit":
        events.append("turn-limit end")
    return events


def _bened_peaks(position: Any) -> dict[str, int]:
    return {"largest stack": max((man.size for _, man in position.iter_men()), default=0)}


# ------------------------------------------------------------------------ Dendria
def _dendria_after(position: Any, action: Any, token: Any) -> list[str]:
    if position.is_over and position.end_reason == "quiet limit":
        return ["quiet-limit end"]
    return []


#: Each game's rule-usage spec, by game name (to move into the games' ``Game``).
USAGE_SPECS: dict[str, UsageSpec] = {
    "benediction": UsageSpec(
        before=_bened_before,
        after=_bened_after,
        peaks=_bened_peaks,
        option_events={
            "max_stack": "stack built at the limit",
            "supply": "supply exhausted",
            "max_turns": "turn-limit end",
        },
    ),
    "dendria": UsageSpec(
        after=_dendria_after,
        option_events={"pie": "swap", "quiet_limit": "quiet-limit end"},
    ),
}


def usage_spec(game: Game) -> UsageSpec:
    """The game's :class:`UsageSpec` (kinds only for a game that declares none)."""
    return game.extras.get("usage_spec") or USAGE_SPECS.get(game.name) or UsageSpec()


# ------------------------------------------------------------------------- replay
@dataclass
class Replay:
    """What one replayed game showed."""

    #: Rule events (action kinds and the game's own events) -> times in this game.
    usage: Counter[str]
    #: The game's peaks (e.g. ``{"largest stack": 5}``).
    peaks: dict[str, int]
    #: The heuristic (seat 0's view, in [-1, 1]) at the start of every turn and at the end.
    trace: list[float]
    #: Winning colour (``None`` for a draw or an unfinished game).
    winner_color: str | None
    #: True when the seats ended with each other's starting colours (a pie-rule swap).
    swapped: bool


def _kind(action: Any) -> str:
    kind = getattr(action, "kind", None)
    return str(kind) if kind else str(action).split()[0]


def replay(game: Game, record: str) -> Replay:
    """Replay the game ``record`` from its start, watching every action."""
    end, _tags = game.read_record(record)
    actions = list(end.history)
    position: GameState = game.new_position(end.rules)
    spec = usage_spec(game)
    usage: Counter[str] = Counter()
    peaks: dict[str, int] = {}
    trace: list[float] = []
    for action in actions:
        if position.is_turn_start():
            trace.append(float(game.heuristic(position)))
        token = spec.before(position, action)
        position.play(action)
        usage[_kind(action)] += 1
        usage.update(spec.after(position, action, token))
        for name, value in spec.peaks(position).items():
            peaks[name] = max(peaks.get(name, value), value)
    if position.is_over:
        first, _ = position.returns()
        trace.append(float(first))
    else:
        trace.append(float(game.heuristic(position)))
    winner = position.winner
    return Replay(
        usage=usage,
        peaks=peaks,
        trace=trace,
        winner_color=winner if winner in game.colors else None,
        swapped=position.color_of_seat(0) != game.colors[0],
    )


def option_binding(game: Game, record: str, option: str, value: Any) -> tuple[int, int]:
    """``(decisions at which the rules with ``option=value`` offer other legal actions or
    end differently than the game's own rules, decisions in the game)``.

    The game of ``record`` is replayed twice in step, under its own rules and under the
    same rules with ``option`` set to ``value``. A history that is not legal under the
    other rules differs from the point where it stops being legal (the remaining
    decisions all count)."""
    end, _tags = game.read_record(record)
    actions = list(end.history)
    options = dict(game.rules_options(end.rules))
    options[option] = value
    own = game.new_position(end.rules)
    other = game.new_position(game.make_rules(**options))
    differing = 0
    for done, action in enumerate(actions):
        if own.is_over != other.is_over or _legal(own) != _legal(other):
            differing += 1
        own.play(action)
        try:
            other.play(action)
        except ValueError:  # IllegalAction: the other rules refuse this game from here
            return differing + len(actions) - done - 1, len(actions)
    if own.is_over != other.is_over or own.returns() != other.returns():
        differing += 1
    return differing, len(actions)


def _legal(position: GameState) -> frozenset[str]:
    return frozenset(str(action) for action in position.legal_actions())
