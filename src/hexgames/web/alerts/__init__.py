"""Telling a player it is their turn: on the site (the bell) and by email."""
