"""Maximum matchings, and pairing players in order of preference without dead ends.

Both pairings (a Swiss round, an arena wave) want the same thing: go down the list of
players, give each the partner it likes best, and yet never forbid a pairing that a
rule says must be avoided "while one can be avoided" (no repeat opponent in a Swiss, no
immediate rematch in an arena). A plain greedy walk fails that: an early choice can
leave the last few players with nobody but old opponents. A backtracking search finds a
way out but may take exponential time to learn there is none.

So the walk asks an oracle before each choice: Edmonds' blossom algorithm gives the
largest number of *allowed* pairs among the players still unpaired (a maximum matching in
a general graph, polynomial time). A choice is taken only if the allowed pairs it keeps
reachable are still as many as the best possible. Hence :func:`pair_in_order` is complete
(if a pairing with no forbidden pair exists, it returns one) and optimal in the number of
forbidden pairs it must use otherwise, while each choice is still the most preferred one
that keeps this guarantee.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

P = TypeVar("P", bound=Hashable)


def maximum_matching(count: int, neighbours: Sequence[Sequence[int]]) -> list[int]:
    """A maximum matching of the graph on vertices ``0..count-1``: ``mate[v]`` is the vertex
    matched with ``v``, or ``-1``. ``neighbours[v]`` lists the vertices adjacent to ``v``
    (the graph is undirected: each edge is listed from both ends).

    Edmonds' algorithm (1965): search an augmenting path from each free vertex by breadth
    first, shrinking each odd cycle ("blossom") met on the way into its base, which makes
    the search correct in graphs that are not bipartite. O(V^3); a greedy start matches
    most vertices of the dense graphs met here before any search."""
    mate = [-1] * count
    for v in range(count):
        if mate[v] == -1:
            for u in neighbours[v]:
                if mate[u] == -1:
                    mate[u], mate[v] = v, u
                    break
    _complete(mate, neighbours, [True] * count)
    return mate


def _complete(mate: list[int], neighbours: Sequence[Sequence[int]],
              present: Sequence[bool]) -> None:
    """Make ``mate`` a maximum matching of the present vertices, from any matching of them
    (one pass suffices: a free vertex without an augmenting path never gets one later)."""
    for root in range(len(mate)):
        if present[root] and mate[root] == -1:
            _augment_from(root, neighbours, mate, present)


def _augment_from(root: int, neighbours: Sequence[Sequence[int]], mate: list[int],
                  present: Sequence[bool]) -> None:
    """Find an augmenting path from the free vertex ``root`` among the present vertices and
    flip it (if there is one)."""
    count = len(mate)
    parent = [-1] * count
    base = list(range(count))
    used = [False] * count
    used[root] = True
    queue = deque([root])

    def common_base(a: int, b: int) -> int:
        seen = [False] * count
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[mate[b]]

    def mark_path(v: int, stop: int, child: int, blossom: list[bool]) -> None:
        while base[v] != stop:
            blossom[base[v]] = blossom[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    while queue:
        v = queue.popleft()
        for to in neighbours[v]:
            if not present[to] or base[v] == base[to] or mate[v] == to:
                continue
            if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                stop = common_base(v, to)
                blossom = [False] * count
                mark_path(v, stop, to, blossom)
                mark_path(to, stop, v, blossom)
                for i in range(count):
                    if blossom[base[i]]:
                        base[i] = stop
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if mate[to] == -1:
                    _flip(to, parent, mate)
                    return
                used[mate[to]] = True
                queue.append(mate[to])


def _flip(end: int, parent: list[int], mate: list[int]) -> None:
    """Flip the augmenting path that ends at the free vertex ``end``."""
    v = end
    while v != -1:
        previous = parent[v]
        after = mate[previous]
        mate[v], mate[previous] = previous, v
        v = after


def matching_size(players: Sequence[P], allowed: Callable[[P, P], bool]) -> int:
    """How many disjoint allowed pairs the players can form at most."""
    neighbours = [[j for j, other in enumerate(players) if j != i and allowed(player, other)]
                  for i, player in enumerate(players)]
    return sum(1 for v, m in enumerate(maximum_matching(len(players), neighbours)) if m > v)


def pair_in_order(players: Sequence[P], allowed: Callable[[P, P], bool],
                  preference: Callable[[P, Sequence[P]], Sequence[P]]) -> list[tuple[P, P]]:
    """Pair an even number of ``players``: the first unpaired one (in the given order) takes
    the partner it prefers (``preference(player, the others still unpaired)``, best first,
    each of them once) among those that keep the number of allowed pairs in the end as large
    as it can be; repeat. With a perfect matching of allowed pairs, the result uses only
    allowed pairs; otherwise it uses as few forbidden ones as any pairing can.

    One maximum matching of the players still unpaired is kept up to date: a choice that
    it already contains needs no check, and any other is checked from it (removing two
    players loses at most two of its pairs, which at most two augmenting paths restore).

    ``allowed`` must be symmetric. Raises ``ValueError`` for an odd count or duplicates."""
    if len(players) % 2:
        raise ValueError(f"cannot pair an odd number of players ({len(players)})")
    if len(set(players)) != len(players):
        raise ValueError("a player appears twice")
    index = {player: number for number, player in enumerate(players)}
    neighbours = [[j for j, other in enumerate(players) if j != i and allowed(player, other)]
                  for i, player in enumerate(players)]
    present = [True] * len(players)
    mate = maximum_matching(len(players), neighbours)
    target = sum(1 for v, m in enumerate(mate) if m > v)
    remaining = list(players)
    pairs: list[tuple[P, P]] = []
    while remaining:
        player, others = remaining[0], remaining[1:]
        ranked = list(preference(player, others))
        if Counter(ranked) != Counter(others):
            raise ValueError("preference must list each other unpaired player once")
        i = index[player]
        for candidate in ranked:
            j = index[candidate]
            trial = list(mate)
            for v in (i, j):
                if trial[v] != -1:
                    trial[trial[v]] = -1
                    trial[v] = -1
            present[i] = present[j] = False
            if mate[i] != j:
                _complete(trial, neighbours, present)
            kept = sum(1 for v, m in enumerate(trial) if m > v)
            if (1 if allowed(player, candidate) else 0) + kept >= target:
                mate, target = trial, kept
                pairs.append((player, candidate))
                remaining = [p for p in others if p != candidate]
                break
            present[i] = present[j] = True
        else:  # pragma: no cover - a maximum matching always leaves one candidate
            raise AssertionError("no candidate keeps the matching size")
    return pairs
