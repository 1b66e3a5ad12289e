"""hexgames: exact rules engines, AI players and tools for Benediction and Dendria.

The two games live in :mod:`hexgames.benediction` and :mod:`hexgames.dendria`; everything
game-agnostic (AI, arena, web app, research integrations) talks to them through the small
protocol in :mod:`hexgames.game`.
"""

import sys as _sys

from hexgames.errors import IllegalAction

if "gymnasium" in _sys.modules:
    # gymnasium is loaded already: register the games' Gymnasium ids
    # (hexgames/Benediction-v0, ...), which imports neither the games nor numba
    from hexgames.integrations import gym_registry as _gym_registry

    _gym_registry.register()

__all__ = ["IllegalAction", "__version__"]
__version__ = "0.1.0"
