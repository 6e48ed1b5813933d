"""Nerdle puzzles: the dated archive, today's puzzle, difficulty and statistics."""
