"""Gymnasium environments of the games: ``gymnasium.make_vec("hexgames/Benediction-v0",
num_envs=64)`` (and ``"hexgames/Dendria-v0"``) gives a :class:`GymVectorEnv`, a
``gymnasium.vector.VectorEnv`` stepping all its games in one compiled call;
``gymnasium.make("hexgames/Benediction-v0")`` gives one game, a :class:`GymEnv`. The ids
are registered by :mod:`.gym_registry` (when ``hexgames.integrations`` is imported, or
``hexgames`` after ``gymnasium``).

Both play **self-play**: one agent acts for whichever seat is to act, and the reward of a
step is the one of the seat that acted (the mover's point of view): +1 when its action
won the game, -1 when it lost it (Benediction: a player may end the game against
itself), 0 otherwise. Per step, ``infos["action_mask"]`` holds the legal ids (bool,
``(num_envs, num_actions)``) and ``infos["current_player"]`` the seat to act next (0 the
first player), each with its Gymnasium ``_key`` mask.

Everything is :mod:`.functional` underneath (``env.functional``, its state in
``env.state``), with the options of the other adapters: rules options as keywords,
``max_actions`` (a game not over after so many actions is truncated, reward 0),
``player_relative`` and ``channels_last``. ``autoreset_mode``
(``gymnasium.vector.AutoresetMode``, or its value) is one of Gymnasium's three, as its
``SyncVectorEnv`` does them (the tests compare the two step by step):

* ``NEXT_STEP`` (default): the step that ends a game returns its final observation;
  the next step starts a fresh game there, ignoring that game's action (reward 0);
* ``SAME_STEP``: the step that ends a game returns the fresh game's observation, the
  final one in ``infos["final_obs"]`` (and ``infos["final_info"]``);
* ``DISABLED``: ended games wait for ``reset(options={"reset_mask": mask})``.

``copy=True`` (Gymnasium's default) returns new observation and mask arrays each step;
``copy=False`` returns the environment's own buffers, overwritten by the next step (the
fastest loop, as :class:`.vector.VectorEnv`). An illegal id raises ``ValueError`` naming
the game, and nothing is played.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from hexgames.errors import IllegalAction
from hexgames.integrations.common import DEFAULT_MAX_ACTIONS
from hexgames.integrations.functional import Env, State

__all__ = ["GymEnv", "GymVectorEnv", "make_env", "make_vector_env"]

_START_AGAIN = -1
_PLAY_NOTHING = -2


def _seeds(seed: int | list[int] | None, count: int,
           rng: np.random.Generator) -> np.ndarray:
    """Per-game seeds as ``SyncVectorEnv`` hands them out: ``seed + i``, a list, or
    drawn from the environment's generator."""
    if seed is None:
        return rng.integers(0, 2**62, size=count, dtype=np.int64)
    if isinstance(seed, int | np.integer):
        return int(seed) + np.arange(count, dtype=np.int64)
    seeds = np.asarray(seed, np.int64)
    if seeds.shape != (count,):
        raise ValueError(f"seed: an integer or {count} integers, got {seed!r}")
    return seeds


def _spaces(env: Env) -> tuple[spaces.Box, spaces.Discrete]:
    return (spaces.Box(0.0, 1.0, env.observation_shape, np.float32),
            spaces.Discrete(env.num_actions))


class GymVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of ``game`` as a Gymnasium vector environment (see the module
    docstring)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (an instance's: Gymnasium's declaration)
        "autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, game: str = "benediction", num_envs: int = 1, *,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 copy: bool = True, max_actions: int | None = DEFAULT_MAX_ACTIONS,
                 player_relative: bool = False, channels_last: bool = False,
                 render_mode: str | None = None, **options: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if render_mode is not None:
            raise ValueError(f"render_mode {render_mode!r}: the vector environment does not "
                             "render (render one game through hexgames.game instead)")
        try:
            self.autoreset_mode = AutoresetMode(autoreset_mode)
        except ValueError:
            valid = ", ".join(mode.value for mode in AutoresetMode)
            raise ValueError(f"autoreset_mode {autoreset_mode!r}: one of {valid}") from None
        self.functional = Env(game, max_actions=max_actions, player_relative=player_relative,
                       channels_last=channels_last, **options)
        self.num_envs = num_envs
        self.copy = bool(copy)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.single_observation_space, self.single_action_space = _spaces(self.functional)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.state: State | None = None
        self._all = np.ones(num_envs, np.bool_)
        self._rows = np.arange(num_envs)

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start fresh games: all of them, or those of ``options["reset_mask"]`` (a bool
        array of ``num_envs``; the others are left as they are). Each game's seed
        (``seed + i``, as ``SyncVectorEnv``; without ``seed``, a game started again
        keeps its seed and counts one more game) drives :meth:`random_actions`."""
        super().reset(seed=seed if seed is None or isinstance(seed, int) else int(seed[0]))
        options = dict(options or {})
        reset_mask = options.pop("reset_mask", None)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; the one there is: "
                             "reset_mask")
        if reset_mask is None or self.state is None:
            if reset_mask is not None:
                raise ValueError("reset(options={'reset_mask': ...}) needs a first reset()")
            self.state = self.functional.init(_seeds(seed, self.num_envs, self.np_random))
            return self._observation(), self._infos(self._all, self.copy)
        mask = np.asarray(reset_mask)
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_ or not mask.any():
            raise ValueError(f"options['reset_mask'] must be a bool array of shape "
                             f"({self.num_envs},) with at least one True, got {reset_mask!r}")
        self.functional.reset(self.state, mask, inplace=True)
        if seed is not None:
            self.state.seed[mask] = _seeds(seed, self.num_envs, self.np_random)[mask]
            self.state.episode[mask] = 0
        return self._observation(), self._infos(mask, self.copy)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """One id per game; ``(observations, rewards, terminations, truncations,
        infos)``, the rewards (float64) from the point of view of the seat that acted."""
        state = self._started()
        mover = state.current_player.copy()
        mode = self.autoreset_mode
        if mode == AutoresetMode.DISABLED:
            ended = state.terminated | state.truncated
            if ended.any():
                raise ValueError(f"game {int(np.flatnonzero(ended)[0])} has ended: start it "
                                 "again with reset(options={'reset_mask': ...}) first")
        finished = _START_AGAIN if mode == AutoresetMode.NEXT_STEP else _PLAY_NOTHING
        self.functional.advance(state, actions, None, finished, inplace=True)
        rewards = state.rewards[self._rows, mover].astype(np.float64)
        terminations, truncations = state.terminated.copy(), state.truncated.copy()
        infos: dict[str, Any] = {}
        if mode == AutoresetMode.SAME_STEP:
            ended = terminations | truncations
            if ended.any():
                infos = self._finals(ended)
                self.functional.reset(state, ended, inplace=True)
        infos.update(self._infos(self._all, self.copy))
        return self._observation(), rewards, terminations, truncations, infos

    # ------------------------------------------------------------------ helpers
    def random_actions(self) -> np.ndarray:
        """A uniformly random legal id per game (:meth:`.functional.Env.random_actions`:
        seeded by ``reset(seed=...)``; any id for an ended game, whose action is not
        read)."""
        return self.functional.random_actions(self._started())

    def _started(self) -> State:
        if self.state is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        return self.state

    def _observation(self) -> np.ndarray:
        state = self._started()
        return state.observation.copy() if self.copy else state.observation

    def _infos(self, rows: np.ndarray, copy: bool) -> dict[str, Any]:
        """The per-step infos of the games at ``rows`` (bool), in ``SyncVectorEnv``'s
        form (the environment's own mask array when all games and not ``copy``)."""
        state = self._started()
        if rows is self._all:
            mask = state.legal_action_mask.copy() if copy else state.legal_action_mask
            player = state.current_player.copy()
        else:
            mask = np.zeros_like(state.legal_action_mask)
            mask[rows] = state.legal_action_mask[rows]
            player = np.zeros_like(state.current_player)
            player[rows] = state.current_player[rows]
        return {"action_mask": mask, "_action_mask": rows.copy(),
                "current_player": player, "_current_player": rows.copy()}

    def _finals(self, ended: np.ndarray) -> dict[str, Any]:
        """``final_obs`` and ``final_info`` of the games that ended (``SAME_STEP``)."""
        state = self._started()
        final_obs = np.full(self.num_envs, None, dtype=object)
        for b in np.flatnonzero(ended):
            final_obs[b] = state.observation[b].copy()
        return {"final_obs": final_obs, "_final_obs": ended.copy(),
                "final_info": self._infos(ended, True), "_final_info": ended.copy()}


#: What :class:`GymEnv` does with an id the mask does not allow.
ILLEGAL_ACTIONS = ("lose", "raise")


class GymEnv(gymnasium.Env):
    """One game of ``game`` as a Gymnasium environment (self-play; see the module
    docstring): ``info["action_mask"]`` and ``info["current_player"]`` each step.

    ``illegal_action`` says what an id the mask does not allow does, since an agent (or
    Gymnasium's ``check_env``) that samples ``action_space`` unmasked sends them:
    ``"lose"`` (the default, PettingZoo's ``TerminateIllegalWrapper`` rule) ends the game,
    the mover losing (reward -1, ``terminated``, ``info["illegal_action"]`` True, nothing
    played); ``"raise"`` raises :class:`hexgames.IllegalAction` and changes nothing."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (as Gymnasium declares it)

    def __init__(self, game: str = "benediction", *,
                 max_actions: int | None = DEFAULT_MAX_ACTIONS, player_relative: bool = False,
                 channels_last: bool = False, render_mode: str | None = None,
                 illegal_action: str = "lose", **options: Any) -> None:
        if render_mode is not None:
            raise ValueError(f"render_mode {render_mode!r}: this environment does not render")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, "
                             f"not {illegal_action!r}")
        self.illegal_action = illegal_action
        self.functional = Env(game, max_actions=max_actions, player_relative=player_relative,
                       channels_last=channels_last, **options)
        self.observation_space, self.action_space = _spaces(self.functional)
        self.state: State | None = None
        #: The game was ended by an illegal id (``illegal_action="lose"``).
        self._forfeited = False

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}")
        self.state = self.functional.init(_seeds(seed, 1, self.np_random))
        self._forfeited = False
        return self.state.observation[0].copy(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.state is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        state = self.state
        mover = int(state.current_player[0])
        if self._forfeited:  # as a game over by its rules: nothing more happens
            return state.observation[0].copy(), 0.0, True, False, self._info()
        if self.illegal_action == "lose" and not self._allowed(action):
            self._forfeited = True
            return (state.observation[0].copy(), -1.0, True, False,
                    {**self._info(), "illegal_action": True})
        try:
            self.functional.step(state, np.array([action], np.int64), inplace=True)
        except ValueError as error:
            raise IllegalAction(f"action id {action} is not legal here") from error
        return (state.observation[0].copy(), float(state.rewards[0, mover]),
                bool(state.terminated[0]), bool(state.truncated[0]), self._info())

    def _allowed(self, action: Any) -> bool:
        """Is ``action`` an id the current mask allows (a game over allows any)?"""
        assert self.state is not None
        try:
            index = int(action)
        except (TypeError, ValueError):
            return False
        mask = self.state.legal_action_mask[0]
        return 0 <= index < mask.shape[0] and bool(mask[index])

    def random_action(self) -> int:
        """A uniformly random legal id (seeded by ``reset(seed=...)``)."""
        if self.state is None:
            raise gymnasium.error.ResetNeeded("call reset() first")
        return int(self.functional.random_actions(self.state)[0])

    def _info(self) -> dict[str, Any]:
        assert self.state is not None
        return {"action_mask": self.state.legal_action_mask[0].copy(),
                "current_player": self.state.current_player[0]}


def make_vector_env(num_envs: int = 1, game: str = "benediction", **options: Any) -> GymVectorEnv:
    """The vector entry point of the registered ids (``gymnasium.make_vec``)."""
    return GymVectorEnv(game, num_envs, **options)


def make_env(game: str = "benediction", **options: Any) -> GymEnv:
    """The entry point of the registered ids (``gymnasium.make``)."""
    return GymEnv(game, **options)
