"""The hexgames web site: play Benediction and Dendria in a browser.

Modules: :mod:`.app` (the FastAPI app factory ``create_app``), :mod:`.sockets` (live
play over WebSockets), :mod:`.service` (games of a running server), :mod:`.matches`
(one game and what each viewer sees), :mod:`.hub` (WebSocket broadcasting),
:mod:`.ai_worker` (AI searches in worker processes), :mod:`.storage`
(SQLite/PostgreSQL), :mod:`.options` (validating rules options), :mod:`.rules_pages` and
:mod:`.markdown` (rules pages), :mod:`.cli` (``hexgames serve``), and ``static/`` (the
front end: HTML, CSS and JavaScript modules, no build step).
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(*args: Any, **kwargs: Any) -> Any:
    """See :func:`hexgames.web.app.create_app` (imported lazily: FastAPI is heavy)."""
    from hexgames.web.app import create_app as factory

    return factory(*args, **kwargs)
