"""PettingZoo AEC environments for every registered hexgames game.

Used like the environments in ``pettingzoo.classic``::

    from hexgames.integrations.pettingzoo import dendria_v0

    env = dendria_v0.env(board_side=5, render_mode="rgb_array")
    env.reset(seed=0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            action = env.action_space(agent).sample(observation["action_mask"])
        env.step(action)

Agents are the seats, ``player_0`` (acts first) and ``player_1``; the agent to act is
always the engine's current seat, so a Benediction turn of two actions is two consecutive
steps by the same agent.

Keyword arguments other than the adapter's own (below) are the game's rules options
(``GAME.options``); an unknown name or a bad value raises ``ValueError`` listing the valid
options and what each takes. The adapter's keywords:

* ``render_mode``: ``"human"`` prints the terminal's board diagram, ``"ansi"`` returns it
  (with ANSI colours), ``"rgb_array"`` rasterises the game's SVG drawing with cairosvg into
  an ``H x W x 3`` uint8 array;
* ``max_actions`` (default :data:`~hexgames.integrations.common.DEFAULT_MAX_ACTIONS`, 0 for
  the game's own bound): a game not over after that many engine actions is **truncated**
  and rewarded as its rules score the position
  (:func:`~hexgames.integrations.common.stopped_returns`: Dendria by the current score,
  Benediction a draw); ``infos[agent]["stopped"]`` is then true;
* ``auto_forced`` (default false): actions that are the only legal one are played
  automatically, so every step is a real choice (``infos[agent]["forced"]`` counts the
  forced actions played after the last step);
* ``player_relative`` (default false): observations seen from the agent's side
  (:func:`~hexgames.integrations.views.player_relative`); where that view turns the board
  (Benediction, for Blue), the agent's action mask and actions turn with it
  (:func:`~hexgames.integrations.views.action_permutation`);
* ``channels_last`` (default false): observations ``(H, W, C)`` instead of ``(C, H, W)``,
  the layout of PettingZoo's classic environments.

Observations are dicts with ``observation`` (the game's float32 tensor, seen by the
agent's seat, values in [0, 1]) and ``action_mask`` (int8 over the fixed action-id space;
all zeros for the agent that is not to act). Rewards (+1/-1, 0 for a draw) are given when
the game ends or is truncated. An action outside the mask given to ``raw_env`` raises
:class:`hexgames.IllegalAction` and changes nothing; ``env()`` wraps it, as
``pettingzoo.classic``'s board games are wrapped, in
``pettingzoo.utils.wrappers.TerminateIllegalWrapper``, which ends the game with -1 for
the agent that chose it.
"""

from __future__ import annotations

import io
import sys
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from hexgames.errors import IllegalAction
from hexgames.game import Game, GameState, game_names, get_game
from hexgames.integrations import common, views

__all__ = ["AGENTS", "HexGameEnv", "environment_module", "svg_to_rgb"]

AGENTS = ("player_0", "player_1")


