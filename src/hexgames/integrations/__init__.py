"""Adapters that expose every registered hexgames game to research frameworks.

* :mod:`.openspiel` registers each game with OpenSpiel (``pyspiel.load_game("dendria")``);
* :mod:`.pettingzoo` offers PettingZoo AEC environments (``benediction_v0.env()``);
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
(its options, action-id encoding, observation tensor and length bound), so they never
branch on a game's name. Game knowledge the :class:`~hexgames.game.Game` description does
not hold yet (which planes are colour pairs, which symmetries preserve the rules) is kept
in one mapping per module, keyed by game name (``views.VIEW_SPECS``,
``symmetry.SYMMETRY_GROUPS``), and read from ``Game.extras`` first, so that it can move
into the game packages without changing this code. The optional dependencies
(``open_spiel``, ``pettingzoo``, ``gymnasium``, ``cairosvg``) are imported by the
submodule that needs them only, which is why this package imports nothing itself.
"""
