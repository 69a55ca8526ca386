"""The review analyses of one run in a separate process, so they never hold the UI's interpreter.

A Python thread that computes competes with the UI thread for the interpreter: every step waited
for it. So the stepper starts ``Background``: a process (the ``spawn`` context: no fork of a process
that runs threads) that the app sends its run to (``run_pieces``: pickled a piece at a time by a
thread of the app while the keys are quiet, each piece once for all the processes; the file is not
read again, which for a Claude Code session or a trace log, whose run is a small part of a large
file, was most of the work and memory; the 100 MB run costs the app's interpreter about 0.1 s in
103 pieces of at most 2 ms), runs
the grammar and content check, the token report, the provenance index and the trace of every tool
turn, and sends the results back in small pickled pieces. A run that does not pickle (a plug-in's
run may hold anything) is not sent: the process loads the file itself with the loader it is given
(core does not import the loaders: the app passes a picklable callable,
``functools.partial(open_run, path, ...)``). A thread of the app's process reads them
(waiting on the pipe costs no interpreter time), unpickles one small piece at a time and, while the
user is stepping, pauses between pieces, so nothing it does holds the interpreter for more than a
millisecond or two (while the keys are quiet it only lets the interpreter go between pieces); each
piece taken in is settled (``collector.settle``: the results are read-only, and a full collection
walking them held the interpreter for hundreds of milliseconds); it hands each finished result to
``deliver(kind, value)``:

- ``("findings", list[Finding])``, ``("tokens", TokenReport)``, ``("traces", TraceRows)`` (each trace as
  ``provenance.trace_row`` made it, kept pickled a piece at a time until asked for: ``trace_of`` makes the
  ``Trace``),
  then ``("done", None)`` (on two cores the grammar check and the content check, or its two halves, run as
  jobs of their own, in one process or both (``groups``): ``Background`` joins their findings and delivers
  them once, as the single job would);
- ``("failed", text)`` when the worker could not load the run, or loaded a different one than the
  app holds (the file changed since; only a run that was not sent is loaded): the caller falls back to
  computing in its own process.

``stop()`` ends the process at once (closing a run, opening another, quitting).

The run the app starts on is already in memory before the app runs, when the launching process
runs no thread yet (the app built, not yet started): ``fork_early`` forks the workers there
(``spawn.start(fork=True)``): no second load, no interpreter start-up, no imports. They wait behind a
gate (``spawn.Gate``) until the ``Background`` made next for that very run (the stepper's, started once
its first screen is out) adopts them and starts: on two cores, two processes analysing beside the
app's first screen slowed it by about a tenth. That ``Background`` spawns none of its own; any other run
(opened from the picker, another run of the file, after a reload) is analysed by spawned workers,
since the app then runs threads. What a forked worker sends is what a spawned one sends.
"""

from __future__ import annotations

import copy
import gc
import hashlib
import os
import pickle
import threading
import time
import weakref
from typing import Any, Callable, Iterator

from tui.core import collector, estimate, jsonio, spawn
from tui.core.run import Run
from tui.core.tokens import CallTokens, MessageTokens, TokenReport
from tui.core.view.trace_rows import TraceRows

#: Objects per piece sent back: unpickling one takes about a millisecond.
PIECE = 500
#: Items per piece of the run the app sends a spawned worker (``run_pieces``): pickling 500 of the 100 MB run's
#: messages takes the app's interpreter 1-2 ms, 500 model calls about 2 ms.
SEND = 500
#: The lists of a run sent a piece at a time; the rest of it (system, tools, params, source, ...) in one.
SENT_LISTS = ("messages", "calls", "warnings")
#: Traces per piece: as tuples (taken in as they are, ``Collect``) 400 unpickle in about a millisecond.
TRACES_PIECE = 400
#: Seconds the reading thread sleeps between pieces while the user is stepping, so the UI thread gets the
#: interpreter; while the keys are quiet (``Background``'s ``quiet``) it only lets the interpreter go.
PAUSE = 0.001
#: From this file size on, the stepper analyses a run in these processes (below it, in a thread of its own:
#: a small run's analyses take less than starting a process); ``launch.fork_analyses`` asks the same.
PROCESS_FROM = 4 << 20
JOBS = ("findings", "tokens", "traces")
#: The findings as jobs of their own for two processes: the grammar check, the content check (``content``) or
#: a part of it (``content 0/2``: ``content_part``); ``Background`` joins them in this order.
FINDING_PARTS = ("grammar", "content")

