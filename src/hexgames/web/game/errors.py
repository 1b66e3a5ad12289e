"""The one shape of an error a client is told, built here for HTTP and sockets alike.

An HTTP refusal answers ``{"error": English, "message": the visitor's language}``
(:func:`error_body`; ``error`` is what API clients match on, ``message`` what the site
shows); a socket's refusal is ``{"type": "error", "message": ...}`` (:func:`socket_error`).
Both are bounded (:func:`clip`): a message may quote the client's own input. This module
sits below ``play/`` so that the hub builds its socket messages with it, and the HTTP
edge (``web/http/errors.py``) its responses.
"""

from __future__ import annotations

from typing import Any

from hexgames.i18n import DEFAULT_LANGUAGE, Translator, translator

__all__ = ["MAX_ERROR", "clip", "error_body", "socket_error"]

#: Longest error text a client is sent (it may quote the client's input).
MAX_ERROR = 300


def clip(text: str, limit: int = MAX_ERROR) -> str:
    """``text`` bounded to ``limit`` characters (an ellipsis marks a cut)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_body(message: object, words: Translator | None = None) -> dict[str, str]:
    """``{"error": English, "message": in words' language}`` of ``message`` (a
    :class:`~hexgames.phrases.Phrase` or text), both bounded; ``words`` ``None``: English."""
    english = clip(str(message))
    return {"error": english,
            "message": clip(words.text(message)) if words is not None else english}


def socket_error(message: object, words: Translator | None = None) -> dict[str, Any]:
    """A socket's ``{"type": "error", "message"}`` (in ``words``' language: English for
    a client that names none; bounded)."""
    return {"type": "error",
            "message": clip((words or translator(DEFAULT_LANGUAGE)).text(message))}
