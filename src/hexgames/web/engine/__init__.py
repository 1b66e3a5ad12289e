"""The computer's side: AI worker processes and the engines prepared at start."""
