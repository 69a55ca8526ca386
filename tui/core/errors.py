"""Errors the core raises for bad input, carrying the position a user needs."""

from __future__ import annotations


class LoadError(Exception):
    """A file that cannot be loaded: ``str()`` is the one line the CLI prints after ``turnscope:``."""

    def __init__(self, path: str, what: str, line: int | None = None, col: int | None = None):
        self.path = path
        self.what = what
        self.line = line
        self.col = col
        super().__init__(self.line_text())

    def line_text(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.col is not None:
                where += f":{self.col}"
        return f"{where}: {self.what}"


class UsageError(Exception):
    """A request the user made that cannot be met (an index out of range, an unknown run)."""
