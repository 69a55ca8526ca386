"""Time and peak memory of the review analyses (token report, provenance) on a 100 MB run, measured, not asserted.

    python bench/bench_analyses.py [--size 100MB] [--no-app] [--messages 200000] [--big 1GB] [--before DIR]

Measurements, each in a fresh process:
- headless: the run loaded as the stepper loads it, then what the stepper's worker does
  (``RunAnalyses``: the token report, the provenance index, every tool turn traced for
  the Problems view's unsourced values), each step timed, with the process's peak memory
  (VmHWM) after loading and after the analyses, against the file size (the foundation's
  bound is 6x);
- the app: ``python -m tui FILE`` in a pty (as bench_stepper.py), from spawn until the
  status bar counts the provenance warnings (the last analysis is done), left alone, with
  its VmHWM then;
- ``token_report`` on generated runs of N/4 and N short messages (no large texts): if it
  is linear the second takes about 4x the first;
- time to fully analysed (issue 13): headless, the stepper's analyses' processes
  (``tui.core.view.background``: they load the file themselves) from start until every result
  is in, beside the same work one job after another in one process (``headless`` above, the
  app's thread as before) and, with ``--before DIR``, that of another checkout (main before
  issue 13); in the app, from spawn until the provenance notes are counted, with the analyses in
  a process (the default) and in the app's thread;
- each analyses' process's peak memory (VmHWM, sampled while it runs) against the file size (issue 13's
  target: 2.5x), beside those of the ``--before`` checkout;
- with ``--big 1GB``: the same for a run of that size generated under /tmp (never committed),
  beside the 100 MB one, with the ratio (linear: about 10x).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import orjson  # noqa: E402
from large_run import _size, make  # noqa: E402

CHILD = """
import sys, time, orjson
sys.path.insert(0, sys.argv[2])
def hwm():
    return next(int(l.split()[1]) / 1024 for l in open('/proc/self/status') if l.startswith('VmHWM'))
from tui.core.view.analyses import RunAnalyses
from tui.formats import open_run
out, t, c = {}, time.perf_counter(), time.process_time()
run = open_run(sys.argv[1])
out['load'], out['cpu_load'], out['hwm_loaded'] = time.perf_counter() - t, time.process_time() - c, hwm()
analyses, tick = RunAnalyses(run), (lambda: None)
t, c = time.perf_counter(), time.process_time(); analyses.compute_tokens(tick=tick)
out['tokens'], out['cpu_tokens'] = time.perf_counter() - t, time.process_time() - c
t, c = time.perf_counter(), time.process_time(); analyses.provenance(tick)
out['index'], out['cpu_index'] = time.perf_counter() - t, time.process_time() - c
t, c = time.perf_counter(), time.process_time(); out['unsourced_n'] = len(analyses.compute_unsourced(tick))
out['unsourced'], out['cpu_unsourced'] = time.perf_counter() - t, time.process_time() - c
out['hwm_done'] = hwm()
print(orjson.dumps(out).decode())
"""

LONG = """
import sys, time
sys.path.insert(0, sys.argv[2])
from tui.core.run import Run, infer_calls
from tui.core.tokens import token_report
n = int(sys.argv[1])
messages = [{"role": "user", "content": "start"}]
for k in range(n // 2):
    messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"t{k}", "name": "step",
                                                       "input": {"k": k}}]})
    messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": "ok"}]})
run = Run(messages=messages[:n])
run.calls = infer_calls(run.messages)
t = time.perf_counter()
token_report(run)
print(time.perf_counter() - t)
"""


WORKERS = """
import functools, os, sys, threading, time, orjson
sys.path.insert(0, sys.argv[2])
t = time.perf_counter()
from tui.core.view.background import Background
from tui.formats import open_run
run = open_run(sys.argv[1])
loaded = time.perf_counter() - t
done, got = threading.Event(), {}
def deliver(kind, value):
    got[kind] = time.perf_counter() - start
    if kind in ("done", "failed"):
        done.set()
start = time.perf_counter()
background = Background(run, functools.partial(open_run, sys.argv[1]), deliver)
background.start()
peaks, cpus = {}, {}
def hwm(pid):
    try:
        return next(int(l.split()[1]) / 1024 for l in open(f'/proc/{pid}/status') if l.startswith('VmHWM'))
    except (OSError, StopIteration):
        return None
def cpu(pid):  # user + system seconds so far
    try:
        fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
    except (OSError, IndexError, ValueError):
        return None
