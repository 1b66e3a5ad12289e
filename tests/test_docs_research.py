"""Every ```python block of docs/research.md runs as written.

Each block is a script of its own, run in a fresh interpreter in an empty directory with
a timeout (a hang fails the test), so blocks that start processes (OpenSpiel's AlphaZero
spawns its actors, which re-import the script: such a block guards its work with
``if __name__ == "__main__":``) behave as they would for a reader. A block whose first
line is ``# requires: module, module`` is skipped where one of those modules is missing
(an optional extra); every other block must run everywhere the test suite runs.
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs" / "research.md"
#: Seconds one block may take (the longest, an AlphaZero smoke run, takes about 30).
TIMEOUT = 300

_FENCE = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_REQUIRES = re.compile(r"#\s*requires:\s*(.+)")


def python_blocks() -> list[tuple[str, str]]:
    """``(id, code)`` of each ```python block: the id is the heading above it and the
    block's number under that heading."""
    text = DOCS.read_text("utf-8")
    blocks = []
    counts: dict[str, int] = {}
    for match in _FENCE.finditer(text):
        headings = re.findall(r"^#+ (.+)$", text[: match.start()], re.MULTILINE)
        heading = headings[-1] if headings else "top"
        counts[heading] = counts.get(heading, 0) + 1
        slug = re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-")
        blocks.append((f"{slug}-{counts[heading]}", match.group(1)))
    return blocks


BLOCKS = python_blocks()


def missing_modules(code: str) -> list[str]:
    first = code.splitlines()[0] if code.strip() else ""
    match = _REQUIRES.fullmatch(first.strip())
    if not match:
        return []
    names = [name.strip() for name in match.group(1).split(",") if name.strip()]
    return [name for name in names if not _importable(name)]


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def test_the_docs_have_python_blocks() -> None:
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("code", [code for _, code in BLOCKS], ids=[i for i, _ in BLOCKS])
def test_python_block_runs(code: str, tmp_path: Path) -> None:
    missing = missing_modules(code)
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    script = tmp_path / "block.py"
    script.write_text(code, "utf-8")
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "MPLBACKEND": "Agg"}
    with subprocess.Popen(
        [sys.executable, str(script)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
    ) as process:
        try:
            output, _ = process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the block's child processes too
            output, _ = process.communicate(timeout=30)
            pytest.fail(f"the block ran past {TIMEOUT} s:\n{output[-4000:]}")
    assert process.returncode == 0, output[-4000:]


def test_the_documented_alpha_zero_variant_decides_its_games() -> None:
    """Issue 41, row 5: the docs' AlphaZero smoke variant must have games to learn from
    (``max_turns=8`` made every game a 15-action draw: 4 of 100 random games decided)."""
    pyspiel = pytest.importorskip("pyspiel")
    import random

    import hexgames.integrations.openspiel  # noqa: F401  (registers the games)

    text = (Path(__file__).resolve().parents[1] / "docs" / "research.md").read_text()
    variant = re.search(r'^GAME = "([^"]+)"', text, re.MULTILINE)
    assert variant, "docs/research.md names no AlphaZero GAME"
    game, rng, decided = pyspiel.load_game(variant.group(1)), random.Random(1), 0
    for _ in range(60):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        decided += state.returns()[0] != 0
    assert decided >= 54, f"{decided} of 60 random games of {variant.group(1)} decided"
