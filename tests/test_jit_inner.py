"""Compiled functions without a Python entry (``hexgames._jit.njit_inner``).

numba builds no CPython wrapper for them (it cost a large part of a cold start: each
wrapper unboxes the argument tuples), so a call from Python does not raise, it crashes
the interpreter. These tests keep every such function out of reach of Python code, and
check that the rules still compile and load from the cache with them.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPILED_DECORATORS = {"njit", "njit_inner"}


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    return target.attr if isinstance(target, ast.Attribute) else ""


def _compiled(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {_decorator_name(d) for d in function.decorator_list} & COMPILED_DECORATORS


def _inner_functions() -> dict[str, str]:
    """Name -> module path of every ``@njit_inner`` function in the package."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "src" / "hexgames").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and "njit_inner" in _compiled(node):
                found[node.name] = str(path.relative_to(ROOT))
    return found


def _python_references(path: Path, names: set[str], root: Path = ROOT) -> Iterator[str]:
    """Where code outside compiled functions names one of ``names``: as a plain name,
    or as an attribute of an imported name (``_core.name``; ``position.name`` is some
    object's method of the same name, not ours)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {alias.asname or alias.name.split(".")[0]
                for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
                for alias in node.names}

    def visit(node: ast.AST, compiled: bool) -> Iterator[str]:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inside = bool(_compiled(node))
            for child in node.body:
                yield from visit(child, inside)
            return
        if not compiled:
            if isinstance(node, ast.Name) and node.id in names:
                yield f"{path.relative_to(root)}:{node.lineno} {node.id}"
            if (isinstance(node, ast.Attribute) and node.attr in names
                    and isinstance(node.value, ast.Name) and node.value.id in imported):
                yield f"{path.relative_to(root)}:{node.lineno} {node.attr}"
        for child in ast.iter_child_nodes(node):
            yield from visit(child, compiled)

    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            continue  # importing one for compiled code is fine; calling it is not
        yield from visit(node, False)


def test_inner_functions_exist() -> None:
    inner = _inner_functions()
    assert "_raw_follow_ups" in inner and "_sight_change" in inner, inner


def test_no_python_code_calls_a_compiled_function_without_a_python_entry() -> None:
    inner = _inner_functions()
    names = set(inner)
    files = [p for folder in ("src", "tests", "scripts") for p in (ROOT / folder).rglob("*.py")]
    offenders = [where for path in files for where in _python_references(path, names)]
    assert not offenders, (
        "these call an @njit_inner function from Python, which crashes the interpreter; "
        f"use @njit for it instead: {offenders}")


def test_the_check_sees_a_python_call(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text(
        "from hexgames._jit import njit, njit_inner\n"
        "@njit_inner\ndef helper(x):\n    return x + 1\n"
        "@njit\ndef entry(x):\n    return helper(x)\n"
        "import sample as core\n"
        "def python_side(position):\n"
        "    return core.helper(1) + helper(2) + position.helper(3)\n",
        encoding="utf-8")
    found = list(_python_references(source, {"helper"}, tmp_path))
    assert found == ["sample.py:10 helper", "sample.py:10 helper"], found


@pytest.mark.parametrize("game", ["benediction", "dendria"])
def test_rules_compile_and_load_from_the_cache_with_inner_functions(
        game: str, tmp_path: Path) -> None:
    """A fresh cache: the first interpreter compiles (inner functions included), the
    second loads it and plays; both list the same steps."""
    script = (
        "from hexgames.game import get_game\n"
        f"p = get_game('{game}').new()\n"
        "for _ in range(6):\n"
        "    actions = p.legal_actions()\n"
        "    p.play(actions[len(actions) // 2])\n"
        "print(p.key, len(p.legal_actions()))\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path),
           "PYTHONPATH": str(ROOT / "src")}
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, timeout=600, check=True).stdout for _ in range(2)]
    assert runs[0] == runs[1] and runs[0].strip(), runs
    assert any(tmp_path.rglob("*.nbi")), "nothing was cached"
