"""Adapters that expose every registered hexgames game to research frameworks.

* :mod:`.openspiel` registers each game with OpenSpiel (``pyspiel.load_game("dendria")``);
* :mod:`.pettingzoo` offers PettingZoo AEC environments (``benediction_v0.env()``);
* batches of games stepped in one compiled call: :mod:`.vector` (``VectorEnv``),
  :mod:`.functional` (pgx-style states: copy, save, step a subset; its compiled helpers
  in :mod:`.batch_kernels`) and :mod:`.gym_vector` (Gymnasium vector environments on it);
* :mod:`.versus` (``python -m hexgames.integrations.versus``) plays our MCTS player
  against OpenSpiel's MCTS bot at equal time per action;
* :mod:`.baselines` offers our players as ``pyspiel.Bot``s and PettingZoo agents, and an
  OpenSpiel MCTS evaluator on the game's heuristic;
* :mod:`.symmetry` maps observations, actions and policies through the board symmetries
  that preserve a game's rules (data augmentation);
* :mod:`.views` gives player-relative and channels-last observations, and :mod:`.common`
  what both adapters share (option checks, length bound, scoring a stopped game, action
  strings, forced steps).

The adapters are game-agnostic: they see a game only through :class:`hexgames.game.Game`
(its options, action-id encoding, observation tensor, length bound and ``live_score``, and
the game knowledge it declares there: which planes are colour pairs, ``Game.view_spec``;
which symmetries preserve the rules, ``Game.symmetries``; the board, ``Game.board``), so
they never branch on a game's name. The optional dependencies
(``open_spiel``, ``pettingzoo``, ``gymnasium``, ``cairosvg``) are imported by the
submodule that needs them only. The one thing this package does on import: when
gymnasium is installed, it registers the games' Gymnasium ids (:mod:`.gym_registry`:
``gymnasium.make_vec("hexgames/Benediction-v0", num_envs=64)``, :mod:`.gym_vector`), as
Gymnasium has no other way to find them.
"""

from importlib.util import find_spec as _find_spec

if _find_spec("gymnasium") is not None:
    from hexgames.integrations import gym_registry as _gym_registry

    _gym_registry.register()
