"""The import graph of ``hexgames`` has no cycles and keeps its layers.

An import circle is a knot in the design wherever the ``import`` statement stands, so the
graph is read from the source (an AST walk over every module): imports at the top, late
imports inside functions and ``if TYPE_CHECKING:`` imports all count. Layer rules on top:

- a game's ``core.py`` (the compiled rules, the bottom layer) reaches none of its package's
  higher modules (the position, the evaluation, the search, the kernel face, the spec...);
- the package's layers (docs/architecture.md, "Layers") point down: foundations, the
  protocol, the game packages (which never import each other), the AI and the
  benchmarks, then the applications (arena, integrations, web...; none imports another)
  and the command line's entry points on top;
- the web app's game and rating logic (``web/game/matches.py``, the Glicko-2 maths) reaches
  nothing of FastAPI/Starlette, so that it can be used and tested without HTTP.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "hexgames"
GAMES = ("benediction", "dendria")
#: The modules of a game package above its compiled core.
HIGHER = ("position", "evaluation", "_fasteval", "_search", "_evalsearch", "kernel", "spec",
          "vector", "encoding", "render", "gestures", "lessons", "editor", "records", "textformat",
          "usage", "leaf_value", "_position_kernels", "_state_from_text", "_refusal",
          "board_analysis")
HTTP_FRAMEWORKS = ("fastapi", "starlette", "uvicorn")
#: The layers of ``hexgames`` from the bottom, by top-level module or subpackage; a module
#: imports only from its own layer or lower ones. In the layers marked ``apart`` the
#: members also keep apart from each other (two games, two applications).
LAYERS: tuple[tuple[frozenset[str], bool], ...] = (
    (frozenset({"hexgrid", "errors", "phrases", "i18n", "_jit", "_svg", "_ctree", "_cleaves",
                "_processes", "_kernel_base"}), False),
    (frozenset({"game", "hooks", "editing", "tutorial"}), False),
    (frozenset(GAMES), True),
    (frozenset({"ai", "bench", "bench_startup"}), False),
    (frozenset({"arena", "integrations", "web", "puzzles", "terminal", "training"}), True),
    (frozenset({"cli", "__main__"}), False),
)


def module_files(src: Path, package: str) -> dict[str, Path]:
    """``dotted.name -> file`` for every module of ``package`` under ``src``."""
    found = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imported_names(name: str, path: Path) -> set[str]:
    """Every dotted name ``path`` imports, wherever the statement stands (relative
    imports resolved; ``from a import b`` counts as ``a`` and ``a.b``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def import_graph(src: Path, package: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """``(graph, external)``: the package-internal edges of each module (a module's own
    parent packages excluded: importing ``hexgames`` from ``hexgames.web.x`` is no circle)
    and the top-level names of everything else it imports."""
    files = module_files(src, package)
    graph: dict[str, set[str]] = {}
    external: dict[str, set[str]] = {}
    for name, path in files.items():
        names = imported_names(name, path)
        graph[name] = {n for n in names
                       if n in files and n != name and not name.startswith(n + ".")}
        external[name] = {n.partition(".")[0] for n in names if n.partition(".")[0] != package}
    return graph, external


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each
    sorted: every one is at least one import circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for successor in graph.get(todo.pop(), ()):
            if successor not in seen:
                seen.add(successor)
                todo.append(successor)
    return seen


def layer_of(module: str) -> tuple[int, str]:
    """``(layer number, top-level name)`` of a module of ``hexgames``."""
    top = module.split(".")[1]
    for number, (members, _) in enumerate(LAYERS):
        if top in members:
            return number, top
    raise LookupError(f"{module} is in no layer: add {top!r} to LAYERS")


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import that points up a layer, or across a layer whose members keep apart."""
    found = []
    for module, successors in sorted(graph.items()):
        if module == PACKAGE:
            continue
        number, top = layer_of(module)
        for successor in sorted(successors):
            if successor == PACKAGE:
                continue
            other, other_top = layer_of(successor)
            if other > number or (other == number and LAYERS[number][1] and other_top != top):
                found.append(f"{module} -> {successor}")
    return found


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


GRAPH, EXTERNAL = import_graph(SRC, PACKAGE)


def test_the_walk_sees_late_and_type_checking_imports(tmp_path: Path) -> None:
    """The guard itself: a circle closed only by a late import, or only under
    TYPE_CHECKING, or through a relative import, is found."""
    _write(tmp_path, {
        "toy/__init__.py": "",
        "toy/low.py": "def f():\n    from toy.high import g\n    return g\n",
        "toy/high.py": "from toy import low\n",
        "toy/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        "toy/b.py": "from . import a\n",
        "toy/clean.py": "import toy.low\n",
    })
    graph, _ = import_graph(tmp_path, "toy")
    assert sorted(cycles(graph)) == [["toy.a", "toy.b"], ["toy.high", "toy.low"]]


def test_no_import_cycle_in_hexgames() -> None:
    assert len(GRAPH) > 50  # the walk found the package
    assert cycles(GRAPH) == []


def test_the_layers_point_down() -> None:
    assert layer_violations(GRAPH) == []


def test_the_layer_rule_sees_an_upward_and_a_sideways_import() -> None:
    toy = {"hexgames.game": {"hexgames.ai.mcts"},  # the protocol reaching up to the AI
           "hexgames.dendria.core": {"hexgames.benediction.core"},  # a game to another
           "hexgames.web.app": {"hexgames.arena.tournament.elo", "hexgames.game"}}  # across, down
    assert layer_violations(toy) == [
        "hexgames.dendria.core -> hexgames.benediction.core",
        "hexgames.game -> hexgames.ai.mcts",
        "hexgames.web.app -> hexgames.arena.tournament.elo",
    ]


@pytest.mark.parametrize("game", GAMES)
def test_a_games_core_reaches_none_of_its_higher_modules(game: str) -> None:
    below = reachable(GRAPH, f"{PACKAGE}.{game}.core")
    higher = {f"{PACKAGE}.{game}.{name}" for name in HIGHER}
    assert not below & higher, sorted(below & higher)


def _http_free(modules: Iterable[str]) -> None:
    for module in modules:
        assert module in GRAPH, f"{module} is gone: update this test"
        reached = {module} | reachable(GRAPH, module)
        offenders = {m: sorted(EXTERNAL[m] & set(HTTP_FRAMEWORKS))
                     for m in reached if EXTERNAL[m] & set(HTTP_FRAMEWORKS)}
        assert not offenders, f"{module} reaches HTTP frameworks through {offenders}"


def test_game_and_rating_logic_know_nothing_of_http() -> None:
    _http_free([f"{PACKAGE}.web.game.matches", f"{PACKAGE}.web.ratings.glicko2"])


def test_the_game_service_and_the_credentials_know_nothing_of_http() -> None:
    """The routes call ``GameService``, a facade over collaborators (live games, change
    feed, AI queue, clock watch, offers, lobby...): none of them, nor the pure
    credentials, reaches a web framework (``web/http/identity.py`` is the FastAPI side)."""
    _http_free([f"{PACKAGE}.web.service", f"{PACKAGE}.web.accounts.credentials",
                f"{PACKAGE}.web.ratings.games"])


#: The web app's packages and top-level modules from the bottom (docs/architecture.md,
#: "The web app by domain"): a module imports only from its own layer or lower ones.
WEB_LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"storage"}),
    frozenset({"accounts"}),
    frozenset({"game"}),
    frozenset({"tournaments", "chat"}),
    frozenset({"ratings"}),
    frozenset({"engine"}),
    frozenset({"play"}),
    frozenset({"alerts", "lobby"}),
    frozenset({"service"}),
    frozenset({"http"}),
    frozenset({"routes"}),
    frozenset({"app", "cli", "supervisor", "loadtest"}),
)
#: Where FastAPI, Starlette and uvicorn may be imported: the HTTP edge.
HTTP_EDGE = frozenset({"routes", "http", "app", "cli", "supervisor"})
WEB = f"{PACKAGE}.web"


def web_part(module: str) -> str | None:
    """The package or top-level module of ``hexgames.web`` that ``module`` is in (``None``
    for ``hexgames.web`` itself and for modules outside it)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "web" else None


def web_layer(part: str) -> int:
    for number, members in enumerate(WEB_LAYERS):
        if part in members:
            return number
    raise LookupError(f"web/{part} is in no web layer: add it to WEB_LAYERS")


def web_layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import inside ``hexgames.web`` that points up a web layer."""
    found = []
    for module, successors in sorted(graph.items()):
        part = web_part(module)
        if part is None:
            continue
        for successor in sorted(successors):
            other = web_part(successor)
            if other is not None and web_layer(other) > web_layer(part):
                found.append(f"{module} -> {successor}")
    return found


def http_outside_the_edge(external: dict[str, set[str]]) -> list[str]:
    """Every module of ``hexgames.web`` outside the HTTP edge that imports a web
    framework itself."""
    return sorted(f"{module}: {sorted(names & set(HTTP_FRAMEWORKS))}"
                  for module, names in external.items()
                  if web_part(module) not in (None, *HTTP_EDGE)
                  and names & set(HTTP_FRAMEWORKS))


def test_the_web_app_is_a_handful_of_modules_and_packages() -> None:
    """web/ by domain: at most 10 top-level modules, the rest in at least 7 packages."""
    web = SRC / PACKAGE / "web"
    modules = sorted(p.name for p in web.glob("*.py"))
    packages = sorted(p.name for p in web.iterdir() if (p / "__init__.py").exists())
    assert len(modules) <= 10, modules
    assert len(packages) >= 7, packages
    assert set(packages) | {m.removesuffix(".py") for m in modules} - {"__init__"} <= {
        part for layer in WEB_LAYERS for part in layer}, "a web part is in no web layer"


def test_the_web_layers_point_down() -> None:
    assert web_layer_violations(GRAPH) == []


def test_only_the_http_edge_imports_web_frameworks() -> None:
    assert http_outside_the_edge(EXTERNAL) == []


def test_the_web_rules_see_an_upward_import_and_a_framework_outside_the_edge() -> None:
    toy_graph = {"hexgames.web.game.matches": {"hexgames.web.play.hub"},
                 "hexgames.web.routes.x": {"hexgames.web.game.matches"}}
    assert web_layer_violations(toy_graph) == [
        "hexgames.web.game.matches -> hexgames.web.play.hub"]
    toy_external = {"hexgames.web.play.hub": {"starlette", "numpy"},
                    "hexgames.web.http.limits": {"starlette"}, "hexgames.arena.x": {"fastapi"}}
    assert http_outside_the_edge(toy_external) == ["hexgames.web.play.hub: ['starlette']"]
