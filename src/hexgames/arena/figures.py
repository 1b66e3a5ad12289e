"""The PNG plots of the balance report (:mod:`hexgames.arena.report.markdown`) and of the
variant sweep (:mod:`hexgames.arena.sweep.markdown`): matplotlib on its Agg backend, so
no display is needed, and every figure saved the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


class Figures:
    """The figures of one report, each saved into ``directory`` as it is finished."""

    def __init__(self, directory: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot

        self.directory = directory
        #: :mod:`matplotlib.pyplot`, imported once the backend is Agg.
        self.plt: Any = pyplot
        #: The files saved so far, in order.
        self.paths: list[Path] = []

    def save(self, fig: Any, name: str) -> None:
        """Lay ``fig`` out, write it as ``directory/name`` (100 dpi) and close it."""
        path = self.directory / name
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        self.plt.close(fig)
        self.paths.append(path)
