"""Follow a run file while it is being written: each poll reads only what was appended.

``Follower(path)`` loads the file once and remembers where its last complete line ends (and
which file it is: device and inode). ``poll()`` looks at the file again and

- when it grew, reads the bytes from that offset up to the last complete line (a line still
  being written waits for the next poll) and hands the new lines to the format's appender,
  which adds them to what it already holds: a recording (claude-trace lines, as ``turnscope
  record`` writes them) groups each new exchange into its conversation, a message-per-line
  JSONL run appends each message. Nothing before the offset is read again.
- when it is shorter than the offset, or is another file now (replaced, rotated), loads it
  again whole, with a notice saying so;
- a Claude Code session: each new line goes into the session's index, and lines that extend
  the main thread (a new line whose parent chain reaches the thread's last message through
  new lines, or through lines that are no message) are added to the thread and its
  assembler, so the main run is made again without reading the file again. A line that
  changes the threads in a way appending cannot (a rewind: a message whose parent is not
  on the way to the current last one; a compaction; a sidechain; a uuid seen before; a
  title; a line that is not JSON) makes the follower load the file again whole, and
  ``Update.whole`` says why;
- for a format without an appender, loads it again whole when it grew, and says so in
  ``Update.whole``.

No Textual here: the app polls from a worker and shows the update; the bench times it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Protocol

from tui.core import collector, jsonio
from tui.core.errors import LoadError
from tui.core.run import LoadWarning, ModelCall, Run
from tui.formats import claude_code, claude_trace, detect, finish_runs, formats, load_runs, messages
from tui.formats.document import SKIPPED, Document, read_document
from tui.formats.recorded.conversations import Grouping
from tui.formats.transcript.records import COMPACT_SUMMARY, PROGRESS, Record, index_value


@dataclass
class Update:
    """What one poll found: the runs now, and how they came to be."""

    runs: list[Run]
    added: int = 0  # messages the first run gained (negative: it lost some, after a reload)
    lines: int = 0  # complete lines read this time
    read: int = 0  # bytes read this time
    reloaded: bool = False  # the file was truncated or replaced and was loaded again whole
    whole: bool = False  # the file was loaded again whole: the format has no appender, or ``why``
    notice: str | None = None
    why: str | None = None  # what an appender could not append, when it loaded the file again whole


class Appender(Protocol):
    """Reads a followed file's new lines (``feed``) and gives the runs they make so far (``runs``)."""

    def feed(self, number: int, value: Any) -> None: ...
    def runs(self) -> list[Run]: ...


class TraceAppender:
    """claude-trace lines (and ``turnscope record``'s): each exchange grouped as it comes."""

    def __init__(self, path: str):
        self.path = path
        self.grouping = Grouping()
        self.odd: list[LoadWarning] = []

    def feed(self, number: int, value: Any) -> None:
        exchange = claude_trace.exchange_from_line(value, number)
        if exchange is None:
            self.odd.append(LoadWarning("line is not a request/response pair; skipped", line=number))
        else:
            self.grouping.add(exchange)

    def runs(self) -> list[Run]:
        runs = self.grouping.runs(self.path, claude_trace.NAME)
        if runs:
            runs[0].warnings[:0] = self.odd
        return runs


class MessagesAppender:
    """A message-per-line JSONL run (an optional header line first): each line one more message."""

    def __init__(self, path: str):
        self.path = path
        self.header: dict[str, Any] | None = None
        self.messages: list[Any] = []
        self.calls: list[ModelCall] = []  # one per assistant message, as the loader infers them
        self.warnings: list[LoadWarning] = []

    def feed(self, number: int, value: Any) -> None:
        if self.header is None and not self.messages and messages.is_header(value):
            self.header = value
            return
        if not messages.is_message(value):
            self.warnings.append(LoadWarning("line is not a message (no role); kept as is", line=number))
        elif value.get("role") == "assistant":
            self.calls.append(ModelCall(message=len(self.messages)))
        self.messages.append(value)

    def runs(self) -> list[Run]:
        return [messages.run_from(list(self.messages), self.path, self.header or {}, 0, 1, list(self.warnings),
                                  list(self.calls))]


