"""Chat in games (issue 42): the two rooms of a game, who reads and writes in each, and
what a message may hold (:mod:`.rules`). Stored with the game (``chat_messages``)."""
