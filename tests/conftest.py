"""Shared fixtures: paths to the sample and real runs, and the command line run as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_runs"


def _realruns() -> Path | None:
    candidates = [os.environ.get("TURNSCOPE_REALRUNS"), REPO.parent / "shared" / "realruns",
                  Path("/work/shared/realruns")]
    for candidate in candidates:
        if candidate and Path(candidate, "SOURCES.md").exists():
            return Path(candidate)
    return None


REALRUNS = _realruns()


@pytest.fixture(autouse=True)
def _no_codex_home(tmp_path, monkeypatch):
    """Codex sessions are looked for under $CODEX_HOME, the picker keeps its counts under the cache dir: never
    the user's own ~/.codex or cache in a test."""
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))  # nor the user's cache (picker counts)


@pytest.fixture
def realruns() -> Path:
    if REALRUNS is None:
        pytest.skip("../shared/realruns is not next to this checkout (set TURNSCOPE_REALRUNS)")
    return REALRUNS


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            stdin: str | None = None, timeout: float = 120) -> Result:
    """``turnscope ARGS`` in a fresh process (``python -m tui``), as a user would run it."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1", **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "tui", *map(str, args)], cwd=cwd or REPO, env=full_env,
                          capture_output=True, text=True, input=stdin, timeout=timeout)
    return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def cli():
    return run_cli
