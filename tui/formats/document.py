"""A file read once and parsed at most once, shared by every loader's sniff and load.

JSON is parsed lazily and cached, as one document or as JSON lines, so detecting the format
costs no second parse. A JSON-lines file (its first line a whole JSON value, more after it) is
not read whole: its head is read for sniffing and ``iter_lines`` reads the rest in pieces of a
few MB cut at line ends, so the file's bytes are never held beside the parsed run (on a 100 MB
run they were 100 MB of a 254 MB peak). A loader that needs the whole file (an index that
searches it, a format parsed as one document) asks for ``data`` and gets it, read then. Any
other file is read whole at once. Inputs are never opened for writing. A JSON-lines file with
a bad line keeps the rest and records a warning naming the line (an error in strict mode).
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable, Iterator

from tui.core import jsonio
from tui.core.errors import LoadError
from tui.core.run import LoadWarning
from tui.core.safe import one_line

HEAD_BYTES = 1 << 16
#: Bytes read at a time when JSON lines are read in pieces (cut at line ends).
PIECE_BYTES = 4 << 20
_NON_SPACE = re.compile(rb"\S")
_UNSET = object()
_FAILED = object()
_BLANK = object()
#: What ``Document.bad_line`` returns for a line that yields no value.
SKIPPED = object()
#: How many head lines the sniffers may look at.
HEAD_LINES = 20


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
    """One input file's bytes, read once: parsed as one JSON document or as JSON lines on demand,
    with the line and column a ``LoadError`` names."""

    def __init__(self, path: str, data: bytes | None, strict: bool = False, head: bytes = b"",
                 where: tuple[tuple[int, int], int, int] | None = None):
        """``data``: the file's bytes; or None with ``head`` (its first bytes) and ``where`` (the file's
        identity, where its text starts after a byte-order mark, its size): read in pieces when asked."""
        self.path = path
        if data is not None and data.startswith(jsonio.BOM):
            data = data[len(jsonio.BOM):]
        self._data = data
        self._where = where
        self._raw_head = head if data is None else data[:HEAD_BYTES]
        self.strict = strict
        self.head = self._raw_head.lstrip()
        self._json: Any = _UNSET
        self._json_error: LoadError | None = None
        self._lines: list[tuple[int, Any]] | None = None
        self._span: Any = _UNSET
        self._head_lines: list[Any] | None = None
        self._first: Any = _UNSET
        self._is_lines: bool | None = None
        self.line_warnings: list[LoadWarning] = []
        #: ``(line number, its bytes)`` when the file ends inside its last line (a run that stopped mid-write).
        self.cut_off: tuple[int, bytes] | None = None
        #: The caller lists the runs and opens one (``load_runs(lazy=True)``): a loader may build a run only
        #: when it is first asked for (an Inspect ``.eval`` does, sample by sample).
        self.lazy = False

    # -- the bytes -----------------------------------------------------------------------

    @property
    def data(self) -> bytes:
        """The whole file's bytes (after a byte-order mark); a file read in pieces is read whole now."""
        if self._data is None:
            _, start, end = self._where
            with self._open() as handle:
                handle.seek(start)
                self._data = handle.read(end - start)
            if len(self._data) < end - start:
                raise self._changed()
        return self._data

    @property
    def in_pieces(self) -> bool:
        """True while the file has not been read whole (its JSON lines are read in pieces)."""
        return self._data is None

    @property
    def opening(self) -> bytes:
        """The file's first bytes (up to 64 KB, after a byte-order mark), white space kept: for sniffing."""
        return self._raw_head

    def _known(self) -> bytes:
        """The bytes at hand: the whole file, or its head while it is read in pieces."""
        return self._raw_head if self._data is None else self._data

    def _changed(self) -> LoadError:
        return LoadError(self.path, "the file changed while it was read (replaced or cut short): open it again")

    def _open(self) -> Any:
        """The file, checked to be the one whose head was read (the same inode, no shorter)."""
        identity, _, end = self._where
        try:
            handle = open(self.path, "rb")
        except OSError as exc:
            raise LoadError(self.path, f"cannot read: {exc.strerror or exc}") from None
        stat = os.fstat(handle.fileno())
        if (stat.st_dev, stat.st_ino) != identity or stat.st_size < end:
            handle.close()
            raise self._changed()
        return handle

    def _read_at(self, at: int, size: int) -> bytes:
        """``size`` bytes from ``at`` (an offset into ``data``), fewer at the end of the file."""
        if self._data is not None:
            return self._data[at:at + size]
        _, start, end = self._where
        with self._open() as handle:
            handle.seek(start + at)
            return handle.read(max(0, min(size, end - start - at)))

    def _raw_lines(self) -> Iterator[tuple[int, bytes]]:
        """``(line number, its bytes without the newline)`` for every line, blank ones too."""
        number = 0
        for data, size in self._line_pieces():
            start, find = 0, data.find
            while start < size:
                end = find(b"\n", start)
                end = size if end < 0 else end  # the file's last line, without a newline
                number += 1
                yield number, data[start:end]
                start = end + 1

    def _line_pieces(self) -> Iterator[tuple[bytes, int]]:
        """The file's bytes as ``(bytes, size)``: whole lines in ``bytes[:size]``; the whole file at once
        when it was read whole, else pieces of about ``PIECE_BYTES`` cut after a newline."""
        if self._data is not None:
            yield self._data, len(self._data)
            return
        _, begin, stop = self._where
        left, rest = b"", stop - begin
        with self._open() as handle:
            handle.seek(begin)
            while rest > 0:
                piece = handle.read(min(PIECE_BYTES, rest))
                if not piece:
                    raise self._changed()
                rest -= len(piece)
                cut = piece.rfind(b"\n")
                if cut < 0:  # a line longer than a piece: keep gathering it
                    left += piece
                    continue
                yield (left + piece if left else piece), len(left) + cut + 1
                left = piece[cut + 1:]
        if left:
            yield left, len(left)

    def _ends_with(self, text: bytes) -> bool:
        """True when the file's text, trailing white space left out, ends with ``text``."""
        if self._data is not None:
            return self._data.rstrip().endswith(text)
        _, begin, stop = self._where
        tail, at = b"", stop
        with self._open() as handle:
            while at > begin:
                step = min(max(len(text) + 1, HEAD_BYTES), at - begin)
                at -= step
                handle.seek(at)
                tail = handle.read(step) + tail
                if len(tail.rstrip()) >= len(text):
                    break
        return tail.rstrip().endswith(text)

    def several_lines(self) -> bool:
        """True when a newline stands between the file's first and last non-blank bytes."""
        if self._data is None and self.is_json_lines():
            return True
        return b"\n" in self.data.strip()

    # -- JSON as one document -------------------------------------------------------------

    @property
    def looks_json(self) -> bool:
        return self.head[:1] in (b"{", b"[")

    def json(self) -> Any:
        """The parsed document; raises ``LoadError`` (with line and column) if it is not JSON.

        A file whose first line is a whole JSON value followed by more lines is JSON lines,
        not one document: that is known from the first line alone, so a large JSONL file is
        never handed whole to the parser just to fail (which costs a buffer its size).
        """
        if self._json is _UNSET:
            try:
                span = self._first_span()
                if span is not None and span[2] is not None and self._first_value() is not _FAILED:
                    rest, known = span[2], self._known()
                    line = known.count(b"\n", 0, rest) + 1
                    col = rest - (known.rfind(b"\n", 0, rest) + 1) + 1
                    raise LoadError(self.path, "invalid JSON: unexpected content after document", line, col)
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

    def _first_span(self) -> tuple[int, int, int | None] | None:
        """Start and end of the first non-blank line, and where non-blank content resumes
        after it (None: that line is the whole document)."""
        if self._span is _UNSET:
            known = self._known()
            span = self._find_span(known)
            if self._data is None and (span is None or span[1] == len(known) or span[2] is None):
                span = self._find_span(self.data)  # not settled by the head alone
            self._span = span
        return self._span

    @staticmethod
    def _find_span(data: bytes) -> tuple[int, int, int | None] | None:
        found = _NON_SPACE.search(data)
        if found is None:
            return None
        start = found.start()
        end = data.find(b"\n", start)
        rest = _NON_SPACE.search(data, end) if end >= 0 else None
        return (start, len(data) if end < 0 else end, None if rest is None else rest.start())

    def _first_value(self) -> Any:
        """The first line of a several-line file, parsed (``_FAILED`` if it is not JSON)."""
        if self._first is _UNSET:
            start, end, _ = self._first_span()
            try:
                self._first = jsonio.loads(self._known()[start:end], self.path)
            except LoadError:
                self._first = _FAILED
        return self._first
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
        """The first non-blank line parsed, or None; cheap, for sniffing JSONL.

        When that line is the whole document (a one-line JSON file), the document's own
        cached parse is used: the file is never parsed, or copied, twice.
        """
        span = self._first_span()
        if span is None:
            return None
        if span[2] is None:
            return self.json_or_none()
        value = self._first_value()
        return None if value is _FAILED else value

    def second_line(self) -> Any:
        """The second non-blank line parsed, or None: a JSONL file whose first line is broken
        is still recognised by its next one (a pretty-printed JSON document never has a
        whole object on its second line)."""
        span = self._first_span()
        if span is None or span[2] is None:
            return None
        start = span[2]
        text = self._read_at(start, HEAD_BYTES + 1)
        end = text.find(b"\n")
        end = len(text) if end < 0 else end
        if end > HEAD_BYTES:
            return None
        try:
            return jsonio.loads(text[:end], self.path)
        except LoadError:
            return None

    def first_lines(self, count: int) -> list[Any]:
        """Up to ``count`` parsed lines from the head (unparseable ones skipped), for sniffing.

        The head's lines are parsed once for every sniffer; a one-line document uses the
        document's own cached parse, so it is never parsed twice.
        """
        if self._head_lines is None:
            span = self._first_span()
            if span is not None and span[2] is None:
                whole = self.json_or_none()
                self._head_lines = [_FAILED if whole is None else whole]
            else:
                self._head_lines = []
                for line in self.head.split(b"\n")[:HEAD_LINES + 1]:
                    if line.strip():
                        try:
                            self._head_lines.append(jsonio.loads(line, self.path))
                        except LoadError:
                            self._head_lines.append(_FAILED)
                    else:
                        self._head_lines.append(_BLANK)
        values = []
        for value in self._head_lines[:count + 1]:
            if value is not _FAILED and value is not _BLANK:
                values.append(value)
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
        parse, error = jsonio.fast_loads, jsonio.FastDecodeError
        for number, line in self._raw_lines():
            if shortcut is not None:
                value = shortcut(line)
                if value is not None:
                    yield number, value
                    continue
            try:
                value = parse(line)
            except error:
                value = self.bad_line(line, number)
                if value is SKIPPED:
                    continue
            yield number, value

    def bad_line(self, line: bytes, number: int) -> Any:
        """A line the fast parser refused: ``SKIPPED`` for a blank line, or a warning naming the line
        and column (raised in strict mode); the value, should the positioned parse succeed after all."""
        if not line or line.isspace():
            return SKIPPED
        try:  # again, for the error with its position
            return jsonio.loads(line, self.path, number - 1)
        except LoadError as exc:
            if self.strict:
                raise
            if self.cut_off is None and self._ends_with(line.rstrip()):
                self.cut_off = (number, bytes(line))
                self.line_warnings.append(LoadWarning(
                    f"cut off, {len(line):,} bytes: the file ends inside this line, which is in no message (the turn "
                    f"being written when the run stopped?); {exc.what}", line=number))
                return SKIPPED
            self.line_warnings.append(LoadWarning(f"skipped: {exc.what}", line=number))
            return SKIPPED

    # -- failure -------------------------------------------------------------------------

    def first_bad_line(self) -> LoadError | None:
        """The parse error, with line and column, of the first non-blank line that is not JSON (for a
        forced format that finds nothing it can read: the one clear line says where and what)."""
        for number, line in self._raw_lines():
            if line.strip():
                try:
                    jsonio.loads(line, self.path, number - 1)
                except LoadError as exc:
                    return exc
        return None

    def not_this_format(self, name: str, what: str, line: int | None = None) -> LoadError:
        """``FILE:LINE:COL: not in the NAME format: what`` (the JSON error with its position when it is not JSON)."""
        bad = self.first_bad_line() if line is None and not self.looks_json else None
        if bad is not None:
            return LoadError(self.path, f"not in the {name} format: {bad.what}", bad.line, bad.col)
        return LoadError(self.path, f"not in the {name} format: {what}", line or 1, 1)

    def raise_unknown(self, names: list[str]) -> None:
        """No loader took the file: say what it is instead, at the position that shows it."""
        if not self.data or self.data.isspace():
            raise LoadError(self.path, "empty file: there is no run in it", 1, 1)
        encoding = next((name for bom, name in _WIDE_BOMS if self.data.startswith(bom)), None)
        if encoding is not None:  # what Windows tools write as "Unicode": readable once saved as UTF-8
            raise LoadError(self.path, f"this file is {encoding} text (it starts with a {encoding} byte-order "
                                       "mark); turnscope reads UTF-8: convert it first (e.g. iconv -f "
                                       f"{encoding} -t UTF-8)", 1, 1)
        if self.looks_json:
            try:
                what = describe(self.json())
            except LoadError:
                first = self.first_line()
                if first is None:
                    raise  # neither JSON nor JSON lines: the parse error names the position
                what = f"JSON lines whose first line is {describe(first)}"
        else:
            try:  # a bare JSON scalar (null, 5, "text") is JSON, just not a run
                what = describe(self.json())
            except LoadError:
                what = f"not JSON (it starts with '{one_line(_opening(self.head))}')"
        raise LoadError(self.path, f"unknown format: {what}; turnscope reads {', '.join(names)} "
                                   "(--format NAME forces one)", 1, 1)


