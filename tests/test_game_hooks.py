"""The typed hooks of every registered game keep the contracts of :mod:`hexgames.hooks`
at run time (mypy checks them in each game's ``spec.py``; this checks what the lazy
references load), and game-agnostic code reaches them only through ``Game``'s fields."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from hexgames.game import Game, game_names, get_game
from hexgames.hooks import AiHooks, CompiledKernel, CompiledSearchTree, VectorBatch

SRC = Path(__file__).resolve().parents[1] / "src" / "hexgames"


@pytest.mark.parametrize("name", game_names())
def test_the_hooks_keep_their_contracts(name: str) -> None:
    game = get_game(name)
    if game.ai_hooks is not None:
        assert isinstance(game.ai_hooks(), AiHooks)
    if game.kernel is not None:
        kernel = game.kernel()
        assert isinstance(kernel, CompiledKernel) and kernel.name == name
        assert game.kernel() is kernel, "one shared kernel per game"
        tree = kernel.tree_search()
        assert tree is None or isinstance(tree, CompiledSearchTree)
        seats, lengths = kernel.random_games(dict(game.bench_variants[0]), 4, seed=1)
        assert set(seats.tolist()) <= {-1, 0, 1} and (lengths > 0).all()
    if game.vector_batch is not None:
        rules = game.make_rules()
        batch = game.vector_batch(rules, 3)
        assert isinstance(batch, VectorBatch)
        assert batch.num_actions == game.num_distinct_actions(rules)
        assert tuple(batch.observation_shape) == tuple(game.observation_shape(rules))
        assert np.asarray(batch.current_player()).shape == (3,)


@pytest.mark.parametrize("name", game_names())
def test_the_descriptive_fields_are_usable(name: str) -> None:
    game = get_game(name)
    assert game.tagline.strip() and "\n" not in game.tagline
    assert game.bench_variants, "bench measures at least one variant"
    for options in game.bench_variants:
        game.make_rules(**options)  # a variant the rules accept
    # (the overlays are drawn by the conformance suite, tests/test_protocol.py)
    assert len(set(game.overlays)) == len(game.overlays)
    if game.legend is not None:  # every marker's point is on the legend's board
        position = game.position_from_text(game.legend.text)
        labels = {label.lower() for label in position.board.labels}
        assert {point.lower() for point, _ in game.legend.items} <= labels
    if game.native_anchor is not None:
        assert game.native_anchor.source.endswith(".c") and game.native_anchor.max_actions > 0


def test_a_game_may_leave_every_hook_out() -> None:
    fields = Game.__dataclass_fields__
    for hook in ("ai_hooks", "kernel", "vector_batch", "legend", "native_anchor",
                 "puzzle_themes"):
        assert fields[hook].default is None
    assert fields["overlays"].default == () and fields["tagline"].default == ""


def test_no_code_looks_hooks_up_by_name() -> None:
    """The hooks are fields: nothing in ``src`` reads a free-form ``extras`` mapping or
    asks a game or its kernel whether it has an attribute."""
    lookup = re.compile(r"\.extras\b|hasattr\((self\.)?_?(game|kernel)\b")
    offenders = [f"{path.relative_to(SRC)}:{number}"
                 for path in SRC.rglob("*.py")
                 for number, line in enumerate(path.read_text().splitlines(), 1)
                 if lookup.search(line)]
    assert not offenders


def _game_name_literals(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines where a game's name is compared with something or keys a dict literal: a
    branch or a table by game, which belongs in the game's own package."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Dict):
            operands = [key for key in node.keys if key is not None]
        else:
            continue
        if any(isinstance(o, ast.Constant) and o.value in names for o in operands):
            lines.append(node.lineno)
    return lines


def test_the_guard_sees_branches_and_tables_by_game_name() -> None:
    code = 'if game.name == "toy":\n    pass\nLEGENDS = {"toy": 1}\nDEFAULT = "toy"\n'
    assert _game_name_literals(ast.parse(code), {"toy"}) == [1, 3]


def test_no_branch_or_table_by_game_name_outside_the_game_packages() -> None:
    """Game-agnostic code asks the ``Game`` (its fields and hooks), never its name: no
    ``if game.name == "benediction"`` and no mapping keyed by a game's name outside the
    game packages, except the registry itself."""
    names = set(game_names())
    offenders = []
    for path in SRC.rglob("*.py"):
        relative = path.relative_to(SRC)
        if relative.parts[0] in names:
            continue
        lines = _game_name_literals(ast.parse(path.read_text()), names)
        if relative == Path("game.py"):
            lines = [line for line in lines if "REGISTRY" not in path.read_text()
                     .splitlines()[line - 1]]
        offenders += [f"{relative}:{line}" for line in lines]
    assert not offenders
