"""The exact solver: branch and bound over the whole probe space, with proven bounds."""
