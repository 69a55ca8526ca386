"""The picker's exact message counts: each session loaded by the loader the stepper opens it with, in a
process of its own, and kept in a cache by (path, size, mtime).

The picker describes a session from the head of its file at once (fast, but a rewind or a
compaction makes that count differ from the run it opens into), marks the count estimated,
and asks ``Counter`` for the exact one: a ``spawn`` process (no fork of a process that runs
threads) that calls ``tui.formats.load_runs`` on each file in turn and sends back a small
``Counted`` per file (every run's message count, in the loader's order, and the title of run
0, the run the picker opens). Reading them costs the app's interpreter nothing while it
waits on the pipe and microseconds per file, so the UI is never held.

``CountCache`` keeps them in ``picker_counts.json`` under turnscope's cache directory,
written atomically (``jsonio.atomic_write``), titles with any secret redacted; an entry
counts only while the file's size and modification time are the ones it was counted at,
and a damaged cache file counts as empty (it is only a convenience).
"""

from __future__ import annotations

import os
import pickle
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterator

from tui.core import jsonio, spawn
from tui.core.errors import LoadError

CACHE_FILE = "picker_counts.json"
#: Files kept in the cache at most (the newest counted first).
CACHE_LIMIT = 1000


@dataclass(frozen=True)
class Counted:
    """One file as the loader reads it: each run's message count (run 0: the run the picker opens), run 0's
    title (secrets redacted), or why it could not be loaded; ``size`` and ``mtime_ns`` as stat'ed before
    the load (-1 when the file changed while it was read: not cached)."""

    path: str
    size: int
    mtime_ns: int
    messages: tuple[int, ...] = ()
    title: str = ""
    error: str | None = None


def stamp(path: str) -> tuple[int, int] | None:
    """(size, mtime in ns) of ``path``, None when it cannot be stat'ed."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


def count_file(path: str, **options: str | None) -> Counted:
    """Load ``path`` as Enter does (``load_runs`` with the app's load options) and count each run's messages."""
    from tui.core.errors import UsageError
    from tui.core.secrets import redact_title
    from tui.formats import load_runs

    before = stamp(path) or (-1, -1)
    try:
        runs = load_runs(path, lazy=True, **options)  # counted, not built (an .eval's samples)
    except (LoadError, UsageError) as exc:
        text = exc.line_text() if isinstance(exc, LoadError) else str(exc)
        return _checked(Counted(path, *before, error=f"cannot open: {text}"), before)
    except OSError as exc:
        return _checked(Counted(path, *before, error=f"cannot read: {exc.strerror or exc}"), before)
    title = redact_title(runs[0].title()) if runs else ""
    return _checked(Counted(path, *before, tuple(r.sizes()[0] for r in runs), title), before)


def _checked(counted: Counted, before: tuple[int, int]) -> Counted:
    if stamp(counted.path) != before:  # written to while it was read: right for now, not for the cache
        return Counted(counted.path, -1, -1, counted.messages, counted.title, counted.error)
    return counted


def _work(conn: Any, paths: list[str], options: dict[str, str | None]) -> None:
    """The counting process: count each file, send each result as it is done."""
    try:
        spawn.settle_child()
        for path in paths:
            try:
                counted = count_file(path, **options)
            except Exception as exc:  # noqa: BLE001 - a loader bug on one file must not stop the others
                counted = Counted(path, -1, -1, error=f"cannot open: {type(exc).__name__}: {exc}")
            conn.send_bytes(pickle.dumps(counted, protocol=pickle.HIGHEST_PROTOCOL))
    except (BrokenPipeError, EOFError, OSError):  # the app stopped listening: the picker closed
        return
    finally:
        conn.close()


class Counter:
    """The counting process of one scan: ``results()`` yields a ``Counted`` per file of ``paths`` as it is done
    (call it from a worker thread: it waits on the pipe); ``stop()`` ends the process at once. ``options``:
    ``load_runs``'s keywords, the app's (``LoadOptions.kwargs``), so each file is read as Enter reads it."""

    def __init__(self, paths: list[str], options: dict[str, str | None] | None = None) -> None:
        self.paths = paths
        self.options = dict(options or {})
        self.process: Any = None
        self._conn: Any = None
        self._stopped = False

    def start(self) -> None:
        self.process, self._conn, _ = spawn.start(_work, (self.paths, self.options), "turnscope-counts")

    def results(self) -> Iterator[Counted]:
        conn = self._conn
        if conn is None:
            return
        try:
            for _ in self.paths:
                if self._stopped:
                    return
                try:
                    data = conn.recv_bytes()
                except (EOFError, OSError):
                    return
                yield pickle.loads(data)
        finally:
            conn.close()
            if self.process is not None:
                self.process.join(timeout=1)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.is_alive()

    def stop(self) -> None:
        """End the process now (the picker closed or scans again): nothing more is yielded."""
        self._stopped = True
        spawn.end(self.process)


class CountCache:
    """Counted files by path, valid while the file's size and mtime are unchanged (``picker_counts.json`` in
    ``directory``; None: kept in memory only)."""

    def __init__(self, directory: Path | None) -> None:
        self.path = directory / CACHE_FILE if directory is not None else None
        self.items: dict[str, Counted] = {}
        self.dirty = False
        if self.path is not None:
            self._read()

    def _read(self) -> None:
        assert self.path is not None
        try:
            data = jsonio.loads(self.path.read_bytes(), str(self.path))
        except (OSError, LoadError):
            return
        files = data.get("files") if isinstance(data, dict) else None
        for item in files if isinstance(files, list) else []:
            try:
                counted = Counted(str(item["path"]), int(item["size"]), int(item["mtime_ns"]),
                                  tuple(int(n) for n in item.get("messages", ())), str(item.get("title", "")),
                                  None if item.get("error") is None else str(item["error"]))
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
            self.items[counted.path] = counted

    def get(self, path: str) -> Counted | None:
        """The file's counts if it is unchanged since they were taken."""
        counted = self.items.get(path)
        if counted is None or stamp(path) != (counted.size, counted.mtime_ns):
            return None
        return counted

    def put(self, counted: Counted) -> None:
        if counted.size < 0:
            return
        self.items.pop(counted.path, None)
        self.items[counted.path] = counted  # the newest last
        self.dirty = True

    def save(self) -> None:
        """Write the cache atomically if anything was added; a failure to write is not the user's problem."""
        if self.path is None or not self.dirty:
            return
        kept = list(self.items.values())[-CACHE_LIMIT:]
        data = jsonio.dumps({"files": [{**asdict(c), "messages": list(c.messages)} for c in kept]})
        try:
            jsonio.atomic_write(self.path, data)
        except OSError:
            return
        self.dirty = False
