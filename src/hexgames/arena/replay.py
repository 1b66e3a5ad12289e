"""What a balance report learns by replaying each game's record: rule usage, the
heuristic's course (drama, lead changes) and colours (pie-rule swaps).

:class:`~hexgames.arena.match.GameResult` keeps the record of every game, so nothing more
has to be collected while playing: :func:`replay` reads the record back, plays it again
from the start and watches every action.

**Rule usage.** Every action counts under its kind (``action.kind``: Benediction's
``drop``/``block``/``move``/``merge``/``split``, Dendria's ``plant``/``leg``/
``continue``/``sprout``/``grow``/``convert``/``end``/``pass``/``swap``). Effects that are
not kinds (a Benediction portal pass, curse or bridge) are game knowledge, so each game
declares them in its description, ``Game.rule_usage`` (a :class:`~hexgames.game.RuleUsage`,
e.g. ``hexgames.benediction.usage``). It also says which rule event shows that an option
came into play (``max_stack``: a stack reached the limit; ``pie``: a swap happened), so
the report can flag an option that never did: such a variant plays exactly like the default.

**Board and pieces.** Where the game lists its pieces (``RuleUsage.pieces``), the
replay also follows the board: the cells that ever held a piece (board coverage), the
pieces of each colour at the start of every turn (piece counts over time), and how many
turns started from a position seen before in the same game (repetition, by
``position.key``, which needs no game knowledge).

**Move distance.** Where the game says which actions carry a piece from one cell to
another (``RuleUsage.move_cells``), the replay measures each such move's board distance
in hex steps (``HexBoard.distance``).

**Options that bind.** Whether an option set away from its default made any difference
needs no game knowledge: :func:`option_binding` replays the game under the same rules
with that one option at its default and counts the decisions at which the legal actions
(or whether the game is over) differ. None in any game means the variant offered exactly
the default's choices all along: its games say nothing about the option.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hexgames.arena.match import score_margin
from hexgames.game import Game, GameState, RuleUsage

__all__ = ["Replay", "UsageSpec", "option_binding", "replay", "usage_spec"]


#: The name this module used for :class:`hexgames.game.RuleUsage`.
UsageSpec = RuleUsage


def usage_spec(game: Game) -> RuleUsage:
    """The game's :class:`~hexgames.game.RuleUsage` (kinds only for a game that declares
    none)."""
    return game.rule_usage if game.rule_usage is not None else RuleUsage()


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
    #: Turns played (as :func:`hexgames.arena.match.play_game` counts them) and actions.
    turns: int = 0
    actions: int = 0
    #: Turns that started from a position already seen at a turn start of this game.
    repeats: int = 0
    #: Cells that held a piece at some point, and the board's cells (0: no board known,
    #: or the game lists no pieces).
    covered: int = 0
    cells: int = 0
    #: Pieces of each colour on the board at the start of every turn and at the end
    #: (empty when the game lists no pieces).
    pieces: list[dict[str, int]] = field(default_factory=list)
    #: ``(turn, legal actions)`` at each decision, as ``GameResult.branching`` (only when
    #: asked for: it lists the legal actions of every position).
    branching: list[tuple[int, int]] = field(default_factory=list)
    #: Seat 0's score minus seat 1's at the end, for games that keep a score.
    margin: float | None = None
    #: Board distance (hex steps) of every action that carried a piece across the board
    #: (``RuleUsage.move_cells``; empty when the game declares none).
    distances: list[int] = field(default_factory=list)

    @property
    def coverage(self) -> float | None:
        """Share of the board's cells that ever held a piece (``None``: unknown)."""
        return self.covered / self.cells if self.cells else None

    @property
    def repetition(self) -> float:
        """Share of turns that started from a position seen before in this game."""
        return self.repeats / self.turns if self.turns else 0.0


def _kind(action: Any) -> str:
    kind = getattr(action, "kind", None)
    return str(kind) if kind else str(action).split()[0]


def replay(game: Game, record: str, *, branching: bool = False) -> Replay:
    """Replay the game ``record`` from its start, watching every action (and listing the
    legal actions of every position for :attr:`Replay.branching` when asked)."""
    end, _tags = game.read_record(record)
    actions = list(end.history)
    position: GameState = game.new_position(end.rules)
    spec = usage_spec(game)
    board = _board_cells(game, end.rules) if spec.pieces is not None else 0
    geometry = (game.board(end.rules) if spec.move_cells is not None and game.board
                else None)
    seen = Replay(usage=Counter(), peaks={}, trace=[], winner_color=None, swapped=False,
                  actions=len(actions), cells=board)
    keys: set[int] = set()
    covered: set[str] = set()
    _watch_board(spec, position, seen, covered)
    for action in actions:
        if position.is_turn_start():
            seen.turns += 1
            seen.trace.append(float(game.heuristic(position)))
            key = position.key
            seen.repeats += key in keys
            keys.add(key)
            _count_pieces(spec, position, seen)
        if branching:
            seen.branching.append((seen.turns, len(position.legal_actions())))
        if geometry is not None and spec.move_cells is not None:
            cells = spec.move_cells(position, action)
            if cells is not None:
                seen.distances.append(geometry.distance(geometry.index(cells[0]),
                                                        geometry.index(cells[1])))
        token = spec.before(position, action)
        position.play(action)
        seen.usage[_kind(action)] += 1
        seen.usage.update(spec.after(position, action, token))
        for name, value in spec.peaks(position).items():
            seen.peaks[name] = max(seen.peaks.get(name, value), value)
        _watch_board(spec, position, seen, covered)
    if position.is_over:
        first, _ = position.returns()
        seen.trace.append(float(first))
    else:
        seen.trace.append(float(game.heuristic(position)))
    _count_pieces(spec, position, seen)
    seen.covered = len(covered)
    winner = position.winner
    seen.winner_color = winner if winner in game.colors else None
    seen.swapped = position.color_of_seat(0) != game.colors[0]
    seen.margin = score_margin(position)
    return seen


def _board_cells(game: Game, rules: Any) -> int:
    return len(game.board(rules).labels) if game.board is not None else 0


def _watch_board(spec: RuleUsage, position: GameState, seen: Replay, covered: set[str]
                 ) -> None:
    if spec.pieces is not None and seen.cells:
        covered.update(cell for cell, _color in spec.pieces(position))


def _count_pieces(spec: RuleUsage, position: GameState, seen: Replay) -> None:
    if spec.pieces is not None:
        counts = Counter(color for _cell, color in spec.pieces(position))
        seen.pieces.append(dict(counts))


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