while not done.wait(0.02):  # each worker's peak memory and CPU, sampled while it runs (both only grow)
    for k, p in enumerate(background.processes):
        if (m := hwm(p.pid)) is not None:
            peaks[k] = max(peaks.get(k, 0.0), m)
        if (s := cpu(p.pid)) is not None:
            cpus[k] = max(cpus.get(k, 0.0), s)
jobs = [getattr(w, "jobs", ()) for w in background.workers]
name = lambda k: "+".join(jobs[k]) or str(k)
print(orjson.dumps({"load": loaded, **got, "peaks": {name(k): v for k, v in peaks.items()},
                    "cpus": {name(k): v for k, v in cpus.items()}}).decode())
"""


def headless(path: Path, root: Path = ROOT) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(root)], capture_output=True, check=True)
    return orjson.loads(out.stdout)


def workers(path: Path, root: Path = ROOT) -> dict:
    """Seconds from starting the analyses' processes until each result was in (they load the file too), and
    each process's peak memory (``peaks``: MB by its jobs)."""
    out = subprocess.run([sys.executable, "-c", WORKERS, str(path), str(root)], capture_output=True, check=True)
    return orjson.loads(out.stdout)


def in_app(path: Path, mode: str = "process") -> tuple[float, float, float, float]:
    """(seconds to the first screen, seconds until the provenance notes are counted, VmHWM MB of the app
    and of its largest analyses' process) with the analyses in a ``process`` or the app's ``thread``."""
    from bench_stepper import LAUNCH, Peaks, Term

    term = Term([sys.executable, "-c", LAUNCH, mode, str(path)])
    peaks = Peaks(term.proc.pid)
    try:
        term.until("the caller's message", timeout=600)
        first = time.perf_counter() - term.start
        term.until("provenance note", timeout=1800, since_start=True)
        done = term.appeared("provenance note")
        app, worker = peaks.stop()
        return first, done, app, worker
    finally:
        term.close()


def analysed(path: Path, app: bool, before: Path | None) -> dict:
    mb = path.stat().st_size / 1e6
    h = headless(path)
    w = workers(path)
    out = {"mb": mb, "one": h["tokens"] + h["index"] + h["unsourced"] + h["load"], "workers": w.get("done", float("nan")),
           "load": h["load"], "h": h, "w": w}
    if before is not None:
        b = headless(path, before)
        out["before"] = b["load"] + b["tokens"] + b["index"] + b["unsourced"]
        out["before_h"] = b
        out["before_w"] = workers(path, before)
    if app:
        out["app_thread"] = in_app(path, "thread")
        out["app_process"] = in_app(path, "process")
    return out


def print_analysed(name: str, r: dict) -> None:
    mb = r["mb"]
    h = r["h"]
    print(f"{name} ({mb:,.0f} MB): load {r['load']:.2f} s, peak {h['hwm_loaded']:.0f} MB ({h['hwm_loaded'] / mb:.1f}x)")
    if "before" in r:
        b = r["before_h"]
        print(f"  before (the other checkout): load {b['load']:.2f} s, peak {b['hwm_loaded']:.0f} MB "
              f"({b['hwm_loaded'] / mb:.2f}x)")
        print(f"  headless, before (the other checkout, one process): load + analyses {r['before']:.1f} s (tokens "
              f"{b['tokens']:.1f} s, provenance index {b['index']:.1f} s, every tool turn traced {b['unsourced']:.1f} s; "
              f"peak {b['hwm_done']:.0f} MB, {b['hwm_done'] / mb:.1f}x)")
        print_cpu(b)
        print_workers("before (the other checkout)", r["before_w"], mb)
    print(f"  headless, one process, one job after another: load + analyses {r['one']:.1f} s (tokens "
          f"{h['tokens']:.1f} s, provenance index {h['index']:.1f} s, every tool turn traced {h['unsourced']:.1f} s; "
          f"peak {h['hwm_done']:.0f} MB, {h['hwm_done'] / mb:.1f}x)")
    print_cpu(h)
    print_workers("", r["w"], mb)
    for mode in ("thread", "process"):
        if f"app_{mode}" in r:
            first, done, app, worker = r[f"app_{mode}"]
            print(f"  app, analyses in {'the app' + chr(39) + 's thread' if mode == 'thread' else 'processes':18}: "
                  f"first screen {first:.2f} s, fully analysed {done:.1f} s after spawn, peak app {app:.0f} MB "
                  f"({app / mb:.1f}x), analyses' process {worker:.0f} MB ({worker / mb:.1f}x)")


