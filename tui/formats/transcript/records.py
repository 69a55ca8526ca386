"""One pass over a Claude Code transcript: the lines a thread can be rebuilt from, indexed.

Every line with a ``uuid`` is a node of the tree ``parentUuid`` draws (progress and system
lines too: threads run through them). ``user`` and ``assistant`` lines keep their API message
and the few facts a run needs (timestamp, request id, flags); the rest of each line (the
``toolUseResult`` copy of every tool output, progress payloads) is dropped as it is read,
so a big transcript costs little more memory than the messages it holds; of a progress line
(most of a transcript's lines) only its links are kept. Also indexed: assistant lines by
``message.id`` (one API answer is written as one line per content block), tool results by
``tool_use_id``, session titles (``summary`` lines), and compaction boundaries.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from tui.core import jsonio
from tui.formats.document import SKIPPED, Document

MESSAGE_TYPES = ("user", "assistant")


@dataclass(slots=True)
class Record:
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

    @property
    def nodes(self) -> dict[str, Record]:
        """Every line with a uuid (the tree ``parentUuid`` draws), each progress line parsed: for tests."""
        self.read_all()
        everything = {uuid: self.node(uuid) for uuid in self.links}
        everything.update(self.parsed)
        return everything  # type: ignore[return-value]

    def size(self) -> int:
        return len(self.parsed) + len(self.links) + len(self.unread)


_HEAD = b'{"parentUuid":'
_TYPE = b'"type":"'
_PROGRESS = b'"type":"progress","data":{'


def read_index(doc: Document) -> Index:
    """One pass over the lines, each parsed and dropped but for what ``Index`` keeps; a progress line
    (Claude Code writes them with scalar keys first, then ``"type":"progress","data":{``) is only
    located. Inside JSON strings quotes are escaped, so the first ``"type":"`` of a line that
    starts ``{"parentUuid":`` is its own type; a line in any other shape is parsed."""
    data = doc.data
    index = Index(doc)
    parsed, links, messages, skipped = index.parsed, index.links, index.messages, index.skipped
    answers, results = index.by_message_id, index.results
    unread, unread_lines = index.unread.append, index.unread_lines.append
    find, startswith, parse, error = data.find, data.startswith, jsonio.fast_loads, jsonio.FastDecodeError
    start, number, size, progress = 0, 0, len(data), 0
    while start < size:
        end = find(b"\n", start)
        if end < 0:
            end = size
        number += 1
        if startswith(_PROGRESS, find(_TYPE, start, end if end - start < 2048 else start + 2048)) \
                and startswith(_HEAD, start):
            if not progress:  # the count keeps the place of the first progress line among the kinds
                skipped.setdefault("progress", 0)
            progress += 1
            unread(start)
            unread_lines(number)
            start = end + 1
            continue
        line = data[start:end]
        at, start = start, end + 1
        try:
            value = parse(line)
        except error:
            value = doc.bad_line(line, number)
            if value is SKIPPED:
                continue
        if type(value) is not dict:
            skipped["not an object"] = skipped.get("not an object", 0) + 1
            continue
        kind = value.get("type")
        uuid = value.get("uuid")
        if type(uuid) is not str:
            uuid = None
        parent = value.get("parentUuid")
        if type(parent) is not str:
            parent = None
        if kind == "progress":
            if not progress:
                skipped.setdefault("progress", 0)
            progress += 1
            if uuid is not None:
                links[uuid] = (number, at, parent, value.get("isSidechain") is True)
                parsed.pop(uuid, None)  # the last line with a uuid is its node
            continue
        if type(kind) is not str:
            kind = "(no type)"
        message = value.get("message")
        if (kind == "user" or kind == "assistant") and type(message) is dict:
            flags = COMPACT_SUMMARY if value.get("isCompactSummary") is True else 0
            if value.get("isVisibleInTranscriptOnly") is True:
                flags |= TRANSCRIPT_ONLY
            if value.get("isApiErrorMessage") is True:
                flags |= API_ERROR
            stamp, request_id, content = value.get("timestamp"), value.get("requestId"), message.get("content")
            record = Record(number, uuid, parent, kind, value.get("isSidechain") is True, at, message,
                            stamp if type(stamp) is str else None,
                            request_id if type(request_id) is str else None, flags, content)
            messages.append(record)
            if kind == "assistant":
                _index_answer(record, message, content, answers)
            elif type(content) is list:
                for block in content:
                    if type(block) is dict and block.get("type") == "tool_result":
                        target = block.get("tool_use_id")
                        if type(target) is str:
                            if target in results:
                                results[target].append(record)
                            else:
                                results[target] = [record]
            if not index.facts:
                index.facts = {k: value[k] for k in ("sessionId", "agentId", "version") if k in value}
        else:
            record = Record(number, uuid, parent, kind, value.get("isSidechain") is True, at)
            label = f"system {value.get('subtype')}" if kind == "system" else \
                f"{kind} without a message" if kind in MESSAGE_TYPES else kind
            skipped[label] = skipped.get(label, 0) + 1
            if kind == "summary" and isinstance(value.get("leafUuid"), str):
                index.titles[value["leafUuid"]] = str(value.get("summary") or "")
            elif kind == "system":
                record.subtype = value.get("subtype") if isinstance(value.get("subtype"), str) else None
                logical = value.get("logicalParentUuid")
                record.logical_parent = logical if isinstance(logical, str) else None
        if uuid is not None:
            parsed[uuid] = record
            if links:
                links.pop(uuid, None)
    if progress:
        skipped["progress"] += progress
    return index


def _index_answer(record: Record, message: dict[str, Any], content: Any, answers: dict[str, list[Record]]) -> None:
    """An assistant line's message id, tool_use ids and flags, read while the message is fresh."""
    key = record.key = message.get("id")
    if isinstance(key, str):
        answers.setdefault(key, []).append(record)
    if message.get("model") == "<synthetic>":
        record.flags |= SYNTHETIC
    if type(content) is list:
        uses = []
        for block in content:
            kind = block.get("type") if type(block) is dict else None
            if kind == "tool_use":
                uses.append(block.get("id"))
            elif kind == "thinking" or kind == "redacted_thinking":
                record.flags |= THINKING
        if uses:
            record.uses = tuple(uses)
