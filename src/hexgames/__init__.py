"""hexgames: exact rules engines, AI players and tools for Benediction and Dendria.

The two games live in :mod:`hexgames.benediction` and :mod:`hexgames.dendria`; everything
game-agnostic (AI, arena, web app, research integrations) talks to them through the small
protocol in :mod:`hexgames.game`.
"""

from hexgames.errors import IllegalAction

__all__ = ["IllegalAction", "__version__"]
__version__ = "0.1.0"
