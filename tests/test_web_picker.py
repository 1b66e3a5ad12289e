"""The browser's click picker (static/js/input.js), unit-tested with Node's test runner.

The picker turns clicks into actions for any game from the gestures the server sends;
these tests pin its matching rules (prefixes, choices, alternative paths) without a browser.
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

TESTS = Path(__file__).parent / "js" / "input.test.mjs"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_click_picker_passes_its_node_tests():
    result = subprocess.run(
        ["node", "--test", str(TESTS)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout
    assert re.search(r"# pass ([5-9]|\d\d)\b", result.stdout)
