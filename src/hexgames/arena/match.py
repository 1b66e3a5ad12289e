"""Playing one game between two players and describing how it went.

The arena and the balance report both need the same facts about a finished game: who won
per seat, how long it lasted in turns and actions, why it ended, how many actions were
available along the way, and the game record. :func:`play_game` collects them all through
the :mod:`hexgames.game` protocol only.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hexgames.ai.base import Player
from hexgames.errors import IllegalAction
from hexgames.game import Game, GameState

#: ``end_reason`` of a game stopped by the arena's action cap (scored as a draw).
CAPPED = "action cap reached (draw)"


@dataclass
class GameResult:
    """Everything the arena and the report keep about one finished game."""

    index: int
    #: Player names (specs) in seat order.
    players: tuple[str, str]
    #: Per seat: +1 win, -1 loss, 0 draw.
    returns: tuple[float, float]
    #: Winning seat, or ``None`` for a draw.
    winning_seat: int | None
    turns: int
    actions: int
    end_reason: str
    seconds: float
    #: Score of seat 0 minus score of seat 1 when the game keeps a score.
    margin: float | None = None
    #: ``(turn number, legal actions)`` at each decision (only when asked for).
    branching: list[tuple[int, int]] = field(default_factory=list)
    record: str = ""

    def score_of_seat(self, seat: int) -> float:
        """1 for a win, 0.5 for a draw, 0 for a loss."""
        return (self.returns[seat] + 1.0) / 2.0


def end_reason(position: GameState) -> str:
    """Why the game ended, in the words of the game's termination (``"king captured"``)."""
    outcome = position.outcome()
    return outcome.termination.value if outcome is not None else "not over"


def score_margin(position: GameState) -> float | None:
    """Seat 0's final score minus seat 1's, for games that keep a score (else ``None``)."""
    outcome = position.outcome()
    if outcome is None or outcome.score is None:
        return None
    score = outcome.score
    return float(score[position.color_of_seat(0)]) - float(score[position.color_of_seat(1)])


def play_game(
    game: Game,
    rules: Any,
    players: Sequence[Player],
    *,
    index: int = 0,
    max_actions: int | None = None,
    track_branching: bool = False,
    tags: Mapping[str, str] | None = None,
) -> GameResult:
    """Play one game from the start position of ``rules``; ``players[s]`` sits in seat s.

    A player that returns an illegal action is a bug, not a loss: the
    :class:`~hexgames.IllegalAction` is re-raised naming the player. Games longer than
    ``max_actions`` are stopped and scored as draws (``end_reason`` says so).
    """
    for player in players:
        reset = getattr(player, "reset", None)
        if reset is not None:
            reset()
    position = game.new_position(rules)
    started = time.perf_counter()
    turns = actions = 0
    branching: list[tuple[int, int]] = []
    capped = False
    while not position.is_over:
        if max_actions is not None and actions >= max_actions:
            capped = True
            break
        if position.is_turn_start():
            turns += 1
        if track_branching:
            branching.append((turns, len(position.legal_actions())))
        seat = position.current_seat
        action = players[seat].choose(position)
        try:
            position.play(action)
        except IllegalAction as error:
            raise IllegalAction(
                f"player {players[seat].name!r} chose {action!s}, which is illegal: {error}"
            ) from error
        actions += 1
    seconds = time.perf_counter() - started
    if capped:
        returns, winning_seat, reason = (0.0, 0.0), None, CAPPED
    else:
        outcome = position.outcome()
        assert outcome is not None  # the loop above ends only when the game is over
        returns, winning_seat = outcome.returns(), outcome.winner_seat
        reason = outcome.termination.value
    names = (players[0].name, players[1].name)
    record_tags = {
        "Event": "hexgames arena",
        "Round": str(index + 1),
        # Colours as the players started (Dendria's pie rule may swap them later).
        **{game.colors[seat].title(): names[seat] for seat in (0, 1)},
        **{f"Seat{seat}": names[seat] for seat in (0, 1)},
        **dict(tags or {}),
    }
    if capped:
        record_tags["Adjudication"] = f"draw: stopped after {actions} actions (arena cap)"
    return GameResult(
        index=index,
        players=names,
        returns=returns,
        winning_seat=winning_seat,
        turns=turns,
        actions=actions,
        end_reason=reason,
        seconds=seconds,
        margin=None if capped else score_margin(position),
        branching=branching,
        record=game.write_record(position, record_tags),
    )
