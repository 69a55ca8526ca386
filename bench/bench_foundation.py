"""How fast and how lean the headless verbs are on a 100 MB run, against a bare ``orjson.loads``.

    python bench/bench_foundation.py [--size 100MB] [--format request] [--repeat 5] [--keep DIR]

Builds a run with ``scripts/make_large_run.py`` in a temporary directory, then measures,
in this one run and as whole processes (start-up, imports, reading, output to /dev/null
included):

- ``python -c "import orjson; orjson.loads(open(F,'rb').read())"``: the floor (for ``--format
  jsonl``, ``orjson.loads`` of each line);
- ``turnscope check F``;
- ``turnscope show F --at MIDDLE`` and ``turnscope show F --at MIDDLE --json``.

Each command runs ``--repeat`` times, interleaved so that drift in the machine's load hits
them alike; the median wall time is divided by the median orjson time (target: at most
2.0). Peak memory is each child's own ``ru_maxrss`` (``os.wait4``), divided by the file
size (target: at most 6x; orjson alone takes about 4-5x). Nothing is asserted: the
numbers are printed, and the exit code is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
TIME_TARGET = 2.0
MEMORY_TARGET = 6.0


def measure(argv: list[str], env: dict[str, str]) -> tuple[float, int, int]:
    """Wall seconds, peak RSS in bytes and exit code of one child process."""
    with open(os.devnull, "wb") as sink:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE, env=env, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode not in (0,):
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {err.strip()}")
    return elapsed, usage.ru_maxrss * 1024, proc.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100MB")
    parser.add_argument("--format", default="request", choices=("request", "jsonl", "messages", "native"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", metavar="DIR", help="build the run here and keep it (default: a temp dir)")
    args = parser.parse_args(argv)

    python = sys.executable
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    with tempfile.TemporaryDirectory(prefix="turnscope-bench-") as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"large.{'jsonl' if args.format == 'jsonl' else 'json'}"
        subprocess.run([python, str(ROOT / "scripts" / "make_large_run.py"), "--size", args.size,
                        "--format", args.format, "--out", str(path)], check=True, env=env, stdout=subprocess.DEVNULL)
        size = path.stat().st_size
        summary = orjson.loads(subprocess.run([python, "-m", "tui", "check", "--json", str(path)], env=env,
                                              capture_output=True, check=True, cwd=ROOT).stdout)
        middle = summary["messages"] // 2
        middle -= middle % 2 == 0  # an odd index: a message the model produced
        turnscope = [python, "-m", "tui"]
        floor = (f"import orjson; orjson.loads(open({str(path)!r},'rb').read())" if args.format != "jsonl" else
                 f"import orjson; runs = [orjson.loads(line) for line in open({str(path)!r},'rb')]")
        commands = {
            "orjson.loads (floor)": [python, "-c", floor],
            "turnscope check": [*turnscope, "check", str(path)],
            f"turnscope show --at {middle}": [*turnscope, "show", str(path), "--at", str(middle)],
            f"turnscope show --at {middle} --json": [*turnscope, "show", str(path), "--at", str(middle), "--json"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        peaks: dict[str, list[int]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, command in commands.items():
                elapsed, peak, _ = measure(command, env)
                times[name].append(elapsed)
                peaks[name].append(peak)

    print(f"run: {size / 1e6:.1f} MB {args.format}, {summary['messages']:,} messages, "
          f"valid={summary['valid']}; median of {args.repeat}; python {sys.version.split()[0]}")
    floor = statistics.median(times["orjson.loads (floor)"])
    print(f"{'command':<36} {'median s':>9} {'x orjson':>9} {'peak MB':>8} {'x file':>7}")
    missed = False
    for name in commands:
        t = statistics.median(times[name])
        peak = max(peaks[name])
        ratio, mem = t / floor, peak / size
        marks = []
        if name != "orjson.loads (floor)":
            if ratio > TIME_TARGET:
                marks.append(f"time > {TIME_TARGET}")
            if mem > MEMORY_TARGET:
                marks.append(f"memory > {MEMORY_TARGET}x")
        missed = missed or bool(marks)
        print(f"{name:<36} {t:>9.3f} {ratio:>9.2f} {peak / 1e6:>8.0f} {mem:>7.2f}"
              + (f"  MISSED: {', '.join(marks)}" if marks else ""))
    print(f"targets: time <= {TIME_TARGET} x orjson, peak memory <= {MEMORY_TARGET} x file size")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
