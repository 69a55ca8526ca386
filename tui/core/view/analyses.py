"""The review analyses of one run as the stepper holds them: token cost and provenance.

``RunAnalyses`` is filled from workers (``tokens`` once per run, the provenance index once,
a ``trace`` per tool turn on demand) and read by the widgets on the UI thread: the message
list's token column, the Tokens view, the request pane's "where the values came from" rows
and the Problems view's provenance warnings. No Textual here. The provenance index is built
under a lock, so two workers asking at once build it once.

On a long run this work takes seconds of CPU, and a Python thread that computes competes with
the UI thread for the interpreter, which made every step several times slower. So the work
yields to the keys: it goes message by message through ``tick``, and waits there while the
gate is closed. The stepper closes the gate on every step (``hold``) and opens it when the
keys have been quiet for a moment (``resume``); a cancelled worker stops at the next tick.

When the stepper runs the analyses in a separate process (``tui.core.view.background``), it says so
(``expect_traces``): then ``compute_trace`` does not build the index here but waits, yielding to
``tick``, until ``set_traces`` brings the traces of every tool turn (or ``traces_failed`` says to
compute them here after all). They come as the process sent them (``trace_rows.TraceRows``: the
``provenance.trace_row`` tuples, pickled a piece at a time, and the unsourced values among them),
and each becomes a ``Trace`` when it is first asked for, so taking in 16,000 traces makes no object
per value.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from tui.core.blocks import TOOL_USE_TYPES
from tui.core.provenance import Provenance, Trace, Value, trace_of, value_of
from tui.core.run import Run, blocks_of
from tui.core.tokens import ESTIMATED, EXACT, Counter, TokenReport, token_report
from tui.core.view.trace_rows import TraceRows

#: How a number of each kind is marked: ``~`` an offline estimate, ``=`` counted by count_tokens,
#: nothing for the usage the provider recorded.
MARKS = {ESTIMATED: "~", EXACT: "="}


def mark(kind: str) -> str:
    return MARKS.get(kind, "")


def compact(n: int) -> str:
    """``840``, ``1.4k``, ``14k``, ``1.2M``: a token count in five characters or fewer."""
    if n < 1000:
        return str(n)
    for unit, size in (("k", 1000), ("M", 1_000_000), ("G", 1_000_000_000)):
        if n < size * 1000 or unit == "G":
            value = n / size
            return f"{value:.1f}{unit}" if value < 10 else f"{value:.0f}{unit}"
    return str(n)  # pragma: no cover - the loop always returns


def has_tool_use(message: Any) -> bool:
    return (isinstance(message, dict) and message.get("role") == "assistant"
            and any(isinstance(b, dict) and b.get("type") in TOOL_USE_TYPES for b in blocks_of(message)))


class Stopped(Exception):
    """The worker was cancelled while it waited or worked (the app is closing)."""


class RunAnalyses:
    """Token report and provenance of one run; ``None`` until a worker has computed them."""

    def __init__(self, run: Run):
        self.run = run
        self.report: TokenReport | None = None
        self.unsourced: list[tuple[int, Value]] | None = None
        self._by_message: dict[int, Any] = {}
        self._provenance: Provenance | None = None
        self._lock = threading.Lock()
        self._traces: dict[int, Trace] = {}
        self._rows: TraceRows | None = None  # traces from another process, made ``Trace`` when asked (``trace``)
        self.gate = threading.Event()  # set: the work may run; cleared while the user is stepping
        self.gate.set()
        self._remote: threading.Event | None = None  # set once traces from another process arrived (or failed)

    # -- yielding to the keys ------------------------------------------------------------

    def hold(self) -> None:
        """The user is stepping: background work waits at its next message."""
        self.gate.clear()

    def resume(self) -> None:
        self.gate.set()

    def ticker(self, cancelled: Callable[[], bool]) -> Callable[[], None]:
        """The ``tick`` for a worker: wait while held, raise ``Stopped`` once the worker is cancelled."""
        gate = self.gate

        def tick() -> None:
            while not gate.is_set():
                if cancelled():
                    raise Stopped
                gate.wait(0.1)
            if cancelled():
                raise Stopped

        return tick

    # -- tokens --------------------------------------------------------------------------

    def compute_tokens(self, counter: Counter | None = None, tick: Callable[[], None] | None = None) -> TokenReport:
        """Worker side: the token report (``counter``: exact counts through count_tokens)."""
        return token_report(self.run, counter, tick)

    def set_report(self, report: TokenReport) -> None:
        """UI side: the report arrived."""
        self.report = report
        self._by_message = report.by_message()

    def input_label(self, i: int) -> str:
        """The input tokens of the request that produced message ``i`` (``~1.4k``), or ''."""
        call = self._by_message.get(i)
        return f"{mark(call.kind)}{compact(call.total_input)}" if call is not None else ""

    # -- provenance ----------------------------------------------------------------------

    def provenance(self, tick: Callable[[], None] | None = None) -> Provenance:
        """The run's value index, built on first use (from a worker: it walks every message)."""
        with self._lock:
            if self._provenance is None:
                found = Provenance(self.run, tick)
                found.messages, found.fixed  # noqa: B018 - build both indices now, under the lock
                found.tick = None
                self._provenance = found
        return self._provenance

    def trace(self, n: int) -> Trace | None:
        """The trace of message ``n`` if a worker has made it."""
        found = self._traces.get(n)
        if found is None and self._rows is not None and (row := self._rows.get(n)) is not None:
            found = self._traces.setdefault(n, trace_of(row))  # (two threads asking at once: both get the first)
        return found

    def expect_traces(self) -> None:
        """Another process traces every tool turn: ``compute_trace`` waits for it instead of building the index."""
        self._remote = threading.Event()

    def set_traces(self, rows: TraceRows) -> list[tuple[int, Value]]:
        """The traces of every tool turn arrived from another process (``provenance.trace_row`` tuples, pickled a
        piece at a time); returns the unsourced values they hold, in run order."""
        self._rows = rows
        if self._remote is not None:
            self._remote.set()
        return [(i, value_of(v)) for i, v in rows.unsourced]

    def traces_failed(self) -> None:
        """The other process could not trace: ``compute_trace`` works here again."""
        remote, self._remote = self._remote, None
        if remote is not None:
            remote.set()

    def compute_trace(self, n: int, tick: Callable[[], None] | None = None) -> Trace:
        """Worker side: the trace of message ``n`` (the index is built first if need be, yielding at ``tick``;
        when another process traces, its result is awaited)."""
        remote = self._remote
        while remote is not None and not remote.is_set():
            if tick is not None:
                tick()
            remote.wait(0.05)
        found = self.trace(n)
        if found is None:
            found = self._traces[n] = self.provenance(tick).trace(n)
        return found

    def compute_unsourced(self, tick: Callable[[], None] | None = None) -> list[tuple[int, Value]]:
        """Worker side: every tool input value no earlier message, system prompt or tool holds."""
        out: list[tuple[int, Value]] = []
        for i, message in enumerate(self.run.messages):
            if tick is not None:
                tick()
            if has_tool_use(message):
                out += [(i, v) for v in self.compute_trace(i, tick).unsourced]
        return out

    def unsourced_at(self, i: int) -> list[Value]:
        return [v for n, v in self.unsourced or [] if n == i]
