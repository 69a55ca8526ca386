"""Run every verb on a file and hold it to the bad-input contract: a loaded run, or exit 2 and one line.

``run_verbs(path)`` calls ``tui.cli.main`` in-process for each verb (fast enough to do for every
generated example), with stdout and stderr captured and a time limit per call (a hang fails the
test instead of stalling it). ``contract_problems`` says what, if anything, broke the rule:

- exit 0 or 1 (the run loaded, with warnings or findings), or 2 with exactly one stderr line
  ``turnscope: FILE...`` naming the file (and its position where there is one);
- never an exception out of ``main`` (a traceback), never longer than the time limit.

``python tests/helpers/verbs.py FILE...`` does the same in a fresh process and prints one JSON line per
call, for tests that run it under a subprocess timeout.
"""

from __future__ import annotations

import io
import signal
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

#: Every verb that reads a run file, as a user would call it (``{f}``: the file).
VERBS = [
    ["check", "{f}"], ["check", "{f}", "--strict", "--json"], ["show", "{f}"], ["show", "{f}", "--json"],
    ["show", "{f}", "--at", "0"], ["list", "{f}"], ["convert", "{f}"], ["tokens", "{f}"],
    ["tokens", "{f}", "--json"], ["trace", "{f}"], ["account", "{f}"], ["stats", "{f}"], ["diff", "{f}", "{f}"],
]
TIME_LIMIT = 60.0


class Hang(Exception):
    """A verb ran past its time limit."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``Hang`` in the main thread after ``seconds`` (SIGALRM)."""
    def alarm(signum, frame):  # noqa: ARG001 - the signal handler's signature
        raise Hang(f"still running after {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def call(argv: list[str], limit: float = TIME_LIMIT) -> tuple[int | None, str, str]:
    """``turnscope ARGV`` in-process: (exit code, stdout, stderr); the code is None and stderr the
    traceback when an exception escaped ``main``."""
    from tui.cli import main

    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", errors="surrogatepass", write_through=True)
    err = io.TextIOWrapper(err_bytes, encoding="utf-8", errors="surrogatepass", write_through=True)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        with time_limit(limit):
            code: int | None = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException:  # noqa: BLE001 - this is what the contract forbids; report it
        code = None
        err.write(traceback.format_exc())
    finally:
        sys.stdout, sys.stderr = saved
    return code, out_bytes.getvalue().decode("utf-8", "replace"), err_bytes.getvalue().decode("utf-8", "replace")


def contract_problems(path: str, argv: list[str], code: int | None, stderr: str) -> list[str]:
    """What broke the bad-input contract (empty: nothing)."""
    from tui.core.safe import one_line

    what = " ".join(argv[:1] + argv[2:])
    if code is None:
        return [f"{what}: an exception escaped: {stderr.strip().splitlines()[-1] if stderr.strip() else '?'}\n{stderr}"]
    problems = []
    if "Traceback" in stderr:
        problems.append(f"{what}: a traceback on stderr:\n{stderr}")
    if code == 2:
        lines = stderr.splitlines()
        if len(lines) != 1:
            problems.append(f"{what}: exit 2 with {len(lines)} stderr lines: {stderr!r}")
        elif not lines[0].startswith(f"turnscope: {one_line(path)}"):
            problems.append(f"{what}: exit 2 without naming the file first: {lines[0]!r}")
    elif code not in (0, 1):
        problems.append(f"{what}: exit {code}: {stderr!r}")
    return problems


def run_verbs(path: str | Path, verbs: list[list[str]] = VERBS, limit: float = TIME_LIMIT) -> list[str]:
    """Every verb on ``path``; the contract problems found (empty: the file was handled well)."""
    path = str(path)
    problems = []
    for template in verbs:
        argv = [a.format(f=path) for a in template]
        code, _, stderr = call(argv, limit)
        problems += contract_problems(path, argv, code, stderr)
    return problems


def outcome(path: str | Path) -> str:
    """``loaded`` or the one line the command line prints (for tests that want to see which)."""
    code, _, stderr = call(["check", str(path)])
    return "loaded" if code in (0, 1) else stderr.strip()


#: For big files: the verbs that read a run in different ways, without repeating the same load.
QUICK = [["check", "{f}"], ["show", "{f}", "--json"], ["list", "{f}"], ["account", "{f}"]]

if __name__ == "__main__":  # python tests/helpers/verbs.py [--quick] FILE...: one JSON line per file with its problems
    import orjson

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    names = sys.argv[1:]
    chosen = QUICK if names[:1] == ["--quick"] else VERBS
    for name in names[1:] if chosen is QUICK else names:
        sys.__stdout__.write(orjson.dumps({"file": name, "problems": run_verbs(name, chosen)}).decode() + "\n")
        sys.__stdout__.flush()
