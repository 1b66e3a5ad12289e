"""pgx-style functional batched environments on numpy: ``state = env.init(seeds)``,
``state = env.step(state, actions)``.

Why beside the Gymnasium environment (:mod:`.gym_vector`): batched search (AlphaZero- or
MuZero-style self-play, mctx's ``recurrent_fn``) holds many positions at once, expands
some of them and comes back to others. It needs states it can keep, copy, save and
restore, and step on a subset, which an environment that owns its games cannot give. pgx
offers that on JAX; this module offers it on numpy, for every game with a batch
(``Game.vector_batch``: the game's compiled rules, numba), through :func:`make`::

    env = make("dendria", board_side=5)
    state = env.init(np.arange(64))                 # 64 games, one seed each
    state = env.step(state, env.random_actions(state))
    state = env.step(state, actions, where=state.current_player == 0)   # a subset

:class:`State` holds, per game, pgx's fields (``current_player``, ``observation``,
``legal_action_mask``, ``rewards`` per seat ``(B, 2)``, ``terminated``, ``truncated``),
``step_count``, the seed and game number its random actions come from, and the game's
compiled state (``core``, private). States are plain numpy: :meth:`State.copy`,
:meth:`State.take` (a sub-batch), :meth:`State.put`, :meth:`State.save` (``.npz``) and
:meth:`Env.load`.

pgx's conventions: :meth:`Env.step` returns a new state and leaves the one given as it was
(``inplace=True`` steps it instead: no copy, for loops that do not keep the old one);
there is no auto-reset (:meth:`Env.reset` starts fresh games where asked); stepping a
finished game (terminated or truncated) does nothing and gives it zero rewards, whatever
its action; a terminated game's mask is all True (a policy normalised over it never
divides by zero). Unlike pgx, an illegal id raises ``ValueError`` naming the game, and
nothing is played: numpy code can say what was wrong. A game is truncated (reward 0)
after ``max_actions`` actions (default and meaning as in the other adapters,
:func:`.common.length_bound`).

Views, as the PettingZoo adapter's options: ``player_relative`` (each game seen from the
side of its player to act, :func:`.views.player_relative`; where that turns the board,
the mask and the actions are in the turned ids, :func:`.views.action_permutation`) and
``channels_last`` (``(W, W, planes)``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hexgames.game import Game, get_game
from hexgames.integrations import batch_kernels as _k
from hexgames.integrations import views
from hexgames.integrations.common import DEFAULT_MAX_ACTIONS, length_bound, validate_options

__all__ = ["Env", "State", "make"]

#: What a cold start says (as ``hexgames serve`` and the benchmark do).
COMPILING = "compiling the rules engine, once..."

_NO_PERM = np.zeros(1, np.int64)

#: The public per-game arrays of a state, in order.
_FIELDS = ("current_player", "observation", "legal_action_mask", "rewards", "terminated",
           "truncated", "step_count", "seed", "episode")


@dataclass(eq=False)
class State:
    """A batch of games (``B`` = :attr:`batch_size`), every field an array whose first
    axis is the game. See the module docstring; :meth:`Env.step` reads and writes them."""

    #: ``(B,)`` int32: the seat to act (0 the first player).
    current_player: np.ndarray
    #: ``(B, *Env.observation_shape)`` float32: each game seen by its player to act.
    observation: np.ndarray
    #: ``(B, Env.num_actions)`` bool: the legal ids (all True in a terminated game).
    legal_action_mask: np.ndarray
    #: ``(B, 2)`` float32 per seat, of the last step: +1 the winner, -1 the loser.
    rewards: np.ndarray
    #: ``(B,)`` bool: the game ended by its rules (in the last step or before).
    terminated: np.ndarray
    #: ``(B,)`` bool: the game was stopped at ``max_actions``.
    truncated: np.ndarray
    #: ``(B,)`` int64: actions played in the game.
    step_count: np.ndarray
    #: ``(B,)`` int64: the seed of the game's random actions (:meth:`Env.random_actions`).
    seed: np.ndarray
    #: ``(B,)`` int64: games started in the slot before this one (0 after ``init``).
    episode: np.ndarray
    #: The game's compiled state and the batch's work lists (private: what they hold is
    #: the game's business).
    core: dict[str, np.ndarray] = field(repr=False)
    #: What the arrays mean: the game, its rules, the bound and the view (JSON).
    env_id: str = ""

    @property
    def batch_size(self) -> int:
        return int(self.current_player.shape[0])

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array of the state by name (the compiled state's as ``core.NAME``)."""
        named = {name: getattr(self, name) for name in _FIELDS}
        named.update({f"core.{name}": array for name, array in self.core.items()})
        return named

    def _rebuilt(self, transform: Callable[[np.ndarray], np.ndarray]) -> State:
        core = {name: transform(array) for name, array in self.core.items()}
        return State(**{name: transform(getattr(self, name)) for name in _FIELDS},
                     core=core, env_id=self.env_id)

    def copy(self) -> State:
        """An independent copy (nothing shared)."""
        return self._rebuilt(np.array)

    def take(self, index: Any) -> State:
        """A copy of the games at ``index`` (a boolean mask over the games, integer
        indices or a slice), as a batch of their own."""
        index = _game_index(index, self.batch_size)
        return self._rebuilt(lambda array: np.array(array[index]))

    def put(self, index: Any, games: State) -> None:
        """Write the games of ``games`` (a state of the same environment) into the
        slots at ``index``, in order."""
        if games.env_id != self.env_id:
            raise ValueError("the games come from another environment (game, rules or view)")
        index = _game_index(index, self.batch_size)
        mine, theirs = self.arrays(), games.arrays()
        for name, array in mine.items():
            array[index] = theirs[name]

    def save(self, path: str | Path) -> None:
        """Save to ``path`` (numpy ``.npz``); :meth:`Env.load` restores it."""
        arrays: dict[str, Any] = {"env_id": np.array(self.env_id), **self.arrays()}
        np.savez_compressed(path, **arrays)


