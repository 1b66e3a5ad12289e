"""Dendria's interactive tutorial: one rule per lesson, each with a small position (side 5),
a task checked by the engine, a hint, and an explanation of every try that falls short.

Served by the game-agnostic learn page (:mod:`hexgames.tutorial`); the positions are in the
position text format (rules section 5). The first two share a board ringed with trees, so
that only the cells that see a gap in the ring all the way to the edge may be planted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hexgames.dendria.position import Position
from hexgames.game import GameState
from hexgames.phrases import N_, Phrase, Text
from hexgames.tutorial import Lesson

OPTIONS = {"board_side": 5}

#: A ring of trees with gaps at e9 and a3 (lessons "plant" and "sprout").
_RING_DARK = "a1 a4 b1 c1 d1 e1 f8 g7 h6 i2 i4"
_RING_LIGHT = "a2 a5 b6 c7 d8 f1 g1 h1 i1 i3 i5"


def _pos(position: GameState) -> Position:
    assert isinstance(position, Position)
    return position


def _tried(actions: Sequence[Any]) -> str:
    return " ".join(str(a) for a in actions)


def _and(labels: Sequence[str]) -> Text:
    """``"a1"``, ``"a1 and i1"``, ``"a1 and i1 and e9"``: cells named in a sentence."""
    if len(labels) <= 1:
        return "".join(labels)
    return Phrase("{first} and {second}", first=_and(labels[:-1]), second=labels[-1])


def _joined(parts: Sequence[Text], separator: str) -> Phrase:
    """``parts`` joined by ``separator`` (punctuation), each part translated."""
    names = [f"part{i}" for i in range(len(parts))]
    template = separator.replace("{", "{{").replace("}", "}}").join(
        "{" + name + "}" for name in names)
    values = dict(zip(names, parts, strict=True))
    return Phrase(template, **values)


def _is(position: GameState, label: str, color: str, kind: str) -> bool:
    piece = _pos(position).piece_at(label)
    return piece is not None and piece.color == color and piece.kind == kind


def _missing(position: GameState, labels: Sequence[str]) -> list[str]:
    """Of ``labels``, the empty cells Dark's dendrids do not fertilize."""
    fertilized = set(_pos(position).fertilized_cells("dark"))
    return [label for label in labels if label not in fertilized]


def _plant_goal(position: GameState, actions: Sequence[Any]) -> bool:
    return len(_pos(position).group("e5")) >= 2


def _plant_explain(position: GameState, actions: Sequence[Any]) -> Text:
    if str(actions[0]) == "pass":
        return Phrase("Passing plants nothing: plant a seed on a cell next to e5.")
    return Phrase(
        "{tried} is a fine plant, but not next to your seed on e5. Of the six "
        "cells around e5, only one has a nutrientless root (a line of empty cells to "
        "the edge, here through the gap at e9).", tried=_tried(actions),
    )


def _sprout_explain(position: GameState, actions: Sequence[Any]) -> Text:
    p = _pos(position)
    roots = p.nourishers("e5")
    if len(roots) < 6:
        return Phrase(
            "After {tried} the seed on e5 still has a root without a nutrient "
            "(a line of empty cells to the edge), so it is not nourished. Plant on that "
            "line, then sprout e5.", tried=_tried(actions),
        )
    return Phrase(
        "After {tried} e5 is nourished and may sprout, but you did not sprout "
        "it: after your plant, click e5 (sprout) before ending the turn.", tried=_tried(actions),
    )


def _fertilize_explain(position: GameState, actions: Sequence[Any]) -> Text:
    missing = _missing(position, ("a1", "i1"))
    if "-" not in str(actions[0]):
        return Phrase(
            "{tried} leaves your dendrid on e5: move it instead (click the "
            "dendrid, then the cell where it stops).", tried=_tried(actions),
        )
    return Phrase(
        "After {tried} your dendrid does not fertilize {cells}. "
        "A dendrid fertilizes the empty cells it sees along its six lines, up to the first "
        "piece: find the cell that sees both bottom corners.",
        tried=_tried(actions), cells=_and(missing),
    )


