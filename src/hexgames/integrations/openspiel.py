"""OpenSpiel games for every registered hexgames game.

Importing this module registers one Python game per entry of
:data:`hexgames.game.REGISTRY` with ``pyspiel``::

    import pyspiel
    import hexgames.integrations.openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game("dendria(board_side=5)")
    state = game.new_initial_state()

Every rules option of the game is a game parameter with the option's default. OpenSpiel
parameters cannot be ``None``, so a nullable option (e.g. Benediction's ``max_turns`` or
``supply``) is "off" when its parameter is :func:`off_value` (``0``, or ``-1`` where ``0``
is a legal value). Four more parameters belong to the adapter (:data:`ADAPTER_PARAMETERS`):

* ``max_actions`` (default :data:`~hexgames.integrations.common.DEFAULT_MAX_ACTIONS`,
  0 = the game's own bound): the game stops after that many engine actions and is scored
  as its rules score the position (:func:`~hexgames.integrations.common.stopped_returns`);
* ``auto_forced`` (default false): actions that are the only legal one are played
  automatically, so every OpenSpiel decision is a real choice;
* ``player_relative`` (default false): observation tensors seen from the observer's side
  (:mod:`hexgames.integrations.views`); where that view turns the board (Benediction,
  for Blue), that seat's action ids turn with it (``views.action_permutation``);
* ``channels_last`` (default false): observation tensors ``(W, W, planes)`` instead of
  ``(planes, W, W)``, the layout OpenSpiel's AlphaZero models expect.

The game is sequential, deterministic, perfect-information and zero-sum, with terminal
rewards per seat (+1/-1, 0 for a draw). Action ids, observation tensors and the length
bound come from the game's own encoding (``Game.action_to_id`` etc.); action strings are
the game's notation (``"<invalid ID>"`` for an id that names no action of the board).
``str(state)`` is the board diagram of the terminal game; the compact position text is
``observation_string``. ``undo_action`` takes back an action with the engine's own undo.

The engine position lives in a :class:`PositionBox`: OpenSpiel clones a Python state by
deep-copying its ``__dict__`` and serialises it by pickling that dict, and the box turns
both into the engine's own cheap ``copy()`` and into a replayable list of action notations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from hexgames.game import Game, GameState, Option, game_names, get_game, quote_value
from hexgames.integrations import common, views

__all__ = [
    "ADAPTER_PARAMETERS",
    "GAME_CLASSES",
    "HexGame",
    "HexState",
    "PositionBox",
    "game_type",
    "off_value",
    "options_from_params",
    "params_from_options",
    "register",
]


# --------------------------------------------------------------------------- parameters
def off_value(option: Option) -> int:
    """The integer that stands for ``None`` ("off") in a nullable int option's parameter.

    ``0`` when the option's values start above zero (the natural "unlimited"), ``-1``
    when they start at zero. An option without a minimum of 0 or more has no free value;
    a game declaring one is refused here rather than silently misread.
    """
    if option.minimum is not None and option.minimum > 0:
        return 0
    if option.minimum == 0:
        return -1
    raise ValueError(
        f"nullable option {option.name!r} may be negative, so no integer is free to mean "
        "'off' in an OpenSpiel parameter"
    )


#: Parameters of the adapter itself, added to every game's options, with their defaults.
ADAPTER_PARAMETERS: dict[str, Any] = {
    "max_actions": common.DEFAULT_MAX_ACTIONS,
    "auto_forced": False,
    "player_relative": False,
    "channels_last": False,
}


def _parameter_default(option: Option) -> Any:
    if option.kind == "bool":
        return bool(option.default)
    if option.kind == "int":
        if option.default is None:
            return off_value(option)
        return int(option.default)
    raise ValueError(f"option {option.name!r} has unsupported kind {option.kind!r}")


def describe_parameter(option: Option) -> str:
    """What values an option's OpenSpiel parameter takes: the option's own range, with
    :func:`off_value` standing for "off" (``"an integer of at least 1, or 0 (off)"``)."""
    text = option.describe_valid()
    if option.nullable and option.kind == "int":
        text = text.replace("or none (off)", f"or {off_value(option)} (off)")
    return text


def describe_parameters(game: Game) -> str:
    """Every parameter of ``game``'s OpenSpiel game with the values it takes."""
    rules = ", ".join(f"{o.name} ({describe_parameter(o)})" for o in game.options)
    return (
        f"{rules}, max_actions (an integer of at least 1, or 0 for the game's own bound), "
        "auto_forced (true or false), player_relative (true or false), "
        "channels_last (true or false)"
    )