class TranscriptAppender:
    """A Claude Code session: each appended line indexed; the main thread extended where the lines extend it.

    ``stale`` names the first appended line that cannot be appended (the follower then loads the
    file again whole, which is always right); until then ``runs()`` equals a load of the file.
    """

    #: Walking back from a new last message, this many lines that were already there (progress
    #: and system lines hanging off the old last message) at most, before giving up and reloading.
    WALK = 10_000

    def __init__(self, path: str, session: claude_code.Session, lines: int):
        self.path = path
        self.session = session
        self.stale: str | None = None
        index = session.index
        main = session.main
        self.seen = self.line = lines  # lines up to ``seen`` are in the runs; ``line``: the last one fed
        # The main thread as thread() made it: its lines (ids), its spine (every line from the start to
        # the last message, with each one's place) and where on it each answer's message.id first is.
        self.in_thread = {id(r) for r in main.records} if main is not None else set()
        self.spine: list[Record] = list(main.path) if main is not None else []
        self.spine_at = {id(r): k for k, r in enumerate(self.spine)}
        self.key_at: dict[Any, int] = {}
        for k, record in enumerate(self.spine):
            if record.kind == "assistant" and record.message is not None and type(record.key) is str:
                self.key_at.setdefault(record.key, k)
        self.spined = len(main.records) - main.siblings if main is not None else 0
        self.use_of: dict[Any, Record | None] = {}  # tool_use id -> the main-thread-side line that made the call
        for record in index.messages:
            self._uses(record)
        # Parents no line of the file answers (or answered by a progress line not parsed): a new line
        # with one of these uuids would join a thread already made.
        known = index.parsed.keys() | index.links.keys()
        self.wanted = {r.parent for r in index.parsed.values() if r.parent and r.parent not in known}
        self.wanted.update(r.logical_parent for r in index.parsed.values()  # a compact boundary's thread before it
                           if r.logical_parent and r.logical_parent not in known)
        self.wanted.update(link[2] for link in index.links.values() if link[2] and link[2] not in known)
        self.new: list[Record] = []  # message lines appended since the last runs()
        self.warned = len(session.doc.line_warnings)

    def _uses(self, record: Record) -> None:
        if record.uses and not record.sidechain:
            for tool_use_id in record.uses:
                self.use_of[tool_use_id] = record if self.use_of.get(tool_use_id, record) is record else None

    def bad(self, number: int) -> None:
        self.stale = self.stale or f"line {number} is not JSON"

    def feed(self, number: int, value: Any) -> None:
        if self.stale:
            return
        self.line = number
        why = self._not_appendable(value)
        if why:
            self.stale = f"line {number}: {why}"
            return
        index = self.session.index
        got = index_value(index, value, number, len(index.data))
        if got is PROGRESS:
            index.skipped["progress"] = index.skipped.get("progress", 0) + 1
        elif isinstance(got, Record) and got.message is not None:
            self.new.append(got)
            self._uses(got)

    def _not_appendable(self, value: Any) -> str | None:
        if type(value) is not dict:
            return None
        index = self.session.index
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
        return None

    def runs(self) -> list[Run]:
        if self.stale:
            return self.session.runs
        if self.new:
            why = self._extend()
            self.new = []
            if why:
                self.stale = why
                return self.session.runs
        if len(self.session.doc.line_warnings) != self.warned:
            self.stale = "a line already in the file, read now, is not JSON"
            return self.session.runs
        self.session.runs[0] = self.session.main_run()
        self.seen = self.line
        return self.session.runs

    def _extend(self) -> str | None:
        """The new message lines added to the main thread; or why they cannot be.

        What ``thread()`` would choose for the new last line, worked out from the old thread: walking back
        from the new last line reaches the old spine at line ``M``; the spine before ``M`` is shared, so only
        the old spine after ``M`` (lines that must stay chosen: an answer's other lines, a result of a call
        still in the thread) and the new part (lines that join, with their answers' other lines and their
        calls' results) are looked at. Anything else (a line leaving the thread, an old line joining it,
        a call answered twice) is not appended: the file is loaded again."""
        session, index = self.session, self.session.index
        main, leaf = session.main, self.new[-1]
        if main is None or not self.spine:
            return "the first message of the main thread"
        seen, in_thread = self.seen, self.in_thread
        fresh: list[Record] = []  # the new spine after M, walked backwards
        record: Record | None = leaf
        walked = 0
        while True:
            if record is None:
                return f"line {leaf.line} does not go on from the main thread (its parent is not in the file)"
            at = self.spine_at.get(id(record))
            if at is not None:
                break
            if record.line <= seen:
                if (record.message is not None or record.kind == "attachment") and id(record) not in in_thread:
                    return f"line {leaf.line} goes on from line {record.line}, which is not in the main thread (a rewind?)"
                if record.sidechain or record.subtype == "compact_boundary" or record.flags & COMPACT_SUMMARY:
                    return f"line {leaf.line} goes on from line {record.line}, a subagent's line or a compaction"
                walked += 1
                if walked > self.WALK:
                    return f"line {leaf.line} is too far from the main thread's last message"
            fresh.append(record)
            record = (index.parsed.get(record.parent) or index.node(record.parent, record.start)) \
                if record.parent else None
        fresh.reverse()
        left = self.spine[at + 1:]  # the old spine after M: no longer on the spine
        keys = {r.key for r in fresh if r.kind == "assistant" and r.message is not None and type(r.key) is str}

        def kept_key(key: Any) -> bool:
            return type(key) is str and (key in keys or self.key_at.get(key, at + 1) <= at)

        joined: list[Record] = [r for r in fresh if (r.message is not None or r.kind == "attachment")
                                and id(r) not in in_thread]
        joining = {id(r) for r in joined}

        def chosen(r: Record) -> bool:
            return id(r) in in_thread or id(r) in joining

        def kept_result(r: Record) -> bool:  # the only result of a call the thread makes
            content = r.content
            if r.kind != "user" or type(content) is not list:
                return False
            for block in content:
                if type(block) is dict and block.get("type") == "tool_result":
                    target = block.get("tool_use_id")
                    use = self.use_of.get(target)
                    if index.results.get(target) == [r] and use is not None and chosen(use):
                        return True
            return False

        for r in left:
            if r.message is None and r.kind != "attachment":
                continue
            if r.kind == "assistant" and not r.sidechain and kept_key(r.key):
                continue
            if r.kind == "user" and kept_result(r):
                continue
            return f"line {leaf.line} leaves line {r.line} out of the main thread (a rewind?)"
        for key in keys:  # every line of each answer on the new part of the spine
            for other in index.by_message_id.get(key, ()):
                if not other.sidechain and not chosen(other):
                    if other.line <= seen:
                        return f"line {other.line}: part of an answer beside the main thread"
                    joined.append(other)
                    joining.add(id(other))
        for r in list(joined):  # the results of the calls that join
            for tool_use_id in r.uses:
                results = index.results.get(tool_use_id, ())
                if len(results) > 1:
                    return f"line {r.line}: a tool call with several results"
                if results and not chosen(results[0]):
                    if results[0].line <= seen:
                        return f"line {r.line}: a tool call answered before it was made"
                    joined.append(results[0])
                    joining.add(id(results[0]))
        for r in self.new:  # a new result of a call already in the thread, written off its own tool_use line
            if not chosen(r) and kept_result(r):
                joined.append(r)
                joining.add(id(r))
        if any(not chosen(r) for r in self.new):
            return "a message line beside the main thread (a rewind, a retry)"
        for r in joined:
            content = r.content if r.kind == "user" else None
            if type(content) is list and any(type(b) is dict and b.get("type") == "tool_result"
                                             and len(index.results.get(b.get("tool_use_id"), ())) > 1 for b in content):
                return f"line {r.line}: a second result of one tool call"
        joined.sort(key=lambda r: r.line)
        # The spine is now the shared part and the new one.
        on_spine = lambda rs: sum(1 for r in rs if r.message is not None or r.kind == "attachment")  # noqa: E731
        self.spined += on_spine(fresh) - on_spine(left)
        for r in left:
            del self.spine_at[id(r)]
            if type(r.key) is str and self.key_at.get(r.key, -1) > at:
                del self.key_at[r.key]
        del self.spine[at + 1:]
        for r in fresh:
            self.spine_at[id(r)] = len(self.spine)
            self.spine.append(r)
            if r.kind == "assistant" and r.message is not None and type(r.key) is str:
                self.key_at.setdefault(r.key, self.spine_at[id(r)])
        assert session.assembler is not None
        for r in joined:
            session.assembler.add(r)
        main.records.extend(joined)
        main.siblings = len(main.records) - self.spined
        in_thread.update(joining)
        return None