def _grow_explain(position: GameState, actions: Sequence[Any]) -> Text:
    p = _pos(position)
    if not _is(p, "a1", "dark", "seed"):
        return Phrase("{tried} changed the seed on a1: grow it, do not plant over it.",
                      tried=_tried(actions))
    missing = _missing(p, p.fertile_soils("a1"))
    if missing:
        return Phrase(
            "After {tried} the fertile soils {soils} of your seed on "
            "a1 are not fertilized by your dendrids, so it may not grow. Every empty cell "
            "next to a seedbed must be fertilized.", tried=_tried(actions), soils=" ".join(missing),
        )
    return Phrase(
        "After {tried} your seedbed on a1 may grow, but you did not grow it: "
        "click a1 (grow) before ending the turn.", tried=_tried(actions),
    )


def _convert_explain(position: GameState, actions: Sequence[Any]) -> Text:
    p = _pos(position)
    if "i1" in p.convertible_forests("dark"):
        return Phrase(
            "After {tried} the forest on i1 may be converted, but you did not "
            "convert it: click i1 (convert) before ending the turn.", tried=_tried(actions),
        )
    soils = p.fertile_soils("i1")
    missing = _missing(p, soils)
    if missing:
        return Phrase(
            "After {tried} Light's forest has fertile soils ({soils}) "
            "your dendrids do not fertilize. All of them must be, and at least one must "
            "not be fertilized by Light's dendrid.", tried=_tried(actions), soils=" ".join(missing),
        )
    return Phrase(
        "After {tried} every fertile soil of the forest is fertilized by Light's "
        "dendrid as well: at least one must be fertilized by yours only.", tried=_tried(actions),
    )


def _continue_explain(position: GameState, actions: Sequence[Any]) -> Text:
    p = _pos(position)
    left = [label for label in ("c1", "e9") if _is(p, label, "dark", "seed")]
    soils = [soil for label in left for soil in p.fertile_soils(label)]
    missing = _missing(p, soils)
    values = {"tried": _tried(actions), "cells": _and(left), "soils": " ".join(missing)}
    if len(left) > 1:
        if missing:
            said = Phrase("After {tried} the seeds on {cells} have not grown (fertile soils "
                          "{soils} are not fertilized)", **values)
        else:
            said = Phrase("After {tried} the seeds on {cells} have not grown", **values)
    elif missing:
        said = Phrase("After {tried} the seed on {cells} has not grown (fertile soils "
                      "{soils} are not fertilized)", **values)
    else:
        said = Phrase("After {tried} the seed on {cells} has not grown", **values)
    return Phrase(
        "{said}. One stop cannot "
        "fertilize the soils of both seeds: stop, grow, then continue the same dendrid "
        "in the same direction (click the cell further along) and grow again.", said=said,
    )


