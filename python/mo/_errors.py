"""mo.ConversionError: what the `mo` command reports as [ ERROR ] with exit code 1."""


class ConversionError(RuntimeError):
    """A model mo cannot convert, read, run or save.

    ``str(e)`` is the message `mo` prints; ``e.what`` says what went wrong, ``e.where`` where
    (file, node, op; may be empty) and ``e.hint`` what to do (may be empty).
    """

    def __init__(self, message, what="", where="", hint=""):
        super().__init__(message)
        self.what = what or message
        self.where = where
        self.hint = hint
