"""Holding the analyses' process before it has its run, so it is surely running while a test steps
through the run (or closes it): ``HeldUntil`` in a run's ``meta`` holds the app's sending of the run
(its pickling waits) until a flag file exists; ``open_when_flagged``, as a run's loader, holds a process
that loads the file itself (a run that cannot be sent) the same way."""

from __future__ import annotations

import time
from pathlib import Path

from tui.formats import open_run


def _wait(flag: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not Path(flag).exists() and time.monotonic() < deadline:
        time.sleep(0.02)


def open_when_flagged(flag: str, path: str, timeout: float = 60.0):
    _wait(flag, timeout)
    return open_run(path)


class HeldUntil:
    """A ``meta`` value whose pickling waits for ``flag`` (at most ``timeout`` seconds); it arrives as "held"."""

    def __init__(self, flag: str, timeout: float = 60.0):
        self.flag, self.timeout = flag, timeout

    def __reduce__(self):
        _wait(self.flag, self.timeout)
        return str, ("held",)
