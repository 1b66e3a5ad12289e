"""Benediction knowledge for the AI: a position heuristic, fast win detection, priors.

Everything here reads the engine's public read API only (the live read-only arrays
``owners``, ``sizes``, ``flags``, ``checker_counts``, ``to_move_code``, ``tables``,
:meth:`Position.reach_indices` and :meth:`Position.immediate_wins`, which tries the
legal actions inside the compiled core), never copies a position and never plays an
action. The AI reaches these functions only through
``GAME.heuristic`` and ``GAME.ai_hooks`` (:func:`ai_hooks`).

How the game is won shapes the heuristic (rules section 6): a king is captured, or a king
gets blessed (passing the enemy wall through the portal, or being in a bridge). So the
terms are, per side:

* **king safety** -- how many enemy men can reach one of its kings with their next action
  (a capture wins on the spot);
* **king race** -- steps from its best king to the enemy wall (a king on the enemy wall
  facing a free portal step wins with its next action);
* **men progress** -- checkers' mean distance to the enemy wall (men there make bridges
  and bless themselves, and blessed men may build big stacks, which travel far);
* **bridge progress** -- how far the best group connected to its own wall reaches
  towards the enemy wall;
* **blessings and curses** -- blessed men may merge into big stacks; cursed men are
  hampered (they merge only onto blessed men);
* **material** -- checkers on the board (captures remove enemy checkers).

A side to act that has a winning action is scored as all but won (the search would find
the win anyway; this keeps leaf values consistent with it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from hexgames.benediction import _fasteval

# The weights of the heuristic's terms are defined once, in the compiled module (which
# bakes them into its code); the Python definition (:func:`heuristic_reference`) reads them.
from hexgames.benediction._fasteval import (
    W_ATTACKED,
    W_BLESSED,
    W_BRIDGE,
    W_CURSED,
    W_KING_RACE,
    W_MATERIAL,
    W_MEN_PROGRESS,
    W_PORTAL,
)
from hexgames.benediction._tables import wall_distance
from hexgames.benediction.actions import Action
from hexgames.benediction.position import (
    BLESSED,
    BLOCK,
    BLUE,
    CURSED,
    EMPTY,
    KING,
    RED,
    Position,
)
from hexgames.hooks import AiHooks

_heuristic_value = _fasteval.heuristic_value
#: Value of a position whose side to act can win at once (not 1: not yet played).
WON = 0.95
_WIN_CACHE_LIMIT = 50_000
#: rules -> position key -> winning actions (keys alone do not encode the rules options).
_win_cache: dict[Any, dict[int, list[Action]]] = {}



def _ints(values: Sequence[int]) -> list[int]:
    """A board array as a list of Python ints (the engine's are numpy views)."""
    tolist = getattr(values, "tolist", None)
    return tolist() if tolist is not None else list(values)


def _kings(position: Position, color: int) -> list[int]:
    owner, flags = _ints(position.owners), _ints(position.flags)
    return [i for i, o in enumerate(owner) if o == color and flags[i] & KING]


def attackers(position: Position, color: int) -> int:
    """Men of the enemy of ``color`` that could capture one of its kings with one action
    (a move or a split onto it), ignoring this turn's locks: the question is about the
    enemy's next turn, when locks have cleared."""
    kings = _kings(position, color)
    if not kings:
        return 0
    enemy = 3 - color
    owner, size = _ints(position.owners), _ints(position.sizes)
    reach = position.reach_indices
    count = 0
    for i, o in enumerate(owner):
        if o == enemy:
            targets = reach(i, size[i], enemy)
            if any(k in targets for k in kings):
                count += 1
    return count


def portal_threat(position: Position, color: int) -> bool:
    """True when a king of ``color`` can pass the enemy wall with one action (a move onto
    an empty or enemy point, or a merge onto a friendly non-king man), which blesses it."""
    owner, size, flags = _ints(position.owners), _ints(position.sizes), _ints(position.flags)
    for k in _kings(position, color):
        for j, passed in position.reach_indices(k, size[k], color).items():
            if passed and (owner[j] != color or not flags[j] & KING):
                return True
    return False


def winning_actions(position: Position) -> list[Action]:
    """Actions of the side to act that win at once (confirmed by playing them): an enemy
    king captured, a blessed king, or the opponent left without a legal action. Every
    legal action is tried inside the compiled core (:meth:`Position.immediate_wins`).
    Memoised by rules and position key.
    """
    if position.is_over:
        return []
    key = position.key
    memo = _win_cache.setdefault(position.rules, {})
    found = memo.get(key)
    if found is not None:
        return list(found)
    wins = position.immediate_wins()
    if len(memo) >= _WIN_CACHE_LIMIT:
        memo.clear()
    memo[key] = wins
    return list(wins)


def heuristic(position: Position) -> float:
    """Value in [-1, 1], positive when Red (seat 0) stands better.

    The terms are computed in compiled code (:func:`._fasteval.heuristic_value`), which
    gives exactly the value of :func:`heuristic_reference`, the readable definition."""
    if position.is_over:
        return position.returns()[0]
    mover = position.to_move_code
    if winning_actions(position):
        return (1.0 if mover == RED else -1.0) * WON
    side = position.tables.board.side
    rays, portal, nbr, wall_pts, dist = _fasteval.geometry(side)
    count = position.checker_counts
    return _heuristic_value(  # type: ignore[no-any-return]
        position.owners, position.sizes, position.flags, rays, portal, nbr, wall_pts, dist,
        float(2 * (side - 1)), count[RED], count[BLUE], mover,
    )


def heuristic_reference(position: Position) -> float:
    """:func:`heuristic` in Python: the definition the compiled version follows (the
    tests compare the two)."""
    if position.is_over:
        return position.returns()[0]
    mover = position.to_move_code
    sign = 1.0 if mover == RED else -1.0
    if winning_actions(position):
        return sign * WON
    side = position.tables.board.side
    dist = wall_distance(side)
    far = float(2 * (side - 1))
    owner, size, flags = _ints(position.owners), _ints(position.sizes), _ints(position.flags)
    count = position.checker_counts
    progress = [0.0, 0.0, 0.0]
    best_king = [0.0, 0.0, 0.0]
    blessed = [0, 0, 0]
    cursed = [0, 0, 0]
    for i, o in enumerate(owner):
        if o in (EMPTY, BLOCK):
            continue
        d = dist[o][i]
        s = size[i]
        progress[o] += s * (far - d) / far
        f = flags[i]
        if f & KING:
            closeness = (far - d) / far
            if closeness > best_king[o]:
                best_king[o] = closeness
        elif f & BLESSED:
            blessed[o] += 1
        elif f & CURSED:
            cursed[o] += 1
    total = max(1, count[RED] + count[BLUE])
    bridge = _bridge_progress(position, dist, far)
    value = (
        W_MATERIAL * (count[RED] - count[BLUE]) / total
        + W_KING_RACE * (best_king[RED] ** 2 - best_king[BLUE] ** 2)
        + W_MEN_PROGRESS * (progress[RED] / max(1, count[RED])
                            - progress[BLUE] / max(1, count[BLUE]))
        + W_BRIDGE * (bridge[RED] - bridge[BLUE])
        + W_BLESSED * math.tanh((blessed[RED] - blessed[BLUE]) / 3)
        - W_CURSED * math.tanh((cursed[RED] - cursed[BLUE]) / 3)
    )
    # Threats by the side *not* to act are real (the mover has no win, so it must
    # answer them); threats by the mover were ruled out above except for capture threats
    # against the other side's kings that locks hide now -- those count half.
    other = 3 - mover
    danger = W_ATTACKED * min(1, attackers(position, mover)) + W_PORTAL * portal_threat(
        position, other
    )
    pressure = 0.5 * (
        W_ATTACKED * min(1, attackers(position, other))
        + W_PORTAL * portal_threat(position, mover)
    )
    value += sign * (pressure - danger)
    return 0.9 * math.tanh(value)


def _bridge_progress(position: Position, dist: Sequence[Sequence[int]], far: float) -> list[float]:
    """Per colour: how close (0..1) the best group touching its own wall comes to the
    enemy wall (1 = a bridge)."""
    t = position.tables
    owner = _ints(position.owners)
    neighbours = t.board.neighbours
    out = [0.0, 0.0, 0.0]
    for color in (RED, BLUE):
        d = dist[color]
        seen: set[int] = set()
        best = 0.0
        for start in t.wall_points[color]:
            if owner[start] != color or start in seen:
                continue
            group = [start]
            seen.add(start)
            nearest = d[start]
            for q in group:
                if d[q] < nearest:
                    nearest = d[q]
                for r in neighbours[q]:
                    if owner[r] == color and r not in seen:
                        seen.add(r)
                        group.append(r)
            best = max(best, (far - nearest) / far)
        out[color] = best
    return out


_KIND_CODE = {"block": 0, "drop": 1, "move": 2, "merge": 3, "split": 4}
#: board side -> id(action) -> (action, kind code, origin index or -1, target index);
#: keeping the action keeps its id from being reused while it is in the table.
_ACTION_POINTS: dict[int, dict[int, tuple[Action, int, int, int]]] = {}
_POINTS_LIMIT = 200_000


def _points(
    memo: dict[int, tuple[Action, int, int, int]], index: dict[str, int], action: Action
) -> tuple[Action, int, int, int]:
    """``(action, kind code, origin index, target index)`` of an action (memoised)."""
    if len(memo) >= _POINTS_LIMIT:  # actions made elsewhere than the shared tables
        memo.clear()
    origin = action.origin
    found = memo[id(action)] = (
        action, _KIND_CODE[action.kind], -1 if origin is None else index[origin],
        index[action.target],
    )
    return found


def action_priors(position: Position, actions: Sequence[Action]) -> list[float]:
    """Cheap scores to order the search's children: captures (above all of a king),
    king actions towards the enemy wall, advances, merges; blocks last unless they sit
    next to a king (where they defend or hem in)."""
    t = position.tables
    index = t.index
    side = t.board.side
    memo = _ACTION_POINTS.get(side)
    if memo is None:
        memo = _ACTION_POINTS.setdefault(side, {})
    owner, flags, size = _ints(position.owners), _ints(position.flags), _ints(position.sizes)
    color = position.to_move_code
    enemy = 3 - color
    dist = wall_distance(side)[color]
    near_king: set[int] = set()
    neighbours = t.board.neighbours
    for k, o in enumerate(owner):
        if flags[k] & KING and o in (RED, BLUE):
            near_king.update(neighbours[k])
    out: list[float] = []
    append = out.append
    get = memo.get
    for action in actions:
        points = get(id(action))
        if points is None or points[0] is not action:
            points = _points(memo, index, action)
        _, kind, i, j = points
        if kind == 0:  # block
            append(1.0 if j in near_king else -1.0)
            continue
        if kind == 1:  # drop
            append(0.2)
            continue
        score = 0.0
        if owner[j] == enemy:
            score += 3.0 + size[j] + (20.0 if flags[j] & KING else 0.0)
        advance = dist[i] - dist[j]
        score += 0.5 * advance
        if flags[i] & KING:
            score += 1.0 + advance
        if kind == 3:  # merge
            score += 0.5
        elif kind == 4:  # split
            score -= 0.3
        append(score)
    return out


def action_priors_reference(position: Position, actions: Sequence[Action]) -> list[float]:
    """:func:`action_priors` as first written (the tests compare the two)."""
    t = position.tables
    index = t.index
    owner, flags, size = _ints(position.owners), _ints(position.flags), _ints(position.sizes)
    color = position.to_move_code
    enemy = 3 - color
    dist = wall_distance(t.board.side)[color]
    near_king: set[int] = set()
    for k in _kings(position, color) + _kings(position, enemy):
        near_king.update(t.board.neighbours[k])
    out = []
    for action in actions:
        j = index[action.target]
        kind = action.kind
        if kind == "block":
            out.append(1.0 if j in near_king else -1.0)
            continue
        if kind == "drop":
            out.append(0.2)
            continue
        i = index[action.origin]  # type: ignore[index]
        score = 0.0
        if owner[j] == enemy:
            score += 3.0 + size[j] + (20.0 if flags[j] & KING else 0.0)
        advance = dist[i] - dist[j]
        score += 0.5 * advance
        if flags[i] & KING:
            score += 1.0 + advance
        if kind == "merge":
            score += 0.5
        elif kind == "split":
            score -= 0.3
        out.append(score)
    return out


def turn_continues(position: Position) -> bool:
    """Whether an action now can leave the same player to act: only with two actions
    left (so the tactical layer never looks two actions deep from a turn's last one)."""
    return position.actions_left > 1


def ai_hooks() -> AiHooks:
    """The optional AI hooks (``GAME.ai_hooks``) described in :mod:`hexgames.hooks`."""
    return AiHooks(
        winning_actions=winning_actions,
        action_priors=action_priors,
        turn_continues=turn_continues,
    )
