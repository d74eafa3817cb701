"""User-facing errors: one line, no traceback (the CLI prints the message and exits non-zero)."""


class SoundingError(Exception):
    """Bad input or environment the user can fix. The message must say what and where."""


class DataError(SoundingError):
    """A malformed file: the message names the file and the line."""

    def __init__(self, path, line: int | None, what: str):
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {what}")
        self.path, self.line, self.what = path, line, what


class UserCodeError(SoundingError):
    """An exception raised by the user's own code (a retriever's factory, `index` or `search`): the message
    names the system, the step and the exception in one line; the exception itself is the `__cause__`
    (the CLI prints its traceback with `sounding --debug …`)."""
