"""Dendria's table of earlier positions, for the no-repetition rule: a turn may not end in
a position (board + colour to move) seen at the start or the end of an earlier turn.

The table is an open-addressing hash table of 64-bit keys with a count each (``seen``:
``(slots, 2)`` int64, key and count; a power of two of slots), kept in compiled code as
turns end and are taken back (:func:`_seen_add`, :func:`_seen_remove`). Earlier
positions are compared by their key only (the tests' oracle confirms a key hit against
the exact board); two different positions of one game share a key with a probability of
about ``turns**2 / 2**65``. A leading underscore marks a compiled function that the
other compiled modules call (without a Python entry when ``njit_inner``).
"""

from __future__ import annotations

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, njit, njit_inner
from hexgames.dendria import _layout
from hexgames.dendria._layout import M_USED, META_LEN

#: ``seen[s, 1]`` of a slot that holds no key.
EMPTY_SLOT = -1
#: Slots of the earlier-positions table of a new state (it doubles when half full).
SEEN_START = 256


@njit_inner(nrt=False)
def _seen_slot(seen, key):  # type: ignore[no-untyped-def]
    """Slot holding ``key`` in the open-addressing table, or -1."""
    mask = seen.shape[0] - 1
    s = key & mask
    for _ in range(seen.shape[0]):  # bounded: a full table must not loop forever
        if seen[s, 1] == EMPTY_SLOT:
            return -1
        if seen[s, 0] == key:
            return s
        s = (s + 1) & mask
    return -1


@njit_inner(nrt=False)
def _seen_has(seen, key):  # type: ignore[no-untyped-def]
    s = _seen_slot(seen, key)
    return s >= 0 and seen[s, 1] > 0


@njit(nrt=False)
def seen_has(seen, key):  # type: ignore[no-untyped-def]
    """:func:`_seen_has` for Python callers (compiled code calls the inner one: an entry
    from Python is a wrapper compiled only when Python first asks)."""
    return _seen_has(seen, key)


@njit(nrt=False)
def _seen_add(seen, meta, key):  # type: ignore[no-untyped-def]
    """Count one more occurrence of ``key``. The table is sized for every turn of a
    game (:attr:`.core.Core.seen_slots`) and keeps only keys whose count is above 0
    (:func:`_seen_remove`), so it never fills; should it, the key is not recorded
    (a repetition could go unseen) rather than probing forever."""
    mask = seen.shape[0] - 1
    s = key & mask
    for _ in range(seen.shape[0]):
        if seen[s, 1] == EMPTY_SLOT:
            seen[s, 0] = key
            seen[s, 1] = 1
            meta[M_USED] += 1
            return
        if seen[s, 0] == key:
            seen[s, 1] += 1
            return
        s = (s + 1) & mask


@njit(nrt=False)
def seen_remove(seen, meta, key):  # type: ignore[no-untyped-def]
    """:func:`_seen_remove` for Python callers (the tests of the table)."""
    _seen_remove(seen, meta, key)


@njit(nrt=False)
def _rehash_into(seen, table, meta):  # type: ignore[no-untyped-def]
    """Add each key of ``seen`` to ``table`` as many times as ``seen`` counts it (an
    empty slot counts -1: not at all). Compiled: every MCTS leaf's random games need the
    position's table widened to the games' size (a millisecond per leaf in Python)."""
    for s in range(seen.shape[0]):
        key = seen[s, 0]
        for _ in range(seen[s, 1]):
            _seen_add(table, meta, key)


@njit_inner(nrt=False)
def _seen_remove(seen, meta, key):  # type: ignore[no-untyped-def]
    """Count one occurrence of ``key`` less; at 0 its slot is emptied by backward-shift
    deletion (the entries after it in the probe run move up where their home slot
    allows), so the table holds only the keys of the line being played. Why: a
    search plays and takes back turns millions of times; slots left behind with a
    count of 0 filled the table (8,192 slots on the standard board within seconds of
    pondering) and the next lookup of a missing key probed forever."""
    s = _seen_slot(seen, key)
    if s < 0:
        return
    seen[s, 1] -= 1
    if seen[s, 1] > 0:
        return
    mask = seen.shape[0] - 1
    meta[M_USED] -= 1
    hole = s
    j = s
    for _ in range(seen.shape[0]):
        j = (j + 1) & mask
        if seen[j, 1] == EMPTY_SLOT:
            break
        home = seen[j, 0] & mask
        # the entry at j stays when its home lies cyclically in (hole, j]
        stays = (hole < home <= j) if hole <= j else (home > hole or home <= j)
        if not stays:
            seen[hole, 0] = seen[j, 0]
            seen[hole, 1] = seen[j, 1]
            hole = j
    seen[hole, 0] = 0
    seen[hole, 1] = EMPTY_SLOT


def rehashed(seen: np.ndarray, slots: int) -> tuple[np.ndarray, int]:
    """A table of ``slots`` slots with the keys of ``seen`` whose count is above 0, and
    how many slots it uses."""
    table = empty_seen(slots)
    meta = np.zeros(META_LEN, np.int64)
    _rehash_into(seen, table, meta)
    return table, int(meta[M_USED])


def empty_seen(slots: int) -> np.ndarray:
    """A table of ``slots`` empty slots (a power of two)."""
    seen = np.zeros((slots, 2), np.int64)
    seen[:, 1] = EMPTY_SLOT
    return seen


__all__ = ["EMPTY_SLOT", "SEEN_START", "empty_seen", "rehashed", "seen_has", "seen_remove"]

# the compiled code here has the layout's constants built in (see drop_stale_cache)
drop_stale_cache(__name__, _jit.__file__, _layout.__file__)
