"""Which lines make up one thread of a Claude Code transcript, in order.

Walking ``parentUuid`` back from the thread's last line gives its spine, but not all of it:
Claude Code writes one line per content block of an answer, and the results of parallel
tool calls hang off the line of their own tool_use, so all but one of them (and the
tool_use lines after the first) sit on sibling branches of the spine. A thread is the
spine, plus every line of each answer on it (same ``message.id``), plus the line holding
the result of each tool_use in it; in file order. A walk stops at the thread's root, at a
parent that is not in the file, or at a compact summary: after a compaction the model
saw the summary, not what came before it (that part is a thread of its own).

``thread(index, leaf)`` builds one thread; ``Threader`` keeps what it built so that the
thread can be moved on to a new last line (``grow``) after lines were appended to the index,
without walking the lines again that the old and new threads share: follow mode's way of
extending a session, by the same rules.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def _walk(index: Index, leaf: Record, known: dict[int, int] | None = None
          ) -> tuple[list[Record], int | None, str, Record | None, str | None]:
    """Walk ``parentUuid`` back from ``leaf``: (the lines walked, last first; where on the spine ``known``
    (line -> place) the walk reached it, or None; why it stopped, the boundary, the missing parent)."""
    path: list[Record] = []
    seen: set[int] = set()  # line numbers: a parentUuid cycle ends the walk
    parsed, node = index.parsed.get, index.node
    record: Record | None = leaf
    while record is not None and record.line not in seen:
        if known is not None:
            at = known.get(record.line)
            if at is not None:
                return path, at, ROOT, None, None
        seen.add(record.line)
        path.append(record)
        if record.flags & COMPACT_SUMMARY:
            parent = node(record.parent, record.start) if record.parent else None
            return path, None, COMPACTED, parent, None
        if record.parent is None:
            boundary = record if record.subtype == "compact_boundary" else None
            return path, None, COMPACTED if boundary else ROOT, boundary, None
        following = parsed(record.parent) or node(record.parent, record.start)
        if following is None:
            return path, None, DANGLING, None, record.parent
        record = following
    return path, None, ROOT, None, None


def spine(index: Index, leaf: Record) -> tuple[list[Record], str, Record | None, str | None]:
    """The records from the root (or compaction, or missing parent) to ``leaf``."""
    path, _, stop, boundary, dangling = _walk(index, leaf)
    path.reverse()
    return path, stop, boundary, dangling


def thread(index: Index, leaf: Record) -> Thread:
    return Threader(index, leaf).thread


def _joins(record: Record) -> bool:
    """A line of the spine that is in the thread: a message, or an attachment (what Claude Code sends of it
    rides in its place)."""
    return record.message is not None or record.kind == "attachment"


def _answer_key(record: Record) -> str | None:
    """The message.id an answer's lines share, of an assistant line on the spine."""
    key = record.key
    return key if record.kind == "assistant" and record.message is not None and type(key) is str else None


def _targets(record: Record) -> list[str]:
    """The tool_use ids a user line holds results for."""
    content = record.content
    if record.kind != "user" or type(content) is not list:
        return []
    return [b["tool_use_id"] for b in content
            if type(b) is dict and b.get("type") == "tool_result" and type(b.get("tool_use_id")) is str]


@dataclass
class Growth:
    """What ``Threader.grow`` changed: the lines that joined the thread and the lines that left it, in file order."""

    joined: list[Record]
    left: list[Record]


