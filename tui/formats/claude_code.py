"""Claude Code session transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

The first run is the main thread, rebuilt from its last line (``transcript.thread``) and
turned into the message list Claude Code sent (``transcript.assemble``). Further runs: each
subagent (sidechain) thread written inline in the same file, the part of the session
before each compaction, and the subagent files Claude Code keeps beside the session in
``<session>/subagents/``. A subagent file opened on its own is its own main thread.

Progress, file-history, queue, summary and system lines are not sent to the model and are
skipped (counted in a warning). A transcript records no system prompt, no tool schemas and
no params, so every prefix is reconstructed, and each run says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from tui.core.errors import LoadError
from tui.core.run import RECONSTRUCTED, LoadWarning, Run, Source
from tui.core.run_links import COMPACTED_FROM, COMPACTED_INTO
from tui.core.words import counted
from tui.formats.document import Document, read_document
from tui.core.client_added import ADDED_KEY
from tui.core.request_headers import CLIENT_BETAS_KEY
from tui.formats.transcript.assemble import Assembled, Assembler, client_notes
from tui.formats.transcript.attachments import CLAUDE_CODE_SYSTEM_BETA, EXACT_VERSION, rebuild_mode
from tui.formats.transcript.records import PROGRESS, Index, Record, index_value, read_index
from tui.formats.transcript.thread import COMPACTED, DANGLING, Thread, Threader, sidechain_leaves, thread

NAME = "claude-code"
DESCRIPTION = "Claude Code session transcript (JSONL from ~/.claude/projects, subagent files too)"

_TYPES = ("user", "assistant", "summary", "system", "progress", "file-history-snapshot", "queue-operation")
RECONSTRUCTED_NOTE = ("Claude Code transcript: no system prompt, tool schemas or params were recorded, so "
                      "every prefix is reconstructed from the messages (attach them with --system/--tools)")


def _looks_like(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("type") not in _TYPES:
        return False
    return "parentUuid" in value or "sessionId" in value or value.get("type") in (
        "summary", "file-history-snapshot", "queue-operation")


def sniff(doc: Document) -> int:
    if not doc.head.startswith(b"{"):
        return 0
    lines = doc.first_lines(3) or [doc.first_line()]
    return 90 if any(_looks_like(v) for v in lines) else 0


def load(doc: Document, subagents: bool = True) -> list[Run]:
    return read(doc, subagents).runs


@dataclass
class Session:
    """A transcript read: its runs, and what follow mode needs to go on from them when lines are appended
    (``follow``, ``append``, ``grow``): the index, the main thread and the ``Threader`` that made it, its
    assembler, and the main run's warnings that come after the ones ``_run`` makes (line warnings,
    unanswered subagents, the file's notes, subagent files)."""

    doc: Document
    index: Index
    runs: list[Run]
    main: Thread | None = None  # the main thread (runs[0]) when the file has one
    threader: Threader | None = None  # the main thread's
    title: str | None = None
    assembler: Assembler | None = None
    own: int = 0  # how many of runs[0]'s warnings _run made
    own_meta: frozenset[str] = frozenset()  # and which meta keys
    skipped_at: int = -1  # where among the later warnings the skipped-lines note is (or would go)
    skipped_note: bool = False  # whether there is one
    tail: list[LoadWarning] = field(default_factory=list)
    #: message index -> (the stored turn, the turn as sent or None, its warning): each thinking turn checked once
    sent: dict[int, tuple[Any, Any, Any]] = field(default_factory=dict)
    # Follow mode (``follow``): the last line in the runs and the last one appended, the message lines appended
    # since the last ``grow``, and what an appended line must not be to only extend the main thread.
    line: int = 0
    last: int = 0
    fresh: list[Record] = field(default_factory=list)
    wanted: set[str] = field(default_factory=set)
    side_calls: set[Any] = field(default_factory=set)
    warned: int = 0

    def keep_tail(self) -> None:
        """Note the main run's later warnings as they are now (after every step of the load has added its own)."""
        self.tail = self.runs[0].warnings[self.own:]

    def main_run(self) -> Run:
        """runs[0] made again from the main thread as it now is (follow mode, after appending to it)."""
        assert self.main is not None and self.assembler is not None
        old = self.runs[0]
        run = _run(self.doc.path, self.index, self.main, self.title, self.assembler.result(), self)
        note = _skipped_note(self.index)
        run.warnings += self.tail[:self.skipped_at] + ([note] if note else []) + \
            self.tail[self.skipped_at + self.skipped_note:]
        run.meta.update({k: v for k, v in old.meta.items() if k not in self.own_meta})
        run.source.run_index, run.source.run_count = old.source.run_index, old.source.run_count
        return run

    # -- follow mode -----------------------------------------------------------------------

    def follow(self, lines: int) -> None:
        """Ready for lines appended after the file's first ``lines``: runs[0] grows with the main thread
        (``append`` each line, then ``grow``), as long as the lines only extend it."""
        index = self.index
        self.line = self.last = lines
        self.fresh = []
        # Parents no line of the file answers (or answered by a progress line not parsed): a new line
        # with one of these uuids would join a thread already made.
        known = index.parsed.keys() | index.links.keys()
        self.wanted = {r.parent for r in index.parsed.values() if r.parent and r.parent not in known}
        self.wanted.update(r.logical_parent for r in index.parsed.values()  # a compact boundary's thread before it
                           if r.logical_parent and r.logical_parent not in known)
        self.wanted.update(link[2] for link in index.links.values() if link[2] and link[2] not in known)
        self.side_calls = {u for r in index.messages if r.sidechain for u in r.uses}
        self.warned = len(self.doc.line_warnings)
        if self.threader is not None:
            self.threader.prepare()

    def append(self, number: int, value: Any) -> str | None:
        """One appended line (parsed) into the index; or why it cannot only extend the main thread (a subagent's
        line, a compaction, a title, a uuid lines already in the file have or name): the file is then read
        again whole."""
        why = self._not_appendable(value)
        if why:
            return f"line {number}: {why}"
        index = self.index
        got = index_value(index, value, number, len(index.data))
        if got is PROGRESS:
            index.skipped["progress"] = index.skipped.get("progress", 0) + 1
        elif isinstance(got, Record) and got.message is not None:
            self.fresh.append(got)
        self.last = number
        return None

    def _not_appendable(self, value: Any) -> str | None:
        if type(value) is not dict:
            return None
        index = self.index
        if value.get("isSidechain") is True:
            return "a subagent (sidechain) line"
        kind = value.get("type")
        if kind == "summary":
            return "a session title"
        if kind == "system" and value.get("subtype") == "compact_boundary":
            return "a compaction"
        if value.get("isCompactSummary") is True:
            return "a compact summary"
        uuid = value.get("uuid")
        if type(uuid) is str and (uuid in index.parsed or uuid in index.links or index.looked_up(uuid)
                                  or uuid in self.wanted or uuid in index.titles):
            return "a uuid that lines already in the file have or name"
        if self.side_calls and kind == "user":
            message = value.get("message")
            content = message.get("content") if type(message) is dict else None
            if type(content) is list and any(type(b) is dict and b.get("tool_use_id") in self.side_calls
                                             for b in content):
                return "a result of a subagent's tool call"
        return None

    def grow(self) -> str | None:
        """runs[0] made again with the lines appended since the last ``grow``; or why they do not only extend
        the main thread (then runs[0] is left as it was, and the file is to be read again whole).

        The main thread is moved on to the last message line (``Threader.grow``, the rules ``thread``
        builds every thread by); the lines that join it go to its assembler. The runs stay what a load
        of the file would give as long as no line leaves the thread, every line that joins it is new
        (a line already in the file would leave the abandoned branches), and every new message line
        joins it."""
        new, self.fresh = self.fresh, []
        if new:
            if self.main is None or self.threader is None or self.assembler is None:
                return "the first message of the main thread"
            leaf = new[-1]
            growth = self.threader.grow(leaf, new)
            if growth.left:
                return f"line {leaf.line} leaves line {growth.left[0].line} out of the main thread (a rewind?)"
            old = next((r for r in growth.joined if r.line <= self.line), None)
            if old is not None:
                return f"line {leaf.line} takes line {old.line}, which was not in the main thread, into it (a rewind?)"
            beside = next((r for r in new if r.line not in self.threader.chosen), None)
            if beside is not None:
                return f"line {beside.line}: a message line beside the main thread (a rewind, a retry)"
            if self.threader.thread is not self.main:  # made again whole: the same start, so the same notes
                self.threader.thread.notes = self.main.notes
                self.main = self.threader.thread
            for record in growth.joined:
                self.assembler.add(record)
        if len(self.doc.line_warnings) != self.warned:
            return "a line already in the file, read now, is not JSON"
        self.runs[0] = self.main_run()
        self.line = self.last
        return None