#: Byte-order marks of the wide encodings, longest first (UTF-32 LE starts like UTF-16 LE).
_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
              (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def _opening(head: bytes, size: int = 40) -> str:
    """The first ``size`` bytes as text: bytes that are not UTF-8 (a UTF-16 BOM, binary) shown as
    ``\\xff`` escapes, never as replacement marks that hide what they were; a character the cut
    split is left out rather than shown as the escapes of its first bytes."""
    for end in range(size, max(size - 4, 0), -1):
        try:
            return head[:end].decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start < end - 3:  # invalid before the cut: not a split character
                break
    return head[:size].decode("utf-8", "backslashreplace")


def describe(value: Any) -> str:
    """What a parsed JSON value is, in a few words (for "unknown format")."""
    if isinstance(value, dict):
        if not value:
            return "an empty JSON object"
        keys = ", ".join(repr(k) for k in list(value)[:6]) + (", ..." if len(value) > 6 else "")
        messages = value.get("messages")
        if "messages" in value and not isinstance(messages, list):
            return f"a JSON object whose 'messages' is {_kind(messages)}, not a list"
        return f"a JSON object with keys {one_line(keys)} (no 'messages' list)"
    if isinstance(value, list):
        if not value:
            return "an empty JSON array"
        first = value[0]
        if isinstance(first, dict):
            return f"a JSON array whose first item has no 'role' or 'messages' ({describe(first)})"
        return f"a JSON array whose first item is {_kind(first)}, not a message"
    return f"a JSON value that is {_kind(value)}"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "null" if value is None else "an object"


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
            head = handle.read(HEAD_BYTES + len(jsonio.BOM))
            stat = os.fstat(handle.fileno())
            if stat.st_size > len(head):  # more than the head: JSON lines are read in pieces
                start = len(jsonio.BOM) if head.startswith(jsonio.BOM) else 0
                doc = Document(path, None, strict, head[start:start + HEAD_BYTES],
                               ((stat.st_dev, stat.st_ino), start, stat.st_size))
                if doc.is_json_lines():  # read in pieces as it is parsed
                    return doc
            handle.seek(0)
            data = handle.read()
    except LoadError:
        raise
    except OSError as exc:
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from None
    return Document(path, data, strict=strict)
