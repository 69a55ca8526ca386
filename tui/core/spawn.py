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
app code of the parent runs in it.
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


def start(target: Callable[..., None], args: tuple, name: str, fork: bool = False,
          inbox: bool = False) -> tuple[Any, Any, Any]:
    """Start ``target(send, *args)`` in a spawned (``fork``: forked) daemon process: (the process, the end
    to read from, None). The parent's copy of the writing end is closed, so reading gives EOF once the child
    exits. With ``inbox``, a second pipe the other way: ``target(send, *args, inbox)``, and the third item
    is the end the parent sends on (the child reads EOF once the parent closes it).
    ``fork`` only where ``forkable()``: the arguments are not pickled, the child holds them already."""
    import multiprocessing  # when a worker starts, not when the app does

    if fork and not forkable():
        raise RuntimeError("a process that runs threads must not fork: spawn the worker")
    context = multiprocessing.get_context("fork" if fork else "spawn")
    receive, send = context.Pipe(duplex=False)
    child_in, outbox = context.Pipe(duplex=False) if inbox else (None, None)
    process = context.Process(target=target, args=(send, *args, *([child_in] if inbox else [])), name=name,
                              daemon=True)
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