class HexGameEnv(AECEnv, EzPickle):
    """AEC environment over one :class:`hexgames.game.Game` (see the module docstring).

    Subclassed once per game by :func:`environment_module`, so that ``metadata["name"]``
    (which PettingZoo reads from the class) names the game.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "hexgame_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }
    game_name: ClassVar[str] = ""

    def __init__(
        self,
        render_mode: str | None = None,
        *,
        max_actions: int = common.DEFAULT_MAX_ACTIONS,
        auto_forced: bool = False,
        player_relative: bool = False,
        channels_last: bool = False,
        **options: Any,
    ) -> None:
        EzPickle.__init__(
            self,
            render_mode=render_mode,
            max_actions=max_actions,
            auto_forced=auto_forced,
            player_relative=player_relative,
            channels_last=channels_last,
            **options,
        )
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        for name, flag in (
            ("auto_forced", auto_forced),
            ("player_relative", player_relative),
            ("channels_last", channels_last),
        ):
            if not isinstance(flag, bool):
                raise ValueError(f"{name} must be true or false, got {flag!r}")
        self.game: Game = get_game(self.game_name)
        self.rules = self.game.make_rules(**common.validate_options(self.game, options))
        self.render_mode = render_mode
        self.max_length = common.length_bound(self.game, self.rules, max_actions)
        self.auto_forced = auto_forced
        self.player_relative = player_relative
        self.channels_last = channels_last
        self.turned_ids: np.ndarray | None = None
        if player_relative and views.view_spec(self.game).rotate:
            self.turned_ids = views.action_permutation(self.game, self.rules)
        self.num_actions = int(self.game.num_distinct_actions(self.rules))
        shape = tuple(self.game.observation_shape(self.rules))
        if channels_last:
            shape = (*shape[1:], shape[0])
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8),
                }
            )
            for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(self.num_actions) for agent in AGENTS}
        self.position: GameState = self.game.new_position(self.rules)
        self._reset_bookkeeping()
        self._start()

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # --------------------------------------------------------------- lifecycle
    def _reset_bookkeeping(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = AGENTS[self.position.current_seat]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. The games are deterministic, so ``seed`` only seeds the
        action spaces (for reproducible ``sample()`` calls); ``options`` is unused."""
        if seed is not None:
            for index, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + index)
        self.position = self.game.new_position(self.rules)
        self._reset_bookkeeping()
        self._start()

    def _start(self) -> None:
        if self.auto_forced:
            forced = common.play_forced(self.position, self.max_length)
            if forced:
                self._settle()
                for agent in self.agents:
                    self.infos[agent]["forced"] = forced

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if not self._finished() and seat == self.position.current_seat:
            encode = self.game.action_to_id
            for action in self.position.legal_actions():
                mask[encode(self.position, action)] = 1
        observation = np.asarray(self.game.observation(self.position, seat), dtype=np.float32)
        if self.player_relative:
            observation = views.player_relative(self.game, self.position, seat, observation)
            turning = self._turning(seat)
            if turning is not None:
                mask = mask[turning]
        if self.channels_last:
            observation = views.channels_last(observation)
        return {"observation": observation, "action_mask": mask}

    def id_of(self, action: Any) -> int:
        """The action id of an engine action (or its notation) for the agent to act (turned
        where that agent's ids are, with ``player_relative``)."""
        action_id = int(self.game.action_to_id(self.position, action))
        turning = self._turning(self.position.current_seat)
        if turning is not None:
            return int(turning[action_id])
        return action_id

    def _turning(self, seat: int) -> np.ndarray | None:
        """The id permutation when ``seat`` sees the board turned, and so acts with
        turned ids; else ``None``."""
        if self.turned_ids is None:
            return None
        if not views.sees_turned_board(self.game, self.position, seat):
            return None
        return self.turned_ids

    def _finished(self) -> bool:
        return self.position.is_over or common.ply(self.position) >= self.max_length

    def _settle(self) -> None:
        """After actions were played: end or truncate the game, or pass the turn on."""
        if self.position.is_over or common.ply(self.position) >= self.max_length:
            for seat, value in enumerate(common.final_returns(self.game, self.position)):
                self.rewards[AGENTS[seat]] = float(value)
            if self.position.is_over:
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                self.truncations = dict.fromkeys(self.agents, True)
                for agent in self.agents:
                    self.infos[agent]["stopped"] = True
        else:
            self.agent_selection = AGENTS[self.position.current_seat]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalAction(f"{agent} must choose an action: the game is not over")
        action_id = int(action)
        if not 0 <= action_id < self.num_actions:
            raise IllegalAction(
                f"action id {action_id} is outside the action space 0..{self.num_actions - 1}"
            )
        turning = self._turning(AGENTS.index(agent))
        if turning is not None:
            action_id = int(turning[action_id])
        move = self.game.action_from_id(self.position, action_id)
        self.position.play(move)  # raises IllegalAction, position unchanged, when refused
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.auto_forced:
            forced = common.play_forced(self.position, self.max_length)
            for name in self.agents:
                self.infos[name]["forced"] = forced
        self._settle()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # ---------------------------------------------------------------- display
    def render(self) -> np.ndarray | str | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "human":
            print(self.game.render_text(self.position))
            return None
        if self.render_mode == "ansi":
            return str(self.game.render_text(self.position, color=True))
        return svg_to_rgb(self.game.render_svg(self.position))

    def close(self) -> None:
        """Nothing to release: rendering opens no window."""