APPENDERS = {claude_trace.NAME: TraceAppender, messages.NAME: MessagesAppender}


@dataclass
class _Place:
    identity: tuple[int, int]
    offset: int
    line: int


class Follower:
    """One file, followed. ``runs`` is what it holds now; ``poll()`` brings it up to date."""

    def __init__(self, path: str, fmt: str | None = None, system: str | None = None, tools: str | None = None):
        self.path = path
        self.fmt, self.system, self.tools = fmt, system, tools
        self.runs: list[Run] = []
        self.appender: Appender | None = None
        self.format = ""
        self.place = _Place((0, 0), 0, 0)
        self._lines_read = Document(path, b"")  # its line_warnings: the bad lines seen so far
        self._pending = b""  # the start of a line not yet complete
        self._load_whole()

    # -- loading -------------------------------------------------------------------------

    def _load_whole(self) -> None:
        stat = os.stat(self.path)
        doc = read_document(self.path)
        module = {m.NAME: m for m in formats()}.get(self.fmt) if self.fmt else detect(doc)
        if module is None:
            raise LoadError(self.path, f"unknown format {self.fmt!r}")
        self.format = module.NAME
        data = doc.data
        end = data.rfind(b"\n") + 1
        if end < len(data) and _parses(data[end:]):
            end = len(data)  # a finished last line without its newline
        lines = data.count(b"\n", 0, end) + (1 if end and data[end - 1:end] != b"\n" else 0)
        self.place = _Place((stat.st_dev, stat.st_ino), end, lines)
        self._pending = data[end:]
        make = APPENDERS.get(module.NAME)
        whole = self.system is not None or self.tools is not None or data[:1] == b"["
        if module is claude_code and not whole:
            part = Document(self.path, data[:end])
            with collector.paused():
                session = claude_code.read(part)
            self.runs = finish_runs(part, module, session.runs)
            self.appender = TranscriptAppender(self.path, session, lines)
            self._lines_read = Document(self.path, b"")
            return
        if make is None or whole:
            self.appender = None
            self.runs = load_runs(self.path, fmt=self.fmt, system=self.system, tools=self.tools)
            return
        self.appender = make(self.path)
        part = Document(self.path, data[:end])
        for number, value in part.iter_lines():
            self.appender.feed(number, value)
        self._lines_read = part
        self.runs = self._runs()
        if not self.runs:
            raise LoadError(self.path, f"no run found in this {module.NAME} file", 1, 1)

    def _runs(self) -> list[Run]:
        assert self.appender is not None
        runs = self.appender.runs()
        if runs and not isinstance(self.appender, TranscriptAppender):  # its runs hold their line warnings
            runs[0].warnings[:0] = self._lines_read.line_warnings
        return runs

    # -- following -----------------------------------------------------------------------

    def poll(self) -> Update | None:
        """The update since the last poll, or None when nothing was appended."""
        try:
            stat = os.stat(self.path)
        except OSError:
            return None  # gone for a moment (a writer replacing it): the next poll sees the new file
        before = len(self.runs[0].messages) if self.runs else 0
        identity = (stat.st_dev, stat.st_ino)
        if identity != self.place.identity or stat.st_size < self.place.offset + len(self._pending):
            why = "replaced by another file" if identity != self.place.identity else "truncated"
            self._load_whole()
            return Update(self.runs, len(self.runs[0].messages) - before, reloaded=True,
                          notice=f"{self.path} was {why}; loaded again whole")
        seen = self.place.offset + len(self._pending)
        if stat.st_size == seen:
            return None
        if self.appender is None:
            self._load_whole()
            return Update(self.runs, len(self.runs[0].messages) - before, whole=True)
        with open(self.path, "rb") as handle:
            handle.seek(seen)
            new = handle.read(stat.st_size - seen)
        data = self._pending + new
        end = data.rfind(b"\n") + 1
        self._pending = data[end:]  # a line still being written: kept, not read again
        if end == 0:
            return None
        lines = self._feed(data[:end])
        self.place.offset += end
        with collector.paused():
            self.runs = self._runs() or self.runs
        why = getattr(self.appender, "stale", None)
        if why:  # appended lines that change the threads otherwise: the whole file, read again, is right
            self._load_whole()
            return Update(self.runs, len(self.runs[0].messages) - before, lines=lines, read=len(new), whole=True,
                          why=why)
        return Update(self.runs, len(self.runs[0].messages) - before, lines=lines, read=len(new))

    def _feed(self, data: bytes) -> int:
        assert self.appender is not None
        number, fed = self.place.line, 0
        for line in data.split(b"\n")[:-1]:
            number += 1
            if not line.strip():
                continue
            try:
                value = jsonio.fast_loads(line)
            except jsonio.FastDecodeError:
                if isinstance(self.appender, TranscriptAppender):
                    self.appender.bad(number)  # it loads the file again, which says what the line is
                    continue
                value = self._lines_read.bad_line(line, number)  # a warning naming the line
                if value is SKIPPED:
                    continue
            self.appender.feed(number, value)
            fed += 1
        self.place.line = number
        return fed


