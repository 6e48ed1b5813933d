"""The one exception type that reaches the user."""

from __future__ import annotations


class TermoError(ValueError):
    """A user-facing error: its message is one clear line, shown without a traceback.

    ``code`` and ``params`` (optional) name the same error in the message catalogue
    (`termo.core.messages`), which says it in each board language; ``str(err)`` stays the CLI's
    English line. A `termo.core.messages.Message` as the message brings its own code and params.
    """

    def __init__(self, message="", code: str | None = None, params: dict | None = None):
        super().__init__(message)
        if code is None and getattr(message, "code", None):
            code, params = message.code, dict(message.params)
        self.code = code
        self.params = dict(params or {})

    def reworded(self, text: str, **params) -> "TermoError":
        """The same error (code, params updated with ``params``) with another CLI line."""
        return TermoError(text, self.code, {**self.params, **params} if self.code else None)

    def __reduce__(self):  # the worker processes send errors back through pickle
        return (_rebuild, (type(self), self.args, self.code, self.params, self.__dict__))


def _rebuild(cls, args, code, params, state):
    err = cls.__new__(cls)
    BaseException.__init__(err, *args)
    err.__dict__.update(state)
    err.code, err.params = code, params
    return err
