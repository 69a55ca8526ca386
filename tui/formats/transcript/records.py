"""One pass over a Claude Code transcript: the lines a thread can be rebuilt from, indexed.

Every line with a ``uuid`` is a node of the tree ``parentUuid`` draws (progress and system
lines too: threads run through them). Only ``user`` and ``assistant`` lines keep their
parsed value; the rest keep their type and links, so a transcript full of progress lines
costs little more than its parse. Also indexed: assistant lines by ``message.id`` (one API
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
    value: dict[str, Any] | None = None  # the parsed line, for user and assistant lines only
    subtype: str | None = None  # system lines: compact_boundary, local_command, ...
    logical_parent: str | None = None  # a compact boundary's link to the thread before it

    @property
    def message(self) -> dict[str, Any]:
        message = self.value.get("message") if self.value is not None else None
        return message if isinstance(message, dict) else {}

    @property
    def timestamp(self) -> str | None:
        value = self.value.get("timestamp") if self.value is not None else None
        return value if isinstance(value, str) else None


@dataclass
class Index:
    nodes: dict[str, Record] = field(default_factory=dict)
    messages: list[Record] = field(default_factory=list)  # user and assistant lines, in file order
    by_message_id: dict[str, list[Record]] = field(default_factory=dict)
    results: dict[str, list[Record]] = field(default_factory=dict)  # tool_use_id -> user lines answering it
    titles: dict[str, str] = field(default_factory=dict)  # leafUuid -> summary
    skipped: dict[str, int] = field(default_factory=dict)  # line kind -> count (not sent to the model)
    facts: dict[str, Any] = field(default_factory=dict)  # session id, agent id, Claude Code version


def read_index(doc: Document) -> Index:
    index = Index()
    nodes, messages, skipped = index.nodes, index.messages, index.skipped
    for number, value in doc.iter_lines():
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
        if kind in MESSAGE_TYPES and isinstance(value.get("message"), dict):
            record.value = value
            messages.append(record)
            _index_message(index, record, value["message"])
            if not index.facts:
                index.facts = {k: value[k] for k in ("sessionId", "agentId", "version") if k in value}
        else:
            label = kind if kind != "system" else f"system {value.get('subtype')}"
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
