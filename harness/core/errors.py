"""The one error type users see: a located, single-line message that maps to exit status 2."""

from __future__ import annotations


class InputError(Exception):
    """Bad input (spec, command line, tool output). `str()` is the one line to print."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None, col: int | None = None):
        self.message = message
        self.path, self.line, self.col = path, line, col
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = shortened(self.path, PATH_LIMIT)
            if self.line is not None:
                where += f":{self.line}"
                if self.col is not None:
                    where += f":{self.col}"
            where += ": "
        return printable(f"{where}error: {self.message}")


def printable(text: str) -> str:
    """One line a terminal shows as it is: control characters (a newline in a path, the bytes
    of a tool that printed garbage) are written as escapes."""
    return "".join(c if c.isprintable() or c == "\t" else c.encode("unicode_escape").decode("ascii") for c in text)


QUOTE_LIMIT = 60  # characters of a value a message shows
PATH_LIMIT = 240  # characters of a path a message shows (a file's location, a tool, a directory)


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """A value the user gave (a flag's value, a spec's, a path) as one message line shows it: its
    repr (quoted, control characters escaped, one line), cut to about `limit` characters with an
    ellipsis and the full length. Every error that quotes user input goes through this."""
    try:
        text = repr(value)
    except ValueError:  # an int past Python's digit limit for str()
        return f"a {getattr(value, 'bit_length', lambda: 0)():,}-bit integer"
    if len(text) <= limit:
        return text
    if isinstance(value, str):
        return f"{value[: limit - 2]!r}... ({len(value):,} characters)"
    unit = "digits" if isinstance(value, int) else "characters"
    return f"{text[:limit]}... ({len(text):,} {unit})"


def shortened(text: str, limit: int = QUOTE_LIMIT) -> str:
    """Text cut to about `limit` characters with an ellipsis (for names shown unquoted)."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"