def svg_to_rgb(svg: str) -> np.ndarray:
    """Rasterise an SVG drawing into an ``H x W x 3`` uint8 array (white background).

    The PNG is decoded with matplotlib, a declared dependency, rather than with Pillow
    directly.
    """
    import cairosvg
    from matplotlib import image

    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"), background_color="white")
    rgba = image.imread(io.BytesIO(png), format="png")  # float32 in [0, 1]
    return np.rint(rgba[..., :3] * 255).astype(np.uint8)


_MODULES: dict[str, ModuleType] = {}


def _class_name(game: Game) -> str:
    return f"{game.title.replace(' ', '')}Env"


def environment_module(name: str) -> ModuleType:
    """``raw_env`` and ``env`` for the game ``name``, like a ``pettingzoo.classic`` module:
    a real module, ``hexgames.integrations.pettingzoo.<name>_v0`` in ``sys.modules`` (so
    ``import hexgames.integrations.pettingzoo.dendria_v0`` and ``from ... import
    dendria_v0`` both work, and it has a ``__name__``).

    ``env(**kwargs)`` adds PettingZoo's standard wrappers, as ``pettingzoo.classic``'s
    board games do: an action outside the mask ends the game with -1 for the agent that
    chose it (``TerminateIllegalWrapper``: what training code such as Stable-Baselines3's
    ``check_env`` expects), then the action-bounds and call-order checks. ``raw_env``
    raises :class:`hexgames.IllegalAction` instead. Built once per game, so ``raw_env`` is
    one class that pickle finds again by its name.
    """
    game = get_game(name)
    if game.name in _MODULES:
        return _MODULES[game.name]
    raw_env = type(
        _class_name(game),
        (HexGameEnv,),
        {
            "game_name": game.name,
            "metadata": {**HexGameEnv.metadata, "name": f"{game.name}_v0"},
            "__doc__": f"PettingZoo AEC environment of {game.title} (see {__name__}).",
            "__module__": __name__,
        },
    )

    def env(**kwargs: Any) -> AECEnv:
        wrapped: AECEnv = raw_env(**kwargs)
        wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
        wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
        return wrappers.OrderEnforcingWrapper(wrapped)

    env.__doc__ = f"The {game.title} environment with PettingZoo's standard wrappers."
    module = ModuleType(f"{__name__}.{game.name}_v0",
                        f"PettingZoo's AEC environment of {game.title}: env() and raw_env.")
    module.raw_env = raw_env  # type: ignore[attr-defined]
    module.env = env  # type: ignore[attr-defined]
    module.name = f"{game.name}_v0"  # type: ignore[attr-defined]
    module.__package__ = __name__
    sys.modules[module.__name__] = module
    _MODULES[game.name] = module
    return module


def __getattr__(name: str) -> Any:
    """``benediction_v0``, ``dendria_v0``, ... (and their ``raw_env`` classes, by class
    name, for pickle) built on first use for every registered game."""
    for game_name in game_names():
        if name == f"{game_name}_v0":
            return environment_module(game_name)
        if name == _class_name(get_game(game_name)):
            return environment_module(game_name).raw_env
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


for _name in game_names():  # the modules exist as soon as this one is imported
    environment_module(_name)
