"""``create_app`` is wiring: every route is a handler of a router under ``web/routes/``
(one ``APIRouter`` per domain), the static files are the one mount, and ``app.state``
holds one typed :class:`~hexgames.web.http.state.AppState` instead of a bag of parts."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, APIWebSocketRoute
from starlette.routing import BaseRoute, Mount, Route

import hexgames.web.app as app_module
from hexgames.web.app import ROUTERS, create_app
from hexgames.web.http.state import AppState, app_state

#: The parts that used to be loose attributes of ``app.state``.
OLD_STATE = ("service", "rated_play", "engines", "game_posts", "new_identities",
             "live_positions", "client_limits", "turn_alerts", "turn_emails",
             "profile_exports")


def app_routes(routes: Iterable[BaseRoute]) -> Iterator[BaseRoute]:
    """The routes an app matches, an included router's own routes in its place (recent
    FastAPI keeps an included router as one entry holding ``original_router``)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from app_routes(inner.routes)
        else:
            yield route


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    yield create_app(data_dir=tmp_path_factory.mktemp("wiring"))


def test_every_route_is_a_routers_handler_and_static_is_the_one_mount(app: FastAPI) -> None:
    schema = {app.openapi_url, app.docs_url, app.redoc_url} - {None}
    mounts, handlers = [], 0
    for route in app_routes(app.routes):
        if isinstance(route, Mount):
            mounts.append(route.path)
        elif isinstance(route, APIRoute | APIWebSocketRoute):
            module = route.endpoint.__module__
            assert module.startswith("hexgames.web.routes."), (route.path, module)
            handlers += 1
        else:  # FastAPI's own schema route, and nothing else
            assert isinstance(route, Route) and route.path in schema, route
    assert mounts == ["/static"] and isinstance(app.routes[-1], Mount)  # matched last
    assert handlers > 80


def test_app_py_defines_no_handler_and_stays_small() -> None:
    text = Path(app_module.__file__).read_text()
    assert "@app." not in text and "async def" in text  # only the lifespan
    assert text.count("async def") == 1
    assert len(text.splitlines()) < 300


def test_every_router_is_included_once(app: FastAPI) -> None:
    assert len(ROUTERS) == len({id(router) for router in ROUTERS})
    paths = {(route.path, tuple(sorted(getattr(route, "methods", None) or ())))
             for route in app_routes(app.routes)}
    for router in ROUTERS:
        for route in router.routes:
            assert (route.path, tuple(sorted(getattr(route, "methods", None) or ()))) in paths


def test_app_state_holds_one_typed_app_state(app: FastAPI) -> None:
    site = app_state(app)
    assert isinstance(site, AppState) and app.state.site is site
    for name in OLD_STATE:
        assert not hasattr(app.state, name), name
    assert site.service.storage is not None and site.engines is None
