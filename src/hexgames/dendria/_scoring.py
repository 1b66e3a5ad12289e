"""Dendria's score from forest sizes (rules section 4), kept apart from the engine so
that the three scoring terms can be read and tested on their own."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


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
