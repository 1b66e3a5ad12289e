"""The engine's review of a position or a game (what the analysis board shows): the
evaluation, the best line and the candidate actions of a position, and a game's curve
of evaluations with its mistakes.

Game-agnostic, on top of :class:`hexgames.ai.mcts.MCTSPlayer`: one search of a fixed
number of iterations (no early stop, so a larger budget refines the values), then the
root's statistics are read out:

* ``win``: the side to act's win probability, ``(v + 1) / 2`` where ``v`` in [-1, 1] is
  the mean value of the most visited action for the seat to act (exactly 0 or 1 when
  the search proved the result). Values come from the game's leaf values (heuristic
  cut-off playouts, or whole random games), so this is the engine's estimate, not a
  measured frequency. Where the game's levels search in compiled code (Dendria), so
  does the analysis, and its tree is read back along the principal variation.
* ``pv``: the principal variation, following the most visited child from the root
  (proven wins first) while a child has at least ``PV_MIN_VISITS`` visits.
* ``best``: the root's actions by visits, each with the mover's win probability.

:func:`game_curve` evaluates every position of a game with a small budget (the
evaluation graph of the analysis board) and marks the mistakes: actions after which the
mover's win probability dropped by more than :data:`MISTAKE_DROP`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from hexgames.ai.base import seat_sign
from hexgames.ai.mcts import MCTSPlayer, Node
from hexgames.ai.tactics import Budget, winning_action
from hexgames.game import Game, GameState

#: Longest principal variation reported (actions).
PV_LIMIT = 12
#: A child joins the principal variation only with at least this many visits.
PV_MIN_VISITS = 2
#: Candidate actions reported.
BEST_LIMIT = 5
#: An action is a mistake when the mover's win probability drops by more than this
#: (0.2 = 20 percentage points) from the position before it to the position after it.
MISTAKE_DROP = 0.2


class _Analyser(MCTSPlayer):
    """The MCTS player, searching its whole budget (no early stop once the choice is
    fixed: analysis wants the values refined too)."""

    @staticmethod
    def _decided(*_args: Any) -> bool:
        return False


@dataclass
class Candidate:
    action: Any
    visits: int
    #: The mover's win probability after this action (engine's estimate).
    win: float


@dataclass
class Evaluation:
    #: Seat to act in the analysed position.
    seat: int
    #: The side to act's win probability (0..1).
    win: float
    iterations: int
    #: True when the search proved the result (``win`` is then 0 or 1).
    proven: bool = False
    pv: list[Any] = field(default_factory=list)
    best: list[Candidate] = field(default_factory=list)


def win_of(value: float) -> float:
    """A value in [-1, 1] as a probability in [0, 1]."""
    return max(0.0, min(1.0, (value + 1.0) / 2.0))


def evaluate(game: Game, position: GameState, iterations: int, seed: int = 0,
             time_limit: float | None = None) -> Evaluation:
    """Search ``position`` for ``iterations`` (or until ``time_limit`` seconds) and read
    out the evaluation. The position is not changed."""
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, got {iterations}")
    work = position.copy()
    seat = work.current_seat
    if work.is_over:
        return Evaluation(seat=seat, win=win_of(float(work.returns()[seat])), iterations=0,
                          proven=True)
    # the search of the game's levels: in compiled code where the game offers it (its
    # tree is read back as Node objects along the principal variation), else in Python
    player = _Analyser(game, iterations=iterations, time_limit=time_limit, seed=seed,
                       reuse_tree=False)
    actions = work.legal_actions()
    win = winning_action(player._know, work, depth=player.tactics_depth,
                         budget=Budget(player.tactics_budget))
    if win is not None:
        return Evaluation(seat=seat, win=1.0, iterations=0, proven=True, pv=[win],
                          best=[Candidate(win, 0, 1.0)])
    if len(actions) == 1:  # forced: the value is the next position's
        work.play(actions[0])
        after = evaluate(game, work, iterations, seed, time_limit)
        mine = after.win if after.seat == seat else 1.0 - after.win
        return Evaluation(seat=seat, win=mine, iterations=after.iterations, proven=after.proven,
                          pv=[actions[0], *after.pv][:PV_LIMIT],
                          best=[Candidate(actions[0], after.iterations, mine)])
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    tree = player._tree
    if tree is not None:
        tree.reset()
        tree.set_root(work)
        done = player._run_compiled(tree, iterations, deadline)
        root = _mirrored(tree)
    else:
        root = player._take_root(work)
        done = player._search(work, root, iterations, deadline)
    sign = seat_sign(seat)
    ranked = _ranked(root)
    if root.result is not None:
        value, proven = sign * root.result, True
    elif ranked:
        value, proven = ranked[0].mean(), False
    else:  # pragma: no cover - a searched root always has children
        value, proven = 0.0, False
    return Evaluation(
        seat=seat,
        win=win_of(value),
        iterations=done,
        proven=proven,
        pv=_principal_variation(root),
        best=[Candidate(child.action, child.visits, win_of(child.mean()))
              for child in ranked[:BEST_LIMIT]],
    )


def _mirrored(tree: Any, node: int | None = None, depth: int = PV_LIMIT) -> Node:
    """The compiled tree's ``node`` (default the root) as a :class:`Node` with its tried
    children, and theirs along the principal variation (the first of :func:`_ranked`,
    ``depth`` levels down): what :func:`evaluate` reads of a Python tree."""
    if node is None:
        seat = tree.root_seat()
        mirror = Node(None, 1 - seat)
        mirror.seat = seat
        mirror.result = tree.solved()
    else:
        mirror = Node(None, -1)  # the caller fills in the fields of its child
    infos = tree.children(node)
    for info in infos:
        child = Node(info["action"], info["mover"])
        child.seat = info["seat"]
        child.visits = info["visits"]
        child.value = info["value"]
        child.result = info["result"]
        mirror.children.append(child)
        mirror.index[child.action] = child
    mirror.visits = sum(c.visits for c in mirror.children)
    if depth > 1 and mirror.children:
        best = _ranked(mirror)[0]
        numbers = {info["action"]: info["node"] for info in infos}
        deeper = _mirrored(tree, numbers[best.action], depth - 1)
        best.children, best.index = deeper.children, deeper.index
    return mirror


def _ranked(node: Node) -> list[Node]:
    """Children best first for the player to act at ``node``: proven wins, then visits."""
    sign = seat_sign(node.seat)

    def key(child: Node) -> tuple[int, int, float]:
        exact = 0 if child.result is None else (1 if sign * child.result > 0 else -1)
        return (exact, child.visits, child.mean())

    return sorted(node.children, key=key, reverse=True)


def _principal_variation(root: Node) -> list[Any]:
    line: list[Any] = []
    node = root
    while node.children and len(line) < PV_LIMIT:
        child = _ranked(node)[0]
        if child.visits < PV_MIN_VISITS and child.result is None:
            break
        line.append(child.action)
        node = child
    return line


@dataclass
class Curve:
    #: Seat 0's win probability after each of the first ``len(values) - 1`` actions
    #: (``values[0]``: the start position).
    values: list[float]
    #: ``(ply, seat, drop)``: action ``ply`` (1-based) by ``seat`` lost ``drop``.
    mistakes: list[tuple[int, int, float]]
    iterations: int


def game_curve(game: Game, start: GameState, actions: list[Any], iterations: int,
               seed: int = 0) -> Curve:
    """Evaluate the position before and after every action of ``actions`` played from
    ``start`` (``iterations`` each) and mark the mistakes (see :data:`MISTAKE_DROP`)."""
    position = start.copy()
    values: list[float] = []
    seats: list[int] = []

    def seat0() -> float:
        found = evaluate(game, position, iterations, seed)
        return found.win if found.seat == 0 else 1.0 - found.win

    values.append(seat0())
    for action in actions:
        seats.append(position.current_seat)
        position.play(action)
        values.append(seat0())
    mistakes = []
    for ply, seat in enumerate(seats, start=1):
        before, after = values[ply - 1], values[ply]
        drop = (before - after) if seat == 0 else (after - before)
        if drop > MISTAKE_DROP:
            mistakes.append((ply, seat, round(drop, 3)))
    return Curve(values=values, mistakes=mistakes, iterations=iterations)


# ------------------------------------------------------- plain-data entry points
# Called in the web server's AI worker processes: plain data in (game name, options,
# start text, actions in notation), plain data out (JSON-friendly).


def line_position(game_name: str, options: dict[str, Any], start: str | None,
                  actions: list[str]) -> tuple[Game, GameState]:
    """The position after ``actions`` (notation) from the start (``start``: board text)."""
    from hexgames.game import get_game

    game = get_game(game_name)
    rules = game.make_rules(**options)
    position = game.position_from_text(start, rules) if start else game.new_position(rules)
    for action in actions:
        position.play(action)
    return game, position


def analyse_line(game_name: str, options: dict[str, Any], start: str | None,
                 actions: list[str], iterations: int, time_limit: float | None = None,
                 seed: int = 0) -> dict[str, Any]:
    """:func:`evaluate` of the position after ``actions``, as plain data: the principal
    variation with each action's colour and gesture points (for arrows on the board)."""
    game, position = line_position(game_name, options, start, actions)
    found = evaluate(game, position, iterations, seed=seed, time_limit=time_limit)
    pv = []
    probe = position.copy()
    for action in found.pv:
        color = probe.to_move
        points = list(game.gesture(probe, action).points)
        pv.append({"action": str(action), "color": color, "points": points})
        probe.play(action)
    return {
        "seat": found.seat,
        "color": position.color_of_seat(found.seat),
        "win": round(found.win, 4),
        "proven": found.proven,
        "iterations": found.iterations,
        "pv": pv,
        "best": [{"action": str(c.action), "visits": c.visits, "win": round(c.win, 4)}
                 for c in found.best],
    }


def line_values(game_name: str, options: dict[str, Any], start: str | None,
                actions: list[str], first: int, count: int, iterations: int,
                seed: int = 0) -> list[float]:
    """Seat 0's win probability in the positions after ``first`` .. ``first + count - 1``
    of ``actions`` (``iterations`` each): a slice of the evaluation graph."""
    game, position = line_position(game_name, options, start, actions[:first])
    values = []
    for ply in range(first, min(first + count, len(actions) + 1)):
        if ply > first:
            position.play(actions[ply - 1])
        found = evaluate(game, position, iterations, seed=seed)
        values.append(round(found.win if found.seat == 0 else 1.0 - found.win, 4))
    return values
