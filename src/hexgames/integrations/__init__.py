"""Adapters that expose every registered hexgames game to research frameworks.

* :mod:`.openspiel` registers each game with OpenSpiel (``pyspiel.load_game("dendria")``);
* :mod:`.pettingzoo` offers PettingZoo AEC environments (``benediction_v0.env()``);
* :mod:`.versus` (``python -m hexgames.integrations.versus``) plays our MCTS player
  against OpenSpiel's MCTS bot at equal time per action.

The adapters are game-agnostic: they see a game only through :class:`hexgames.game.Game`
(its options, action-id encoding, observation tensor and length bound), so they never
branch on a game's name. The optional dependencies (``open_spiel``, ``pettingzoo``,
``gymnasium``, ``cairosvg``) are imported by the submodule that needs them only, which is
why this package imports nothing itself.
"""
