"""How fast the stepper opens and steps a 100 MB run, measured in a real terminal (a pty), not asserted.

    python bench/bench_stepper.py [--size 100MB] [--steps 40] [--repeat 3]

Side by side in one run, each the median of ``--repeat`` tries:
- baseline: a bare ``orjson.loads`` of the file (per line for JSONL), plus a hello-world
  Textual app's time from spawn to its first screen in the same kind of pty;
- turnscope: ``python -m tui FILE`` from spawn to the first full screen (the header of
  message 0 and the request pane's output marker both drawn), until the footer's keys are
  drawn too (Textual's footer fills in a frame or two later), and until the grammar check's
  result is on screen;
- step latency: a key (j at the first index, k at the last) to the frame that shows the
  new index, p50 and p95 over ``--steps`` keys at each end;
- peak memory of the turnscope process (VmHWM) after stepping.
The targets (issue 4): first screen <= 1.5x the baseline; step p95 <= 50 ms, no worse at
the last index than at the first.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import select
import statistics
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from large_run import _size, make  # noqa: E402

ANSI = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|.)")
HELLO = ("from textual.app import App\nfrom textual.widgets import Static\n"
         "class Hello(App):\n    def compose(self):\n        yield Static('Hello, world')\nHello().run()\n")
COLS, ROWS = 120, 40


class Term:
    """A child process on a pty of COLS x ROWS; ``until`` reads its output until some text has been drawn."""

    def __init__(self, argv: list[str]):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(ROOT), "COLUMNS": str(COLS),
               "LINES": str(ROWS), "TURNSCOPE_STATE_DIR": str(ROOT / "bench" / "out" / "state")}
        env.pop("NO_COLOR", None)
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True,
                                     start_new_session=True)
        os.close(slave)
        self.raw = b""  # everything the process wrote so far

    def until(self, *needles: str, timeout: float = 120, since_start: bool = False) -> float:
        """Seconds from now until every needle has appeared in text drawn after this call (or at
        all, with ``since_start``)."""
        t0 = time.perf_counter()
        seen = self.raw if since_start else b""
        wanted = [n.encode() for n in needles]
        if since_start and all(w in ANSI.sub(b"", seen) for w in wanted):
            return 0.0
        while True:
            left = timeout - (time.perf_counter() - t0)
            if left <= 0:
                raise TimeoutError(f"never drew {needles!r}; last: {ANSI.sub(b'', seen)[-400:]!r}")
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 1 << 20)
            except OSError:
                raise RuntimeError(f"the process ended: {ANSI.sub(b'', seen)[-400:]!r}") from None
            if b"\x1b[?2026$p" in chunk:  # answer Textual's query: synchronized output is supported
                os.write(self.master, b"\x1b[?2026;2$y")
            seen += chunk
            self.raw += chunk
            plain = ANSI.sub(b"", seen)
            if all(w in plain for w in wanted):
                return time.perf_counter() - t0

    def key(self, data: bytes, *needles: str) -> float:
        t0 = time.perf_counter()
        os.write(self.master, data)
        self.until(*needles)
        return time.perf_counter() - t0

    def cpu(self) -> float:
        """CPU seconds (user + system) the process has used so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        try:
            os.write(self.master, b"q")
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)


BARE = ("import orjson, sys, time\nt = time.perf_counter()\ndata = open(sys.argv[1], 'rb').read()\n"
        "if sys.argv[1].endswith('.jsonl'):\n    [orjson.loads(line) for line in data.split(b'\\n') if line.strip()]\n"
        "else:\n    orjson.loads(data)\nprint(time.perf_counter() - t)\n")


