"""The HTML 404 page: a person's mistyped address (the API answers JSON instead), in the
visitor's language. Every page route that finds nothing answers with it, and so does
the error table for an unknown page address (:mod:`hexgames.web.http.errors`)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import HTMLResponse

from hexgames.i18n import DEFAULT_LANGUAGE
from hexgames.web.http.language import chosen_language, remember, render_template

__all__ = ["not_found_page", "not_found_response"]


def not_found_page(path: str, language: str = DEFAULT_LANGUAGE) -> str:
    """The HTML 404 page (a person's mistyped address; the API answers JSON instead)."""
    shown = path if len(path) <= 120 else path[:120] + "…"
    return render_template("not_found.html", language, path=shown)


def not_found_response(request: Request, path: str | None = None) -> HTMLResponse:
    """:func:`not_found_page` for ``request`` (its path unless ``path`` is given), in
    the visitor's language (a ``?lang=`` is remembered, as on every page)."""
    shown = request.url.path if path is None else path
    response = HTMLResponse(not_found_page(shown, chosen_language(request)), status_code=404)
    remember(response, request)
    return response
