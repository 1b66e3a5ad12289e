"""The research adapters as a researcher imports and configures them (issue 41, row 6):
PettingZoo's environments are real modules, and every adapter takes the same option
names, OpenSpiel's (Dendria's engine alias ``size`` is refused everywhere, naming
``board_side``)."""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys

import pytest

pytest.importorskip("pettingzoo")
pyspiel = pytest.importorskip("pyspiel")

import gymnasium  # noqa: E402

import hexgames.integrations.openspiel  # noqa: E402, F401  (registers the games)
from hexgames.integrations import functional  # noqa: E402
from hexgames.integrations.vector import DendriaVectorEnv  # noqa: E402


@pytest.mark.parametrize("name", ["benediction_v0", "dendria_v0"])
def test_pettingzoo_environments_are_modules(name: str) -> None:
    module = importlib.import_module(f"hexgames.integrations.pettingzoo.{name}")
    assert module.__name__ == f"hexgames.integrations.pettingzoo.{name}"
    from hexgames.integrations import pettingzoo

    assert getattr(pettingzoo, name) is module
    env = module.env()
    env.reset(seed=1)
    assert pickle.loads(pickle.dumps(module.raw_env())).metadata["name"] == name


def test_a_fresh_interpreter_imports_the_module_path() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import hexgames.integrations.pettingzoo.dendria_v0 as d; "
         "print(d.__name__)"], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "hexgames.integrations.pettingzoo.dendria_v0"


def builders() -> dict[str, object]:
    from hexgames.integrations.pettingzoo import dendria_v0

    return {
        "pettingzoo": lambda **options: dendria_v0.env(**options),
        "gymnasium": lambda **options: gymnasium.make("hexgames/Dendria-v0", **options),
        "gymnasium vector": lambda **options: gymnasium.make_vec(
            "hexgames/Dendria-v0", num_envs=2, **options),
        "functional": lambda **options: functional.make("dendria", **options),
        "vector": lambda **options: DendriaVectorEnv(2, **options),
    }


@pytest.mark.parametrize("adapter", ["pettingzoo", "gymnasium", "gymnasium vector",
                                     "functional", "vector"])
def test_every_adapter_takes_openspiels_option_names(adapter: str) -> None:
    build = builders()[adapter]
    assert build(board_side=5) is not None  # type: ignore[operator]
    with pytest.raises(ValueError, match="'size' is called 'board_side'"):
        build(size=5)  # type: ignore[operator]
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game("dendria(size=5)")
    assert pyspiel.load_game("dendria(board_side=5)") is not None
