"""Dendria's batch of games for the vectorized research environment, in compiled code.

:class:`Batch` (what ``GAME.vector_batch(rules, num_envs)`` returns to
:class:`hexgames.integrations.vector.VectorEnv`) keeps ``B`` games as stacked
core states (:mod:`.core`: ``cells``, ``meta``, the earlier-positions table ``seen``,
the finishability ``memo`` and the ``scratch`` holding each board's kept sight counts,
one row per game) and plays one step in every game in one call of :func:`vector_step`:
play, score a finished game, start a fresh one in its slot (auto-reset), then write the
legal-step mask and list and the observation planes of :mod:`.encoding` for the player
to act. The core's step codes are the research step ids, so the mask is indexed by the
codes the core lists.

Why here and not in the integration: the kernel reads the core's state layout (its
``meta`` fields), which only the engine may know; the integration sees arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexgames import _jit
from hexgames._jit import drop_stale_cache, is_cached, njit, njit_inner
from hexgames.dendria import _layout, _repetition, _sight, core, encoding
from hexgames.dendria._layout import (
    A_LEG,
    M_EPOCH,
    M_MOVER,
    M_NFRAME,
    M_NLOG,
    M_OVER,
    M_PASSES,
    M_PHASE,
    M_PIE,
    M_QUIET,
    M_SCANNED,
    M_SWAPPED,
    M_TO,
    M_USED,
    P_N,
    P_QT,
)
from hexgames.dendria.core import _apply_step, copy_state, core_for, generate, winner_seat
from hexgames.dendria.rules import AFTER_STOP, PIE_PENDING, START, Rules

__all__ = ["Batch", "observe", "vector_step"]


@njit_inner(nrt=False)
def _fill_plane(obs, plane, xs, ys, value):  # type: ignore[no-untyped-def]
    """A constant plane on the board's cells (off-board cells stay 0)."""
    for i in range(xs.shape[0]):
        obs[plane, xs[i], ys[i]] = value


@njit(nrt=False)
def observe(prm, cells, meta, origin, xs, ys, obs):  # type: ignore[no-untyped-def]
    """:func:`.encoding.observation` of one game for its player to act, into ``obs``
    (``(15, W, W)`` float32); ``origin``: the cell this turn's leg started from, -1 if
    none."""
    n = prm[P_N]
    for p in range(obs.shape[0]):
        for x in range(obs.shape[1]):
            for y in range(obs.shape[2]):
                obs[p, x, y] = 0.0
    for i in range(n):
        obs[6, xs[i], ys[i]] = 1.0
        v = cells[i]
        if v > 0:  # codes 1-3 Dark's seed, tree, dendrid; 4-6 Light's: planes 0-5
            obs[v - 1, xs[i], ys[i]] = 1.0
    # the observer is the player to act, so "dark to move" and "observer plays dark" agree
    if meta[M_TO] == 0:
        _fill_plane(obs, 7, xs, ys, 1.0)
        _fill_plane(obs, 8, xs, ys, 1.0)
    if meta[M_PHASE] != START:
        _fill_plane(obs, 9, xs, ys, 1.0)
    if meta[M_PHASE] == AFTER_STOP:
        mover = meta[M_MOVER]
        obs[10, xs[mover], ys[mover]] = 1.0
        if origin >= 0:
            obs[11, xs[origin], ys[origin]] = 1.0
    if meta[M_PIE] == PIE_PENDING:
        _fill_plane(obs, 12, xs, ys, 1.0)
    quiet = min(1.0, meta[M_QUIET] / prm[P_QT])  # the quiet limit in turns (2K)
    if quiet > 0.0:
        _fill_plane(obs, 13, xs, ys, np.float32(quiet))
    if meta[M_PASSES] > 0:
        _fill_plane(obs, 14, xs, ys, 1.0)


@njit_inner(nrt=False)
def _restart(cells, meta, seen, cells0, meta0, seen0):  # type: ignore[no-untyped-def]
    """A fresh game in a slot: the start state copied in; the slot's epoch moves on, so
    the finishability answers its memo holds from the last game are stale."""
    epoch = meta[M_EPOCH] + 1
    copy_state(cells0, meta0, seen0, cells, meta, seen)
    meta[M_EPOCH] = epoch
    meta[M_SCANNED] = 0


