"""Screenshots of the pages fixed for issue 32 (item 9), at a 1280x800 desktop and a
390x844 phone: start ``hexgames serve`` (SQLite in a temporary folder, a free port), set
each page up through the HTTP API and headless chromium (Playwright), and save one PNG
per page and size as ``fix-<page>-<size>.png``.

    .venv/bin/python tools/layout_shots.py                      # every page, both sizes
    .venv/bin/python tools/layout_shots.py --pages editor hint --sizes phone
    .venv/bin/python tools/layout_shots.py --out /tmp/shots --chromium /usr/bin/chromium

Pages: dendria-end (a six-row final score), dendria-side (a game against the computer:
the side panel, and on a phone the status under the board), editor (a refused
placement), hint (the hint's pop-up), tags (the destinations of a selected man), rules
(Dendria's rules page), lobby (a direct challenge as a third party sees it), player (a
player page naming who is to move). The pictures show the viewport, as a person sees it
on opening the page, at one device pixel per CSS pixel (small files). The server and its
folder are removed at the end, also after a failure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
SIZES: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
#: Dark and Light each with forests of five sizes: a final score of six rows.
SIX_ROWS = """Dendria v1: size=7 to-move=dark
dark trees: a1 b3 b4 d2 d3 d4 f3 f4 f5 f6 h2 h3 h4 h5 h6
light trees: a5 c7 c8 e8 e9 e10 g9 g10 g11 g12 i8 i9 i10 i11 k6
"""
WAIT_MS = 90_000
Cleanup = Callable[[], None] | None


def call(url: str, body: Any = None) -> Any:
    """The JSON answer of a GET (or of a POST of ``body``); raises on an error status."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)


@contextmanager
def serving() -> Iterator[str]:
    """A ``hexgames serve`` on a free port with its data in a temporary folder."""
    folder = tempfile.mkdtemp(prefix="hexgames-shots-")
    process = subprocess.Popen(
        [sys.executable, "-m", "hexgames", "serve", "--port", "0", "--data-dir", folder,
         "--ai-processes", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "DATABASE_URL": ""}, cwd=HERE)
    try:
        assert process.stdout is not None
        seen: list[str] = []
        for line in process.stdout:
            seen.append(line)
            found = re.search(r"http://\S+?(?=/?\s)", line + " ")
            if found:
                threading.Thread(target=seen.extend, args=(process.stdout,), daemon=True).start()
                yield found.group(0).rstrip("/")
                break
        else:
            raise SystemExit(f"the server did not start: {''.join(seen)}")
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


def press(page: Any, size: str, selector: str) -> None:
    """A tap on a phone, a click on a desktop."""
    page.tap(selector) if size == "phone" else page.click(selector)


def open_game(page: Any, server: str, created: dict[str, Any], ready: str) -> None:
    page.goto(f"{server}/play/{created['id']}?token={created['token']}")
    page.wait_for_selector(ready, timeout=WAIT_MS)


def dendria_end(server: str, page: Any, size: str, browser: Any) -> Cleanup:
    created = call(server + "/api/games", {"game": "dendria", "mode": "hotseat",
                                           "start": SIX_ROWS})
    for _ in range(2):
        call(f"{server}/api/games/{created['id']}/actions",
             {"token": created["token"], "action": "pass"})
    open_game(page, server, created, "#final-breakdown:not([hidden]) #breakdown")
    return None


def dendria_side(server: str, page: Any, size: str, browser: Any) -> Cleanup:
    created = call(server + "/api/games", {"game": "dendria", "mode": "ai", "level": 1})
    open_game(page, server, created, "#allowed")
    return None


def editor(server: str, page: Any, size: str, browser: Any) -> Cleanup:
    page.goto(f"{server}/editor?game=benediction")
    page.wait_for_selector("#verdict[data-valid='true']")
    page.click('.palette button[data-kind="red"]')
    page.check("#f-king")
    page.check("#f-cursed")
    press(page, size, '.board svg .hit[data-point="c1"]')
    page.wait_for_selector("#verdict[data-valid='false']")
    return None


def hint(server: str, page: Any, size: str, browser: Any) -> Cleanup:
    created = call(server + "/api/games", {"game": "benediction", "mode": "ai", "level": 1})
    open_game(page, server, created, "#hint-button:not([hidden]):not([disabled])")
    press(page, size, "#hint-button")
    page.wait_for_selector("#toast.show", timeout=WAIT_MS)
    return None