Deliver = Callable[[str, Any], None]
_LIVE: weakref.WeakSet[Background] = weakref.WeakSet()


def large(path: str | None) -> bool:
    """Whether the file at ``path`` is large enough for its analyses to run in processes (``PROCESS_FROM``)."""
    if not path:
        return False
    try:
        return os.path.getsize(path) >= PROCESS_FROM
    except OSError:
        return False


def fingerprint(run: Run) -> tuple:
    """Enough of a run to tell whether the worker loaded the one the app holds: the counts, and the first,
    middle and last messages' bytes hashed (the file may have changed since the app read it)."""
    messages = run.messages
    picked = [messages[k] for k in sorted({0, len(messages) // 2, len(messages) - 1}) if 0 <= k < len(messages)]
    digest = hashlib.sha1(b"\0".join(jsonio.dumps(m) for m in picked)).hexdigest()
    return len(messages), len(run.calls), digest


def tool_turns(run: Run) -> Iterator[int]:
    from tui.core.view.analyses import has_tool_use

    return (i for i, m in enumerate(run.messages) if has_tool_use(m))


def content_part(job: str) -> tuple[int, int]:
    """The part of the content check a job does: ``content`` the whole (0, 1), ``content k/m`` part k of m."""
    _, _, part = job.partition(" ")
    if not part:
        return 0, 1
    k, m = part.split("/")
    return int(k), int(m)


def _finding_part(job: str) -> tuple[int, int] | None:
    """Where a job's findings go in the join (``FINDING_PARTS``' order, then the content check's parts), or
    None for a job that finds none."""
    kind = job.partition(" ")[0]
    if kind not in FINDING_PARTS:
        return None
    return FINDING_PARTS.index(kind), content_part(job)[0] if kind == "content" else 0


def _pieces(items: list, size: int = PIECE) -> Iterator[list]:
    for k in range(0, len(items), size):
        yield items[k:k + size]


def _call_row(c: CallTokens) -> tuple:
    added = c.added
    span = (added[0], added[-1] + 1) if added and added == list(range(added[0], added[-1] + 1)) else added
    return (c.call, c.message, c.input_tokens, c.output_tokens, c.cache_read_input_tokens,
            c.cache_creation_input_tokens, c.kind, c.sent, span, c.new)


def _call_of(row: tuple) -> CallTokens:
    *head, span, new = row
    added = list(range(*span)) if isinstance(span, tuple) else list(span)
    return CallTokens(*head, added=added, new=new)


def _message_row(m: MessageTokens) -> tuple:
    return (m.index, m.tokens, m.kind, m.sends, m.first_call)


def analyse(run: Run, jobs: tuple[str, ...] = JOBS) -> Iterator[tuple[str, Any]]:
    """What the worker sends, piece by piece: ``(kind, payload)`` with small payloads."""
    for job in jobs:
        if job == "findings":
            from tui.core.content_check import content_findings
            from tui.core.grammar import check_run
            from tui.core.grammar.findings import sort_findings

            yield "findings", sort_findings([*check_run(run), *content_findings(run)])
        elif job == "grammar":  # the findings in two processes (``groups``): ``Background`` joins them
            from tui.core.grammar import check_run

            yield "grammar-findings", list(check_run(run))
        elif job.startswith("content"):  # the whole check, or a part of it (``content_part``)
            from tui.core.content_check import content_findings

            yield f"{job}-findings", list(content_findings(run, content_part(job)))
        elif job == "tokens":
            from tui.core.tokens import token_report

            report = token_report(run)
            for piece in _pieces(report.calls):
                yield "token-calls", [_call_row(c) for c in piece]
            for piece in _pieces(report.messages):
                yield "token-messages", [_message_row(m) for m in piece]
            yield "tokens", (report.fixed, report.fixed_kind)
        elif job == "traces":
            from tui.core.provenance import Provenance, trace_row
            from tui.core.view.trace_rows import piece as trace_piece

            provenance = Provenance(run)
            traces = [(n, trace_row(provenance.trace(n))) for n in tool_turns(run)]  # tuples: pickled faster
            for piece in _pieces(traces, TRACES_PIECE):
                yield "trace-piece", trace_piece(piece)
            yield "traces", None


def _send(conn: Any, run: Run, jobs: tuple[str, ...]) -> None:
    for item in analyse(run, jobs):
        conn.send_bytes(pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL))
    conn.send_bytes(pickle.dumps(("done", None)))


def run_pieces(run: Run) -> Iterator[bytes]:
    """``run`` as the app sends it to a spawned worker (``received`` puts it together again): the run without the
    lists that grow with it (``SENT_LISTS``), pickled (empty when it cannot be pickled: a plug-in's run holding
    something that does not pickle; the worker then loads the file), then each of those lists ``SEND`` items at
    a time, pickled with its name, and an empty end. (The model calls too: the 41,000 of a 1 GB Claude Code
    transcript's run took 190 ms to pickle in one piece.)"""
    shell = copy.copy(run)
    for name in SENT_LISTS:
        setattr(shell, name, [])
    shell.calls_changed()
    try:
        yield pickle.dumps(shell, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - whatever does not pickle: the worker loads the file instead
        yield b""
        return
    for name in SENT_LISTS:
        items = getattr(run, name)
        for k in range(0, len(items), SEND):
            yield pickle.dumps((name, items[k:k + SEND]), protocol=pickle.HIGHEST_PROTOCOL)
    yield b""


def received(inbox: Any) -> Run | None:
    """In a spawned worker: the run the app sent (``run_pieces``), or None when it could not send it."""
    head = inbox.recv_bytes()
    if not head:
        return None
    run = pickle.loads(head)
    while piece := inbox.recv_bytes():
        name, items = pickle.loads(piece)
        if name in SENT_LISTS:
            getattr(run, name).extend(items)
    run.calls_changed()
    return run


def _work(conn: Any, load: Callable[[], Run] | None, jobs: tuple[str, ...], expect: tuple | None,
          run: Run | None = None, inbox: Any = None) -> None:
    """The worker process. Spawned: take the run the app sends (``inbox``: ``received``), or where it could
    not send it, ``load`` and check it is the app's run (``expect``); analyse, send. Forked (``run``: the
    app's own, copied by the fork and shared until written): analyse it, send. The collector stays off in
    both: a short-lived process of read-only objects, which in a forked child the parent froze
    (``collector.keep_out_loaded``); a collection would write to every object's header, copying the pages
    the child shares with the app."""
    try:
        spawn.settle_child()
        gc.disable()
        if run is None and inbox is not None:
            run = received(inbox)
            inbox.close()
        if run is None:
            try:
                run = load()
            except Exception as exc:  # noqa: BLE001 - any failure to load means: compute in the app instead
                conn.send_bytes(pickle.dumps(("failed", f"{type(exc).__name__}: {exc}")))
                return
            found = fingerprint(run)
            if found != expect:
                conn.send_bytes(pickle.dumps(("failed", "the file is not the run the app holds any more "
                                                        f"({found[0]} messages, the app has {expect[0]})")))
                return
        _send(conn, run, jobs)
    except (BrokenPipeError, EOFError, OSError):  # the app stopped listening: it closed the run
        return
    finally:
        conn.close()


class Collect:
    """Puts the worker's pieces back together: ``add(kind, payload)`` returns a finished result or None."""

    def __init__(self) -> None:
        self.calls: list[CallTokens] = []
        self.messages: list[MessageTokens] = []
        self.traces = TraceRows()

    def add(self, kind: str, payload: Any) -> tuple[str, Any] | None:
        if kind == "token-calls":
            self.calls += [_call_of(row) for row in payload]
        elif kind == "token-messages":
            self.messages += [MessageTokens(*row) for row in payload]
        elif kind == "tokens":
            fixed, fixed_kind = payload
            report = TokenReport(self.calls, self.messages, fixed, fixed_kind)
            self.calls, self.messages = [], []
            return "tokens", report
        elif kind == "trace-piece":  # kept as sent: ``RunAnalyses`` makes a ``Trace`` of one when it is asked for
            self.traces.add(payload)
        elif kind == "traces":
            traces, self.traces = self.traces, TraceRows()
            return "traces", traces
        else:
            return kind, payload
        return None


class Worker:
    """One worker process of a run and the thread that reads what it sends."""

    def __init__(self, run: Run, load: Callable[[], Run] | None, deliver: Deliver, jobs: tuple[str, ...] = JOBS,
                 fork: bool = False):
        self.deliver = deliver
        self.jobs = jobs
        #: Forked (``fork_early``): the child analyses ``run`` itself; else spawned, it is sent the run
        #: (``outbox``), or loads it with ``load`` where it cannot be sent.
        self.forked = fork
        self._run: Run | None = run if fork else None
        self._expect = None if fork else fingerprint(run)
        self._load = load
        #: Forked by ``fork_early``: the gate the child waits behind until ``start`` (``spawn.Gate``).
        self.gate: spawn.Gate | None = None
        self._stopped = threading.Event()
        #: Set while the keys are quiet (``RunAnalyses.gate``): the reader takes pieces in without ``PAUSE``.
        self.quiet: threading.Event | None = None
        self.process: Any = None
        self._conn: Any = None
        #: Spawned: the end the app sends its run down (``run_pieces``), until the run is sent.
        self.outbox: Any = None
        self._reader: threading.Thread | None = None

    def start_process(self) -> None:
        """The process started (once): forked on the run held, or spawned to be sent it (or load it)."""
        if self.process is not None:
            return
        if self.forked:
            run, self._run = self._run, None  # the child has its copy; the screen's view holds the run here
            self.process, self._conn, _ = spawn.start(_work, (None, self.jobs, None, run), "turnscope-analyses",
                                                      fork=True, gate=self.gate)
        else:  # the run comes down ``outbox`` (``Background``'s sender): no second load of the file
            self.process, self._conn, self.outbox = spawn.start(_work, (self._load, self.jobs, self._expect, None),
                                                                "turnscope-analyses", inbox=True)

    def start(self) -> None:
        """The process (unless ``fork_early`` started it, behind a gate: opened now) and the thread reading what
        it sends."""
        self.start_process()
        if self.gate is not None:
            self.gate.open()
        self._reader = threading.Thread(target=self._read, name="turnscope-analyses-reader", daemon=True)
        self._reader.start()

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.is_alive()

    def _read(self) -> None:
        collect = Collect()
        conn = self._conn
        try:
            while not self._stopped.is_set():
                try:
                    data = conn.recv_bytes()
                except (EOFError, OSError):
                    if not self._stopped.is_set():
                        self.deliver("failed", "the analyses' process ended early")
                    return
                kind, payload = pickle.loads(data)
                if self._stopped.is_set():
                    return
                done = collect.add(kind, payload)
                collector.settle()  # the piece kept out of the collector's full walks
                if done is not None:
                    self.deliver(*done)
                    if done[0] in ("done", "failed"):
                        return
                quiet = self.quiet
                time.sleep(0 if quiet is not None and quiet.is_set() else PAUSE)  # the UI thread's turn
        finally:
            conn.close()
            if self.process is not None:
                self.process.join(timeout=1)

    def stop(self) -> None:
        """End the worker now (the run was closed): nothing more is delivered."""
        self._stopped.set()
        if self.gate is not None:
            self.gate.shut()  # a child still waiting behind it ends without working
        spawn.end(self.process)
        if self._reader is None and self._conn is not None:  # forked early, never read: no thread to close it
            self._conn.close()
            self._conn = None
        # else the reading thread sees the pipe's end and closes it


def groups(cpus: int | None = None, compiled: bool | None = None) -> tuple[tuple[str, ...], ...]:
    """The jobs per worker: on two cores or more, the findings and the token report in one process, the
    provenance index and traces (the longest job) in the other; else all in one. With ``estimate``'s compiled
    counter (100 MB run, CPU: grammar 0.2 s, content check 0.5 s, tokens 0.6 s against provenance and traces
    1.4-2.0 s) the two are about even (forked, 1.76-1.94 s against 1.64-1.89 s). Without it the token report
    takes 1.2-1.4 s, and half the content check goes beside the traces to even them (with the whole of it
    there, that process ended 0.15-1.0 s after the other, pty timelines of the app). Each process does its
    part of the findings first, so they are in before either big job. Forked workers too: one per job cost
    0.4 s more CPU than two (100 MB: 7.05 s against 6.64, medians of 3; the third child imports and copies
    pages of its own) for no earlier end on two cores, where the app's first screen and reading take a
    core's share beside them. (``compiled``: as if the counter were built or not; None: as it is.)"""
    cpus = os.cpu_count() if cpus is None else cpus
    if (cpus or 1) < 2:
        return (JOBS,)
    if estimate.COMPILED if compiled is None else compiled:
        return ("grammar", "content", "tokens"), ("traces",)
    return ("grammar", "content 0/2", "tokens"), ("content 1/2", "traces")


class Background:
    """The worker processes of one run (``groups``): each result delivered once it is in; a failure of
    any of them is delivered once and stops the others; ``done`` once all are done."""

    def __init__(self, run: Run, load: Callable[[], Run], deliver: Deliver,
                 jobs: tuple[tuple[str, ...], ...] | None = None, quiet: threading.Event | None = None):
        """``quiet``: set while the user is not stepping (``RunAnalyses.gate``); then what the processes send is
        taken in without pausing between pieces (on the 100 MB run 144 pieces: the pauses alone were 0.15 s);
        None: always pausing."""
        self.deliver = deliver
        self._lock = threading.Lock()
        self._failed = False
        self._run: Run | None = run  # until ``start`` sends it to the spawned workers
        adopted = _adopt(run, tuple(jobs) if jobs else None)  # forked by ``fork_early`` for this very run
        if adopted is not None:
            for worker in adopted:
                worker.deliver = self._delivered
        self.workers = adopted or [Worker(run, load, self._delivered, group) for group in (jobs or groups())]
        for worker in self.workers:
            worker.quiet = quiet
        self._running = len(self.workers)
        #: The findings' parts (``grammar``, ``content`` or its parts: in two processes), and those in.
        self._finding_parts = sorted((job for w in self.workers for job in w.jobs if _finding_part(job)),
                                     key=_finding_part)
        self._findings: dict[str, list] = {}

    @property
    def forked(self) -> bool:
        """Whether its workers were forked before the app started (``fork_early``), not spawned."""
        return all(w.forked for w in self.workers)

    def start(self) -> None:
        _LIVE.add(self)
        for worker in self.workers:
            worker.start()
        spawned = [w for w in self.workers if w.outbox is not None]
        if spawned:
            threading.Thread(target=_send_run, args=(self._run, spawned), name="turnscope-analyses-sender",
                             daemon=True).start()
        self._run = None

    @property
    def processes(self) -> list[Any]:
        return [w.process for w in self.workers if w.process is not None]

    @property
    def alive(self) -> bool:
        return any(w.alive for w in self.workers)

    def _delivered(self, kind: str, value: Any) -> None:
        with self._lock:
            if self._failed:
                return
            part = kind.removesuffix("-findings")
            if part in self._finding_parts:  # one part of the findings: delivered whole once all are in
                self._findings[part] = value
                if len(self._findings) < len(self._finding_parts):
                    return
                from tui.core.grammar.findings import sort_findings

                # in the order the single job joins them (``analyse``), so the sort's ties fall alike
                kind, value = "findings", sort_findings([f for p in self._finding_parts for f in self._findings[p]])
            if kind == "failed":
                self._failed = True
            elif kind == "done":
                self._running -= 1
                if self._running:
                    return
        if kind == "failed":
            for worker in self.workers:
                worker._stopped.set()
            threading.Thread(target=self.stop, daemon=True).start()  # not from a reading thread: it joins them
        self.deliver(kind, value)

    def stop(self) -> None:
        """End every worker now (the run was closed): nothing more is delivered."""
        for worker in self.workers:
            worker.stop()
        _LIVE.discard(self)


def _send_run(run: Run, workers: list[Worker]) -> None:
    """The run down each spawned worker's ``outbox``, a piece at a time, each piece pickled once for all of
    them (the 100 MB run: 103 pieces of at most 2 ms of the app's interpreter), and only while the keys are
    quiet (``quiet``, the gate ``RunAnalyses`` opens 0.3 s after the last step): while the user steps, the
    interpreter is the UI thread's (sending beside the steps made the first step after opening a run from a
    file's run list wait 10 ms for it). A worker stopped meanwhile (the run closed) is sent nothing more;
    each outbox is closed once sent."""
    open_ = list(workers)
    quiet = workers[0].quiet
    try:
        for piece in run_pieces(run):
            while quiet is not None and not quiet.wait(0.1):
                if all(worker._stopped.is_set() for worker in open_):
                    return
            for worker in list(open_):
                try:
                    if worker._stopped.is_set():
                        raise BrokenPipeError
                    worker.outbox.send_bytes(piece)
                except (OSError, EOFError):  # stopped, or its process ended: its reader says what happened
                    open_.remove(worker)
                    worker.outbox.close()
            if not open_:
                return
            time.sleep(0)  # the UI thread's turn, if it waits for the interpreter
    finally:
        for worker in open_:
            worker.outbox.close()


def stop_all() -> None:
    """Every worker still running (the app is quitting), forked early ones not adopted included."""
    for background in list(_LIVE):
        background.stop()
    _adopt(None, None)


#: Workers forked by ``fork_early``, with their run, until a ``Background`` of that run adopts them.
_EARLY: list[tuple[Run, list[Worker]]] = []


def _undelivered(kind: str, value: Any) -> None:  # pragma: no cover - a worker is read only once adopted
    raise AssertionError(f"an early worker's {kind!r} read before a Background adopted it")


def fork_early(run: Run, jobs: tuple[tuple[str, ...], ...] | None = None) -> bool:
    """Start the analyses of ``run`` now, in processes forked from this one, if it may fork (``spawn.forkable``:
    it runs no other thread, as the command line before the app starts): True if it did. They wait behind one
    gate until the next ``Background`` of this very run (same object, same jobs) adopts them and starts: no
    load or start-up of their own. Early workers of another run still waiting are ended first."""
    _adopt(None, None)
    if not spawn.forkable():
        return False
    workers = [Worker(run, None, _undelivered, group, fork=True) for group in (jobs or groups())]
    gate = spawn.Gate()
    try:
        for worker in workers:
            worker.gate = gate
            worker.start_process()
    except Exception:  # pragma: no cover - no fork here (out of processes): the stepper spawns as before
        for worker in workers:
            worker.stop()
        return False
    _EARLY.append((run, workers))
    return True


def _adopt(run: Run | None, jobs: tuple[tuple[str, ...], ...] | None) -> list[Worker] | None:
    """The early workers of ``run`` (for ``jobs``, or any), taken out of waiting; every other early worker ended."""
    found = None
    while _EARLY:
        early, workers = _EARLY.pop()
        if found is None and run is not None and early is run and jobs in (None, tuple(w.jobs for w in workers)):
            found = workers
        else:
            for worker in workers:
                worker.stop()
    return found
