"""Which lines make up one thread of a Claude Code transcript, in order.

Walking ``parentUuid`` back from the thread's last line gives its spine, but not all of it:
Claude Code writes one line per content block of an answer, and the results of parallel
tool calls hang off the line of their own tool_use, so all but one of them (and the
tool_use lines after the first) sit on sibling branches of the spine. A thread is the
spine, plus every line of each answer on it (same ``message.id``), plus the line holding
the result of each tool_use in it; in file order. A walk stops at the thread's root, at a
parent that is not in the file, or at a compact summary: after a compaction the model
saw the summary, not what came before it (that part is a thread of its own).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui.formats.transcript.records import COMPACT_SUMMARY, Index, Record

ROOT, DANGLING, COMPACTED = "root", "dangling parent", "compaction"


@dataclass
class Thread:
    records: list[Record]  # user and assistant lines, in file order
    stop: str  # why the walk back ended
    boundary: Record | None = None  # the compact boundary the thread starts after
    dangling: str | None = None  # the missing parent's uuid
    siblings: int = 0  # lines taken from sibling branches
    notes: list[str] = field(default_factory=list)


def spine(index: Index, leaf: Record) -> tuple[list[Record], str, Record | None, str | None]:
    """The records from the root (or compaction, or missing parent) to ``leaf``."""
    path: list[Record] = []
    seen: set[int] = set()
    record: Record | None = leaf
    while record is not None and id(record) not in seen:
        seen.add(id(record))
        path.append(record)
        if record.flags & COMPACT_SUMMARY:
            parent = index.nodes.get(record.parent) if record.parent else None
            path.reverse()
            return path, COMPACTED, parent, None
        if record.parent is None:
            path.reverse()
            boundary = record if record.subtype == "compact_boundary" else None
            return path, COMPACTED if boundary else ROOT, boundary, None
        following = index.nodes.get(record.parent)
        if following is None:
            path.reverse()
            return path, DANGLING, None, record.parent
        record = following
    path.reverse()
    return path, ROOT, None, None


def thread(index: Index, leaf: Record) -> Thread:
    path, stop, boundary, dangling = spine(index, leaf)
    chosen = {id(r): r for r in path if r.message is not None}
    spine_ids = set(chosen)
    keys = {r.message.get("id") for r in path if r.kind == "assistant" and r.message is not None
            and isinstance(r.message.get("id"), str)}
    sidechain = leaf.sidechain
    for key in keys:
        for other in index.by_message_id.get(key, ()) if isinstance(key, str) else ():
            if other.sidechain == sidechain:
                chosen.setdefault(id(other), other)
    uuids = {r.uuid for r in chosen.values()}
    for record in [r for r in chosen.values() if r.kind == "assistant"]:
        content = record.message.get("content")
        for block in content if isinstance(content, list) else ():
            if type(block) is dict and block.get("type") == "tool_use":
                _add_result(index, chosen, uuids, block.get("id"))
    records = sorted(chosen.values(), key=lambda r: r.line)
    siblings = sum(1 for r in records if id(r) not in spine_ids)
    return Thread(records, stop, boundary, dangling, siblings)


def _add_result(index: Index, chosen: dict[int, Record], uuids: set[str | None], tool_use_id: object) -> None:
    candidates = index.results.get(tool_use_id, ()) if isinstance(tool_use_id, str) else ()
    if not candidates or any(id(r) in chosen for r in candidates):
        return
    record = next((r for r in candidates if r.parent in uuids), candidates[0])
    chosen[id(record)] = record
    uuids.add(record.uuid)


def sidechain_leaves(index: Index) -> list[Record]:
    """The last line of each sidechain (subagent) tree, in the order the trees start."""
    root_of: dict[int, Record] = {}
    last: dict[int, Record] = {}
    first_line: dict[int, int] = {}
    for record in index.messages:
        if not record.sidechain:
            continue
        root = _root(index, record, root_of)
        last[id(root)] = record
        first_line.setdefault(id(root), record.line)
    return [last[k] for k in sorted(last, key=lambda k: first_line[k])]


def _root(index: Index, record: Record, memo: dict[int, Record]) -> Record:
    trail = []
    on_trail: set[int] = set()
    current = record
    while id(current) not in memo:
        trail.append(current)
        on_trail.add(id(current))
        parent = index.nodes.get(current.parent) if current.parent else None
        if parent is None or not parent.sidechain or id(parent) in on_trail:  # a root, or a parentUuid cycle
            memo[id(current)] = current
            break
        current = parent
    root = memo[id(current)]
    for item in trail:
        memo[id(item)] = root
    return root