def bare_orjson(path: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of reading and parsing the file, in a fresh process (not counting its start)."""
    proc = subprocess.Popen([sys.executable, "-c", BARE, str(path)], stdout=subprocess.PIPE)
    out = proc.stdout.read()
    _, _, usage = os.wait4(proc.pid, 0)
    wall = float(out)
    return wall, min(usage.ru_utime + usage.ru_stime, wall + 0.05)


def hello_first_screen() -> tuple[float, float]:
    term = Term([sys.executable, "-c", HELLO])
    try:
        term.until("Hello, world")
        return time.perf_counter() - term.start, term.cpu()
    finally:
        term.close()


def turnscope(path: Path, total: int, steps: int) -> dict:
    term = Term([sys.executable, "-m", "tui", str(path)])
    try:
        term.until(f"message 0 of {total}", "the caller's message")
        first = time.perf_counter() - term.start
        first_cpu = term.cpu()
        term.until("Quit", since_start=True)  # the footer's keys: Textual draws them a frame or two later
        footer = time.perf_counter() - term.start
        term.until("error", timeout=300)  # "0 errors, 0 warnings" or the counts: the check is on screen
        checked = time.perf_counter() - term.start
        head = [term.key(b"j", f"message {n} of {total}") for n in range(1, steps + 1)]
        term.key(b"G", f"message {total - 1} of {total}")
        tail = [term.key(b"k", f"message {n} of {total}") for n in range(total - 2, total - 2 - steps, -1)]
        return {"first": first, "first_cpu": first_cpu, "footer": footer, "checked": checked, "head": head, "tail": tail,
                "peak": term.peak_mb()}
    finally:
        term.close()


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100MB")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--format", choices=("jsonl", "request"), default="jsonl")
    args = parser.parse_args()
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    path = make(out / f"large.{'jsonl' if args.format == 'jsonl' else 'json'}", _size(args.size), args.format)
    from tui.formats import open_run

    run = open_run(str(path))
    total = len(run.messages)
    del run
    print(f"run: {path.name}, {path.stat().st_size / 1e6:,.1f} MB, {total:,} messages; terminal {COLS}x{ROWS}")
    loads_runs, hello_runs, results = [], [], []
    for _ in range(args.repeat):  # interleaved, so a busy moment on a shared machine hits all three alike
        loads_runs.append(bare_orjson(path))
        hello_runs.append(hello_first_screen())
        results.append(turnscope(path, total, args.steps))
    loads, hello = statistics.median(w for w, _ in loads_runs), statistics.median(w for w, _ in hello_runs)
    loads_cpu = statistics.median(c for _, c in loads_runs)
    hello_cpu = statistics.median(c for _, c in hello_runs)
    cpus = [r["first_cpu"] for r in results]
    first_cpu = statistics.median(cpus)
    first = statistics.median(r["first"] for r in results)
    checked = statistics.median(r["checked"] for r in results)
    head = [t * 1000 for r in results for t in r["head"]]
    tail = [t * 1000 for r in results for t in r["tail"]]
    base = loads + hello
    print(f"bare orjson.loads          {loads:6.2f} s")
    print(f"hello-world first screen   {hello:6.2f} s")
    print(f"baseline (sum)             {base:6.2f} s")
    ratios = [r["first"] / (lo[0] + he[0]) for r, lo, he in zip(results, loads_runs, hello_runs)]
    print(f"turnscope first screen     {first:6.2f} s   ratio {first / base:4.2f}x  (target <= 1.5x; "
          f"per try {', '.join(f'{x:.2f}' for x in ratios)})")
    print(f"  in CPU seconds: orjson {loads_cpu:.2f} + hello {hello_cpu:.2f} = {loads_cpu + hello_cpu:.2f}; "
          f"turnscope {first_cpu:.2f}; ratio {first_cpu / (loads_cpu + hello_cpu):4.2f}x "
          f"(per try {', '.join(f'{cpu:.2f}' for cpu in cpus)} s)")
    footer = statistics.median(r["footer"] for r in results)
    print(f"footer keys drawn too      {footer:6.2f} s   ratio {footer / base:4.2f}x")
    print(f"grammar check on screen    {checked:6.2f} s")
    print(f"step at the first index    p50 {pct(head, 50):5.1f} ms  p95 {pct(head, 95):5.1f} ms")
    print(f"step at the last index     p50 {pct(tail, 50):5.1f} ms  p95 {pct(tail, 95):5.1f} ms  (target p95 <= 50 ms)")
    print(f"peak memory (VmHWM)        {max(r['peak'] for r in results):6.0f} MB for a "
          f"{path.stat().st_size / 1e6:,.0f} MB file")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
