"""Strength levels 1..5 and the player-spec mini-language of the arena.

Levels are the settings a person picks in the terminal game or the web app; each is one
fixed configuration so that results in ``docs/ai.md`` stay comparable. Budgets are
iteration counts (reproducible with a seed, and independent of machine load, which keeps
tournaments fair on a busy machine). No level has a time cap: on a busy machine a cap
would make a level weaker than the one below it (it did: level 5 capped at 12 s lost to
level 4 on the loaded development machine).

Why these budgets (2026-12-01): strength grows with iterations only up to about 1,500 in
Benediction, whose games are decided by captures that the tactical layer (on at every
MCTS level) sees exactly: 5,000 iterations scored 9 of 22 games against 1,500. So the
steps sit where iterations still buy strength, about 5 times apart, and level 5 keeps
5,000 as the strongest setting. Below 120 iterations search adds little there (25 and
120 iterations with the whole tactical layer were even); what separates level 2 from
level 3 is the tactical layer's budget: with 100 positions per call (a typical check
visits 40 to 130, a hard one thousands) level 2 misses some threats. Levels that lack
parts of the tactical layer (``safety=False``, ``threat_depth=1``) were tried and fell
to level 1's strength (the ladder: ``docs/performance.md``, "AI strength";
the measurements: ``experiments/notes/ai-levels-and-ladder.md``).

The levels are the same for every game; what a search values its leaves by is the
game's choice (its ``leaf_playouts`` hook): Dendria's MCTS levels value leaves by random
games, because with its heuristic there more iterations played worse (since 2026-12-02 a
short random game and a fitted estimate of the rest, ``dendria/leaf_value.py``: the
same value, about 20 times as many iterations per second). Level 5
plays random games at its leaves in every game with a compiled kernel: with the
heuristic it was no stronger than level 4 in Benediction (10 of 20), with random games
it scored 19 of 20 against level 4.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hexgames.ai.base import Player, resolve_game
from hexgames.ai.mcts import MCTSPlayer
from hexgames.ai.simple import GreedyPlayer, RandomPlayer
from hexgames.game import Game
from hexgames.phrases import N_


@dataclass(frozen=True)
class Level:
    """Settings of one strength level (see :func:`player`)."""

    number: int
    description: str
    #: ``None``: greedy one-ply player with this much noise.
    iterations: int | None = None
    noise: float = 0.0
    #: Positions the tactical layer may visit per call (:class:`MCTSPlayer` default 8000).
    tactics_budget: int = 8000
    #: ``True``: the search values leaves by whole random games in every game with a
    #: compiled kernel (a game without one keeps its heuristic: random games in Python
    #: would be too slow); ``None``: as the game asks (its ``leaf_playouts`` hook).
    leaf_playouts: bool | None = None


LEVELS: dict[int, Level] = {
    1: Level(1, N_("beginner: greedy one-ply on the heuristic, with noise"), noise=0.5),
    2: Level(2, N_("casual: MCTS, 25 iterations per action; checks threats only briefly"),
             iterations=25, tactics_budget=100),
    3: Level(3, N_("club: MCTS, 120 iterations per action"), iterations=120),
    4: Level(4, N_("strong: MCTS, 600 iterations per action"), iterations=600),
    5: Level(5, N_("strongest: MCTS, 5000 iterations per action, random playouts at the leaves"),
             iterations=5000, leaf_playouts=True),
}


def player(game: Game | str, level: int, seed: int | None = None) -> Player:
    """A player of strength ``level`` (1 = beginner .. 5 = strongest) for ``game``."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {sorted(LEVELS)}, got {level!r}")
    settings = LEVELS[level]
    resolved = resolve_game(game)
    name = f"L{level}"
    if settings.iterations is None:
        return GreedyPlayer(seed, game=resolved, noise=settings.noise, name=name)
    return MCTSPlayer(
        resolved,
        iterations=settings.iterations,
        seed=seed,
        name=name,
        tactics_budget=settings.tactics_budget,
        use_heuristic=None if not (settings.leaf_playouts and resolved.kernel) else False,
    )


_MCTS_SPEC = re.compile(r"^mcts(?::(?P<amount>\d+(?:\.\d+)?)(?P<unit>s?))?$")


def from_spec(game: Game | str, spec: str, seed: int | None = None) -> Player:
    """Build a player from a short spec, as used by ``hexgames arena --players``.

    ``random``, ``greedy``, ``L1`` .. ``L5`` (also ``level3``), ``mcts`` (1000
    iterations), ``mcts:400`` (400 iterations per action) or ``mcts:2s`` (2 seconds per
    action). ``ValueError`` names the accepted forms for anything else.
    """
    text = spec.strip().lower()
    resolved = resolve_game(game)
    if text == "random":
        return RandomPlayer(seed)
    if text == "greedy":
        return GreedyPlayer(seed, game=resolved)
    level = re.fullmatch(r"(?:l|level)(\d+)", text)
    if level:
        return player(resolved, int(level.group(1)), seed)
    mcts = _MCTS_SPEC.match(text)
    if mcts:
        amount, unit = mcts.group("amount"), mcts.group("unit")
        options: dict[str, Any] = {}
        if amount is not None and unit == "s":
            options["time_limit"] = float(amount)
        elif amount is not None:
            if "." in amount:
                raise ValueError(f"player spec {spec!r}: iterations must be a whole number")
            options["iterations"] = int(amount)
        return MCTSPlayer(resolved, seed=seed, name=text, **options)
    raise ValueError(
        f"unknown player spec {spec!r}; expected random, greedy, L1..L5, mcts, "
        "mcts:ITERATIONS or mcts:SECONDSs"
    )
