"""The compiled helpers of :mod:`.functional` around a game's batch kernel: checking the
actions of a step, what happens to a game before and after its kernel runs, the
player-relative and channels-last views, and seeded random legal actions.

Why compiled: each is a loop over the games of a batch doing a few operations per game;
as numpy expressions they would cost several array passes and temporaries per step, which
at batch 1 is most of a step and at batch 1024 several megabytes of memory traffic. Here
each is one pass, touching only the games that change.

Kernel codes (what a game's ``Batch.step`` takes per game): an action id ``>= 0`` plays
it, ``-1`` starts a fresh game in the slot, ``-2`` leaves the slot as it is (nothing of it
is written). A game whose mask is "everything" (pgx's convention for a terminated game)
has ``nlegal == -1``: its legal-id list is empty and its mask row all True.
"""

from __future__ import annotations

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, njit, njit_inner

__all__ = ["after_step", "before_step", "prepare", "random_legal", "view_observation"]

PLAY_NOTHING = -2
START_AGAIN = -1


@njit(nrt=False)
def prepare(actions, active, finished_code, terminated, truncated, mask, perm, turned,
            num_actions, codes):
    """The kernel code of each game for one step, into ``codes``; the index of the first
    game whose action is not legal (``codes`` then incomplete, nothing changed), else -1.

    A game not ``active`` plays nothing; a finished one (terminated or truncated) gets
    ``finished_code`` whatever its action (``-2``: a no-op, pgx's convention; ``-1``:
    Gymnasium's next-step auto-reset). Others play their action, checked against the
    mask the agent sees and turned back to the board's ids where the agent sees the
    board turned (``perm``, an involution)."""
    for b in range(codes.shape[0]):
        if not active[b]:
            codes[b] = PLAY_NOTHING
        elif terminated[b] or truncated[b]:
            codes[b] = finished_code
        else:
            a = actions[b]
            if a < 0 or a >= num_actions or not mask[b, a]:
                return b
            codes[b] = perm[a] if turned[b] else a
    return -1


@njit(nrt=False)
def before_step(codes, active, rewards, nlegal, legal, mask, view_mask, separate, perm,
                turned, episode):
    """What changes before the game kernel runs: a finished game stepped as a no-op
    (active, code -2) gets zero rewards; a game about to start again counts one more
    game in its slot (``episode``); a mask that is "everything" is cleared (the kernel
    clears only the entries of the legal list it wrote); with a ``separate`` view mask,
    the entries of every game about to change are cleared there too."""
    for b in range(codes.shape[0]):
        c = codes[b]
        if c == PLAY_NOTHING:
            if active[b]:
                rewards[b, 0] = 0.0
                rewards[b, 1] = 0.0
            continue
        if c == START_AGAIN:
            episode[b] += 1
        if nlegal[b] < 0:
            mask[b, :] = False
            if separate:
                view_mask[b, :] = False
            nlegal[b] = 0
        elif separate:
            for x in range(nlegal[b]):
                a = legal[b, x]
                view_mask[b, perm[a] if turned[b] else a] = False


@njit(nrt=False)
def after_step(codes, terminated, nlegal, legal, mask, view_mask, separate, perm, turned,
               rotate, obs, first_to_move, x0, y0):
    """What changes after the game kernel ran (it did not auto-reset): a game that
    ended gets the mask "everything" (pgx: a policy normalised over it never divides by
    zero; any action is then a no-op); ``turned`` says which games the agent sees with
    the board turned (a game whose board turns for its second colour, with that colour
    to act: the first-colour-to-move plane ``first_to_move`` is 0 at ``(x0, y0)``, an
    on-board point); a ``separate`` view mask gets the legal ids in the agent's ids."""
    for b in range(codes.shape[0]):
        if codes[b] == PLAY_NOTHING:
            continue
        turned[b] = rotate and obs[b, first_to_move, x0, y0] == 0.0
        if terminated[b]:
            mask[b, :] = True
            nlegal[b] = -1
            if separate:
                view_mask[b, :] = True
        elif separate:
            for x in range(nlegal[b]):
                a = legal[b, x]
                view_mask[b, perm[a] if turned[b] else a] = True


@njit(nrt=False)
def view_observation(codes, obs, out, relative, source, first_to_move, on_board, rotate,
                     channels_last, x0, y0):
    """The agent's view of each game that changed, into ``out``: with ``relative``, a
    game whose player to act plays the second colour reads plane ``source[p]`` for plane
    ``p`` (the colour pairs exchanged), its first-to-move plane becomes "observer to
    move" (``on_board - first_to_move``) and, with ``rotate``, the board is turned half a
    turn (as :func:`hexgames.integrations.views.player_relative`); with
    ``channels_last``, ``out`` is ``(B, W, W, planes)``."""
    planes = obs.shape[1]
    w = obs.shape[2]
    for b in range(codes.shape[0]):
        if codes[b] == PLAY_NOTHING:
            continue
        second = relative and obs[b, first_to_move, x0, y0] == 0.0
        turn = second and rotate
        for p in range(planes):
            q = source[p] if second else p
            for x in range(w):
                tx = w - 1 - x if turn else x
                for y in range(w):
                    ty = w - 1 - y if turn else y
                    v = obs[b, q, x, y]
                    if second and p == first_to_move:
                        v = obs[b, on_board, x, y] - v
                    if channels_last:
                        out[b, tx, ty, p] = v
                    else:
                        out[b, p, tx, ty] = v


@njit_inner(nrt=False)
def _mix(z):
    """splitmix64's finaliser: a well-mixed 64-bit hash of ``z``."""
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(nrt=False)
def random_legal(seeds, episodes, counts, legal, nlegal, perm, turned, out):
    """A uniformly random legal id per game (in the agent's ids), a function of the game's
    seed, its number in the slot and its actions so far only: the same game gets the same
    actions whatever else is in the batch, whichever games are stepped. 0 for a game
    with no legal list (ended)."""
    for b in range(out.shape[0]):
        n = nlegal[b]
        if n <= 0:
            out[b] = 0
            continue
        h = _mix(_mix(_mix(np.uint64(seeds[b])) ^ np.uint64(episodes[b]))
                 ^ np.uint64(counts[b]))
        a = legal[b, np.int64(h % np.uint64(n))]
        out[b] = perm[a] if turned[b] else a


# numba keys its cache to this file only; the compile options come from _jit
drop_stale_cache(__name__, _jit.__file__)