class Threader:
    """One thread (``thread``), kept so that it can be moved on to a new last line (``grow``).

    The thread is the spine, every line of each answer on it (``keys``) and the only result of each
    tool_use of those lines; a call with several results picks one in the order the lines are taken,
    so a thread holding such a call (or whose walk ended in a parentUuid cycle) is made again whole
    when it grows (``ordered``). Otherwise a line is in the thread for reasons that can be counted,
    and growing the thread looks only at the lines whose reasons changed: the spine's new part and
    the part it left, the answers and calls that came or went with them, and the lines appended
    since (``grow``'s ``new``). ``tests/formats/test_thread_grow.py`` holds the two ways equal."""

    def __init__(self, index: Index, leaf: Record):
        self.index = index
        self.thread = self._build(leaf)
        self._ready = False

    def _build(self, leaf: Record) -> Thread:
        """``thread(index, leaf)``, from nothing."""
        index = self.index
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
        self.chosen, self.keys, self.sidechain = chosen, keys, sidechain
        return Thread(records, stop, boundary, dangling, len(records) - spined, path=path)

    def prepare(self) -> None:
        """What growing needs beyond what ``_build`` made: each spine line's place, how many of the
        thread's lines make each call, and whether some call has several results."""
        t = self.thread
        self.at = {r.line: k for k, r in enumerate(t.path)}
        self.spined = len(t.records) - t.siblings
        self.calls: dict[str, int] = {}
        # A walk that ended in a parentUuid cycle may end elsewhere once the spine's end moves: built again.
        self.ordered = t.stop == ROOT and bool(t.path) and t.path[0].parent is not None
        for record in self.chosen.values():
            self._count(record, 1)
        self._ready = True

    def _count(self, record: Record, step: int) -> list[str]:
        """Count ``record``'s calls in (``step`` 1) or out (-1); the calls made or no longer made."""
        calls, results, changed = self.calls, self.index.results, []
        for tool_use_id in record.uses:
            if type(tool_use_id) is not str:
                continue
            n = calls.get(tool_use_id, 0) + step
            calls[tool_use_id] = n
            if n == (1 if step > 0 else 0):
                changed.append(tool_use_id)
            if step > 0 and len(results.get(tool_use_id, ())) > 1:
                self.ordered = True
        return changed

    def grow(self, leaf: Record, new: Sequence[Record] = ()) -> Growth:
        """The thread becomes ``thread(index, leaf)``; ``new``: the message lines the index gained since the last
        build or grow (each may join an answer or a call already in the thread)."""
        if not self._ready:
            self.prepare()
        if self.ordered or leaf.sidechain != self.sidechain:
            return self._again(leaf)
        walked, meet, *_ = _walk(self.index, leaf, self.at)
        if meet is None:  # the new leaf does not go on from the spine: another root
            return self._again(leaf)
        t, at, keys, chosen, index = self.thread, self.at, self.keys, self.chosen, self.index
        answers, results = index.by_message_id, index.results
        out = t.path[meet + 1:]
        del t.path[meet + 1:]
        for r in out:
            del at[r.line]
        walked.reverse()
        for r in walked:
            at[r.line] = len(t.path)
            t.path.append(r)
        # Reasons of the first kind: on the spine, or a line of an answer on it.
        out_spine = [r for r in out if _joins(r)]
        in_spine = [r for r in walked if _joins(r)]
        self.spined += len(in_spine) - len(out_spine)
        came = {k for k in map(_answer_key, in_spine) if k is not None and k not in keys}
        went = {k for k in map(_answer_key, out_spine) if k is not None and k not in came
                and not any(o.line in at for o in answers.get(k, ()))}
        keys |= came
        keys -= went
        looked = {r.line: r for r in out_spine}
        looked.update((r.line, r) for r in in_spine)
        for key in came | went:
            looked.update((r.line, r) for r in answers.get(key, ()))
        looked.update((r.line, r) for r in new)
        joined: dict[int, Record] = {}
        left: dict[int, Record] = {}
        calls_changed: list[str] = []
        users: list[Record] = []
        for line, r in looked.items():
            if r.kind == "user":
                users.append(r)
                continue
            now = (line in at and _joins(r)) or (_answer_key(r) in keys and r.sidechain == self.sidechain)
            calls_changed += self._move(r, now, joined, left)
        # Reasons of the second kind: the only result of a call the thread makes.
        for tool_use_id in calls_changed:
            users += results.get(tool_use_id, ())
        for r in new:
            if r.kind == "user":
                for tool_use_id in _targets(r):
                    if self.calls.get(tool_use_id, 0) and len(results[tool_use_id]) > 1:
                        self.ordered = True  # a second result of a call in the thread: which one is picked
        if self.ordered:
            return self._again(leaf, joined, left)
        calls = self.calls
        for r in users:
            now = (r.line in at and r.message is not None) or any(
                calls.get(u, 0) and results[u][0] is r for u in _targets(r))
            self._move(r, now, joined, left)
        if self.ordered:
            return self._again(leaf, joined, left)
        last = t.records[-1].line if t.records else 0
        if not left and all(line > last for line in joined):
            t.records.extend(joined[line] for line in sorted(joined))
        else:
            t.records = [chosen[line] for line in sorted(chosen)]
        t.siblings = len(t.records) - self.spined
        return Growth([joined[k] for k in sorted(joined)], [left[k] for k in sorted(left)])

    def _move(self, r: Record, now: bool, joined: dict[int, Record], left: dict[int, Record]) -> list[str]:
        """``r`` into the thread or out of it, as ``now`` says; the calls that came or went with it."""
        if now == (r.line in self.chosen):
            return []
        if now:
            self.chosen[r.line] = joined[r.line] = r
        else:
            del self.chosen[r.line]
            left[r.line] = r
        return self._count(r, 1 if now else -1) if r.uses else []

    def _again(self, leaf: Record, joined: dict[int, Record] | None = None, left: dict[int, Record] | None = None
               ) -> Growth:
        """The thread made again whole (a new root, a call with several results): what came and went
        (``joined`` and ``left``: what a grow given up half way had already moved)."""
        before = self.chosen
        if joined or left:
            before = {line: r for line, r in before.items() if line not in (joined or {})}
            before.update(left or {})
        self.thread = self._build(leaf)
        self.prepare()
        chosen = self.chosen
        return Growth([r for line, r in sorted(chosen.items()) if line not in before],
                      [r for line, r in sorted(before.items()) if line not in chosen])


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
