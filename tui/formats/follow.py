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
- a Claude Code session: each new line goes into the session's index, and the main thread is
  moved on to the new last message by the loader's own thread rules (``claude_code.Session``,
  ``transcript.thread.Threader``: only the lines whose place in the thread changed are looked
  at), the lines that join it going to its assembler, so the main run is made again without
  reading the file again. Lines that change the threads in a way appending cannot (a rewind:
  a line leaving the main thread, or an old one joining it; a message beside it; a
  compaction; a sidechain; a uuid seen before; a title; a line that is not JSON) make the
  follower load the file again whole, and ``Update.whole`` says why;
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
    """A Claude Code session: each appended line goes to the session (``claude_code.Session.append``), and
    ``runs()`` moves its main thread on by the loader's own rules (``Session.grow``, ``Threader``).

    ``stale`` names the first appended line that cannot be appended (the follower then loads the
    file again whole, which is always right); until then ``runs()`` equals a load of the file.
    """

    def __init__(self, path: str, session: claude_code.Session, lines: int):
        self.path = path
        self.session = session
        self.stale: str | None = None
        session.follow(lines)

    def bad(self, number: int) -> None:
        self.stale = self.stale or f"line {number} is not JSON"

    def feed(self, number: int, value: Any) -> None:
        if not self.stale:
            self.stale = self.session.append(number, value)

    def runs(self) -> list[Run]:
        if not self.stale:
            self.stale = self.session.grow()
        return self.session.runs


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
