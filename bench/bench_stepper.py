"""How fast the stepper opens and steps a 100 MB run, measured in a real terminal (a pty), not asserted.

    python bench/bench_stepper.py [--size 100MB] [--steps 40] [--repeat 3] [--user-steps 60] [--no-user]

Side by side in one run, each the median of ``--repeat`` tries:
- baseline: a bare ``orjson.loads`` of the file (per line for JSONL), plus a hello-world
  Textual app's time from spawn to its first screen in the same kind of pty;
- turnscope: ``python -m tui FILE`` from spawn to the first full screen (the header of
  message 0 and the request pane's output marker both drawn), until the footer's keys are
  drawn too (Textual's footer fills in a frame or two later), and until the grammar check's
  result is on screen;
- step latency: a key (j at the first index, k at the last) to the frame that shows the
  new index, p50 and p95 over ``--steps`` keys at each end;
- peak memory of the turnscope process (VmHWM) after stepping;
- the floor of a step, measured the same way in the same pty: ``bench/redraw_floor.py``, a minimal
  Textual app whose whole 120x40 screen is drawn again with new text on every ``j`` (laid out like
  the stepper, and as one Line API widget), its p50/p95/max and CPU per key beside turnscope's.
The targets (issue 4): first screen <= 1.5x the baseline; step p95 <= 50 ms, no worse at
the last index than at the first.

Then the user's path (issue 13): ``j`` sent as soon as the first screen shows, at a person's pace
(``--pace`` seconds between keys: longer than the pause after which analyses in the app's thread
went on), ``--user-steps`` keys, p50/p95/max from key to the frame that shows the new index; the
seconds until the whole run is analysed (the status line counts the provenance notes and the message
list shows the token report, the last results), read from when that text was first drawn; steps after that; peak memory of the app and of
its analyses' processes. Side by side in one run: the baseline, the analyses in a thread of the
app's process (as before issue 13), and the default, a separate process; each directly in a pty and,
when ``tmux`` is installed, through a tmux client at the same size.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import select
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import termios
import threading
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


#: On screen once the token report is in: a model call's row in the message list with its input tokens (``~2.0k``).
TOKENS_SHOWN = re.compile(rb"call \d+ +~\d")
#: The last results on screen: the provenance notes counted in the status line, the token report in the list.
ANALYSED = ("provenance note", TOKENS_SHOWN)


def analysed_at(term: "Term", timeout: float) -> float:
    """Seconds from the start until the whole run was analysed on screen (the later of ``ANALYSED``)."""
    term.until(*ANALYSED, timeout=timeout, since_start=True)
    return max(term.appeared(needle) for needle in ANALYSED)


class _Needle:
    """What ``Term`` waits for: a text, or a compiled bytes pattern."""

    def __init__(self, needle: str | re.Pattern):
        self.text = needle.encode() if isinstance(needle, str) else None
        self.pattern = None if isinstance(needle, str) else needle

    def found(self, plain: bytes) -> bool:
        return self.text in plain if self.text is not None else self.pattern.search(plain) is not None


class Term:
    """A child process on a pty of COLS x ROWS; ``until`` reads its output until some text has been drawn."""

    def __init__(self, argv: list[str], checkout: Path = ROOT):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(checkout), "COLUMNS": str(COLS),
               "LINES": str(ROWS), "TURNSCOPE_STATE_DIR": str(ROOT / "bench" / "out" / "state")}
        env.pop("NO_COLOR", None)
        self.start = time.perf_counter()
        # in the checkout: ``python -m`` puts the working directory before PYTHONPATH, so a bench started
        # from this checkout's root ran this checkout's turnscope for --before too
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True,
                                     start_new_session=True, cwd=checkout)
        os.close(slave)
        self.raw = b""  # everything the process wrote so far
        self.log: list[tuple[float, int]] = []  # (when, length of ``raw`` then): when each chunk arrived

    def until(self, *needles: str | re.Pattern, timeout: float = 120, since_start: bool = False) -> float:
        """Seconds from now until every needle (text, or a compiled bytes pattern) has appeared in text drawn
        after this call (or at all, with ``since_start``)."""
        t0 = time.perf_counter()
        seen = self.raw if since_start else b""
        wanted = [_Needle(n) for n in needles]
        if since_start and all(w.found(ANSI.sub(b"", seen)) for w in wanted):
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
            self.log.append((time.perf_counter(), len(self.raw)))
            plain = ANSI.sub(b"", seen)
            if all(w.found(plain) for w in wanted):
                return time.perf_counter() - t0

    def appeared(self, needle: str | re.Pattern) -> float:
        """Seconds from the start until ``needle`` (text, or a compiled bytes pattern) was first drawn (it has been)."""
        wanted, done = _Needle(needle), 0
        for when, end in self.log:
            window = self.raw[max(done - 4096, 0):end]
            if wanted.found(ANSI.sub(b"", window)):
                return when - self.start
            done = end
        return float("nan")

    def key(self, data: bytes, *needles: str) -> float:
        t0 = time.perf_counter()
        os.write(self.master, data)
        self.until(*needles)
        return time.perf_counter() - t0

    def cpu(self, pid: int | None = None) -> float:
        """CPU seconds (user + system) the process (or ``pid``) has used so far, all its threads."""
        return cpu_of(self.proc.pid if pid is None else pid)

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


def children_of(pid: int) -> list[int]:
    """The process ids of ``pid``'s children (every thread's), from /proc."""
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            out += [int(x) for x in task.read_text().split()]
        except OSError:
            pass
    return out


def cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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


def turnscope(path: Path, total: int, steps: int, checkout: Path = ROOT) -> dict:
    term = Term([sys.executable, "-m", "tui", str(path)], checkout)
    try:
        term.until(f"message 0 of {total}", "the caller's message")
        first = time.perf_counter() - term.start
        first_cpu = term.cpu()
        term.until("Quit", since_start=True)  # the footer's keys: Textual draws them a frame or two later
        footer = time.perf_counter() - term.start
        term.until("error", timeout=300)  # "0 errors, 0 warnings" or the counts: the check is on screen
        checked = time.perf_counter() - term.start
        cpu0 = term.cpu()
        head = [term.key(b"j", f"message {n} of {total}") for n in range(1, steps + 1)]
        cpu1 = term.cpu()
        term.key(b"G", f"message {total - 1} of {total}")
        cpu2 = term.cpu()
        tail = [term.key(b"k", f"message {n} of {total}") for n in range(total - 2, total - 2 - steps, -1)]
        cpu3 = term.cpu()
        return {"first": first, "first_cpu": first_cpu, "footer": footer, "checked": checked, "head": head, "tail": tail,
                "peak": term.peak_mb(), "step_cpu": ((cpu1 - cpu0) + (cpu3 - cpu2)) / (2 * steps)}
    finally:
        term.close()


def floor(total: int, steps: int, layout: str) -> dict:
    """``bench/redraw_floor.py``: Textual drawing its whole screen again on each key, stepped as turnscope is."""
    term = Term([sys.executable, str(ROOT / "bench" / "redraw_floor.py"), str(total), "--layout", layout])
    try:
        term.until(f"message 0 of {total}")
        cpu0 = term.cpu()
        times = [term.key(b"j", f"message {n} of {total}") for n in range(1, steps + 1)]
        return {"steps": times, "step_cpu": (term.cpu() - cpu0) / steps}
    finally:
        term.close()


FLOORS = (("ours", "laid out like the stepper"), ("one", "one Line API widget"))


def report_floor(label: str, steps: list[float], cpu: float) -> None:
    ms = [t * 1000 for t in steps]
    print(f"  {label:52} p50 {pct(ms, 50):5.1f} ms  p95 {pct(ms, 95):5.1f} ms  max {max(ms):5.1f} ms  "
          f"CPU {cpu * 1000:5.1f} ms a step")


#: Runs turnscope with its analyses in a thread of the app (``thread``, as before issue 13) or as shipped
#: (``process``: nothing imported before the command line, so Textual is imported when ``turnscope FILE`` imports
#: it; an older checkout keeps the size bound on the stepper's class: set there too, in ``thread`` mode only).
LAUNCH = ("import sys\nmode = sys.argv.pop(1)\n"
          "if mode == 'thread':\n"
          "    from tui.core.view import background\n"
          "    background.PROCESS_FROM = 1 << 62\n"
          "    from tui.app.screens.stepper import StepperScreen\n"
          "    StepperScreen.process_from = 1 << 62\n"
          "from tui.cli import main\nsys.argv[0] = 'turnscope'\nraise SystemExit(main())\n")
TMUX_SOCKET = f"turnscope-bench-{os.getpid()}"


class Peaks:
    """Samples the peak memory (VmHWM) of a process and of its children while they run."""

    def __init__(self, pid: int):
        self.pid, self.peaks, self._stop = pid, {}, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _hwm(self, pid: int) -> float | None:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None

    def _sample(self) -> None:
        while not self._stop.is_set():
            for pid in [self.pid, *children_of(self.pid)]:
                hwm = self._hwm(pid)
                if hwm is not None:
                    self.peaks[pid] = max(self.peaks.get(pid, 0.0), hwm)
            self._stop.wait(0.1)

    def stop(self) -> tuple[float, float]:
        """(the app's peak MB, the largest child's peak MB)."""
        self._stop.set()
        self._thread.join()
        app = self.peaks.get(self.pid, float("nan"))
        children = [v for k, v in self.peaks.items() if k != self.pid]
        return app, max(children, default=0.0)


def user_path(path: Path, total: int, mode: str, steps: int, pace: float, tmux: bool,
              checkout: Path = ROOT) -> dict:
    """The user's path: keys from the first screen on, at a person's pace; then until analysed."""
    command = [sys.executable, "-c", LAUNCH, mode, str(path)]
    if tmux:
        env = {**os.environ, "PYTHONPATH": str(checkout),
               "TURNSCOPE_STATE_DIR": str(ROOT / "bench" / "out" / "state")}
        env.pop("NO_COLOR", None)
        # started in the checkout (-c): ``python -c`` puts the working directory before PYTHONPATH, so the
        # session began where the bench was started timed this checkout for --before as well
        subprocess.run(["tmux", "-L", TMUX_SOCKET, "-f", "/dev/null", "new-session", "-d", "-s", "bench",
                        "-c", str(checkout), "-x", str(COLS), "-y", str(ROWS), shlex.join(command)],
                       check=True, env=env)
        term = Term(["tmux", "-L", TMUX_SOCKET, "attach", "-t", "bench"])
    else:
        term = Term(command, checkout)
    try:
        term.until(f"message 0 of {total}", "the caller's message", timeout=300)
        first = time.perf_counter() - term.start
        app_pid = term.proc.pid
        if tmux:
            app_pid = int(subprocess.run(["tmux", "-L", TMUX_SOCKET, "display", "-p", "-t", "bench",
                                          "#{pane_pid}"], capture_output=True, text=True).stdout)
        peaks = Peaks(app_pid)
        during = []
        for n in range(1, steps + 1):
            during.append(term.key(b"j", f"message {n} of {total}"))
            time.sleep(pace)
        analysed = analysed_at(term, timeout=900)
        time.sleep(1)
        cpu0 = cpu_of(app_pid)
        after = [term.key(b"j", f"message {n} of {total}") for n in range(steps + 1, steps + 41)]
        after_cpu = (cpu_of(app_pid) - cpu0) / 40
        app_peak, worker_peak = peaks.stop()
        return {"first": first, "during": during, "analysed": analysed, "after": after, "app_peak": app_peak,
                "worker_peak": worker_peak, "after_cpu": after_cpu}
    finally:
        term.close()
        if tmux:
            subprocess.run(["tmux", "-L", TMUX_SOCKET, "kill-server"], capture_output=True)


def report_user(path: Path, total: int, steps: int, pace: float, before: Path | None = None,
                before_process: bool = False) -> None:
    mb = path.stat().st_size / 1e6
    ways = [("pty", False)] + ([("tmux", True)] if shutil.which("tmux") else [])
    if len(ways) == 1:
        print("tmux is not installed: the user's path through tmux is not measured")
    print(f"user's path: {steps} x j from the first screen on, one every {pace:.2f} s + the frame; "
          f"then until analysed; then 40 more")
    print(f"{'':22} {'first':>6} {'during: p50':>11} {'p95':>6} {'max':>6} {'analysed':>9} "
          f"{'after: p50':>10} {'p95':>6} {'max':>6} {'CPU/step':>8} {'app peak':>14} {'worker peak':>14}")
    modes = [("thread", "baseline (thread)", ROOT), ("process", "process", ROOT)]
    if before is not None and before_process:  # another checkout with analyses' processes too: both that way
        modes = [("process", "before (process)", before), ("process", "process", ROOT)]
    elif before is not None:  # another checkout (main before issue 13): its analyses in the app's thread
        modes.insert(0, ("thread", "before", before))
    for way, tmux in ways:
        for mode, label, checkout in modes:
            r = user_path(path, total, mode, steps, pace, tmux, checkout)
            during, after = [t * 1000 for t in r["during"]], [t * 1000 for t in r["after"]]
            print(f"{way + ' ' + label:22} {r['first']:5.2f}s {pct(during, 50):9.1f}ms {pct(during, 95):4.0f}ms "
                  f"{max(during):4.0f}ms {r['analysed']:8.1f}s {pct(after, 50):8.1f}ms {pct(after, 95):4.0f}ms "
                  f"{max(after):4.0f}ms {r['after_cpu'] * 1000:6.1f}ms "
                  f"{r['app_peak']:5.0f} MB {r['app_peak'] / mb:3.1f}x {r['worker_peak']:5.0f} MB "
                  f"{r['worker_peak'] / mb:3.1f}x")
        if way == "pty":  # the floor in the same pty: Textual drawing its whole screen again on each key
            for layout, label in FLOORS:
                r = floor(total, 40, layout)
                after = [t * 1000 for t in r["steps"]]
                print(f"{'pty floor: ' + layout:22} {'':6} {'':11} {'':6} {'':6} {'':9} {pct(after, 50):8.1f}ms "
                      f"{pct(after, 95):4.0f}ms {max(after):4.0f}ms {r['step_cpu'] * 1000:6.1f}ms  ({label}, "
                      f"bench/redraw_floor.py)")


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def compiled(*checkouts: Path) -> None:
    """Each checkout's modules byte-compiled before timing, as an installed package has them (as
    ``bench_loaders`` does): with PYTHONDONTWRITEBYTECODE set (as on the team's machine) every start
    compiled turnscope's modules from source again, 0.3-0.6 s no user's ``pip install`` pays and the
    baseline (Textual, compiled at its install) did not."""
    import compileall

    for checkout in checkouts:
        compileall.compile_dir(str(checkout / "tui"), quiet=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100MB")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--format", choices=("jsonl", "request"), default="jsonl")
    parser.add_argument("--user-steps", type=int, default=60)
    parser.add_argument("--pace", type=float, default=0.35, help="seconds between the user's keys")
    parser.add_argument("--no-user", action="store_true", help="skip the user's path")
    parser.add_argument("--before", type=Path, help="another checkout to measure beside (first screen, steps "
                                                    "and the user's path)")
    parser.add_argument("--only-user", action="store_true", help="only the user's path")
    parser.add_argument("--before-process", action="store_true",
                        help="the --before checkout runs its analyses in processes too: measure both that way "
                             "(no thread baseline)")
    args = parser.parse_args()
    compiled(ROOT, *([args.before] if args.before is not None else []))
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    size = "" if args.size.upper() == "100MB" else "-" + args.size.lower()  # a 1 GB run beside the 100 MB one
    path = make(out / f"large{size}.{'jsonl' if args.format == 'jsonl' else 'json'}", _size(args.size), args.format)
    from tui.formats import open_run

    run = open_run(str(path))
    total = len(run.messages)
    del run
    print(f"run: {path.name}, {path.stat().st_size / 1e6:,.1f} MB, {total:,} messages; terminal {COLS}x{ROWS}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    if args.only_user:
        report_user(path, total, args.user_steps, args.pace, args.before, args.before_process)
        return 0
    loads_runs, hello_runs, results, before = [], [], [], []
    floors: dict[str, list[dict]] = {}
    for _ in range(args.repeat):  # interleaved, so a busy moment on a shared machine hits all alike
        loads_runs.append(bare_orjson(path))
        hello_runs.append(hello_first_screen())
        if args.before is not None:
            before.append(turnscope(path, total, args.steps, args.before))
        results.append(turnscope(path, total, args.steps))
        for layout, _ in FLOORS:
            floors.setdefault(layout, []).append(floor(total, 2 * args.steps, layout))
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
    print(f"step CPU (app, all threads) {statistics.median(r['step_cpu'] for r in results) * 1000:5.1f} ms a step "
          f"(median of the tries' means)")
    print("a step beside its floor (Textual drawing the whole 120x40 screen again with new text on each key, "
          "bench/redraw_floor.py), same pty, same tries:")
    report_floor("turnscope, j and k (both ends)", [t for r in results for t in r["head"] + r["tail"]],
                 statistics.median(r["step_cpu"] for r in results))
    if before:
        report_floor("--before, j and k", [t for r in before for t in r["head"] + r["tail"]],
                     statistics.median(r["step_cpu"] for r in before))
    for layout, label in FLOORS:
        report_floor(f"floor, {label}", [t for r in floors[layout] for t in r["steps"]],
                     statistics.median(r["step_cpu"] for r in floors[layout]))
    print(f"peak memory (VmHWM)        {max(r['peak'] for r in results):6.0f} MB for a "
          f"{path.stat().st_size / 1e6:,.0f} MB file")
    if before:
        bhead = [t * 1000 for r in before for t in r["head"]]
        btail = [t * 1000 for r in before for t in r["tail"]]
        bfirst = statistics.median(r["first"] for r in before)
        print(f"--before {args.before} (same tries, interleaved):")
        bcpu = statistics.median(r["first_cpu"] for r in before)
        print(f"  first screen {bfirst:5.2f} s ratio {bfirst / base:4.2f}x, CPU {bcpu:.2f} s "
              f"{bcpu / (loads_cpu + hello_cpu):4.2f}x; grammar check on screen "
              f"{statistics.median(r['checked'] for r in before):5.2f} s")
        print(f"  step at the first index p50 {pct(bhead, 50):5.1f} ms p95 {pct(bhead, 95):5.1f} ms; at the last "
              f"p50 {pct(btail, 50):5.1f} ms p95 {pct(btail, 95):5.1f} ms; step CPU "
              f"{statistics.median(r['step_cpu'] for r in before) * 1000:5.1f} ms")
    if not args.no_user:
        report_user(path, total, args.user_steps, args.pace, args.before, args.before_process)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
