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
    files = [p for folder in ("src", "tests", "tools", "experiments")
             for p in (ROOT / folder).rglob("*.py")]
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


def _compile_sample(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """Compile ``body`` (a module using hexgames._jit) in a fresh interpreter with its
    own cache; the caller reads what it printed."""
    (tmp_path / "nrtsample.py").write_text(
        "import numpy as np\nfrom hexgames._jit import njit, njit_inner\n" + body,
        encoding="utf-8")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(tmp_path)])}
    return subprocess.run([sys.executable, "-c", "import nrtsample"], env=env,
                          capture_output=True, text=True, timeout=600)


def test_without_nrt_there_is_no_reference_counting(tmp_path: Path) -> None:
    """``nrt=False`` is why Dendria's core is fast: a helper that takes arrays from the
    table tuple and slices them counts no references; the same code with numba's
    runtime does (an atomic increment and decrement per array)."""
    run = _compile_sample(tmp_path, (
        "@njit_inner(nrt=False)\n"
        "def helper(tab, x):\n"
        "    a = tab[0][1:]\n    return a[x] + tab[1][x]\n"
        "@njit(nrt=False)\ndef borrowing(tab, x):\n    return helper(tab, x)\n"
        "@njit_inner\n"
        "def counted(tab, x):\n"
        "    a = tab[0][1:]\n    return a[x] + tab[1][x]\n"
        "@njit\ndef counting(tab, x):\n    return counted(tab, x)\n"
        "tab = (np.arange(4), np.arange(4))\n"
        "assert borrowing(tab, 1) == counting(tab, 1) == 3\n"
        "def calls(f):\n"
        "    return sum(text.count('NRT_incref') for text in f.inspect_llvm().values())\n"
        "print(calls(borrowing), calls(counting))\n"))
    assert run.returncode == 0, run.stderr
    borrowing, counting = map(int, run.stdout.split())
    assert borrowing == 0 and counting > 0, run.stdout


def test_without_nrt_making_an_array_does_not_compile(tmp_path: Path) -> None:
    """The flag's safety: a function that makes an array cannot be compiled without
    the runtime (so a wrong ``nrt=False`` is an error at the first call, never a leak),
    and a helper compiled on behalf of a caller without it keeps its own setting."""
    run = _compile_sample(tmp_path, (
        "@njit_inner\ndef makes(n):\n    return np.empty(n).shape[0]\n"
        "@njit(nrt=False)\ndef caller(n):\n    return makes(n)\n"
        "assert caller(3) == 3\n"
        "@njit(nrt=False)\ndef wrong(n):\n    return np.empty(n).shape[0]\n"
        "try:\n    wrong(3)\nexcept Exception as error:\n    print(type(error).__name__)\n"))
    assert run.returncode == 0, run.stderr
    assert "Error" in run.stdout, run.stdout
