"""``turnscope record`` run as a user runs it, in its own process, for tests.

``Recorder.start(output, upstream)`` starts ``python -m tui record -o OUTPUT --upstream URL``,
reads the ``export ANTHROPIC_BASE_URL=...`` line it prints and gives that URL; ``stop()``
sends Ctrl-C (SIGINT) and waits; ``kill()`` sends SIGKILL. Its stdout and stderr are kept
so a test can search them for a planted key.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from conftest import REPO


@dataclass
class Recorder:
    process: subprocess.Popen
    url: str
    output: Path
    stdout: str = ""
    stderr: str = ""
    extra: list[str] = field(default_factory=list)

    @classmethod
    def start(cls, output: Path, upstream: str, *more: str, env: dict[str, str] | None = None) -> Recorder:
        full_env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1", **(env or {})}
        process = subprocess.Popen([sys.executable, "-m", "tui", "record", "-o", str(output), "--upstream", upstream,
                                    *more], cwd=REPO, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        line = process.stdout.readline()
        if not line.startswith("export ANTHROPIC_BASE_URL="):
            process.kill()
            out, err = process.communicate(timeout=10)
            raise AssertionError(f"the recorder did not start: {line!r} {out!r} {err!r}")
        return cls(process, line.strip().split("=", 1)[1], output)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        out, err = self.process.communicate(timeout=30)
        self.stdout += out
        self.stderr += err
        return self.process.returncode

    def kill(self) -> None:
        self.process.kill()
        out, err = self.process.communicate(timeout=30)
        self.stdout += out
        self.stderr += err