@njit(nrt=False)
def vector_step(tab, prm, cellss, metas, seens, memos, scratches, origins, cells0, meta0,  # type: ignore[no-untyped-def]
                seen0, actions, lengths, max_len, rewards, terminated, truncated, mask,
                legal, nlegal, obs, xs, ys, log, frames, out, hd, autoreset):
    """One step of a batch of games (step ids in ``actions``; ``-1`` = no step: start a
    fresh game there; ``-2``: leave the game and its buffers' rows as they are): play,
    score a finished game (``rewards`` per seat), start a fresh game in a finished or
    truncated slot (with ``autoreset``; else a finished game stays in its final
    position, a terminated one with an empty mask), then write the mask, the legal list
    and the observation of the player to act. ``log``, ``frames``, ``out`` and ``hd`` are work
    buffers the games share (their undo room is emptied after every step)."""
    n = prm[P_N]
    limit = (seens.shape[1] * 3) // 4  # as random_playouts: the table's safe fill
    kinds = tab[6]
    leg_origins = tab[8]
    for b in range(cellss.shape[0]):
        if actions[b] == -2:
            continue
        cells = cellss[b]
        meta = metas[b]
        seen = seens[b]
        memo = memos[b]
        scratch = scratches[b]
        rewards[b, 0] = 0.0
        rewards[b, 1] = 0.0
        terminated[b] = False
        truncated[b] = False
        done = actions[b] < 0
        m = 0
        if not done:
            code = np.int32(actions[b])
            _apply_step(tab, prm, cells, meta, log, frames, seen, code, scratch[7 * n : 8 * n])
            meta[M_NLOG] = 0
            meta[M_NFRAME] = 0
            if kinds[code] == A_LEG:
                origins[b] = leg_origins[code]
            if meta[M_PHASE] == START:
                origins[b] = -1
            lengths[b] += 1
            if meta[M_OVER] != 0:
                terminated[b] = True
                done = True
                seat = winner_seat(tab, prm, cells, meta, scratch)
                if seat >= 0:
                    rewards[b, seat] = 1.0
                    rewards[b, 1 - seat] = -1.0
            else:
                m = generate(tab, prm, cells, meta, log, frames, seen, memo, out, hd, scratch)
                if m == 0 or lengths[b] >= max_len or meta[M_USED] >= limit:
                    # (no step though the game goes on: the rules leave none, but a slot
                    # never stalls)
                    truncated[b] = True
                    done = True
        if done and (autoreset or actions[b] < 0):
            _restart(cells, meta, seen, cells0, meta0, seen0)
            origins[b] = -1
            lengths[b] = 0
            m = generate(tab, prm, cells, meta, log, frames, seen, memo, out, hd, scratch)
        for x in range(nlegal[b]):
            mask[b, legal[b, x]] = False
        for x in range(m):
            a = out[x]
            legal[b, x] = a
            mask[b, a] = True
        nlegal[b] = m
        observe(prm, cells, meta, origins[b], xs, ys, obs[b])