def params_from_options(game: Game, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """OpenSpiel parameters for rules ``options``: every rules option (defaults filled
    in) and the adapter's own parameters (:data:`ADAPTER_PARAMETERS`; given values kept)."""
    params = {option.name: _parameter_default(option) for option in game.options}
    params.update(ADAPTER_PARAMETERS)
    for name, value in (options or {}).items():
        if name in ADAPTER_PARAMETERS:
            params[name] = value
            continue
        option = _option(game, name)
        if option.nullable and value is None:
            params[option.name] = off_value(option)
        else:
            params[option.name] = bool(value) if option.kind == "bool" else int(value)
    return params


def options_from_params(game: Game, params: dict[str, Any]) -> dict[str, Any]:
    """Rules options for ``Game.make_rules`` from OpenSpiel parameters (the adapter's own
    parameters are skipped).

    ``ValueError`` names an unknown parameter (listing every parameter and its values)
    or a bad value (saying what the parameter takes, :func:`describe_parameter`)."""
    options: dict[str, Any] = {}
    for name, value in params.items():
        if name in ADAPTER_PARAMETERS:
            continue
        option = _option(game, name)
        if option.kind == "int" and option.nullable and value == off_value(option):
            options[option.name] = None
            continue
        try:
            options[option.name] = option.validate(value)
        except ValueError:
            raise ValueError(
                f"{game.name} parameter {name} must be {describe_parameter(option)}, "
                f"got {quote_value(value)}"
            ) from None
    return options


def _adapter_settings(params: dict[str, Any]) -> dict[str, Any]:
    settings = {name: params.get(name, default) for name, default in ADAPTER_PARAMETERS.items()}
    for name in ("auto_forced", "player_relative", "channels_last"):
        if not isinstance(settings[name], bool):
            raise ValueError(f"parameter {name} must be true or false, got {settings[name]!r}")
    max_actions = settings["max_actions"]
    if isinstance(max_actions, bool) or not isinstance(max_actions, int) or max_actions < 0:
        raise ValueError(
            "parameter max_actions must be an integer of at least 1, or 0 for the game's "
            f"own bound, got {max_actions!r}"
        )
    return settings


def _option(game: Game, name: str) -> Option:
    for option in game.options:
        if name == option.name or name in option.aliases:
            return option
    raise ValueError(
        f"{game.name} has no option {name!r}; its parameters are: {describe_parameters(game)}"
    )


def game_type(game: Game) -> pyspiel.GameType:
    """The OpenSpiel description of ``game``: its short name is the registry name."""
    return pyspiel.GameType(
        short_name=game.name,
        long_name=game.title,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params_from_options(game),
    )


# ------------------------------------------------------------------------------- state
class PositionBox:
    """Holds an engine position and its :class:`Game` so that OpenSpiel's clone and
    serialisation stay cheap and exact.

    OpenSpiel clones a Python state by deep-copying its ``__dict__`` and serialises it by
    pickling that dict. ``deepcopy`` of the box uses the engine's ``copy()`` (the one copy
    the adapter makes: a clone must be independent) and shares the (immutable) game
    description; pickling stores the game's name, the rules options and the history in
    notation, and unpickling replays it, so no engine internals are pickled.
    """

    __slots__ = ("game", "position")

    def __init__(self, game: Game, position: GameState) -> None:
        self.game = game
        self.position = position

    def __deepcopy__(self, memo: dict[int, Any]) -> PositionBox:
        return PositionBox(self.game, self.position.copy())

    def __getstate__(self) -> dict[str, Any]:
        return {
            "game": self.game.name,
            "options": self.game.rules_options(self.position.rules),
            "history": [str(action) for action in self.position.history],
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        game = get_game(state["game"])
        position = game.new(**state["options"])
        for notation in state["history"]:
            position.play(notation)
        self.game = game
        self.position = position


@dataclass(frozen=True)
class PlayerAction:
    """One entry of :meth:`HexState.full_history` (``player``, ``action``), like
    ``pyspiel.PlayerAction``, which Python code cannot construct."""

    player: int
    action: int


class HexState(pyspiel.State):
    """An OpenSpiel state wrapping one engine position (make/unmake inside, copied only
    when OpenSpiel clones).

    The history of OpenSpiel actions is kept on the Python side too, so that
    :meth:`undo_action` can take actions back: ``history()``, ``full_history()``,
    ``history_str()``, ``move_number()`` and ``is_initial_state()`` read it. (pyspiel keeps
    its own C++ copy, which Python cannot shorten; only C++ code that reads it directly
    after an undo would see the undone actions.)
    """

    def __init__(self, game: HexGame) -> None:
        super().__init__(game)
        self._cap = game.max_game_length_bound
        self._auto_forced = game.auto_forced
        self._turned_ids = game.turned_ids
        self._box = PositionBox(game.hex_game, game.hex_game.new_position(game.rules))
        #: OpenSpiel actions played: (player, action id, engine actions it made).
        self._played: list[tuple[int, int, int]] = []
        if self._auto_forced:
            common.play_forced(self._box.position, self._cap)

    @property
    def position(self) -> GameState:
        """The engine position, for reading (e.g. to render it or to ask an engine-level
        player for a move). Play through ``apply_action``."""
        return self._box.position

    def _capped(self) -> bool:
        return common.ply(self._box.position) >= self._cap

    # -------------------------------------------------------------- OpenSpiel API
    def current_player(self) -> int:
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self._box.position.current_seat

    def _turning(self, player: int) -> np.ndarray | None:
        """The id permutation when ``player``'s action ids are those of the turned board
        (``player_relative`` in a game whose relative view turns the board), else
        ``None``."""
        if self._turned_ids is None or player < 0:
            return None
        if not views.sees_turned_board(self._box.game, self._box.position, player):
            return None
        return self._turned_ids

    def _absolute(self, player: int, action: int) -> int:
        """The game's own id of ``player``'s action id."""
        turning = self._turning(player)
        if turning is not None and 0 <= action < len(turning):
            return int(turning[action])
        return action

    def id_of(self, action: Any) -> int:
        """The OpenSpiel id of an engine action (or its notation) for the player to act:
        the game's own id, turned where that player's ids are (``player_relative``)."""
        position = self._box.position
        action_id = int(self._box.game.action_to_id(position, action))
        turning = self._turning(position.current_seat)
        if turning is not None:
            return int(turning[action_id])
        return action_id

    def _legal_actions(self, player: int) -> list[int]:
        position = self._box.position
        if self.is_terminal() or player != position.current_seat:
            return []
        encode = self._box.game.action_to_id
        ids = [encode(position, action) for action in position.legal_actions()]
        turning = self._turning(player)
        if turning is not None:
            ids = [int(turning[i]) for i in ids]
        return sorted(ids)

    def _apply_action(self, action: int) -> None:
        position = self._box.position
        player = position.current_seat
        absolute = self._absolute(player, int(action))
        position.play(self._box.game.action_from_id(position, absolute))
        made = 1
        if self._auto_forced:
            made += common.play_forced(position, self._cap)
        self._played.append((player, int(action), made))

    def undo_action(self, player: int, action: int) -> None:
        """Take back the last OpenSpiel action (and the forced actions ``auto_forced``
        played after it) with the engine's own undo; ``ValueError`` when ``(player,
        action)`` is not the last action."""
        if not self._played:
            raise ValueError("no action to undo: this is the initial state")
        last_player, last_action, made = self._played[-1]
        if (last_player, last_action) != (int(player), int(action)):
            raise ValueError(
                f"the last action is {last_action} by player {last_player}, "
                f"not {action} by player {player}"
            )
        for _ in range(made):
            self._box.position.undo()
        self._played.pop()

    def history(self) -> list[int]:
        return [action for _, action, _ in self._played]

    def full_history(self) -> list[PlayerAction]:
        return [PlayerAction(player, action) for player, action, _ in self._played]

    def history_str(self) -> str:
        return ", ".join(str(action) for _, action, _ in self._played)

    def move_number(self) -> int:
        return len(self._played)

    def is_initial_state(self) -> bool:
        return not self._played

    def _action_to_string(self, player: int, action: int) -> str:
        return common.action_string(
            self._box.game, self._box.position, self._absolute(player, action)
        )

    def is_terminal(self) -> bool:
        return self._box.position.is_over or self._capped()

    def returns(self) -> list[float]:
        """Per seat; zeros while the game goes on. A game stopped at the length bound is
        scored as its rules score the position (:func:`common.stopped_returns`)."""
        if not self.is_terminal():
            return [0.0, 0.0]
        return [float(value) for value in common.final_returns(self._box.game, self._box.position)]

    def __str__(self) -> str:
        """The board diagram the terminal game shows (``Game.render_text``)."""
        return str(self._box.game.render_text(self._box.position))


class HexObserver:
    """OpenSpiel observer: the game's observation tensor from a seat's point of view
    (absolute colours, or player-relative with ``player_relative``) and the compact
    position text (perfect information, so both players see the same board)."""

    def __init__(
        self,
        game: Game,
        rules: Any,
        params: dict[str, Any] | None,
        *,
        relative: bool = False,
        channels_last: bool = False,
    ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self._game = game
        self._relative = relative
        self._channels_last = channels_last
        shape = tuple(game.observation_shape(rules))
        if channels_last:
            shape = (*shape[1:], shape[0])
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: HexState, player: int) -> None:
        planes = self._game.observation(state.position, player)
        if self._relative:
            planes = views.player_relative(self._game, state.position, player, planes)
        if self._channels_last:
            planes = views.channels_last(planes)
        self.dict["observation"][...] = planes

    def string_from(self, state: HexState, player: int) -> str:
        return state.position.to_text()


class HexGame(pyspiel.Game):
    """An OpenSpiel game built from a :class:`hexgames.game.Game` and its parameters.

    Registered through one subclass per game (:func:`register`) that sets
    :attr:`hex_game`, because pyspiel creates games from a class and parameters only.
    """

    #: The hexgames game this OpenSpiel game plays (set by each registered subclass).
    hex_game: ClassVar[Game]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        hex_game = self.hex_game
        full = params_from_options(hex_game)
        full.update(params or {})
        self.rules = hex_game.make_rules(**options_from_params(hex_game, full))
        settings = _adapter_settings(full)
        self.auto_forced: bool = settings["auto_forced"]
        self.player_relative: bool = settings["player_relative"]
        self.channels_last: bool = settings["channels_last"]
        #: With ``player_relative`` in a game whose relative view turns the board, the
        #: id permutation of the turned board (the seat seeing it turned acts in it).
        self.turned_ids: np.ndarray | None = None
        if self.player_relative and views.view_spec(hex_game).rotate:
            self.turned_ids = views.action_permutation(hex_game, self.rules)
        self.max_game_length_bound = common.length_bound(
            hex_game, self.rules, settings["max_actions"]
        )
        info = pyspiel.GameInfo(
            num_distinct_actions=int(hex_game.num_distinct_actions(self.rules)),
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.max_game_length_bound,
        )
        super().__init__(game_type(hex_game), info, full)

    def new_initial_state(self) -> HexState:
        return HexState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> Any:
        if iig_obs_type is None or (
            iig_obs_type.public_info and not iig_obs_type.perfect_recall
        ):
            return HexObserver(
                self.hex_game,
                self.rules,
                params,
                relative=self.player_relative,
                channels_last=self.channels_last,
            )
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


#: The class registered for each game, by name.
GAME_CLASSES: dict[str, type[HexGame]] = {}


def register(name: str) -> type[HexGame]:
    """Register the hexgames game ``name`` with pyspiel (idempotent); returns its class.

    pyspiel is handed a class, as in OpenSpiel's own Python games, not a closure: its
    registry is a C++ static destroyed after the interpreter has shut down, and an object
    it owns alone would be freed then and abort the process at exit. A class keeps itself
    alive (it is in its own ``__mro__``), so that last release never frees it.
    """
    hex_game = get_game(name)
    if hex_game.name in GAME_CLASSES:
        return GAME_CLASSES[hex_game.name]
    clash = {option.name for option in hex_game.options} & set(ADAPTER_PARAMETERS)
    if clash:
        raise ValueError(f"{hex_game.name} options {sorted(clash)} clash with adapter parameters")
    game_class = type(
        f"{hex_game.title.replace(' ', '')}OpenSpielGame",
        (HexGame,),
        {
            "hex_game": hex_game,
            "__module__": __name__,
            "__doc__": f"{hex_game.title} as an OpenSpiel game (see {__name__}).",
        },
    )
    GAME_CLASSES[hex_game.name] = game_class
    if hex_game.name not in pyspiel.registered_names():
        pyspiel.register_game(game_type(hex_game), game_class)
    return game_class


for _name in game_names():
    register(_name)