def _game_index(index: Any, batch_size: int) -> Any:
    """``index`` checked as a selection of games: a boolean mask of ``batch_size``,
    integers in range, or a slice."""
    if isinstance(index, slice):
        return index
    array = np.asarray(index)
    if array.dtype == np.bool_:
        if array.shape != (batch_size,):
            raise ValueError(f"a boolean selection of games needs shape ({batch_size},), "
                             f"got {array.shape}")
        return array
    if not np.issubdtype(array.dtype, np.integer) or array.ndim > 1:
        raise ValueError("games are selected by a boolean mask, integer indices or a slice, "
                         f"got {array.dtype} of shape {array.shape}")
    if array.size and (array.min() < -batch_size or array.max() >= batch_size):
        raise ValueError(f"game index out of range for {batch_size} games")
    return array


class Env:
    """The functional environment of ``game`` (a registered name or a :class:`Game`) with
    rules ``options``: :meth:`init`, :meth:`step`, :meth:`reset`, :meth:`random_actions`,
    :meth:`load` (see the module docstring). ``announce(text)`` is called before the
    first step when the game's compiled step is not in the cache yet (some seconds)."""

    num_players = 2

    def __init__(self, game: str | Game, *, max_actions: int | None = DEFAULT_MAX_ACTIONS,
                 player_relative: bool = False, channels_last: bool = False,
                 announce: Callable[[str], None] | None = None, **options: Any) -> None:
        self.game = get_game(game) if isinstance(game, str) else game
        if self.game.vector_batch is None:
            raise ValueError(f"{self.game.title} has no vectorized environment")
        for name, flag in (("player_relative", player_relative),
                           ("channels_last", channels_last)):
            if not isinstance(flag, bool | np.bool_):
                raise ValueError(f"{name} must be true or false, got {flag!r}")
        self.options = validate_options(self.game, options)
        self.rules = self.game.make_rules(**self.options)
        self.batch = self.game.vector_batch(self.rules, 0)
        self.max_game_length = length_bound(self.game, self.rules, max_actions)
        self.num_actions: int = self.batch.num_actions
        planes, w, _ = self.batch.observation_shape
        self.player_relative = bool(player_relative)
        self.channels_last = bool(channels_last)
        self.observation_shape: tuple[int, ...] = (
            (w, w, planes) if channels_last else (planes, w, w))
        self.id = json.dumps({
            "game": self.game.name, "rules": repr(self.rules),
            "max_actions": self.max_game_length, "player_relative": self.player_relative,
            "channels_last": self.channels_last}, sort_keys=True)
        # what the views need: which plane says "first colour to move", an on-board
        # point to read it at, the planes' exchange and the turned ids
        self._source = np.arange(planes, dtype=np.int64)
        self._first_to_move = self._on_board = 0
        self._rotate = False
        self._perm = _NO_PERM
        if self.player_relative or self.game.view_spec is not None:
            spec = views.view_spec(self.game) if self.player_relative else self.game.view_spec
            assert spec is not None
            self._first_to_move, self._on_board = spec.first_to_move, spec.on_board
            for first, second in spec.color_pairs:
                self._source[first], self._source[second] = second, first
            if self.player_relative and spec.rotate:
                self._rotate = True
                self._perm = views.action_permutation(self.game, self.rules).astype(np.int64)
        start = self.game.observation(self.game.new_position(self.rules), 0)
        x0, y0 = np.argwhere(start[self._on_board] > 0)[0]
        self._x0, self._y0 = int(x0), int(y0)
        self._separate_obs = self.player_relative or self.channels_last
        self._separate_mask = self._rotate
        if announce is not None and not self.batch.is_cached():
            announce(COMPILING)

    # ------------------------------------------------------------------ states
    def init(self, seeds: Any) -> State:
        """Fresh games, one per seed (a 1-D array of integers: the batch size is its
        length); each game's seed drives its :meth:`random_actions`."""
        seed = np.asarray(seeds)
        if seed.ndim != 1 or not np.issubdtype(seed.dtype, np.integer):
            raise ValueError("seeds must be a 1-D array of integers, one per game "
                             f"(e.g. np.arange(64)), got {seed.dtype} of shape {seed.shape}")
        b = int(seed.shape[0])
        planes, w, _ = self.batch.observation_shape
        core = self.batch.new_rows(b)
        core["legal"] = np.zeros((b, self.batch.list_size), np.int32)
        core["nlegal"] = np.zeros(b, np.int64)
        core["turned"] = np.zeros(b, np.bool_)
        if self._separate_obs:
            core["obs"] = np.zeros((b, planes, w, w), np.float32)
        if self._separate_mask:
            core["mask"] = np.zeros((b, self.num_actions), np.bool_)
        state = State(
            current_player=np.zeros(b, np.int32),
            observation=np.zeros((b, *self.observation_shape), np.float32),
            legal_action_mask=np.zeros((b, self.num_actions), np.bool_),
            rewards=np.zeros((b, 2), np.float32), terminated=np.zeros(b, np.bool_),
            truncated=np.zeros(b, np.bool_), step_count=np.zeros(b, np.int64),
            seed=seed.astype(np.int64), episode=np.full(b, -1, np.int64), core=core,
            env_id=self.id)
        return self.reset(state, inplace=True)

    def reset(self, state: State, where: Any = None, *, inplace: bool = False) -> State:
        """Fresh games in the slots at ``where`` (every slot by default; a boolean mask,
        indices or a slice), each counting one more game in its slot (``episode``)."""
        state = self._checked(state, inplace)
        codes = np.full(state.batch_size, _k.PLAY_NOTHING, np.int64)
        codes[self._active(where, state.batch_size)] = _k.START_AGAIN
        self._run(state, codes, np.zeros(state.batch_size, np.bool_))
        return state

    def step(self, state: State, actions: Any, where: Any = None, *,
             inplace: bool = False) -> State:
        """Play one id per game (``(B,)`` integers; those of games not stepped are not
        read) in the games at ``where`` (all by default; a boolean mask, indices or a
        slice); the others stay exactly as they were. A finished game stepped does
        nothing and gets zero rewards."""
        return self.advance(state, actions, where, _k.PLAY_NOTHING, inplace=inplace)

    def advance(self, state: State, actions: Any, where: Any, finished_code: int, *,
                inplace: bool = False) -> State:
        """:meth:`step`, with a finished game given ``finished_code`` (``-2``: stays as it
        is; ``-1``: starts again, Gymnasium's next-step auto-reset)."""
        b = state.batch_size
        acts = np.asarray(actions)
        if acts.shape != (b,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be {b} integer ids (shape ({b},)), got shape "
                             f"{acts.shape} of {acts.dtype}")
        active = self._active(where, b)
        codes = np.empty(b, np.int64)
        bad = _k.prepare(acts.astype(np.int64, copy=False), active, finished_code,
                         state.terminated, state.truncated, state.legal_action_mask,
                         self._perm, state.core["turned"], self.num_actions, codes)
        if bad >= 0:
            raise ValueError(f"action id {int(acts[bad])} is not legal in game {bad}")
        state = self._checked(state, inplace)
        self._run(state, codes, active)
        return state

    def _checked(self, state: State, inplace: bool) -> State:
        if state.env_id != self.id:
            raise ValueError("the state comes from another environment (game, rules or view)")
        return state if inplace else state.copy()

    @staticmethod
    def _active(where: Any, batch_size: int) -> np.ndarray:
        if where is None:
            return np.ones(batch_size, np.bool_)
        index = _game_index(where, batch_size)
        if isinstance(index, np.ndarray) and index.dtype == np.bool_:
            return index
        active = np.zeros(batch_size, np.bool_)
        active[index] = True
        return active

    def _run(self, state: State, codes: np.ndarray, active: np.ndarray) -> None:
        """One call of the game's kernel on ``state``'s arrays, the views around it."""
        core = state.core
        obs = core.get("obs", state.observation)
        mask = core.get("mask", state.legal_action_mask)
        view_mask = state.legal_action_mask
        separate = self._separate_mask
        _k.before_step(codes, active, state.rewards, core["nlegal"], core["legal"], mask,
                       view_mask, separate, self._perm, core["turned"], state.episode)
        self.batch.use_rows(core)
        self.batch.step(codes, state.step_count, state.rewards, state.terminated,
                        state.truncated, mask, core["legal"], core["nlegal"], obs,
                        autoreset=False, max_len=self.max_game_length)
        _k.after_step(codes, state.terminated, core["nlegal"], core["legal"], mask, view_mask,
                      separate, self._perm, core["turned"], self._rotate, obs,
                      self._first_to_move, self._x0, self._y0)
        if self._separate_obs:
            _k.view_observation(codes, obs, state.observation, self.player_relative,
                                self._source, self._first_to_move, self._on_board,
                                self._rotate, self.channels_last, self._x0, self._y0)
        state.current_player[:] = self.batch.current_player()

    # ------------------------------------------------------------------ helpers
    def random_actions(self, state: State) -> np.ndarray:
        """A uniformly random legal id per game (0 for a finished one), a function of
        the game's seed, its number in the slot and its step count only: the same
        games get the same actions whatever else is in the batch."""
        out = np.empty(state.batch_size, np.int64)
        core = state.core
        _k.random_legal(state.seed, state.episode, state.step_count, core["legal"],
                        core["nlegal"], self._perm, core["turned"], out)
        return out

    def position(self, state: State, index: int) -> Any:
        """A copy of game ``index`` as the game's compiled core state (legal codes,
        play and undo, key)."""
        if not 0 <= index < state.batch_size:
            raise IndexError(f"game {index} is not in 0..{state.batch_size - 1}")
        self.batch.use_rows(state.core)
        return self.batch.position(index)

    def seat_scores(self, state: State, index: int) -> tuple[float, float] | None:
        """Each seat's score on game ``index``'s board as it stands, for games that keep
        one (``Game.live_score``; ``None`` otherwise): what a shaped reward reads."""
        if not 0 <= index < state.batch_size:
            raise IndexError(f"game {index} is not in 0..{state.batch_size - 1}")
        self.batch.use_rows(state.core)
        return self.batch.seat_scores(index)

    def load(self, path: str | Path) -> State:
        """A state :meth:`State.save` wrote, checked to be of this environment."""
        with np.load(path, allow_pickle=False) as data:
            env_id = str(data["env_id"])
            if env_id != self.id:
                raise ValueError(f"{path} holds games of another environment: {env_id}")
            core = {name[5:]: np.array(data[name]) for name in data.files
                    if name.startswith("core.")}
            return State(**{name: np.array(data[name]) for name in _FIELDS}, core=core,
                         env_id=env_id)


def make(game: str | Game, **options: Any) -> Env:
    """The :class:`Env` of ``game`` (pgx's ``make``): ``make("benediction",
    board_side=4, player_relative=True)``."""
    return Env(game, **options)