def _score_explain(position: GameState, actions: Sequence[Any]) -> Text:
    p = _pos(position)
    if not p.is_over:
        return Phrase(
            "After {tried} the game goes on: a plant restarts the count of quiet "
            "turns. Move your dendrid instead, so that this turn ends the game.",
            tried=_tried(actions),
        )
    score = p.score()
    lines = _joined([
        # i18n: a line of the score's breakdown, e.g. "Largest forest: Dark 3, Light 2"
        Phrase("{label}: {detail}", label=line.label_phrase or line.label,
               detail=line.detail_phrase or line.detail)
        for line in p.score_breakdown()
    ], "; ")
    return Phrase(
        "The game ended Dark {dark}, Light {light} ({lines}). A second "
        "forest of a size you already have adds only +1; a forest of a new size adds its "
        "size, and +1 when you have more of them.",
        dark=format(score["dark"], "g"), light=format(score["light"], "g"), lines=lines,
    )


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        id="plant",
        title=N_("Planting seeds"),
        rule=N_(
            "A turn starts with a plant, a dendrid move or a pass. A seed may be planted "
            "on an empty cell that has at least one nutrientless root: a direction in "
            "which it sees only empty cells all the way to the edge. Seeds of one colour "
            "that touch form a seedbed."
        ),
        task=N_("Plant a seed next to your seed on e5, making a seedbed of two."),
        hint=N_("The ring of trees has a gap at e9. Which cell next to e5 sees it?"),
        position=(
            "Dendria v1: size=5 to-move=dark\ndark seeds: e5\n"
            f"dark trees: {_RING_DARK}\nlight trees: {_RING_LIGHT}\n"
        ),
        solution=("e6",),
        goal=_plant_goal,
        explain=_plant_explain,
        options=OPTIONS,
        marks=("e5", "e9"),
        success=N_("e6 sees the gap at e9: the seed is planted and joins e5's seedbed."),
    ),
    Lesson(
        id="sprout",
        title=N_("Sprouting a dendrid"),
        rule=N_(
            "A seed is nourished when each of its roots (its lines to the edge) has a "
            "piece on it; the first piece on each line is a nourisher. A nourished seed "
            "whose nourishers are more often of its colour than of the other may sprout "
            "into a dendrid, after a plant or a dendrid stop, in the same turn."
        ),
        task=N_("Make your seed on e5 sprout into a dendrid this turn."),
        hint=N_("e5's line to the north (to the gap at e9) is empty. Plant on it, then sprout e5."),
        position=(
            "Dendria v1: size=5 to-move=dark\ndark seeds: e5\n"
            "dark trees: a1 b1 c1 d1 e1 f8 g7 h6 i2 i5\n"
            "light trees: a2 a4 a5 b6 c7 d8 f1 g1 h1 i1 i3 i4\n"
        ),
        solution=("e7", "^e5"),
        goal=lambda position, actions: _is(position, "e5", "dark", "dendrid"),
        explain=_sprout_explain,
        options=OPTIONS,
        moves=2,
        marks=("e5",),
        success=N_("Nourished on every root, mostly by Dark: e5 sprouts into a dendrid."),
    ),
    Lesson(
        id="fertilize",
        title=N_("Dendrids fertilize soil"),
        rule=N_(
            "A dendrid slides along a straight line and stops on an empty cell; it may "
            "pass seeds and your own dendrids, but not trees or enemy dendrids. A dendrid "
            "fertilizes every empty cell it sees along its six lines, up to the first piece."
        ),
        task=N_("Move your dendrid so that it fertilizes both bottom corners, a1 and i1."),
        hint=N_("The two bottom sides meet at e1."),
        position=(
            "Dendria v1: size=5 to-move=dark\ndark seeds: c5\ndark dendrids: e5\n"
            "light seeds: g5\nlight trees: e7 f3\nlight dendrids: b2\n"
        ),
        solution=("e5-e1",),
        goal=lambda position, actions: not _missing(position, ("a1", "i1")),
        explain=_fertilize_explain,
        options=OPTIONS,
        marks=("e5", "a1", "i1"),
        success=N_("From e1 the dendrid sees along both bottom sides: a1 and i1 are fertilized."),
    ),
    Lesson(
        id="grow",
        title=N_("Growing a seedbed"),
        rule=N_(
            "A seedbed may grow when every fertile soil (empty cell next to it) is "
            "fertilized by a dendrid of its colour. Growing turns all its seeds into "
            "trees: a forest. Forests score at the end. Growing is a follow-up, after a "
            "plant or a dendrid stop."
        ),
        task=N_("Grow your seed on a1 into a tree this turn."),
        hint=N_("a1's fertile soils are a2, b1 and b2. A dendrid on b2 sees a2 and b1."),
        position=(
            "Dendria v1: size=5 to-move=dark\ndark seeds: a1\ndark dendrids: e5\n"
            "light seeds: c6 g5\nlight dendrids: h2\n"
        ),
        solution=("e5-b2", "+a1"),
        goal=lambda position, actions: _is(position, "a1", "dark", "tree"),
        explain=_grow_explain,
        options=OPTIONS,
        moves=2,
        marks=("a1", "e5"),
        success=N_("Every fertile soil of a1 was fertilized: the seed grew into a tree."),
    ),
    Lesson(
        id="convert",
        title=N_("Converting an enemy forest"),
        rule=N_(
            "You may convert an enemy forest when every fertile soil next to it is "
            "fertilized by your dendrids and at least one of them is not fertilized by "
            "the enemy's. Its trees become yours. Converting is a follow-up, like growing."
        ),
        task=N_("Take over Light's forest on i1 this turn."),
        hint=N_("i1's fertile soils are h1, h2 and i2. Light's dendrid on e2 fertilizes h2."),
        position=(
            "Dendria v1: size=5 to-move=dark\ndark dendrids: e5\nlight seeds: c6\n"
            "light trees: i1\nlight dendrids: e2\n"
        ),
        solution=("e5-h2", "=i1"),
        goal=lambda position, actions: _is(position, "i1", "dark", "tree"),
        explain=_convert_explain,
        options=OPTIONS,
        moves=2,
        marks=("i1", "e5", "e2"),
        success=N_("Your dendrid on h2 fertilizes every soil of the forest: it is yours now."),
    ),
    Lesson(
        id="continue",
        title=N_("Stopping and going on"),
        rule=N_(
            "A dendrid move may stop on the way: after a stop you may make follow-ups "
            "(sprout, grow, convert), then continue with the same dendrid in the same "
            "direction, as often as you like, before ending the turn."
        ),
        task=N_("Grow both of your seeds, on c1 and on e9, this turn."),
        hint=N_("Move the dendrid on d2 up its column: stop on d3 and grow c1, then go on to d7."),
        position=(
            "Dendria v1: size=5 to-move=dark\ndark seeds: c1 e9\ndark dendrids: d2\n"
            "light trees: c4 f2 f4\n"
        ),
        solution=("d2-d3", "+c1", "-d7", "+e9"),
        goal=lambda position, actions: (
            _is(position, "c1", "dark", "tree") and _is(position, "e9", "dark", "tree")
        ),
        explain=_continue_explain,
        options=OPTIONS,
        moves=6,
        marks=("d2", "c1", "e9"),
        success=N_("One dendrid, two stops: both seeds grew into trees."),
    ),
    Lesson(
        id="score",
        title=N_("Scoring forests"),
        rule=N_(
            "At the end each player scores the sum of the distinct sizes of their forests "
            "(two forests of 2 count 2 once), +1 for each size of which they have more "
            "forests than the opponent, and +0.5 for the strictly largest forest. The game "
            "ends when both pass in a row, or after a number of turns without a plant "
            "(here one turn each)."
        ),
        task=N_(
            "This turn ends the game unless you plant. Grow one of your seedbeds so that "
            "you win."
        ),
        hint=N_("Light scores 4.5. A forest of 2 next to your forest of 2 adds little; "
        "a forest of 1 is a new size."),
        position=(
            "Dendria v1: size=5 to-move=dark quiet=1\ndark seeds: a2 h6 i5\n"
            "dark trees: c1 d1\ndark dendrids: c4\nlight trees: h4 i3 i4\n"
        ),
        solution=("c4-c3", "+a2", "end"),
        goal=lambda position, actions: position.is_over and position.winner == "dark",
        explain=_score_explain,
        options={**OPTIONS, "quiet_limit": 1},
        moves=5,
        marks=("a2", "h6", "i5"),
        success=N_("You win on points: a forest of a new size counts its size (and +1 when you "
        "have more forests of that size); a second forest of the same size adds only +1."),
    ),
)


def lessons() -> tuple[Lesson, ...]:
    """Dendria's lessons, in teaching order."""
    return LESSONS