def read(doc: Document, subagents: bool = True) -> Session:
    """The transcript's runs (``load``), with the state follow mode extends."""
    index = read_index(doc)
    if not index.messages and not sniff(doc):  # forced on a file that is no transcript: say why
        raise doc.not_this_format(NAME, "no line is a 'user' or 'assistant' line with a 'message' object")
    main = [r for r in index.messages if not r.sidechain]
    threads: list[tuple[Thread, str | None]] = []
    chain: set[int] = set()  # the main thread and the parts before its compactions, newest first
    session = Session(doc, index, [])
    if main:
        session.threader = Threader(index, main[-1])
        first = session.threader.thread
        session.main, session.title = first, _title(index, first)
        threads.append((first, session.title))
        threads += _before_compactions(index, first)
        chain = {id(t) for t, _ in threads}
    sides = [thread(index, leaf) for leaf in sidechain_leaves(index)]
    unanswered = [t for t in sides if not any(r.kind == "assistant" for r in t.records)]
    if unanswered and len(unanswered) < len(sides) + bool(main):  # no empty runs of 0 model calls beside real ones
        sides = [t for t in sides if all(t is not u for u in unanswered)]
    else:
        unanswered = []
    if not main and sides:
        sides.sort(key=lambda t: -len(t.records))
    threads += [(t, None if not main else "subagent: " + _first_words(t)) for t in sides]
    runs = session.runs
    for t, title in threads:
        if t.records:
            runs.append(_run(doc.path, index, t, title, session=session if t is session.main else None))
    if runs:
        session.own, session.own_meta = len(runs[0].warnings), frozenset(runs[0].meta)  # what _run made
    parts = [k for k, (t, _) in enumerate((p for p in threads if p[0].records)) if id(t) in chain]
    for newer, older in zip(parts, parts[1:]):  # each part links to the one before its compaction, and back
        runs[newer].meta[COMPACTED_FROM] = older
        runs[older].meta[COMPACTED_INTO] = newer
    if runs:
        runs[0].warnings += sorted(doc.line_warnings, key=lambda w: w.line or 0)  # progress lines read late too
        for t in unanswered:
            runs[0].warnings.append(LoadWarning(
                f"a subagent thread of {counted(len(t.records), 'line')} that no model call answered (a prompt "
                "written again for a retry, or a subagent stopped before its first answer) is in no run",
                line=t.records[0].line))
            threads.append((t, None))  # its lines are accounted for: not "abandoned branches"
        session.skipped_at = len(runs[0].warnings) - session.own
        note = _skipped_note(index)
        if note is not None:
            runs[0].warnings.append(note)
            session.skipped_note = True
        _abandoned_notes(runs[0], index, threads)
    if subagents and main:
        runs += _subagent_files(doc.path, runs[0] if runs else None)
    for k, run in enumerate(runs):
        run.source.run_index, run.source.run_count = k, len(runs)
    if runs:
        session.keep_tail()
    return session