def print_cpu(h: dict) -> None:
    """The same steps' CPU seconds (user + system: what a busy machine does not inflate as much as wall)."""
    if "cpu_index" in h:
        print(f"    CPU: load {h['cpu_load']:.1f} s, tokens {h['cpu_tokens']:.1f} s, provenance index "
              f"{h['cpu_index']:.1f} s, every tool turn traced {h['cpu_unsourced']:.1f} s")


def print_workers(label: str, w: dict, mb: float) -> None:
    parts = ", ".join(f"{k} {v:.1f} s" for k, v in w.items() if k not in ("load", "done", "peaks", "cpus"))
    peaks = ", ".join(f"{jobs} {m:.0f} MB ({m / mb:.1f}x)" for jobs, m in w.get("peaks", {}).items())
    cpus = ", ".join(f"{jobs} {c:.1f} s" for jobs, c in w.get("cpus", {}).items())
    print(f"  headless, the analyses' processes{', ' + label if label else ''} (each loads the file): all in "
          f"{w.get('done', float('nan')):.1f} s ({parts}); peak per process: {peaks or 'not sampled'}; "
          f"CPU per process (user + system, load included): {cpus or 'not sampled'}")


def long_run(n: int) -> float:
    out = subprocess.run([sys.executable, "-c", LONG, str(n), str(ROOT)], capture_output=True, check=True)
    return float(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100MB")
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--no-app", action="store_true", help="skip the measurement in a pty")
    parser.add_argument("--big", help="also a run of this size (1GB), generated under /tmp, never committed")
    parser.add_argument("--big-app", action="store_true", help="the big run in the app too (memory: 3 processes)")
    parser.add_argument("--before", type=Path, help="another checkout (main before issue 13) to time beside")
    parser.add_argument("--only-analysed", action="store_true", help="only the time to fully analysed")
    args = parser.parse_args()
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    path = make(out / "large.jsonl", _size(args.size), "jsonl")
    mb = path.stat().st_size / 1e6
    print(f"run: {path.name}, {mb:,.1f} MB")
    import os

    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    if args.only_analysed:
        return report_analysed(path, args)
    h = headless(path)
    total = h["tokens"] + h["index"] + h["unsourced"]
    print(f"headless: load {h['load']:.2f} s, peak {h['hwm_loaded']:.0f} MB ({h['hwm_loaded'] / mb:.1f}x the file)")
    print(f"  token report {h['tokens']:.2f} s, provenance index {h['index']:.2f} s, every tool turn traced "
          f"{h['unsourced']:.2f} s ({h['unsourced_n']} unsourced values): {total:.1f} s")
    print(f"  peak with the analyses done {h['hwm_done']:.0f} MB ({h['hwm_done'] / mb:.1f}x the file; bound 6x)")
    if not args.no_app:
        first, done, peak, worker = in_app(path)
        print(f"app: first screen {first:.2f} s, analyses done (provenance notes counted) {done:.1f} s "
              f"after start, peak {peak:.0f} MB ({peak / mb:.1f}x the file), analyses' process {worker:.0f} MB")
    quarter, whole = long_run(args.messages // 4), long_run(args.messages)
    print(f"token_report of {args.messages // 4:,} short messages {quarter:.2f} s, of {args.messages:,} "
          f"{whole:.2f} s: {whole / quarter:.1f}x for 4x the messages (linear: about 4x)")
    return report_analysed(path, args)


def report_analysed(path: Path, args: argparse.Namespace) -> int:
    print("time to fully analysed (findings, token report, provenance index, unsourced values):")
    small = analysed(path, not args.no_app, args.before)
    print_analysed("run", small)
    if args.big:
        big_path = make(Path("/tmp/turnscope-bench") / f"large-{args.big.lower()}.jsonl", _size(args.big), "jsonl")
        big = analysed(big_path, args.big_app and not args.no_app, None)
        print_analysed("big run", big)
        size = big["mb"] / small["mb"]
        print(f"  ratio for {size:.1f}x the bytes: load {big['load'] / small['load']:.1f}x, analysed in one process "
              f"{big['one'] / small['one']:.1f}x, by the analyses' processes {big['workers'] / small['workers']:.1f}x"
              + (f", in the app {big['app_process'][1] / small['app_process'][1]:.1f}x" if "app_process" in big else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
