"""The one exception type that reaches the user."""


class TermoError(ValueError):
    """A user-facing error: its message is one clear line, shown without a traceback."""