def _run(path: str, index: Index, t: Thread, title: str | None, built: Assembled | None = None,
         session: Session | None = None) -> Run:
    """The run of one thread; ``built``: its lines already assembled; ``session``: the session that keeps
    this thread's assembler (the main thread's, which follow mode goes on adding to)."""
    version = index.facts.get("version")
    mode = rebuild_mode(version)
    client, compared = mode is not None, mode == EXACT_VERSION
    if built is None:
        making = Assembler(client, compared)
        for record in t.records:
            making.add(record)
        built = making.result()
        if session is not None:
            session.assembler = making
    warnings = [LoadWarning(RECONSTRUCTED_NOTE)]
    warnings += client_notes(built, client, version if isinstance(version, str) else None, compared)
    if t.stop == COMPACTED and t.boundary is not None:
        warnings.append(LoadWarning("the session was compacted here: this run starts from the compact "
                                    "summary, which is all the model saw of what came before", line=t.boundary.line))
    for note in t.notes:
        warnings.append(LoadWarning(note + "; the lines before it are the run before the compaction", line=t.boundary.line
                                    if t.boundary is not None else None))
    if t.stop == DANGLING:
        warnings.append(LoadWarning(f"the thread starts at a line whose parent ({t.dangling}) is not in this "
                                    "file: the model also saw the messages before it", line=t.records[0].line))
    if built.merged_answers:
        warnings.append(LoadWarning(f"{counted(built.merged_answers, 'assistant turn')} assembled from several lines "
                                    "sharing one message.id (one line per content block)"))
    if t.siblings:
        warnings.append(LoadWarning(f"{counted(t.siblings, 'line')} taken from sibling branches (parallel tool calls "
                                    "and their results hang off the line of their own tool_use)"))
    if built.merged_users:
        warnings.append(LoadWarning(f"{counted(built.merged_users, 'user turn')} assembled from consecutive user lines "
                                    "(tool results written one per line; the API merges them the same way)"))
    if built.moved_results:
        warnings.append(LoadWarning(f"{counted(built.moved_results, 'user turn')}: tool results put before the other "
                                    "blocks written with them, as the API requires"))
    cache = session.sent if session is not None else {}
    for i in built.thinking:
        stored = built.messages[i]
        known = cache.get(i)
        if known is None or known[0] is not stored:  # the turn at i, as sent, worked out once (follow mode asks again)
            known = cache[i] = (stored, *_sent_as(i, stored))
        if known[1] is not None:
            built.messages[i] = known[1]
            warnings.append(known[2])
    for line in built.synthetic:
        warnings.append(LoadWarning("skipped an assistant line Claude Code wrote itself (an API error or "
                                    "placeholder, not a model answer)", line=line))
    for line in built.transcript_only:
        warnings.append(LoadWarning("skipped a line shown only in the transcript view (not sent)", line=line))
    meta = {k: v for k, v in (("session_id", index.facts.get("sessionId")), ("agent_id", index.facts.get("agentId")),
                              ("claude_code_version", index.facts.get("version"))) if v}
    if built.added:
        meta[ADDED_KEY] = {"client": "Claude Code", "pieces": built.added}
    if client:  # every request of the versions compared carried it (not recorded in the transcript)
        meta[CLIENT_BETAS_KEY] = [CLAUDE_CODE_SYSTEM_BETA]
    if built.added and title is None:  # the first text is now Claude Code's reminder, not the user's words
        title = _first_words(t)
    return Run(messages=built.messages, calls=built.calls, warnings=warnings, meta=meta,
               source=Source(path=path, format=NAME, prefix=RECONSTRUCTED, title=title))


