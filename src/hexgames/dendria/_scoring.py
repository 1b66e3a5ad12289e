"""Dendria's score from forest sizes (rules section 4), kept apart from the engine so
that the three scoring terms can be read and tested on their own."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from hexgames.phrases import Phrase, nphrase


def scores(dark_forests: Iterable[int], light_forests: Iterable[int]) -> tuple[float, float]:
    """Dark's and Light's scores given the sizes of each player's forests.

    * the sum of each player's **distinct** forest sizes (3, 3, 2 give 5);
    * +1 for every size of which a player has more forests than the opponent;
    * +0.5 to the player whose largest forest is strictly larger (no forest counts 0).
    """
    counts = (Counter(dark_forests), Counter(light_forests))
    totals = [float(sum(counts[0].keys())), float(sum(counts[1].keys()))]
    for size in counts[0].keys() | counts[1].keys():
        if counts[0][size] > counts[1][size]:
            totals[0] += 1
        elif counts[1][size] > counts[0][size]:
            totals[1] += 1
    largest = (max(counts[0], default=0), max(counts[1], default=0))
    if largest[0] > largest[1]:
        totals[0] += 0.5
    elif largest[1] > largest[0]:
        totals[1] += 0.5
    return totals[0], totals[1]


def breakdown(
    dark_forests: Iterable[int], light_forests: Iterable[int]
) -> list[tuple[Phrase, Phrase, dict[str, float]]]:
    """The three scoring terms of :func:`scores`, line by line, for people: one line per
    forest size on the board (largest first) giving the size's points to each player who
    has such a forest and the +1 to whoever has more of them, then the largest-forest
    half point. Each line is ``(label, detail, {"dark": points, "light": points})``, the
    label and the detail as translatable phrases (``str()`` is the English); the points
    of all lines add up to :func:`scores`.
    """
    counts = (Counter(dark_forests), Counter(light_forests))
    names = (Phrase("Dark"), Phrase("Light"))
    lines: list[tuple[Phrase, Phrase, dict[str, float]]] = []
    for size in sorted(counts[0].keys() | counts[1].keys(), reverse=True):
        have = (counts[0][size], counts[1][size])
        points = [float(size) if n else 0.0 for n in have]
        # i18n: part of a score line, e.g. "Dark 2 forests"
        dark, light = (nphrase("{player} {n} forest", "{player} {n} forests", have[i],
                                      player=names[i]) for i in (0, 1))
        if have[0] != have[1]:
            holder = 0 if have[0] > have[1] else 1
            points[holder] += 1
            detail = Phrase("{dark}, {light}: {holder} holds size {size} (+1)",
                            dark=dark, light=light, holder=names[holder], size=size)
        else:
            detail = Phrase("{dark}, {light}: nobody holds the size", dark=dark, light=light)
        label = Phrase("Forests of size {size}", size=size)
        lines.append((label, detail, {"dark": points[0], "light": points[1]}))
    largest = (max(counts[0], default=0), max(counts[1], default=0))
    half = [0.0, 0.0]
    if largest[0] != largest[1]:
        leader = 0 if largest[0] > largest[1] else 1
        half[leader] = 0.5
        detail = Phrase("Dark {dark}, Light {light}: {leader} gets the half point",
                        dark=largest[0], light=largest[1], leader=names[leader])
    else:
        detail = Phrase("Dark {dark}, Light {light}: equal, no half point",
                        dark=largest[0], light=largest[1])
    lines.append((Phrase("Largest forest"), detail, {"dark": half[0], "light": half[1]}))
    return lines
