"""The examples people copy must work: README's Python blocks and every ``>>>`` example
in a module docstring of the package run as doctests."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import hexgames

ROOT = Path(__file__).resolve().parents[1]


def modules_with_examples() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(hexgames.__path__, "hexgames."):
        spec = importlib.util.find_spec(info.name)
        origin = spec.origin if spec else None
        if origin and origin.endswith(".py") and ">>>" in Path(origin).read_text("utf-8"):
            names.append(info.name)
    return names


MODULES = modules_with_examples()


def test_examples_are_found() -> None:
    assert "hexgames.benediction" in MODULES and "hexgames.dendria" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_module_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_readme_examples() -> None:
    result = doctest.testfile(
        str(ROOT / "README.md"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted >= 10 and result.failed == 0
