"""Install the pinned Claude Code CLI from the npm registry into ``.claude-code/`` (ignored by git).

The real-client tests (``tests/test_claude_code_real.py``) run this ``claude`` against the tests'
fake Messages API; ``.ci/run`` runs this script before the test command, and the tests' set-up
runs it when the folder is missing. Installing is idempotent and safe to run from several
processes at once (pytest-xdist workers): a file lock serialises them, and the package is
installed into a temporary folder that is renamed into place only when ``claude --version``
answers with the pinned version.

    python3 scripts/install_claude_code.py      # prints the path of the claude executable
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: The Claude Code version the real-client tests pin (README says which versions were tried).
VERSION = "2.1.197"
PACKAGE = "@anthropic-ai/claude-code"
ROOT = Path(__file__).resolve().parent.parent / ".claude-code"


class InstallError(Exception):
    """npm is missing or the install failed; the message is one line."""


def executable(version: str = VERSION) -> Path:
    return ROOT / version / "node_modules" / ".bin" / "claude"


def _answers(path: Path, version: str) -> bool:
    try:
        proc = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and proc.stdout.split()[:1] == [version]


def ensure(version: str = VERSION) -> Path:
    """The path of the pinned ``claude``, installed first when it is not there."""
    target = executable(version)
    if target.exists() and _answers(target, version):
        return target
    ROOT.mkdir(parents=True, exist_ok=True)
    with open(ROOT / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.exists() and _answers(target, version):
            return target
        npm = shutil.which("npm")
        if npm is None:
            raise InstallError("npm is not on PATH: install Node.js (with npm) to run the Claude Code tests")
        scratch = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=ROOT))
        try:
            # The platform binary comes as an optional dependency of the package; npm picks the one for this machine.
            proc = subprocess.run([npm, "install", "--prefix", str(scratch), "--no-audit", "--no-fund",
                                   "--no-save", "--include=optional", f"{PACKAGE}@{version}"],
                                  capture_output=True, text=True, timeout=600)
            made = scratch / "node_modules" / ".bin" / "claude"
            if proc.returncode != 0 or not _answers(made, version):
                last = (proc.stderr.strip().splitlines() or ["claude --version did not answer " + version])[-1]
                raise InstallError(f"npm install {PACKAGE}@{version} failed: {last}")
            final = ROOT / version
            if final.exists():
                shutil.rmtree(final)
            os.replace(scratch, final)
        finally:
            if scratch.exists():
                shutil.rmtree(scratch, ignore_errors=True)
    return target


def main() -> int:
    try:
        print(ensure())
    except InstallError as error:
        print(f"install_claude_code: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
