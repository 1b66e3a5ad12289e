"""Child Python processes that must run this same ``hexgames``."""

from __future__ import annotations

import os
from pathlib import Path


def import_path() -> str:
    """A ``PYTHONPATH`` under which a child process imports this ``hexgames``: the
    folder holding this package first, then the inherited entries made absolute.

    A source checkout runs with ``PYTHONPATH=src`` or an editable install; a child would
    otherwise import whatever ``hexgames`` its interpreter finds (or none), and a relative
    entry breaks in a child with another working directory (Ray's workers). Used by
    ``hexgames serve``'s parallel warm-up, ``bench --startup`` and the arena's local
    Ray workers."""
    package_root = str(Path(__file__).resolve().parents[1])
    inherited = [str(Path(p).resolve())
                 for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return os.pathsep.join(dict.fromkeys([package_root, *inherited]))
