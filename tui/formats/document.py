"""A file read once and parsed at most once, shared by every loader's sniff and load.

The bytes are read whole (inputs are never opened for writing); JSON is parsed lazily and
cached, as one document or as JSON lines, so detecting the format costs no second parse.
A JSON-lines file with a bad line keeps the rest and records a warning naming the line
(an error in strict mode).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterator

from tui.core import jsonio
from tui.core.errors import LoadError
from tui.core.run import LoadWarning

HEAD_BYTES = 1 << 16
_UNSET = object()


def max_bytes() -> int:
    """Refuse files larger than this rather than exhaust memory (a parse takes about 5x the file)."""
    configured = os.environ.get("TURNSCOPE_MAX_BYTES")
    if configured and configured.isdigit():
        return int(configured)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        total = 8 << 30
    return max(64 << 20, total // 8)


class Document:
    def __init__(self, path: str, data: bytes, strict: bool = False):
        self.path = path
        if data.startswith(jsonio.BOM):
            data = data[len(jsonio.BOM):]
        self.data = data
        self.strict = strict
        self.head = data[:HEAD_BYTES].lstrip()
        self._json: Any = _UNSET
        self._json_error: LoadError | None = None
        self._lines: list[tuple[int, Any]] | None = None
        self._is_lines: bool | None = None
        self.line_warnings: list[LoadWarning] = []

    # -- JSON as one document -------------------------------------------------------------

    @property
    def looks_json(self) -> bool:
        return self.head[:1] in (b"{", b"[")

    def json(self) -> Any:
        """The parsed document; raises ``LoadError`` (with line and column) if it is not JSON."""
        if self._json is _UNSET:
            try:
                self._json = jsonio.loads(self.data, self.path)
            except LoadError as exc:
                self._json_error = exc
                self._json = None
                raise
        if self._json_error is not None:
            raise self._json_error
        return self._json

    def json_or_none(self) -> Any:
        """The parsed document, or None if it is not one JSON value (JSON lines are not)."""
        if not self.looks_json or self.is_json_lines():
            return None
        try:
            return self.json()
        except LoadError:
            return None

    # -- JSON lines ----------------------------------------------------------------------

    def is_json_lines(self) -> bool:
        """True when the first line is a whole JSON value and more follows: JSON lines, which
        sniffing need not try to parse as one document (on a 100 MB log that costs two copies)."""
        if self._is_lines is None:
            self._is_lines = False
            end = self.head.find(b"\n")
            if end > 0 and self.head[end:].strip():
                try:
                    jsonio.loads(self.head[:end], self.path)
                    self._is_lines = True
                except LoadError:
                    pass
        return self._is_lines

    def first_line(self) -> Any:
        """The first non-blank line parsed, or None; cheap, for sniffing JSONL."""
        start = 0
        data = self.data
        while start < len(data):
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            line = data[start:end].strip()
            if line:
                try:
                    return jsonio.loads(line, self.path)
                except LoadError:
                    return None
            start = end + 1
        return None

    def first_lines(self, count: int) -> list[Any]:
        """Up to ``count`` parsed lines from the head (unparseable ones skipped), for sniffing."""
        values = []
        for line in self.head.split(b"\n")[:count + 1]:
            if line.strip():
                try:
                    values.append(jsonio.loads(line, self.path))
                except LoadError:
                    continue
            if len(values) == count:
                break
        return values

    def lines(self) -> list[tuple[int, Any]]:
        """``(line number, value)`` for every parseable non-blank line; bad lines become warnings."""
        if self._lines is None:
            self._lines = list(self.iter_lines())
        return self._lines

    def iter_lines(self, shortcut: Callable[[bytes], Any] | None = None) -> Iterator[tuple[int, Any]]:
        """Like ``lines`` but parsed as it goes and not kept: a loader that keeps only part of each
        line (a long transcript) holds no more than it needs. Bad lines become warnings.
        ``shortcut(line)`` may return what a line amounts to without parsing it (None: parse it)."""
        if self._lines is not None:
            yield from self._lines
            return
        data, start, number, size = self.data, 0, 0, len(self.data)
        find, parse, error = data.find, jsonio.fast_loads, jsonio.FastDecodeError
        while start < size:
            end = find(b"\n", start)
            end = size if end < 0 else end
            number += 1
            line = data[start:end]
            start = end + 1
            if shortcut is not None:
                value = shortcut(line)
                if value is not None:
                    yield number, value
                    continue
            try:
                value = parse(line)
            except error:
                if not line or line.isspace():
                    continue
                try:  # again, for the error with its position
                    value = jsonio.loads(line, self.path, number - 1)
                except LoadError as exc:
                    if self.strict:
                        raise
                    self.line_warnings.append(LoadWarning(f"skipped: {exc.what}", line=number))
                    continue
            yield number, value

    # -- failure -------------------------------------------------------------------------

    def raise_unknown(self, names: list[str]) -> None:
        if not self.data.strip():
            raise LoadError(self.path, "empty file")
        if self.looks_json:
            try:
                self.json()
            except LoadError:
                if self.first_line() is None:
                    raise  # neither JSON nor JSON lines: the parse error names the position
        raise LoadError(self.path, "unknown format: not any of " + ", ".join(names))


def read_document(path: str, strict: bool = False) -> Document:
    try:
        size = os.path.getsize(path)
        if os.path.isdir(path):
            raise LoadError(path, "is a directory, not a run file")
        limit = max_bytes()
        if size > limit:
            raise LoadError(path, f"file is {size / 1e6:,.0f} MB; the limit on this machine is "
                                  f"{limit / 1e6:,.0f} MB (set TURNSCOPE_MAX_BYTES to change it)")
        with open(path, "rb") as handle:
            data = handle.read()
    except LoadError:
        raise
    except OSError as exc:
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from None
    return Document(path, data, strict=strict)
