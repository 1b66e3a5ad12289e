"""Live games: actions, offers, clocks, absence, conditional moves, the AI queue,
the change feed and the hub that pushes each viewer its state."""