def _parses(tail: bytes) -> bool:
    try:
        jsonio.fast_loads(tail)
    except jsonio.FastDecodeError:
        return False
    return True


class Following:
    """What a viewer needs to follow one run of a file: the follower, where the cursor goes on an
    update, and how many messages arrived that the user has not looked at yet.

    Rows are the run's messages plus the next request (row ``total``), as in the stepper. The cursor
    stays on its row, unless it was on the last message or the next request: then it moves on with
    the run (as ``less +F`` does). A message counts as seen once the cursor has been on or past it.
    """

    def __init__(self, follower: Follower, run: int = 0):
        self.follower = follower
        self.run_index = run
        self.on = True  # following (F turns it off and on)
        self.seen = -1  # the furthest message index the cursor has been on
        first = self._runs()[min(run, len(self._runs()) - 1)]
        # A file's runs are ordered longest first, and that order can change as it grows: the run
        # followed is the one that starts as this one does, wherever it is now.
        self._start = (first.messages[:1], first.system)

    def _runs(self) -> list[Run]:
        return self.follower.runs

    @property
    def run(self) -> Run:
        runs = self._runs()
        for k, run in enumerate(runs):
            if (run.messages[:1], run.system) == self._start:
                self.run_index = k
                return run
        return runs[min(self.run_index, len(runs) - 1)]

    def looked(self, index: int) -> None:
        self.seen = max(self.seen, min(index, len(self.run.messages) - 1))

    @property
    def unseen(self) -> int:
        return max(0, len(self.run.messages) - 1 - self.seen)

    def cursor(self, index: int, before: int) -> int:
        """Where the cursor goes now the run has ``len(run.messages)`` messages, after ``before``."""
        total = len(self.run.messages)
        if index >= before - 1:  # on the last message or the next request: move on with the run
            return max(0, total - (before - index))
        return min(index, total)
