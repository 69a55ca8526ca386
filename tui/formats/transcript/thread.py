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
    """The lines of one conversation, walked back from its last line through parents, and why the walk
    stopped."""

    records: list[Record]  # user, assistant and attachment lines, in file order
    stop: str  # why the walk back ended
    boundary: Record | None = None  # the compact boundary the thread starts after
    dangling: str | None = None  # the missing parent's uuid
    siblings: int = 0  # lines taken from sibling branches
    notes: list[str] = field(default_factory=list)
    path: list[Record] = field(default_factory=list)  # the spine: every line from the start to the last, in order


def spine(index: Index, leaf: Record) -> tuple[list[Record], str, Record | None, str | None]:
    """The records from the root (or compaction, or missing parent) to ``leaf``."""
    path: list[Record] = []
    seen: set[int] = set()  # line numbers: a parentUuid cycle ends the walk
    parsed, node = index.parsed.get, index.node
    record: Record | None = leaf
    while record is not None and record.line not in seen:
        seen.add(record.line)
        path.append(record)
        if record.flags & COMPACT_SUMMARY:
            parent = node(record.parent, record.start) if record.parent else None
            path.reverse()
            return path, COMPACTED, parent, None
        if record.parent is None:
            path.reverse()
            boundary = record if record.subtype == "compact_boundary" else None
            return path, COMPACTED if boundary else ROOT, boundary, None
        following = parsed(record.parent) or node(record.parent, record.start)
        if following is None:
            path.reverse()
            return path, DANGLING, None, record.parent
        record = following
    path.reverse()
    return path, ROOT, None, None


def thread(index: Index, leaf: Record) -> Thread:
    path, stop, boundary, dangling = spine(index, leaf)
    chosen = {r.line: r for r in path if r.message is not None}  # a line is one record
    on_spine = len(chosen)
    for record in path:  # what Claude Code sends of its attachment lines rides in their place
        if record.kind == "attachment":
            chosen[record.line] = record
    sidechain = leaf.sidechain
    answers, keys = index.by_message_id, set()
    for record in path:
        if record.kind == "assistant" and record.message is not None:
            key = record.key
            if type(key) is str and key not in keys:
                keys.add(key)
                for other in answers.get(key, ()):
                    if other.sidechain == sidechain and other.line not in chosen:
                        chosen[other.line] = other
    results = index.results
    uuids: set[str | None] | None = None  # of the chosen lines: made when a call has several results to pick from
    for record in [r for r in chosen.values() if r.uses]:
        for tool_use_id in record.uses:
            candidates = results.get(tool_use_id) if type(tool_use_id) is str else None
            if not candidates:
                continue
            if len(candidates) == 1:
                if candidates[0].line not in chosen:
                    chosen[candidates[0].line] = candidates[0]
                    if uuids is not None:
                        uuids.add(candidates[0].uuid)
            elif not any(r.line in chosen for r in candidates):
                if uuids is None:
                    uuids = {r.uuid for r in chosen.values()}
                picked = next((r for r in candidates if r.parent in uuids), candidates[0])
                chosen[picked.line] = picked
                uuids.add(picked.uuid)
    records = [chosen[line] for line in sorted(chosen)]
    spined = on_spine + sum(1 for r in path if r.kind == "attachment")
    return Thread(records, stop, boundary, dangling, len(records) - spined, path=path)


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
        parent = index.node(current.parent, current.start) if current.parent else None
        if parent is None or not parent.sidechain or id(parent) in on_trail:  # a root, or a parentUuid cycle
            memo[id(current)] = current
            break
        current = parent
    root = memo[id(current)]
    for item in trail:
        memo[id(item)] = root
    return root
