"""The strings of a run's prefix as searchable text, for the values the value index cannot answer by key.

Every string the value index walks is appended here in message order, with where it came
from (message index, block, path). A search finds the first *bounded* occurrence of a value
before a message: one whose neighbouring characters cannot continue it (a letter, digit or
``_`` next to one), so "447" is not found in "4471" nor "9d2" in "re_9d2".

The strings are kept as a few joined chunks of about 4 MB (joined with ``SEPARATOR``), not
as one string of the whole prefix: a single character outside Latin-1 made that one string
two or four bytes a character, and the parsed copies of strings inside JSON text stay alive
only until their chunk is joined. A long string (64K characters or more, or 2K for a string
the run itself holds, not a parsed copy: the tool results that hold most of a long run's text)
is a chunk by itself, the run's own string object, so its characters are not held twice. Offsets are global, as if every string were joined into
one text. Each value's first occurrence (or how far the prefix was searched without one) is
remembered, so the loop asking for the same value at every later tool turn searches each part
of the prefix once, not once per turn.

Tracing a run no longer searches here (``tui.core.wanted`` finds the values its tool calls hold while
it walks the messages); this text answers the full index (``tui.core.valueindex.Scope``) and the few
values the wanted index cannot look for by a word (one holding the separator).
"""

from __future__ import annotations

import bisect
import threading
from array import array
from typing import Any

SEPARATOR = "\x00"
CHUNK = 4 << 20  # characters per joined chunk
ALONE = 64 << 10  # a string this long is a chunk of its own: the string itself, not a copy
SHARED = 2 << 10  # the same for a string the run holds anyway (not a parsed copy): kept, not copied


class PrefixText:
    """Every string of a run's prefix joined into one searchable text, with where each string came from."""

    def __init__(self) -> None:
        self.indices: list[int | str] = []  # per string: the message index (or "system"/"tools")
        self.blocks: list[int] = []
        self.paths: list[str] = []  # interned by the caller: one object per distinct path
        self.offsets = array("q")  # per string: its start in the (virtual) joined text
        self.length = 0  # length of the joined text plus one (the separator after the last string)
        self._chunks: list[str] = []
        self._starts: list[int] = []  # global offset of each chunk
        self._pending: list[str] = []
        self._pending_chars = 0
        self._found: dict[str, tuple[int, int]] = {}  # needle -> (searched up to, first bounded start or -1)
        self._lock = threading.Lock()  # two workers may search at once: the last chunk is joined once

    def __len__(self) -> int:
        return len(self.offsets)

    def append(self, index: int | str, block: int, path: str, text: str, shared: bool = False) -> None:
        """Add one string; ``shared``: the caller keeps ``text`` alive anyway (a string of the run itself, not a
        parsed copy), so from ``SHARED`` characters on it is a chunk by itself rather than copied into one."""
        alone = len(text) >= (SHARED if shared else ALONE)
        if alone and self._pending:
            self.flush()
        if not self._pending:
            self._starts.append(self.length)
        self.indices.append(index)
        self.blocks.append(block)
        self.paths.append(path)
        self.offsets.append(self.length)
        self.length += len(text) + 1
        self._pending.append(text)
        self._pending_chars += len(text) + 1
        if alone or self._pending_chars >= CHUNK:
            self.flush()

    def flush(self) -> None:
        """Join the strings not yet in a chunk (done before a search; the index does it when it is built)."""
        with self._lock:
            if self._pending:
                self._chunks.append(SEPARATOR.join(self._pending))
                self._pending = []
                self._pending_chars = 0

    def end_before(self, before: int | None) -> int:
        """Where the strings of messages before ``before`` end in the joined text."""
        total = max(self.length - 1, 0)
        if before is None:
            return total
        cut = bisect.bisect_left(self.indices, before)  # strings were added in message order
        return max(self.offsets[cut] - 1, 0) if cut < len(self.offsets) else total

    def find(self, needle: str, before: int | None) -> tuple[int, int, int] | None:
        """``(string number, start, end)`` of the first bounded occurrence of ``needle`` in the strings of
        messages before ``before``, or None."""
        if not needle or not self.offsets:
            return None
        end = self.end_before(before)
        done, at = self._found.get(needle, (0, -1))
        if at < 0 and end > done:
            at = self._search(needle, max(done - len(needle) + 1, 0), end)
            self._found[needle] = (end, at) if at >= 0 else (end, -1)
        if at < 0 or at + len(needle) > end:
            return None
        k = bisect.bisect_right(self.offsets, at) - 1
        local = at - self.offsets[k]
        return k, local, local + len(needle)

    def _search(self, needle: str, start: int, end: int) -> int:
        """The first bounded occurrence lying wholly in ``[start, end)`` of the joined text, or -1."""
        self.flush()
        if SEPARATOR in needle:  # it could span two strings: search them joined, as one text
            return _bounded_find(SEPARATOR.join(self._chunks), needle, start, end)
        first = max(bisect.bisect_right(self._starts, start) - 1, 0)
        for c in range(first, len(self._chunks)):
            base, chunk = self._starts[c], self._chunks[c]
            if base >= end:
                break
            at = _bounded_find(chunk, needle, max(start - base, 0), min(end - base, len(chunk)))
            if at >= 0:
                return base + at
        return -1


def _bounded_find(text: str, needle: str, at: int, end: int) -> int:
    while True:
        at = text.find(needle, at, end)
        if at < 0:
            return -1
        if bounded(text, at, at + len(needle), needle):
            return at
        at += 1


def _continues(a: str, b: str) -> bool:
    return (a.isalnum() or a == "_") and (b.isalnum() or b == "_")


def bounded(text: str, start: int, stop: int, needle: Any) -> bool:
    """Neither neighbour of ``text[start:stop]`` continues it (a chunk's edges are separators)."""
    before = text[start - 1] if start > 0 else " "
    after = text[stop] if stop < len(text) else " "
    return not _continues(before, needle[0]) and not _continues(needle[-1], after)
