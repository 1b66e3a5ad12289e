"""Dendria's puzzle themes (``GAME.puzzle_themes``): what a winning line is about.

:mod:`hexgames.puzzles` tags every puzzle it generates with :func:`tag`, and the web app's
puzzle page lets players pick a theme from :data:`THEMES`. A Dendria game is won on the
score when it ends, so the themes say which scoring term the line changes in the
mover's favour (a new forest size, more forests of a size, the largest forest's half
point), which steps it takes (growing a seedbed, one's own or the opponent's, converting
a forest, sprouting a seed, a dendrid's long journey) and how the game ends (the quiet
limit, or both players passing). Only the position's public read API is used.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from hexgames.dendria.position import Position, Termination
from hexgames.game import PuzzleTheme, PuzzleThemes
from hexgames.phrases import N_

__all__ = ["PUZZLE_THEMES", "THEMES", "tag"]

THEMES: tuple[PuzzleTheme, ...] = (
    PuzzleTheme("forest-size", N_("Forest size"), N_(
        "The line gives you a forest of a size you did not have: its size adds to your "
        "score.")),
    PuzzleTheme("majority", N_("More forests"), N_(
        "The line gives you more forests of some size than your opponent (+1 for that "
        "size).")),
    PuzzleTheme("largest-forest", N_("Largest forest"), N_(
        "The line wins the half point of the largest forest.")),
    PuzzleTheme("seedbed", N_("Seedbed"), N_("A seedbed of yours grows into trees.")),
    PuzzleTheme("enemy-seedbed", N_("Enemy seedbed"), N_(
        "You grow your opponent's seedbed (it may spoil a size they hold).")),
    PuzzleTheme("conversion", N_("Conversion"), N_("An enemy forest changes colour.")),
    PuzzleTheme("sprout", N_("Sprout"), N_("A seed sprouts into a dendrid.")),
    PuzzleTheme("journey", N_("Long journey"), N_(
        "A dendrid stops and continues in a straight line.")),
    PuzzleTheme("quiet-limit", N_("Quiet limit"), N_(
        "The turn ends the game by the quiet limit.")),
    PuzzleTheme("double-pass", N_("Both pass"), N_(
        "The game ends because both players pass.")),
)


def _terms(position: Position, color: str) -> tuple[set[int], set[int], bool]:
    """``color``'s distinct forest sizes, the sizes of which it has more forests than the
    opponent, and whether its largest forest is strictly the largest."""
    analysis = position.analysis()
    ours = Counter(analysis.forest_sizes(0 if color == "dark" else 1))
    theirs = Counter(analysis.forest_sizes(1 if color == "dark" else 0))
    more = {size for size in ours if ours[size] > theirs[size]}
    largest = max(ours, default=0) > max(theirs, default=0)
    return set(ours), more, largest


def tag(position: Any, solution: Sequence[str]) -> list[str]:
    """The themes of the puzzle whose start is ``position`` (played on) and whose winning
    line is ``solution``, in the order of :data:`THEMES`."""
    assert isinstance(position, Position)
    mover = position.to_move
    sizes, more, largest = _terms(position, mover)
    found: set[str] = set()
    for text in solution:
        step = position.parse_action(text)
        owner = None
        if step.target is not None and step.kind in ("grow", "convert"):
            piece = position.piece_at(step.target)
            owner = piece.color if piece is not None else None
        position.play(step)
        if step.kind == "grow":
            found.add("seedbed" if owner == mover else "enemy-seedbed")
        elif step.kind == "convert":
            found.add("conversion")
        elif step.kind == "sprout":
            found.add("sprout")
        elif step.kind == "continue":
            found.add("journey")
    new_sizes, new_more, new_largest = _terms(position, mover)
    if new_sizes - sizes:
        found.add("forest-size")
    if new_more - more:
        found.add("majority")
    if new_largest and not largest:
        found.add("largest-forest")
    outcome = position.outcome()
    if outcome is not None:
        if outcome.termination == Termination.QUIET_LIMIT:
            found.add("quiet-limit")
        elif outcome.termination == Termination.BOTH_PASSED:
            found.add("double-pass")
    return [theme.name for theme in THEMES if theme.name in found]


PUZZLE_THEMES = PuzzleThemes(themes=THEMES, tag=tag)
