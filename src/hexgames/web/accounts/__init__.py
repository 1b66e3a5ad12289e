"""Who the players are: credentials, look-alike names and mail; no HTTP here."""
