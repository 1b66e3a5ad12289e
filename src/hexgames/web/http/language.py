"""Which language a visitor reads, and the pages and script catalogs in it.

The choice, strongest first: a ``?lang=`` in the address (a shareable link; it is also
remembered), the ``hexgames_lang`` cookie (set by that link or by the switch in the top
bar), then the browser's ``Accept-Language``. English is the fallback for anything else.

Pages are Jinja2 templates (``web/templates``) whose words are ``{{ _("...") }}``; the
scripts get their messages from ``/i18n/<lang>.js`` (a classic script, loaded before the
modules, that sets ``globalThis.HEXGAMES_I18N``; see ``static/js/i18n.js``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import HTTPConnection

from hexgames.game import game_names, get_game
from hexgames.i18n import (
    LANGUAGES,
    Translator,
    negotiate,
    normalize,
    script_catalog,
    translator,
)
from hexgames.phrases import Phrase

TEMPLATES = Path(__file__).parent.parent / "templates"
COOKIE = "hexgames_lang"
COOKIE_MAX_AGE = 400 * 24 * 3600


def chosen_language(connection: HTTPConnection) -> str:
    """The visitor's language for this request or socket."""
    asked = normalize(connection.query_params.get("lang"))
    if asked is not None:
        return asked
    remembered = normalize(connection.cookies.get(COOKIE))
    if remembered is not None:
        return remembered
    return negotiate(connection.headers.get("accept-language"))


def request_translator(connection: HTTPConnection) -> Translator:
    return translator(chosen_language(connection))


def remember(response: Response, connection: HTTPConnection) -> None:
    """A ``?lang=`` link is remembered, as if the visitor had used the switch."""
    asked = normalize(connection.query_params.get("lang"))
    if asked is not None and asked != normalize(connection.cookies.get(COOKIE)):
        response.set_cookie(COOKIE, asked, max_age=COOKIE_MAX_AGE, path="/", samesite="lax")


@cache
def environment() -> Environment:
    return Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(),
                       trim_blocks=True, lstrip_blocks=True)


@cache
def catalog_script(language: str) -> tuple[str, str]:
    """``(javascript, version)``: the script catalog of ``language`` and its hash (the
    address carries the hash, so browsers may cache it for good)."""
    body = "globalThis.HEXGAMES_I18N = " + json.dumps(
        script_catalog(language), ensure_ascii=False, sort_keys=True) + ";\n"
    return body, hashlib.sha256(body.encode()).hexdigest()[:12]


@cache
def compressed_catalog(language: str) -> bytes:
    return gzip.compress(catalog_script(language)[0].encode(), mtime=0)


@cache
def menu_games(language: str) -> tuple[tuple[str, str], ...]:
    """``(name, title)`` of every game, its title in ``language``: the links to the games'
    rules in the top bar (templates/_rules_links.html)."""
    words = translator(language)
    return tuple((name, words.gettext(get_game(name).title)) for name in game_names())


def render_template(name: str, language: str, **context: Any) -> str:
    """The template ``name`` in ``language``, with what every page needs: the words,
    the script catalog's address, the games (their rules' links) and the language switch."""
    words = translator(language)
    _, version = catalog_script(words.language)
    return environment().get_template(name).render(
        _=words.gettext, ngettext=words.ngettext, lang=words.language, languages=LANGUAGES,
        catalog_url=f"/i18n/{words.language}.js?v={version}",
        menu_games=menu_games(words.language), **context)


def page(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """The template ``name`` in the visitor's language."""
    html = render_template(name, chosen_language(request), **context)
    response = HTMLResponse(html, status_code=status_code)
    remember(response, request)
    return response


def said(error: BaseException) -> object:
    """What an exception says to a player: its :class:`~hexgames.phrases.Phrase` when
    it carries one (``IllegalAction.phrase``, or a phrase given as its only argument),
    else its text."""
    phrase = getattr(error, "phrase", None)
    if isinstance(phrase, Phrase):
        return phrase
    if len(error.args) == 1 and isinstance(error.args[0], Phrase):
        return error.args[0]
    return str(error)
