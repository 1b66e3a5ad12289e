"""``hexgames sweep``: the balance study of every variant of a grid of rules options.

:mod:`.cli` is the command, :mod:`.stats` the grid, the schedule and each variant's
metrics, :mod:`.files` what a sweep writes as it runs and reads back, and :mod:`.markdown`
writes ``sweep.md`` with its plots.
"""
