"""The premove queue of the game page (static/js/premove.js), unit-tested with Node's
test runner: queuing, cancelling, learning how many clicks an action takes, and the match
against the legal actions when the turn arrives. The browser test of premoves between
two players is in tests/test_web_premove_browser.py."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

TESTS = Path(__file__).parent / "js" / "premove.test.mjs"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_premove_queue_passes_its_node_tests() -> None:
    result = subprocess.run(
        ["node", "--test", str(TESTS)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout
    assert re.search(r"# pass 7\b", result.stdout), result.stdout
