"""What a Claude Code transcript is read into (``records.read_index``): a record per kept line, and
the index threads are rebuilt from, with its look-up of a line by uuid.

Progress lines are not parsed while the file is read; ``Index.node`` finds and parses the few a
thread runs through (see its docstring).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from tui.core import jsonio
from tui.formats.document import Document


@dataclass(slots=True)
class Record:
    """One line of a Claude Code transcript: its uuid, parent, kind, where it starts in the file, and its API
    message."""

    line: int
    uuid: str | None
    parent: str | None
    kind: str
    sidechain: bool
    start: int  # where the line starts in the file
    message: dict[str, Any] | None = None  # user and assistant lines: the API message; the rest of the line is dropped
    timestamp: str | None = None
    request_id: str | None = None
    flags: int = 0  # COMPACT_SUMMARY | TRANSCRIPT_ONLY | API_ERROR | SYNTHETIC | THINKING
    # Read off the message while it is fresh from the parser, so that rebuilding a thread need not
    # walk a long run's messages again: the message's content and, for assistant lines, its id
    # and the ids of its tool_use blocks.
    content: Any = None
    key: Any = None
    uses: tuple[Any, ...] = ()
    subtype: str | None = None  # system lines: compact_boundary, local_command, ...
    logical_parent: str | None = None  # a compact boundary's link to the thread before it

    @property
    def is_message(self) -> bool:
        return self.message is not None


COMPACT_SUMMARY, TRANSCRIPT_ONLY, API_ERROR = 1, 2, 4
SYNTHETIC = 8  # an assistant line Claude Code wrote itself (model "<synthetic>")
THINKING = 16  # an assistant line with a thinking or redacted_thinking block


@dataclass
class Index:
    """A Claude Code transcript indexed by uuid: the lines parsed, the progress lines left unread, the
    messages in order."""

    doc: Document  # the file: progress lines are read from it when a thread runs through one
    parsed: dict[str, Record] = field(default_factory=dict)  # uuid -> record of each line that was parsed
    links: dict[str, tuple[int, int, str | None, bool]] = field(default_factory=dict)  # parsed progress lines:
    # uuid -> (line, start, parent, sidechain)
    unread: list[int] = field(default_factory=list)  # where each progress line not parsed starts, in file order
    unread_lines: list[int] = field(default_factory=list)  # and its line number
    messages: list[Record] = field(default_factory=list)  # user and assistant lines, in file order
    by_message_id: dict[str, list[Record]] = field(default_factory=dict)
    results: dict[str, list[Record]] = field(default_factory=dict)  # tool_use_id -> user lines answering it
    titles: dict[str, str] = field(default_factory=dict)  # leafUuid -> summary
    skipped: dict[str, int] = field(default_factory=dict)  # line kind -> count (not sent to the model)
    facts: dict[str, Any] = field(default_factory=dict)  # session id, agent id, Claude Code version
    _made: dict[str, Record | None] = field(default_factory=dict)  # progress lines looked up so far
    _searched: int = 0  # bytes searched for unread progress lines
    _broken: set[int] = field(default_factory=set)  # unread lines found not to be JSON

    @property
    def data(self) -> bytes:
        return self.doc.data

    def node(self, uuid: str, near: int | None = None) -> Record | None:
        """The line whose ``uuid`` this is, or None; ``near`` is where the line naming it starts.

        Progress lines (most of a transcript's lines, of which only the links matter) are not
        parsed while the file is read: the one a thread runs through is found then, searching
        for its uuid out from the line that names it (hooks write their lines just before the
        line that hangs off them), and parsed. A uuid not found that way (or after too much
        searching) has every progress line parsed once. Of two lines sharing a uuid, the later
        one; of two progress lines found by the search, the one nearest before ``near``."""
        record = self.parsed.get(uuid)
        if record is not None:
            return record
        if uuid in self._made:
            return self._made[uuid]
        link = self.links.get(uuid)
        if link is not None:
            made: Record | None = Record(link[0], uuid, link[2], "progress", link[3], link[1])
        elif self.unread:
            made = self._find(uuid, len(self.data) if near is None else near)
        else:
            made = None
        self._made[uuid] = made
        return made

    def _find(self, uuid: str, near: int) -> Record | None:
        data, size = self.data, len(self.data)
        needle = b'"uuid":"' + uuid.encode("utf-8", "surrogatepass") + b'"'
        for backward in (True, False):
            at = near
            while self._searched <= 2 * size:
                hit = data.rfind(needle, 0, at) if backward else data.find(needle, at)
                if hit < 0:
                    self._searched += at if backward else size - at
                    break
                self._searched += abs(at - hit)
                record = self._read_at(hit, uuid)
                if record is not None:
                    return record
                at = hit if backward else hit + 1
        # Not there as written (an escaped uuid?), or too many far searches: read every progress line.
        self.read_all()
        return self.node(uuid)

    def _read_at(self, at: int, uuid: str) -> Record | None:
        """The unread progress line holding byte ``at``, if its uuid is ``uuid``."""
        k = bisect_right(self.unread, at) - 1
        if k < 0:
            return None
        start = self.unread[k]
        end = self.data.find(b"\n", start)
        if 0 <= end < at:
            return None
        value = self._value(start, end, self.unread_lines[k])
        if value is None or value.get("uuid") != uuid:
            return None
        parent = value.get("parentUuid")
        return Record(self.unread_lines[k], uuid, parent if type(parent) is str else None, "progress",
                      value.get("isSidechain") is True, start)

    def read_all(self) -> None:
        """Parse every unread progress line into ``links`` (the later of two lines sharing a uuid)."""
        data, links, parsed = self.data, self.links, self.parsed
        for start, line in zip(self.unread, self.unread_lines):
            value = self._value(start, data.find(b"\n", start), line)
            uuid = value.get("uuid") if value is not None else None
            if type(uuid) is str:
                parent = value.get("parentUuid")
                old = links.get(uuid)
                if old is None or old[0] < line:
                    links[uuid] = (line, start, parent if type(parent) is str else None, value.get("isSidechain") is True)
        for uuid in [u for u, link in links.items() if u in parsed]:
            if parsed[uuid].line < links[uuid][0]:
                del parsed[uuid]
            else:
                del links[uuid]
        self.unread, self.unread_lines = [], []
        self._made.clear()

    def _value(self, start: int, end: int, number: int) -> dict[str, Any] | None:
        """The unread line at ``start``, parsed; a broken one is a line warning, as any broken line is."""
        line = self.data[start:] if end < 0 else self.data[start:end]
        try:
            value = jsonio.fast_loads(line)
        except jsonio.FastDecodeError:
            if number in self._broken:
                return None
            self._broken.add(number)
            value = self.doc.bad_line(line, number)
        return value if type(value) is dict else None

    def forget(self, uuid: str) -> None:
        """A line with this uuid was just read: an earlier look-up of it (found elsewhere, or not at all) is stale."""
        if self._made:
            self._made.pop(uuid, None)

    def looked_up(self, uuid: str) -> bool:
        """Whether a thread walk has looked this uuid up among the unread lines (found or not)."""
        return uuid in self._made

    @property
    def nodes(self) -> dict[str, Record]:
        """Every line with a uuid (the tree ``parentUuid`` draws), each progress line parsed: for tests."""
        self.read_all()
        everything = {uuid: self.node(uuid) for uuid in self.links}
        everything.update(self.parsed)
        return everything  # type: ignore[return-value]

    def size(self) -> int:
        return len(self.parsed) + len(self.links) + len(self.unread)
