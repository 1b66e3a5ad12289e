"""``hexgames arena``: tournaments between AI players.

:mod:`.cli` is the command, :mod:`.schedule` builds the pairings and plays them (on local
worker processes or Ray, the runner the report and the sweep share), :mod:`.standings`
makes the tables and :mod:`.elo` the ratings.
"""