def tags(server: str, page: Any, size: str, browser: Any) -> Cleanup:
    created = call(server + "/api/games", {"game": "benediction", "mode": "hotseat"})
    open_game(page, server, created, ".status .headline.go")
    state = call(f"{server}/api/games/{created['id']}?token={created['token']}")
    origin = next(e["points"][0] for e in state["legal"] if len(e["points"]) == 2
                  and not e["tool"])
    press(page, size, f'.board svg .hit[data-point="{origin}"]')
    page.wait_for_selector(".board svg .target-tag")
    return None


def rules(server: str, page: Any, size: str, browser: Any) -> Cleanup:
    page.goto(f"{server}/rules/dendria")
    page.wait_for_selector("article .diagram.start svg")
    return None


def named(page: Any, server: str, name: str) -> None:
    """This browser's identity takes ``name`` (once per server)."""
    page.goto(server + "/lobby")
    page.evaluate("""async (name) => { await fetch('/api/me/name', {method: 'POST',
        headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name})}); }""",
                  name)


def lobby(server: str, page: Any, size: str, browser: Any) -> Cleanup:
    """A challenge from Ann to Bob, seen by a third party (this page)."""
    poster = browser.new_context(**SIZES["desktop"])
    ann = poster.new_page()
    named(ann, server, f"Ann{size}")
    ann.goto(server + "/lobby")
    ann.select_option("#seek-game", "dendria")
    ann.select_option("#seek-kind", "untimed")
    ann.fill("#seek-target", "Bob")
    ann.click("#seek-submit")
    ann.wait_for_selector("#seek-list .seek button:has-text('Withdraw')")
    page.goto(server + "/lobby")
    page.wait_for_selector("#seek-list .seek .for-other")
    page.locator("#seek-list").scroll_into_view_if_needed()
    return poster.close  # after the picture: her challenge lasts while her lobby is open


def player(server: str, page: Any, size: str, browser: Any) -> Cleanup:
    """Cora's page, seen by Cora: an online game with Dan, her move."""
    other = browser.new_context(**SIZES["desktop"])
    dan = other.new_page()
    cora, dan_name = f"Cora{size}", f"Dan{size}"
    named(page, server, cora)
    named(dan, server, dan_name)
    created = page.evaluate("""async () => (await fetch('/api/games', {method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({game: 'benediction', mode: 'online'})})).json()""")
    dan.goto(server + created["links"]["seats"][1])
    dan.wait_for_selector(".board svg .hit[data-point]", timeout=WAIT_MS)
    page.goto(f"{server}/player/{cora}")
    page.wait_for_selector(f'#playing li[data-id="{created["id"]}"]')
    page.locator("#playing").scroll_into_view_if_needed()
    return other.close


#: Each page's set-up: (server, page, size, browser) -> what to close after the picture.
PAGES: dict[str, Callable[[str, Any, str, Any], Cleanup]] = {
    "dendria-end": dendria_end, "dendria-side": dendria_side, "editor": editor, "hint": hint,
    "tags": tags, "rules": rules, "lobby": lobby, "player": player,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=HERE / "docs" / "images",
                        help="folder for the PNGs (default: docs/images)")
    parser.add_argument("--pages", nargs="+", choices=sorted(PAGES), default=list(PAGES),
                        help="pages to take (default: all)")
    parser.add_argument("--sizes", nargs="+", choices=sorted(SIZES), default=list(SIZES),
                        help="sizes to take (default: both)")
    parser.add_argument("--chromium", default="/usr/bin/chromium",
                        help="the chromium executable (default: /usr/bin/chromium)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with serving() as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium,
                                             args=["--no-sandbox", "--disable-gpu"])
        try:
            for name in args.pages:
                for size in args.sizes:
                    path = args.out / f"fix-{name}-{size}.png"
                    context = browser.new_context(**SIZES[size])
                    try:
                        page = context.new_page()
                        cleanup = PAGES[name](server, page, size, browser)
                        page.screenshot(path=str(path), animations="disabled")
                        if cleanup:
                            cleanup()
                    finally:
                        context.close()
                    print(f"{path} ({path.stat().st_size // 1024} KiB)")
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
