"""A loader for the analyses' process that waits for a flag file first: the process is surely running
while a test steps through the run (or closes it)."""

from __future__ import annotations

import time
from pathlib import Path

from tui.formats import open_run


def open_when_flagged(flag: str, path: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while not Path(flag).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return open_run(path)
