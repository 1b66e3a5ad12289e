"""The hexgames web site: play Benediction and Dendria in a browser.

The site is arranged by domain, as lichess's modules are (docs/architecture.md, "The web
app by domain"), each package importing only those below it:

- :mod:`.storage`: SQLite/PostgreSQL and the records they hold;
- :mod:`.accounts`: credentials and mail; :mod:`.game`: one match, its clock, options
  and records; :mod:`.ratings`: Glicko-2 and what it rates; :mod:`.engine`: the AI
  workers and the engines prepared at start;
- :mod:`.play`: live games (actions, offers, clocks, absence, conditional moves, the AI
  queue, the change feed and the hub); :mod:`.lobby` and :mod:`.alerts`;
- :mod:`.service`: the facade the routes call;
- :mod:`.http` (the edge: middleware, limits, identity cookies, language, errors) and
  :mod:`.routes` (one router per domain), the only parts that know FastAPI;
- :mod:`.app` (``create_app``, the wiring), :mod:`.cli` (``hexgames serve``),
  :mod:`.supervisor` and :mod:`.loadtest`; ``templates/`` and ``static/`` (the front
  end: HTML, CSS and JavaScript modules, no build step).
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(*args: Any, **kwargs: Any) -> Any:
    """See :func:`hexgames.web.app.create_app` (imported lazily: FastAPI is heavy)."""
    from hexgames.web.app import create_app as factory

    return factory(*args, **kwargs)
