"""Each compiled helper compiles once per cold warm-up, not once per call site.

numba compiles a function again for every distinct set of argument types it is called
with, and a constant argument (``f(x, 0)``, ``f(x, BLOCK)``) is a type of its own
(``Literal[int](0)``): Benediction's ``_put`` once compiled seven times, each game's
random-game kernel twice (the search called it with the constants ``1`` and ``10_000``),
several helpers twice for an int8 or int32 argument where another caller passed int64.
That was about a fifth of a cold warm-up. This test warms each game up in a fresh
process with an empty cache, where every compiled function is compiled rather than
loaded, and fails on any signature with a constant argument and on any function
compiled for two signatures that differ only in their scalar arguments. (Array
arguments may differ: a read-only view and a writable array are two types, and both are
needed.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hexgames.game import game_names, get_game

#: Warm a game up, then list the signatures of every compiled function of hexgames.
_PROBE = """\
import json, sys
from hexgames.game import get_game
get_game(sys.argv[1]).kernel().warm_up()
from numba.core.registry import CPUDispatcher
found = {}
for name, module in list(sys.modules.items()):
    if name.startswith("hexgames"):
        for attr, value in vars(module).items():
            if (isinstance(value, CPUDispatcher)
                    and getattr(value.py_func, "__module__", None) == name):
                found[name + "." + attr] = [[str(t) for t in sig] for sig in value.overloads]
print(json.dumps(found))
"""


def _is_array(type_name: str) -> bool:
    return "array" in type_name.lower() or "tuple" in type_name.lower()


def _differ_only_in_scalars(signatures: list[list[str]]) -> bool:
    """Whether two of the signatures have the same array arguments (arrays and tuples of
    arrays) and different scalar ones."""
    by_arrays: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for sig in signatures:
        arrays = tuple(t if _is_array(t) else "scalar" for t in sig)
        by_arrays.setdefault(arrays, set()).add(tuple(t for t in sig if not _is_array(t)))
    return any(len(scalars) > 1 for scalars in by_arrays.values())


@pytest.mark.parametrize(
    "game", [name for name in game_names() if get_game(name).kernel is not None]
)
def test_a_cold_warm_up_compiles_each_function_once(game: str, tmp_path: Path) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1] / "src")
    done = subprocess.run([sys.executable, "-c", _PROBE, game], env=env, capture_output=True,
                          text=True, check=True)
    found: dict[str, list[list[str]]] = json.loads(done.stdout.strip().splitlines()[-1])
    compiled = {name: sigs for name, sigs in found.items() if sigs}
    # the probe saw the cold compile: the rules core's helpers were compiled here
    assert sum(len(sigs) for sigs in compiled.values()) >= 10
    literal = {name: sig for name, sigs in compiled.items() for sig in sigs
               if any("Literal" in t for t in sig)}
    assert literal == {}, "constant arguments: pass np.int64(...) instead"
    twice = {name: sigs for name, sigs in compiled.items() if _differ_only_in_scalars(sigs)}
    assert twice == {}, "scalar arguments of different types: cast them at the call"


def test_the_check_sees_scalar_and_constant_differences() -> None:
    a = ["array(int64, 1d, C)", "int64", "int64"]
    assert not _differ_only_in_scalars([a])
    assert _differ_only_in_scalars([a, ["array(int64, 1d, C)", "int32", "int64"]])
    assert _differ_only_in_scalars([a, ["array(int64, 1d, C)", "Literal[int](0)", "int64"]])
    # a read-only array is another array type: both are needed, not a duplicate
    assert not _differ_only_in_scalars([a, ["readonly array(int64, 1d, C)", "int64", "int64"]])
