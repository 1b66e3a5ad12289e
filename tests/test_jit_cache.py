"""hexgames._jit for an installed package that cannot be written to: the compiled code
is cached in the user's cache directory instead of next to the sources."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "hexgames"

PROBE = '''
import os, sys
import hexgames._jit as jit
from hexgames._jit import njit

@njit
def twice(x):
    return 2 * x

import numba
print(os.environ.get("NUMBA_CACHE_DIR") or "-")
print(numba.config.CACHE_DIR or "-")
print(twice(21))
'''


def _install(tmp_path: Path) -> Path:
    """A copy of the package whose game directories cannot hold a ``__pycache__``
    (a plain file stands in its place: ``mkdir`` fails there for any user, root too)."""
    site = tmp_path / "site"
    shutil.copytree(SRC, site / "hexgames", ignore=shutil.ignore_patterns("__pycache__"))
    for game in ("benediction", "dendria"):
        (site / "hexgames" / game / "__pycache__").write_text("not a directory\n")
    (site / "probe.py").write_text(PROBE)
    return site


def _run(site: Path, xdg: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(site), XDG_CACHE_HOME=str(xdg), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", "import probe"], env=env, cwd=site,
                          capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_a_package_that_cannot_be_written_caches_in_the_user_cache_dir(tmp_path):
    site = _install(tmp_path)
    xdg = tmp_path / "xdg"
    expected = str(xdg / "hexgames" / "numba")
    assert _run(site, xdg) == [expected, expected, "42"]
    index = list((xdg / "hexgames" / "numba").rglob("probe.twice-*.nbi"))
    assert index, "numba wrote no cache index in the user cache directory"
    # the second interpreter loads it from there (the index is not written again)
    stamp = index[0].stat().st_mtime_ns
    assert _run(site, xdg) == [expected, expected, "42"]
    assert index[0].stat().st_mtime_ns == stamp
    assert not any(site.rglob("*.nbi"))


def test_a_writable_package_keeps_its_cache_next_to_the_sources(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(SRC, site / "hexgames", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "probe.py").write_text(PROBE)
    assert _run(site, tmp_path / "xdg") == ["-", "-", "42"]
    assert not (tmp_path / "xdg").exists()
    assert any((site / "__pycache__").glob("probe.twice-*.nbi"))


def test_direct_calls_the_compiled_code_for_the_same_argument_types():
    import numpy as np

    from hexgames._jit import direct
    from hexgames.benediction import _position_kernels as core
    from hexgames.benediction import position as engine

    p = engine.Position.initial()
    p.play(p.legal_actions()[0])  # compiles or loads pos_play
    p.undo()
    assert engine._pos_play is not engine._first_play  # later plays call the code itself
    args = (p._CW, p._PB, p._FL, p._lx, np.empty_like(p._lx), 0, 5)  # nothing listed
    call = direct(core.pos_play, args)
    assert call is not core.pos_play and call(*args) == core.pos_play(*args) == -1
    assert direct(core.pos_play, (1.5,) * 7) is core.pos_play  # no code for these types
    assert direct(len, ([],)) is len  # not a numba dispatcher


CALLER = '''
import callee
from hexgames._jit import drop_stale_cache, njit

@njit
def total():
    return callee.base() + 10

drop_stale_cache(__name__, callee.__file__)
'''


def test_cached_code_goes_when_a_module_it_calls_into_changes(tmp_path: Path) -> None:
    """numba keys a function's cache to its own file, but the saved machine code has the
    compiled functions it calls built in: without ``drop_stale_cache`` the second run
    below loads ``total`` with the old ``base`` inside and prints 11."""
    code = tmp_path / "code"
    code.mkdir()
    (code / "caller.py").write_text(CALLER)
    callee = code / "callee.py"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC.parent), str(code)]),
           "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def run() -> str:
        done = subprocess.run([sys.executable, "-c", "import caller; print(caller.total())"],
                              cwd=code, env=env, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    callee.write_text("from hexgames._jit import njit\n\n@njit\ndef base():\n    return 1\n")
    assert run() == "11"
    indexes = sorted(p.name for p in (tmp_path / "cache").rglob("caller.*.nbi"))
    assert indexes  # cached
    assert run() == "11"  # loaded from the cache: still there, nothing dropped
    assert sorted(p.name for p in (tmp_path / "cache").rglob("caller.*.nbi")) == indexes
    callee.write_text("from hexgames._jit import njit\n\n@njit\ndef base():\n    return 2\n")
    assert run() == "12"


def test_is_cached_reads_only_the_module_s_own_cache_folder(monkeypatch, tmp_path) -> None:
    """Both games' engines are ``core.py``: Dendria's cached ``core.generate`` must not
    make Benediction's core look cached (numba keeps each source folder's files in a
    folder of its own under ``NUMBA_CACHE_DIR``)."""
    import importlib

    from hexgames._jit import is_cached

    for module in ("hexgames.benediction.core", "hexgames.dendria.core"):
        importlib.import_module(module)  # is_cached reads loaded modules

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    folder = tmp_path / "dendria_0123abcd"
    folder.mkdir()
    (folder / "core.generate-500.py311.nbi").write_bytes(b"")
    assert is_cached("hexgames.dendria.core")
    assert is_cached("hexgames.dendria.core", ("generate",))
    assert not is_cached("hexgames.dendria.core", ("generate", "apply"))
    assert not is_cached("hexgames.benediction.core")
    assert not is_cached("hexgames.benediction.core", ("generate",))


def test_every_compiled_module_drops_its_cache_when_the_compile_options_change() -> None:
    """numba keys a cache to the function's own source file and not to its compile
    options, which live in ``_jit.py`` (numba's runtime on or off per function): a
    module with compiled functions that did not name ``_jit.__file__`` among its
    dependencies would go on loading code built with the old options. Read on the
    source: each such module calls ``drop_stale_cache(__name__, ..., _jit.__file__)``."""
    missing = []
    droppers = _droppers_naming_jit()
    assert {"drop_stale_search_cache", "drop_stale_leaves_cache"} <= set(droppers)
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "_jit.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        compiled = any(
            isinstance(node, ast.FunctionDef) and any(
                "njit" in ast.unparse(decorator) for decorator in node.decorator_list)
            for node in tree.body)
        if not compiled:
            continue
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
        if not any(_names_jit(call) or ast.unparse(call.func) in droppers for call in calls
                   if not isinstance(_enclosing(tree, call), ast.FunctionDef)):
            missing.append(str(path.relative_to(SRC)))
    assert not missing, missing


def _names_jit(call: ast.Call) -> bool:
    """A call ``drop_stale_cache(..., _jit.__file__, ...)``."""
    return (ast.unparse(call.func) == "drop_stale_cache"
            and "_jit.__file__" in (ast.unparse(arg) for arg in call.args))


def _enclosing(tree: ast.Module, target: ast.AST) -> ast.AST | None:
    """The function of ``tree`` whose body holds ``target`` (``None``: module level)."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(n is target for n in ast.walk(node)):
            return node
    return None


def _droppers_naming_jit() -> set[str]:
    """The shared wrappers of ``drop_stale_cache`` (``_ctree``'s, ``_cleaves``'s) whose
    every call names ``_jit.__file__``, directly or through another such wrapper."""
    found: set[str] = set()
    for _ in range(3):  # a wrapper may call a wrapper
        for path in (SRC / "_ctree.py", SRC / "_cleaves.py"):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.FunctionDef) and node.name.startswith("drop_stale"):
                    calls = [c for c in ast.walk(node) if isinstance(c, ast.Call)]
                    if any(_names_jit(c) or ast.unparse(c.func) in found for c in calls):
                        found.add(node.name)
    return found
