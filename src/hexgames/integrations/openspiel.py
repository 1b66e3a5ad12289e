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
is a legal value). Four more parameters belong to the adapter (:data:`ADAPTER_PARAMETERS`;
the conversions live in :mod:`hexgames.integrations.openspiel_params`):

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
``observation_string``. The game has perfect information, so the information-state tensor
is the observation tensor and the information-state string the history of actions.
``undo_action`` takes back an action with the engine's own undo.

The engine position lives in a :class:`PositionBox`: OpenSpiel clones a Python state by
deep-copying its ``__dict__`` and serialises it by pickling that dict, and the box turns
both into the engine's own cheap ``copy()`` and into a replayable list of action notations.

Games and states pickle as OpenSpiel's own Python games do (so that OpenSpiel's AlphaZero
can hand them to actor processes): a game as its class (an attribute of this module, so
importing the module in the other process registers the games) and its parameters, a
state as its game and :meth:`HexState.serialize`.
"""

from __future__ import annotations

import base64
import pickle
import sys
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from hexgames.game import Game, GameState, game_names, get_game
from hexgames.integrations import common, views
from hexgames.integrations.openspiel_params import (
    ADAPTER_PARAMETERS,
    adapter_settings,
    describe_parameter,
    describe_parameters,
    off_value,
    options_from_params,
    params_from_options,
)

__all__ = [
    "ADAPTER_PARAMETERS",
    "GAME_CLASSES",
    "HexGame",
    "HexState",
    "PositionBox",
    "describe_parameter",
    "describe_parameters",
    "game_type",
    "off_value",
    "options_from_params",
    "params_from_options",
    "register",
    "restore_state",
]


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
        provides_information_state_tensor=True,
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
    ``history_str()``, ``move_number()``, ``is_initial_state()``, :meth:`serialize` and
    pickling read it. (pyspiel keeps its own C++ copy, which Python cannot shorten; only
    C++ code that reads it directly after an undo, such as ``pyspiel.State.history(state)``
    or ``pyspiel.serialize_game_and_state``, would see the undone actions.)

    Everything in the state's ``__dict__`` is small (OpenSpiel pickles it to serialise a
    state): settings of the game are plain values, and the turned action ids of a
    ``player_relative`` game are looked up in :func:`views.action_permutation`'s cache,
    not stored.
    """

    def __init__(self, game: HexGame) -> None:
        super().__init__(game)
        self._cap = game.max_game_length_bound
        self._auto_forced = game.auto_forced
        self._turns_ids = game.turned_ids is not None
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
        if not self._turns_ids or player < 0:
            return None
        game, position = self._box.game, self._box.position
        if not views.sees_turned_board(game, position, player):
            return None
        return views.action_permutation(game, position.rules)

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

    def serialize(self) -> str:
        """pyspiel's serialisation of a Python state (``history=``, ``move_number=`` and the
        pickled ``__dict__``), with the history kept here, so that it follows
        :meth:`undo_action`; ``game.deserialize_state`` reads it back."""
        history = ",".join(f"{player}:{action}" for player, action, _ in self._played)
        data = base64.b64encode(pickle.dumps(self.__dict__)).decode("ascii")
        return f"history={history}\nmove_number={len(self._played)}\n__dict__={data}"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the game and :meth:`serialize` (:func:`restore_state`), as
        OpenSpiel's own Python states pickle, but with this side's history."""
        return (restore_state, (self.get_game(), self.serialize()))

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
    position text (perfect information, so both players see the same board).

    The information-state observer (``history_string``) has the same tensor, the
    convention for perfect-information games (the position is all there is to know),
    and the history of actions as its string."""

    def __init__(
        self,
        game: Game,
        rules: Any,
        params: dict[str, Any] | None,
        *,
        relative: bool = False,
        channels_last: bool = False,
        history_string: bool = False,
    ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self._game = game
        self._relative = relative
        self._channels_last = channels_last
        self._history_string = history_string
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
        if self._history_string:
            return str(state.history_str())
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
        settings = adapter_settings(full)
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

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the class (an attribute of this module) and the parameters, as
        OpenSpiel's own Python games pickle; unpickling builds the game through
        ``__init__``, so it is a whole working game."""
        return (type(self), (self.get_parameters(),))

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> Any:
        """The observation (``iig_obs_type`` ``None`` or public) and the information state
        (public with perfect recall) both see the board (:class:`HexObserver`); an
        observation of private information alone sees nothing (there is none)."""
        if iig_obs_type is None or iig_obs_type.public_info:
            return HexObserver(
                self.hex_game,
                self.rules,
                params,
                relative=self.player_relative,
                channels_last=self.channels_last,
                history_string=iig_obs_type is not None and iig_obs_type.perfect_recall,
            )
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


def restore_state(game: HexGame, text: str) -> HexState:
    """The state of ``game`` that :meth:`HexState.serialize` wrote to ``text`` (how a
    pickled state is rebuilt)."""
    state: HexState = game.deserialize_state(text)
    return state


#: The class registered for each game, by name.
GAME_CLASSES: dict[str, type[HexGame]] = {}


def register(name: str) -> type[HexGame]:
    """Register the hexgames game ``name`` with pyspiel (idempotent); returns its class.

    pyspiel is handed a class, as in OpenSpiel's own Python games, not a closure: its
    registry is a C++ static destroyed after the interpreter has shut down, and an object
    it owns alone would be freed then and abort the process at exit. A class keeps itself
    alive (it is in its own ``__mro__``), so that last release never frees it.

    The class is also an attribute of this module under its name (e.g.
    ``BenedictionOpenSpielGame``), so that pickle finds it by reference.
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
    globals()[game_class.__name__] = game_class
    if hex_game.name not in pyspiel.registered_names():
        pyspiel.register_game(game_type(hex_game), game_class)
    return game_class


for _name in game_names():
    register(_name)


def run_script(argv: list[str] | None = None) -> int:
    """``python -m hexgames.integrations.openspiel run MODULE [ARGS...]``: run one of
    OpenSpiel's own scripts (``open_spiel.python.examples.alpha_zero``...) with our games
    registered, exactly as ``python -m MODULE ARGS`` would run it.

    pyspiel knows a Python game only once the module defining it is imported, and
    OpenSpiel's scripts load games by name without importing ours; this one is imported
    (it is the program), then MODULE runs as ``__main__`` with ARGS as its own flags. A
    script's spawned worker processes (AlphaZero's actors) re-import the program's main
    module, this one, so they know the games too."""
    import argparse
    import importlib.util
    import runpy

    parser = argparse.ArgumentParser(
        prog="python -m hexgames.integrations.openspiel",
        description="Run an OpenSpiel script with the hexgames games registered.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "run", help="run MODULE as `python -m MODULE ARGS`, the games registered",
        description="e.g. run open_spiel.python.examples.alpha_zero "
                    "--game='dendria(board_side=5)' --path=/tmp/az")
    run.add_argument("module", help="the script's module, e.g. "
                                    "open_spiel.python.examples.alpha_zero")
    run.add_argument("arguments", nargs=argparse.REMAINDER, help="the script's own flags")
    args = parser.parse_args(argv)
    try:
        found = importlib.util.find_spec(args.module)
    except (ImportError, ValueError):
        found = None
    if found is None:
        parser.error(f"no module {args.module!r} to run (is open_spiel installed?)")
    sys.argv = [found.origin or args.module, *args.arguments]
    try:
        runpy.run_module(args.module, run_name="__main__", alter_sys=False)
    except SystemExit as stop:  # absl's app.run ends with sys.exit
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(run_script())
