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
            where = self.path
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
