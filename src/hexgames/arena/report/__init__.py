"""``hexgames report``: a designer's balance report for one variant.

:mod:`.cli` is the command, :mod:`.stats` measures the games (with Ludii's evaluation
metrics from :mod:`.ludii`), :mod:`.markdown` writes ``report.md`` with its plots, and
:mod:`.budget` picks the strongest players that fit the time budget.
"""
