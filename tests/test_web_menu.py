"""Every page has the site's one menu (issue 40): templates/base.html draws the top bar,
templates/_menu.html its menu, the same entries in the same order on every page and in
every language, the page's own entry marked ``aria-current="page"``; the page's own
links (those its script fills in) sit beside it, under the ids the scripts use."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hexgames.game import game_names
from hexgames.i18n import LANGUAGES
from hexgames.web.app import create_app

#: path -> (the menu entry marked current (its href) or None, ids the page's scripts use
#: in the top bar). A game's rules, a lesson, a game and a replay are no section of the
#: site: their links are the page's own (beside the menu).
PAGES: dict[str, tuple[str | None, set[str]]] = {
    "/": ("/", {"me-link"}),
    "/lobby": ("/lobby", {"me-link", "conn"}),
    "/puzzles": ("/puzzles", {"me-link", "learn-link", "rules-link"}),
    "/puzzles/dendria": ("/puzzles", {"me-link", "learn-link", "rules-link"}),
    "/editor": ("/editor", {"rules-link"}),
    "/analysis": ("/analysis", {"back"}),
    "/leaderboard": ("/leaderboard", {"me-link"}),
    "/tournaments": ("/tournaments", {"me-link"}),
    "/tv/benediction": ("/tv", {"me-link"}),
    "/rules/benediction": (None, set()),
    "/rules/dendria": (None, set()),
    "/learn/dendria": (None, {"rules-link"}),
    "/play/some-game": (None, {"rules-link", "me-link", "conn"}),
    "/replay/some-game": (None, {"back", "analyse"}),
    "/player/someone": (None, {"me-link"}),
    "/no/such/page": (None, set()),
    "/alerts/verify?token=nothing": (None, set()),
    "/alerts/stop?player=nobody&key=none": (None, set()),
}


class _TopBar(HTMLParser):
    """The menus of a page (each a list of ``(href, text, current)``), the ids in its
    top bar and its page links (``.page-links``: ``(href, current)``)."""

    def __init__(self) -> None:
        super().__init__()
        self.menus: list[list[tuple[str, str, bool]]] = []
        self.ids: set[str] = set()
        self.page_links: list[tuple[str, bool]] = []
        self._in_links = False
        self._in_bar = self._in_menu = False
        self._link: list[str] | None = None
        self._current = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "header" and "topbar" in (found.get("class") or ""):
            self._in_bar = True
        if self._in_bar and found.get("id"):
            self.ids.add(str(found["id"]))
        if tag == "span" and found.get("class") == "page-links":
            self._in_links = True
        elif tag == "a" and self._in_links:
            self.page_links.append((str(found.get("href")), found.get("aria-current") == "page"))
        if tag == "nav":
            self._in_menu = True
            self.menus.append([])
        elif tag == "a" and self._in_menu:
            self._link = [str(found.get("href")), ""]
            self._current = found.get("aria-current") == "page"

    def handle_data(self, data: str) -> None:
        if self._link is not None:
            self._link[1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "header":
            self._in_bar = False
        elif tag == "span":
            self._in_links = False
        elif tag == "nav":
            self._in_menu = False
        elif tag == "a" and self._link is not None:
            self.menus[-1].append((self._link[0], self._link[1], self._current))
            self._link = None


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path: Path = tmp_path_factory.mktemp("menu")
    with TestClient(create_app(data_dir=path, ai_processes=1)) as test_client:
        yield test_client


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_page_has_the_one_menu_with_its_own_entry_current(client: TestClient,
                                                                 language: str) -> None:
    menus: dict[str, list[tuple[str, str]]] = {}
    for path, (current, ids) in PAGES.items():
        answer = client.get(path, params={"lang": language})
        assert answer.status_code in (200, 404), (path, answer.status_code)
        assert answer.headers["content-type"].startswith("text/html"), path
        bar = _TopBar()
        bar.feed(answer.text)
        assert len(bar.menus) == 1, f"{path}: {len(bar.menus)} menus"
        (menu,) = bar.menus
        menus[path] = [(href, text) for href, text, _ in menu]
        marked = [href for href, _, is_current in menu if is_current]
        assert marked == ([current] if current else []), (path, marked)
        assert ids <= bar.ids, (path, ids - bar.ids)
    first = menus["/"]
    hrefs = [href for href, _ in first]
    assert hrefs == ["/", "/lobby", "/tournaments", "/puzzles", "/editor", "/analysis",
                     "/leaderboard", "/tv", "/"]
    assert all(text.strip() for _, text in first)
    for path, menu in menus.items():
        assert menu == first, f"{path}'s menu differs from the home page's"


def test_the_menu_speaks_the_pages_language(client: TestClient) -> None:
    """The menu's words are translated with the page (the same entries, other words)."""
    texts = {}
    for language in LANGUAGES:
        bar = _TopBar()
        bar.feed(client.get("/lobby", params={"lang": language}).text)
        texts[language] = [text for _, text, _ in bar.menus[0]]
    assert len(set(map(tuple, texts.values()))) == len(LANGUAGES)


@pytest.mark.parametrize("path", ["/rules/benediction", "/rules/dendria", "/", "/nowhere"])
def test_the_rules_links_beside_the_menu_mark_the_game_shown(client: TestClient,
                                                              path: str) -> None:
    """The home, rules and not-found pages link every game's rules beside the menu; on a
    game's rules its own link is current."""
    bar = _TopBar()
    bar.feed(client.get(path).text)
    shown = path.removeprefix("/rules/") if path.startswith("/rules/") else None
    assert bar.page_links == [(f"/rules/{name}", name == shown) for name in game_names()]
