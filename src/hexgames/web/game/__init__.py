"""The game model: a match, its clock, its rules options and its records; no HTTP here."""
