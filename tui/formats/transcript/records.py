"""One pass over a Claude Code transcript: the lines a thread can be rebuilt from, indexed.

Every line with a ``uuid`` is a node of the tree ``parentUuid`` draws (progress and system
lines too: threads run through them). ``user`` and ``assistant`` lines keep their API message
and the few facts a run needs (timestamp, request id, flags); the rest of each line (the
``toolUseResult`` copy of every tool output, progress payloads) is dropped as it is read,
so a big transcript costs little more memory than the messages it holds. Also indexed: assistant lines by ``message.id`` (one API
answer is written as one line per content block), tool results by ``tool_use_id``, session
titles (``summary`` lines), and compaction boundaries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tui.formats.document import Document

MESSAGE_TYPES = ("user", "assistant")


@dataclass(slots=True)
class Record:
    line: int
    uuid: str | None
    parent: str | None
    kind: str
    sidechain: bool
    message: dict[str, Any] | None = None  # user and assistant lines: the API message; the rest of the line is dropped
    timestamp: str | None = None
    request_id: str | None = None
    flags: int = 0  # COMPACT_SUMMARY | TRANSCRIPT_ONLY | API_ERROR
    subtype: str | None = None  # system lines: compact_boundary, local_command, ...
    logical_parent: str | None = None  # a compact boundary's link to the thread before it

    @property
    def is_message(self) -> bool:
        return self.message is not None


COMPACT_SUMMARY, TRANSCRIPT_ONLY, API_ERROR = 1, 2, 4
_FLAGS = (("isCompactSummary", COMPACT_SUMMARY), ("isVisibleInTranscriptOnly", TRANSCRIPT_ONLY),
          ("isApiErrorMessage", API_ERROR))


@dataclass
class Index:
    nodes: dict[str, Record] = field(default_factory=dict)
    messages: list[Record] = field(default_factory=list)  # user and assistant lines, in file order
    by_message_id: dict[str, list[Record]] = field(default_factory=dict)
    results: dict[str, list[Record]] = field(default_factory=dict)  # tool_use_id -> user lines answering it
    titles: dict[str, str] = field(default_factory=dict)  # leafUuid -> summary
    skipped: dict[str, int] = field(default_factory=dict)  # line kind -> count (not sent to the model)
    facts: dict[str, Any] = field(default_factory=dict)  # session id, agent id, Claude Code version


def progress_line(line: bytes) -> tuple[str | None, str, bool] | None:
    """A progress line's links ``(parent, uuid, sidechain)``, read off its bytes; None unless the
    line is surely a progress line.

    Progress lines are most of a transcript's lines and ~40% of its bytes, and only their links
    matter. Claude Code writes them with scalar keys first, then ``"type":"progress","data":{``,
    and ``"uuid"`` last. Inside JSON strings quotes are escaped, so the first ``"type":"`` of the
    line is the top-level one; anything not exactly in this shape is parsed as usual.
    """
    if not line.startswith(b'{"parentUuid":'):
        return None
    at = line.find(b'"type":"', 14, 2048)
    if at < 0 or not line.startswith(b'"type":"progress","data":{', at):
        return None
    if not line.endswith(b'"}'):
        line = line.rstrip()
        if not line.endswith(b'"}'):
            return None
    key = line.rfind(b',"uuid":"', len(line) - 80)
    uuid = line[key + 9:-2] if key > 0 else b'"'
    if b'"' in uuid or b"\\" in uuid or not uuid:
        return None
    if line.startswith(b'null,', 14):
        parent = None
    else:
        close = line.find(b'"', 15, 100)
        if not line.startswith(b'"', 14) or close < 0 or b"\\" in line[15:close]:
            return None
        parent = line[15:close].decode("ascii", "replace")
    return parent, uuid.decode("ascii", "replace"), b'"isSidechain":true' in line[:at]


def read_index(doc: Document, shortcut: bool = True) -> Index:
    index = Index()
    nodes, messages, skipped = index.nodes, index.messages, index.skipped
    for number, value in doc.iter_lines(progress_line if shortcut else None):
        if type(value) is tuple:  # a progress line read off its bytes (JSON yields no tuples)
            parent, uuid, sidechain = value
            nodes[uuid] = Record(number, uuid, parent, "progress", sidechain)
            skipped["progress"] = skipped.get("progress", 0) + 1
            continue
        if not isinstance(value, dict):
            skipped["not an object"] = skipped.get("not an object", 0) + 1
            continue
        kind = value.get("type")
        kind = kind if isinstance(kind, str) else "(no type)"
        uuid = value.get("uuid")
        uuid = uuid if isinstance(uuid, str) else None
        parent = value.get("parentUuid")
        record = Record(number, uuid, parent if isinstance(parent, str) else None, kind,
                        value.get("isSidechain") is True)
        message = value.get("message")
        if kind in MESSAGE_TYPES and isinstance(message, dict):
            record.message = message
            stamp, request_id = value.get("timestamp"), value.get("requestId")
            record.timestamp = stamp if isinstance(stamp, str) else None
            record.request_id = request_id if isinstance(request_id, str) else None
            for key, flag in _FLAGS:
                if value.get(key) is True:
                    record.flags |= flag
            messages.append(record)
            _index_message(index, record, message)
            if not index.facts:
                index.facts = {k: value[k] for k in ("sessionId", "agentId", "version") if k in value}
        else:
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
            nodes[uuid] = record
    return index


def _index_message(index: Index, record: Record, message: dict[str, Any]) -> None:
    content = message.get("content")
    if record.kind == "assistant":
        key = message.get("id")
        if isinstance(key, str):
            index.by_message_id.setdefault(key, []).append(record)
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                target = block.get("tool_use_id")
                if isinstance(target, str):
                    index.results.setdefault(target, []).append(record)
