"""The site's languages for scripts: each language's catalog as a script
(``/i18n/<lang>.js``, cached for ever, gzip when accepted) and ``GET /api/languages``
(the languages and the one this visitor reads)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from hexgames.i18n import DEFAULT_LANGUAGE, LANGUAGES, normalize
from hexgames.web.http.language import catalog_script, chosen_language, compressed_catalog

__all__ = ["router"]

router = APIRouter()


@router.get("/i18n/{language}.js", include_in_schema=False)
async def catalog(language: str, request: Request) -> Response:
    code = normalize(language) if language in LANGUAGES else None
    body, _ = catalog_script(code or DEFAULT_LANGUAGE)
    headers = {"Cache-Control": "public, max-age=31536000, immutable",
               "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", "").lower():
        # A catalog is ~120 kB of text and ~30 kB compressed (compressed once).
        headers["Content-Encoding"] = "gzip"
        return Response(compressed_catalog(code or DEFAULT_LANGUAGE),
                        media_type="text/javascript; charset=utf-8", headers=headers)
    return Response(body, media_type="text/javascript; charset=utf-8", headers=headers)


@router.get("/api/languages")
async def languages(request: Request) -> dict[str, Any]:
    """The languages the site speaks and the one this visitor reads."""
    return {"languages": [{"code": code, "name": name} for code, name in LANGUAGES.items()],
            "current": chosen_language(request)}
