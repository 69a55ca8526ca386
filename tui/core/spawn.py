"""A worker process started from inside the app: spawned, niced, silent on the terminal, a pipe back.

The analyses of a large run (``view/background.py``) and the picker's exact message counts
(``tui/app/session_counts.py``) each run in a process of their own. Both start it the same way:
the ``spawn`` context (no fork of a process that runs threads), a one-way pipe the child writes
and the parent reads (and, asked, ``inbox``, one the parent writes: the analyses' process is sent
its run), and the real standard error lent to multiprocessing while it starts (a TUI captures
``sys.stderr`` in an object with no file descriptor, which multiprocessing's helpers need). The child first calls ``settle_child``: its standard output and error go to the null
device (the app's terminal is not the child's to write on) and it lowers its priority, so a busy
machine gives its CPU to the app's keys first.

``start(..., fork=True)`` forks instead, which only a process running no other thread may do
(``forkable``: the command line, the run loaded, before Textual starts its threads): the child
has the parent's objects already (the run: no second load, no interpreter start-up, no
imports), and ends with ``os._exit`` (multiprocessing's fork start), so no ``atexit`` handler or
app code of the parent runs in it. A forked child may be held behind a ``Gate`` until the parent
opens it: the app forks the analyses before it runs and lets them work once its first screen is
out, so they do not share the two cores with the drawing of it.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any, Callable

#: The worker's niceness over the app's: the UI process runs first on a busy machine.
NICE = 10


def forkable() -> bool:
    """Whether this process may fork a worker: it runs no thread but this one (a fork copies a lock another
    thread holds, held for ever in the child), and the platform forks."""
    return threading.active_count() == 1 and hasattr(os, "fork")


class Gate:
    """Forked children held before they work until the parent ``open``s it (each then runs its target) or
    ``shut``s it (each ends without running it). A pipe: the child waits to read one byte; the parent
    writes one for each child it forked behind the gate. Only the parent's end keeps the gate closed,
    so a parent that ends (or crashes) without opening it ends its children too."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        self.children = 0

    @property
    def closed(self) -> bool:
        """Neither opened nor shut yet: a child forked now waits behind it."""
        return self._write is not None

    def passed(self) -> bool:
        """In the child: wait for the parent; True if it opened the gate, False if it shut it (or ended)."""
        os.close(self._write)  # this child's copy: the parent's alone keeps the gate closed
        try:
            return os.read(self._read, 1) == b"+"
        finally:
            os.close(self._read)

    def open(self) -> None:
        """In the parent: every child forked behind the gate goes on (once; shut already: nothing)."""
        if self.closed:
            os.write(self._write, b"+" * self.children)
            self.shut()

    def shut(self) -> None:
        """In the parent: no child behind the gate runs its target (opened already: nothing)."""
        for fd in (self._read, self._write):
            if fd is not None:
                os.close(fd)
        self._read = self._write = None


def _behind(gate: Gate, target: Callable[..., None], *args: Any) -> None:
    """A gated child: its target once the parent opens the gate."""
    if gate.passed():
        target(*args)


def start(target: Callable[..., None], args: tuple, name: str, fork: bool = False,
          inbox: bool = False, gate: Gate | None = None) -> tuple[Any, Any, Any]:
    """Start ``target(send, *args)`` in a spawned (``fork``: forked) daemon process: (the process, the end
    to read from, None). The parent's copy of the writing end is closed, so reading gives EOF once the child
    exits. With ``inbox``, a second pipe the other way: ``target(send, *args, inbox)``, and the third item
    is the end the parent sends on (the child reads EOF once the parent closes it).
    ``fork`` only where ``forkable()``: the arguments are not pickled, the child holds them already; with a
    ``gate`` (forked only), the child waits for the parent to open it before it runs ``target``."""
    import multiprocessing  # when a worker starts, not when the app does

    if fork and not forkable():
        raise RuntimeError("a process that runs threads must not fork: spawn the worker")
    if gate is not None and (not fork or not gate.closed):
        raise ValueError("only a forked child waits behind a gate, and only one still closed")
    context = multiprocessing.get_context("fork" if fork else "spawn")
    receive, send = context.Pipe(duplex=False)
    child_in, outbox = context.Pipe(duplex=False) if inbox else (None, None)
    args = (send, *args, *([child_in] if inbox else []))
    if gate is not None:
        target, args = _behind, (gate, target, *args)
        gate.children += 1
    process = context.Process(target=target, args=args, name=name, daemon=True)
    stderr = sys.stderr
    try:
        if sys.__stderr__ is not None:
            sys.stderr = sys.__stderr__
        process.start()
    finally:
        sys.stderr = stderr
        send.close()
        if child_in is not None:
            child_in.close()  # the child has its own copy
    return process, receive, outbox


def end(process: Any) -> None:
    """End a worker started by ``start`` now: SIGTERM, then SIGKILL if it is still there after 2 s."""
    if process is not None and process.is_alive():
        process.terminate()
        process.join(timeout=2)
        if process.is_alive():  # pragma: no cover - SIGTERM is enough for our own worker
            process.kill()
            process.join(timeout=2)


def settle_child() -> None:
    """In the child, first: output to the null device, priority lowered by ``NICE`` where allowed."""
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    try:
        os.nice(NICE)
    except OSError:  # pragma: no cover - not allowed here: run at the app's priority
        pass
