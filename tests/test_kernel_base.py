"""The games share one kernel face and one compiled-tree setup (issue 40, "Shared numba
setup"): each game's ``kernel.py``, ``_search.py`` and ``_evalsearch.py`` keep only what
is the game's own (its core, its compiled descent loops, its layout), and the rest is
held once in :mod:`hexgames._kernel_base`, :mod:`hexgames._ctree` and
:mod:`hexgames._cleaves`. Nothing here compiles: these are facts of the classes."""

from __future__ import annotations

import importlib

import pytest

from hexgames._cleaves import LeafBatches
from hexgames._ctree import CompiledTree
from hexgames._kernel_base import KernelBase

GAMES = ("benediction", "dendria")
#: The face every game gets from the base, not its own copy.
SHARED_FACE = ("random_games", "playouts", "warm_up", "is_cached", "cached_parts")


@pytest.mark.parametrize("game", GAMES)
def test_kernel_shares_the_base_face(game: str) -> None:
    module = importlib.import_module(f"hexgames.{game}.kernel")
    kernel_class = module.Kernel
    assert issubclass(kernel_class, KernelBase)
    for name in SHARED_FACE:
        assert name not in vars(kernel_class), f"{game} overrides {name}"
    kernel = module.kernel()
    assert kernel.name == game
    assert dict(kernel.entry_points) == module._ENTRY_POINTS
    # the module's functions are the shared ones' answers, not a second copy
    assert module.is_warm() is kernel.is_cached()
    cached, total = kernel.cached_parts()
    assert total == sum(len(names) for names in module._ENTRY_POINTS.values())
    assert (cached == total) is module.is_warm()


@pytest.mark.parametrize("game", GAMES)
def test_playouts_refuse_another_state_with_the_games_title(game: str) -> None:
    kernel = importlib.import_module(f"hexgames.{game}.kernel").kernel()
    with pytest.raises(ValueError, match=f"playouts need a {kernel.title} Position or "
                                         "CoreState, got int"):
        kernel.playouts(3, 1)


@pytest.mark.parametrize("game", GAMES)
def test_trees_share_the_compiled_setup(game: str) -> None:
    search = importlib.import_module(f"hexgames.{game}._search")
    evalsearch = importlib.import_module(f"hexgames.{game}._evalsearch")
    assert issubclass(search.TreeSearch, CompiledTree)
    assert issubclass(evalsearch.TreeSearch, search.TreeSearch)
    assert issubclass(evalsearch.TreeSearch, LeafBatches)
    # the variant check and re-rooting live in CompiledTree, the leaves' layout in
    # LeafBatches; a game writes its core and its layout of a variant
    assert "set_root" not in vars(search.TreeSearch)
    assert "_core_of" in vars(search.TreeSearch)
    assert "_leaf_layout" not in vars(evalsearch.TreeSearch)
    assert "_variant_layout" in vars(evalsearch.TreeSearch)
    # the per-variant layouts are cached as the shared cache says
    assert evalsearch._layout_of.cache_parameters()["maxsize"] == 16