class Batch:
    """``num_envs`` Dendria games of ``rules`` as stacked core states. Each game keeps its
    whole no-repetition history (a table as large as a game can need: compiled code
    without numba's runtime cannot grow it) and its finishability memo; ``log``,
    ``frames`` and the generation's output are shared (emptied after every step).

    The games' state is :attr:`rows` (one row per game, any number of games):
    :meth:`new_rows` makes rows and :meth:`use_rows` steps others, so that
    :mod:`hexgames.integrations.functional` can keep, copy and restore states."""

    def __init__(self, rules: Rules, num_envs: int) -> None:
        self.rules = rules
        core = core_for(rules)
        self.core = core
        self.num_actions = encoding.num_distinct_actions(rules)
        self.observation_shape = encoding.observation_shape(rules)
        self.max_game_length = encoding.max_game_length(rules)
        coords = np.array(core.board.coords, np.int64)
        self._xs, self._ys = coords[:, 0].copy(), coords[:, 1].copy()
        self._start = s0 = core.initial()
        s0.widen_history()
        self.list_size = len(s0.out)
        self.rows: dict[str, np.ndarray] = {}
        self.use_rows(self.new_rows(num_envs))

    def new_rows(self, num_envs: int) -> dict[str, np.ndarray]:
        """State rows for ``num_envs`` games, not started yet (step them with ``-1``)."""
        s0, b = self._start, num_envs
        memo = np.zeros((b, *s0.memo.shape), s0.memo.dtype)
        memo[:] = s0.memo  # empty memo slots, as a fresh state's
        return {"cells": np.zeros((b, *s0.cells.shape), s0.cells.dtype),
                "meta": np.zeros((b, *s0.meta.shape), s0.meta.dtype),
                "seen": np.zeros((b, *s0.seen.shape), s0.seen.dtype), "memo": memo,
                "scratch": np.zeros((b, *s0.scratch.shape), s0.scratch.dtype),
                "origins": np.full(b, -1, np.int64)}

    def use_rows(self, rows: dict[str, np.ndarray]) -> None:
        """Step and read ``rows`` (as :meth:`new_rows` makes them) from now on."""
        self.rows = rows
        self._cells, self._meta, self._seen = rows["cells"], rows["meta"], rows["seen"]
        self._memo, self._scratch, self._origins = rows["memo"], rows["scratch"], rows["origins"]

    @staticmethod
    def is_cached() -> bool:
        """Whether the batch's compiled step is in numba's cache already (else the first
        step compiles it, with the rules it holds: some seconds)."""
        return is_cached(__name__, ("vector_step",))

    def step(self, actions: np.ndarray, lengths: np.ndarray, rewards: np.ndarray,
             terminated: np.ndarray, truncated: np.ndarray, mask: np.ndarray,
             legal: np.ndarray, nlegal: np.ndarray, obs: np.ndarray, *,
             autoreset: bool = True, max_len: int | None = None) -> None:
        """One step id per game (-1: start a fresh game there; -2: leave the game and
        its buffers' rows as they are), into the buffers. A game is truncated after
        ``max_len`` steps (default :attr:`max_game_length`); without ``autoreset`` a
        finished game stays in its final position."""
        c = self.core
        s0 = self._start
        vector_step(c.tab, c.params, self._cells, self._meta, self._seen, self._memo,
                    self._scratch, self._origins, s0.cells, s0.meta, s0.seen, actions,
                    lengths, self.max_game_length if max_len is None else max_len, rewards,
                    terminated, truncated, mask, legal, nlegal, obs, self._xs, self._ys,
                    s0.log, s0.frames, s0.out, s0.hd, autoreset)

    def current_player(self) -> np.ndarray:
        """Seat to act in each game (0 the first player; after the pie rule's swap the
        seats keep their numbers and the colours change hands)."""
        seats: np.ndarray = (self._meta[:, M_TO] ^ self._meta[:, M_SWAPPED]).astype(np.int32)
        return seats

    def position(self, index: int) -> Any:
        """A copy of game ``index`` as a :class:`~hexgames.dendria.core.CoreState`, with
        its whole no-repetition history."""
        state = self._start.copy()
        state.cells[:] = self._cells[index]
        state.meta[:] = self._meta[index]
        state.seen = self._seen[index].copy()
        state.meta[M_SCANNED] = 0  # the kept sight counts are not copied
        return state

    def seat_scores(self, index: int) -> tuple[float, float]:
        """Each seat's score on game ``index``'s board (the first seat is Dark until a
        pie-rule swap, Light after it)."""
        state = self.position(index)
        dark, light = state.scores()
        return (light, dark) if state.swapped else (dark, light)


# the compiled code here has the rules' compiled functions and the layout's constants
# built in (see drop_stale_cache)
drop_stale_cache(__name__, core.__file__, _layout.__file__, _repetition.__file__,
                 _sight.__file__, _jit.__file__)
