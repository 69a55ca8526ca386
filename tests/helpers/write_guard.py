"""Catch any attempt to write an input file, whatever the permissions say (the tests run as root).

``no_writes_to(*paths)`` watches the given files for the duration of a ``with`` block through a
Python audit hook (PEP 578): an ``open`` with a write, append, create or truncate flag, a rename
or replace onto or away from the file, its removal, truncation, a chmod or utime. Every attempt
is recorded (the caller asserts the list is empty); nothing is blocked. The hook is installed
once per process and does nothing while no file is watched.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Iterator

_WRITING = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_EVENTS = {"os.rename": (0, 1), "os.remove": (0,), "os.truncate": (0,), "os.chmod": (0,), "os.utime": (0,),
           "os.link": (0, 1), "os.symlink": (1,), "shutil.copyfile": (1,), "shutil.move": (0, 1)}
_watched: set[str] = set()
_attempts: list[str] = []
_installed = False
_busy = False


def _name(value) -> str | None:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "surrogateescape")
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    return os.path.abspath(value) if isinstance(value, str) else None


def _hook(event: str, args: tuple) -> None:
    global _busy
    if not _watched or _busy:
        return
    _busy = True
    try:
        if event == "open":
            path, mode, flags = args
            name = _name(path)
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                      (isinstance(flags, int) and flags & _WRITING)
            if writing and name in _watched:
                _attempts.append(f"open({name!r}, mode={mode!r}, flags={flags:#o})")
        elif event in _EVENTS:
            for k in _EVENTS[event]:
                name = _name(args[k]) if k < len(args) else None
                if name in _watched:
                    _attempts.append(f"{event}({', '.join(map(repr, args))})")
    finally:
        _busy = False


@contextmanager
def no_writes_to(*paths) -> Iterator[list[str]]:
    """Watch ``paths`` (files; for a directory, every file under it); yield the list of write attempts."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
    names = set()
    for path in paths:
        path = os.path.abspath(os.fspath(path))
        if os.path.isdir(path):
            for root, _, files in os.walk(path):
                names.update(os.path.join(root, f) for f in files)
        else:
            names.add(path)
        names.update(os.path.realpath(n) for n in list(names))
    _watched.update(names)
    _attempts.clear()
    try:
        yield _attempts
    finally:
        _watched.difference_update(names)