def _title(index: Index, t: Thread) -> str | None:
    uuids = {r.uuid for r in t.records}
    titles = [s for leaf, s in index.titles.items() if leaf in uuids and s]
    return titles[-1] if titles else None


def _first_words(t: Thread) -> str:
    for record in t.records:
        content = record.content
        text = content if isinstance(content, str) else next(
            (b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"), "") \
            if isinstance(content, list) else ""
        if isinstance(text, str) and text.strip():
            return " ".join(text.split())[:70]
    return "(no prompt text)"


def _before_compactions(index: Index, first: Thread) -> list[tuple[Thread, str | None]]:
    out = []
    current = first
    seen: set[int] = set()
    used = {r.line for r in first.records}
    while current.stop == COMPACTED and current.boundary is not None and id(current.boundary) not in seen:
        seen.add(id(current.boundary))
        leaf = _last_message_before(index, current.boundary)
        if leaf is None:  # the boundary's logicalParentUuid is not in the file: the chain written before it
            leaf = next((r for r in reversed(index.messages) if r.line < current.boundary.line
                         and r.line not in used and not r.sidechain), None)
            if leaf is None:
                break
            current.notes.append(f"the compact boundary at line {current.boundary.line} names a parent "
                                 f"({current.boundary.logical_parent}) that is not in this file")
        earlier = thread(index, leaf)
        used.update(r.line for r in earlier.records)
        out.append((earlier, f"before the compaction at line {current.boundary.line}: {_first_words(earlier)}"))
        current = earlier
    return out


def _last_message_before(index: Index, boundary: Record) -> Record | None:
    """The last message line of the thread a compact boundary closed (``logicalParentUuid``)."""
    record = index.node(boundary.logical_parent, boundary.start) if boundary.logical_parent else None
    seen, most = 0, index.size()
    while record is not None and record.message is None and seen < most:
        record = index.node(record.parent, record.start) if record.parent else None
        seen += 1
    return record


def _skipped_note(index: Index) -> LoadWarning | None:
    if not index.skipped:
        return None
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(index.skipped.items(), key=lambda kv: -kv[1]))
    return LoadWarning(f"skipped lines not sent to the model: {kinds}")


def _abandoned_notes(run: Run, index: Index, threads: list[tuple[Thread, str | None]]) -> None:
    used: set[int] = set()
    for t, _ in threads:
        used.update(map(id, t.records))
    unused = [r for r in index.messages if id(r) not in used] if len(used) < len(index.messages) else []
    if unused:
        points = sorted({p for p in (_branch_point(index, r, used) for r in unused) if p is not None})
        where = (f" from the branch point at line{'s' * (len(points) > 1)} {', '.join(map(str, points[:5]))}"
                 + (" …" if len(points) > 5 else "")) if points else ""
        run.warnings.append(LoadWarning(f"{counted(len(unused), 'message line')} on abandoned branches (a rewind, "
                                        f"a retry){where}, in no run", line=unused[0].line))


def _branch_point(index: Index, record: Record, used: set[int]) -> int | None:
    """The line of the first ancestor of an unused line that a run holds: where the branch left the thread."""
    seen, most = 0, index.size()
    current: Record | None = record
    while current is not None and seen < most:
        if id(current) in used:
            return current.line
        current = index.node(current.parent, current.start) if current.parent else None
        seen += 1
    return None


def _subagent_files(path: str, main: Run | None) -> list[Run]:
    """Runs from ``<session>/subagents/*.jsonl`` beside the session file, when that folder exists."""
    folder = os.path.join(os.path.splitext(path)[0], "subagents")
    if not os.path.isdir(folder):
        return []
    runs: list[Run] = []
    problems: list[str] = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".jsonl"):
            path_of = os.path.join(folder, name)
            try:
                sub = load(read_document(path_of), subagents=False)
            except LoadError as exc:  # one unreadable subagent file does not hide the session
                problems.append(exc.line_text())
                continue
            if not sub:
                problems.append(f"{path_of}: no message lines")
            for run in sub:
                run.source.title = f"subagent {os.path.splitext(name)[0]}: {run.title()}"
                runs.append(run)
    if main is not None:
        if runs:
            main.warnings.append(LoadWarning(f"{counted(len(runs), 'subagent run')} read from {folder} (`turnscope list`)"))
        main.warnings += [LoadWarning(f"subagent file not read: {problem}") for problem in problems]
    return runs


