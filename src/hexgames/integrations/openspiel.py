"""OpenSpiel games for every registered hexgames game.

Importing this module registers one Python game per entry of
:data:`hexgames.game.REGISTRY` with ``pyspiel``::

    import pyspiel
    import hexgames.integrations.openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game("dendria(size=5)")
    state = game.new_initial_state()

Every rules option of the game is a game parameter with the option's default. OpenSpiel
parameters cannot be ``None``, so a nullable option (e.g. Benediction's ``max_turns`` or
``supply``) is "off" when its parameter is :func:`off_value` (``0``, or ``-1`` where ``0``
is a legal value).

The game is sequential, deterministic, perfect-information and zero-sum, with terminal
rewards per seat (+1/-1, 0 for a draw). Action ids, observation tensors and the length
bound come from the game's own encoding (``Game.action_to_id`` etc.); action strings are
the game's notation. A game that reaches ``Game.max_game_length(rules)`` actions without
ending is terminal and scored as a draw, because OpenSpiel requires a finite game.

The engine position lives in a :class:`PositionBox`: OpenSpiel clones a Python state by
deep-copying its ``__dict__`` and serialises it by pickling that dict, and the box turns
both into the engine's own cheap ``copy()`` and into a replayable list of action notations.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from hexgames.game import Game, GameState, Option, game_names, get_game

__all__ = [
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


def _parameter_default(option: Option) -> Any:
    if option.kind == "bool":
        return bool(option.default)
    if option.kind == "int":
        if option.default is None:
            return off_value(option)
        return int(option.default)
    raise ValueError(f"option {option.name!r} has unsupported kind {option.kind!r}")


def params_from_options(game: Game, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """OpenSpiel parameters (every option, defaults filled in) for rules ``options``."""
    params = {option.name: _parameter_default(option) for option in game.options}
    for name, value in (options or {}).items():
        option = _option(game, name)
        if option.nullable and value is None:
            params[name] = off_value(option)
        else:
            params[name] = bool(value) if option.kind == "bool" else int(value)
    return params


def options_from_params(game: Game, params: dict[str, Any]) -> dict[str, Any]:
    """Rules options for ``Game.make_rules`` from OpenSpiel parameters.

    Unknown parameter names raise ``ValueError`` listing the known ones; values are
    validated by the game's own ``make_rules``.
    """
    options: dict[str, Any] = {}
    for name, value in params.items():
        option = _option(game, name)
        if option.kind == "int" and option.nullable and value == off_value(option):
            options[name] = None
        else:
            options[name] = value
    return options


def _option(game: Game, name: str) -> Option:
    for option in game.options:
        if option.name == name:
            return option
    known = ", ".join(option.name for option in game.options)
    raise ValueError(f"{game.name} has no option {name!r}; its options are: {known}")


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
    pickling that dict. ``deepcopy`` of the box uses the engine's ``copy()`` and shares
    the (immutable) game description; pickling stores the game's name, the rules options
    and the history in notation, and unpickling replays it, so no engine internals are
    pickled.
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


class HexState(pyspiel.State):
    """An OpenSpiel state wrapping one engine position (make/unmake inside, copied only
    when OpenSpiel clones)."""

    def __init__(self, game: HexGame) -> None:
        super().__init__(game)
        self._cap = game.max_game_length()
        self._box = PositionBox(game.hex_game, game.hex_game.new_position(game.rules))

    @property
    def position(self) -> GameState:
        """The engine position, for reading (e.g. to render it or to ask an engine-level
        player for a move). Play through ``apply_action``: OpenSpiel keeps its own
        history."""
        return self._box.position

    def _capped(self) -> bool:
        return len(self._box.position.history) >= self._cap

    # -------------------------------------------------------------- OpenSpiel API
    def current_player(self) -> int:
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self._box.position.current_seat

    def _legal_actions(self, player: int) -> list[int]:
        position = self._box.position
        if self.is_terminal() or player != position.current_seat:
            return []
        encode = self._box.game.action_to_id
        return sorted(encode(position, action) for action in position.legal_actions())

    def _apply_action(self, action: int) -> None:
        position = self._box.position
        position.play(self._box.game.action_from_id(position, action))

    def _action_to_string(self, player: int, action: int) -> str:
        return str(self._box.game.action_from_id(self._box.position, action))

    def is_terminal(self) -> bool:
        return self._box.position.is_over or self._capped()

    def returns(self) -> list[float]:
        """Per seat; zeros while the game goes on and for a game stopped at the length
        bound (a draw)."""
        position = self._box.position
        if not position.is_over:
            return [0.0, 0.0]
        return [float(value) for value in position.returns()]

    def __str__(self) -> str:
        return self._box.position.to_text()


class HexObserver:
    """OpenSpiel observer: the game's observation tensor from a seat's point of view and
    the position text (perfect information, so both players see the same board)."""

    def __init__(self, game: Game, rules: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self._game = game
        shape = tuple(game.observation_shape(rules))
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: HexState, player: int) -> None:
        self.dict["observation"][...] = self._game.observation(state.position, player)

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
        info = pyspiel.GameInfo(
            num_distinct_actions=int(hex_game.num_distinct_actions(self.rules)),
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=int(hex_game.max_game_length(self.rules)),
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
            return HexObserver(self.hex_game, self.rules, params)
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
