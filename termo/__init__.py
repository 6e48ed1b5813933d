"""termo: a solver suite for Wordle-family games, first and foremost Termo (term.ooo)."""

__version__ = "0.1.0"