def _sent_as(i: int, stored: Any) -> tuple[Any, LoadWarning | None]:
    sent = _as_sent(stored)
    if sent is None:
        return None, None
    ahead = ", ".join(map(_block_name, stored["content"][:len(stored["content"]) - len(sent["content"]) + 1]))
    return sent, LoadWarning(
        f"message {i}: rebuilt as sent: the transcript stores the turn as [{ahead}, ...], a whitespace-only "
        "text block ahead of the thinking, which Claude Code leaves out when it sends the turn back (the API "
        "requires thinking first); the block is not in the request shown", index=i)


def _as_sent(message: Any) -> dict[str, Any] | None:
    """An assistant turn stored as ``[text "\\n\\n", thinking, ...]`` as Claude Code sends it: without the
    whitespace-only text blocks ahead of its first thinking block; None when the turn is not of that shape."""
    content = message.get("content") if isinstance(message, dict) and message.get("role") == "assistant" else None
    if type(content) is not list:
        return None
    for k, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in ("thinking", "redacted_thinking"):
            return {**message, "content": content[k:]} if k else None
        if kind != "text" or not isinstance(block.get("text"), str) or block["text"].strip():
            return None
    return None


def _block_name(block: Any) -> str:
    if isinstance(block, dict) and block.get("type") == "text":
        return f"text {block.get('text')!r}".replace("'", '"')
    return block.get("type") if isinstance(block, dict) else "?"
