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
(its options, action-id encoding, observation tensor, length bound and ``live_score``, and
the game knowledge it declares there: which planes are colour pairs, ``Game.view_spec``;
which symmetries preserve the rules, ``Game.symmetries``; the board, ``Game.board``), so
they never branch on a game's name. The optional dependencies
(``open_spiel``, ``pettingzoo``, ``gymnasium``, ``cairosvg``) are imported by the
submodule that needs them only, which is why this package imports nothing itself.
"""
