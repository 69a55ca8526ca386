"""Time and peak memory of the review analyses (token report, provenance) on a 100 MB run, measured, not asserted.

    python bench/bench_analyses.py [--size 100MB] [--no-app] [--messages 200000] [--big 1GB] [--before DIR]
                                   [--only-analysed] [--tries N] [--marks]

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
  (``tui.core.view.background``) from their start (the run loaded) until every result is read:
  forked from the loaded run as the app starts on a file (``fork_early``, where the checkout has
  it), and spawned (a run opened later in the app: sent the run, or each loads the file where the checkout
  does that), beside the same work one
  job after another in one process (``headless`` above) and, with ``--before DIR``, that of another
  checkout (main before issue 13); in the app (``python -m tui FILE`` in a pty: the real path, the
  forked one where the checkout forks), from spawn until the provenance notes are counted and the
  token report is in the message list, this
  checkout and ``--before``'s interleaved (``--tries N``: medians), and once with the analyses in
  the app's thread;
- CPU (user + system) of each analyses' process and of the app until then, sampled while they run;
- memory, sampled while they run: each process's peak VmHWM (RSS: a forked child's counts the pages it
  still shares with the app) and peak USS (its own pages: what it really adds), and the peak of all the
  processes' PSS summed (each shared page counted once); issue 13's target: 2.5x the file per process;
- with ``--big 1GB``: the same for a run of that size generated under /tmp (never committed),
  beside the 100 MB one, with the ratio (linear: about 10x);
- with ``--transcript``: the analyses' processes spawned for the first run of ``bench_loaders.py``'s 100 MB
  Claude Code transcript (a run opened from the file's run list), beside ``--before``;
- with ``--marks``: time to fully analysed again on a run of the same size whose text also holds words
  beyond ASCII (arrows, ticks, box-drawing lines: ``make_large_run.py --marks``), as real tool output does.
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
mode = sys.argv[3]  # fork: as the app starts on a file (forked before any thread, if this checkout can); spawn
t = time.perf_counter()
from tui.core import collector
from tui.core.view import background as bg
from tui.formats import open_run
run = open_run(sys.argv[1])
collector.keep_out_loaded()  # as launch.py does before the app starts
loaded = time.perf_counter() - t
done, got = threading.Event(), {}
def deliver(kind, value):
    got[kind] = time.perf_counter() - start
    if kind in ("done", "failed"):
        done.set()
start, cpu0 = time.perf_counter(), time.process_time()
forked = mode == "fork" and hasattr(bg, "fork_early") and bg.fork_early(run)
background = bg.Background(run, functools.partial(open_run, sys.argv[1]), deliver)
background.start()
peaks, cpus, uss, pss, readers = {}, {}, {}, [], {}
def hwm(pid):
    try:
        return next(int(l.split()[1]) / 1024 for l in open(f'/proc/{pid}/status') if l.startswith('VmHWM'))
    except (OSError, StopIteration):
        return None
def rollup(pid):  # (USS, PSS) MB now: the pages only this process has; its share of every page it maps
    try:
        f = {l.split(':')[0]: int(l.split()[1]) for l in open(f'/proc/{pid}/smaps_rollup') if l.split()[-1] == 'kB'}
        return (f['Private_Clean'] + f['Private_Dirty']) / 1024, f['Pss'] / 1024
    except (OSError, KeyError, ValueError):
        return None
def cpu(pid):  # user + system seconds so far
    try:
        fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
    except (OSError, IndexError, ValueError):
        return None
rollup_at = 0.0
while not done.wait(0.01):  # each worker's peak memory and CPU, read while it runs (both only grow)
    for k, p in enumerate(background.processes):
        if (m := hwm(p.pid)) is not None:
            peaks[k] = max(peaks.get(k, 0.0), m)
        if (s := cpu(p.pid)) is not None:
            cpus[k] = max(cpus.get(k, 0.0), s)
    for w in background.workers:
        if (r := getattr(w, '_reader', None)) is not None and (c := cpu(f'{os.getpid()}/task/{r.native_id}')):
            readers[r.native_id] = c
    # smaps_rollup walks a process's page tables: 6-10 ms for a 1.4 GB one, and it holds that process's memory
    # map meanwhile. Read every 20 ms, three of them took half a core from the analyses of the 1 GB run: those
    # reads take 5% of the time at most (VmHWM, the kernel's own peak, is read every time: it costs nothing).
    t0 = time.perf_counter()
    if t0 < rollup_at:
        continue
    total = rollup(os.getpid())[1]
    for k, p in enumerate(background.processes):
        if (r := rollup(p.pid)) is not None:
            uss[k] = max(uss.get(k, 0.0), r[0])
            total += r[1]
    pss.append(total)
    rollup_at = t0 + max(0.02, 20 * (time.perf_counter() - t0))
reader = sum(readers.values())
jobs = [getattr(w, "jobs", ()) for w in background.workers]
name = lambda k: "+".join(jobs[k]) or str(k)
print(orjson.dumps({"load": loaded, **got, "forked": bool(forked), "sent": hasattr(bg, "run_pieces"), "peaks": {name(k): v for k, v in peaks.items()},
                    "cpus": {name(k): v for k, v in cpus.items()}, "uss": {name(k): v for k, v in uss.items()},
                    "pss": max(pss, default=0.0), "reader_cpu": reader}).decode())
"""


def headless(path: Path, root: Path = ROOT) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(root)], capture_output=True, check=True)
    return orjson.loads(out.stdout)


def workers(path: Path, root: Path = ROOT, mode: str = "fork") -> dict:
    """Seconds from starting the analyses' processes until each result was in (spawned, they load the file
    too; forked, they analyse the run loaded), each process's peak memory (``peaks``: VmHWM, ``uss``: its own
    pages, MB by its jobs), the peak of all processes' PSS summed (``pss``: the memory really used, shared pages
    counted once), and the CPU of the threads reading the results (``reader_cpu``)."""
    out = subprocess.run([sys.executable, "-c", WORKERS, str(path), str(root), mode], capture_output=True, check=True)
    return orjson.loads(out.stdout)


class Sampler:
    """Samples the app and its children: each one's peak VmHWM (RSS: shared pages counted in every process that
    maps them) and CPU (user + system) every 10 ms, read from ``/proc/PID/status`` and ``stat`` (cheap; VmHWM is
    the kernel's own high-water mark, so the last read before a process ends, or ``stop``'s read of the app, has
    its true peak); its peak USS (its own pages) and the peak of the PSS of all of them summed (the memory
    really used: each shared page counted once, split among its users) less often: reading ``smaps_rollup``
    walks a process's page tables (6-10 ms for a 1.4 GB one, holding its memory map), so those reads take at
    most 5% of the time (a third of a core on the 1 GB run, every 50 ms)."""

    def __init__(self, pid: int):
        import threading

        self.pid, self.hwm, self.uss, self.cpu, self.pss = pid, {}, {}, {}, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _status(self, pid: int) -> bool:
        """Reads ``pid``'s VmHWM and CPU; False when it has ended."""
        from bench_stepper import cpu_of

        try:
            status = Path(f"/proc/{pid}/status").read_text()
            cpu = cpu_of(pid)
            hwm = next(int(l.split()[1]) / 1024 for l in status.splitlines() if l.startswith("VmHWM"))
        except (OSError, IndexError, ValueError, StopIteration):
            return False
        self.hwm[pid] = max(self.hwm.get(pid, 0.0), hwm)
        self.cpu[pid] = max(self.cpu.get(pid, 0.0), cpu)
        return True

    def _rollup(self, pid: int) -> float:
        """Reads ``pid``'s USS into its peak; returns its PSS in MB (0 when it has ended)."""
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
            f = {l.split(":")[0]: int(l.split()[1]) for l in rollup.splitlines() if l.endswith("kB")}
        except (OSError, IndexError, ValueError):
            return 0.0
        self.uss[pid] = max(self.uss.get(pid, 0.0), (f["Private_Clean"] + f["Private_Dirty"]) / 1024)
        return f["Pss"] / 1024

    def _sample(self) -> None:
        from bench_stepper import children_of

        rollup_at = 0.0
        while not self._stop.is_set():
            pids = [pid for pid in [self.pid, *children_of(self.pid)] if self._status(pid)]
            t0 = time.perf_counter()
            if t0 >= rollup_at:
                self.pss = max(self.pss, sum(self._rollup(pid) for pid in pids))
                rollup_at = t0 + max(0.05, 20 * (time.perf_counter() - t0))
            self._stop.wait(0.01)

    def stop(self) -> dict:
        self._stop.set()
        self._thread.join()
        self._status(self.pid)  # the app's peak up to now, wherever the last sample fell
        kids = [k for k in self.hwm if k != self.pid]
        return {"app_hwm": self.hwm.get(self.pid, float("nan")), "app_uss": self.uss.get(self.pid, float("nan")),
                "app_cpu": self.cpu.get(self.pid, float("nan")),
                "kid_hwm": max((self.hwm[k] for k in kids), default=0.0),
                "kid_uss": max((self.uss[k] for k in kids), default=0.0),
                "kids_cpu": sum(self.cpu[k] for k in kids), "kids": len(kids), "pss": self.pss}


def in_app(path: Path, mode: str = "process", checkout: Path = ROOT) -> dict:
    """The app of ``checkout`` on ``path``: seconds to the first screen (``first``), until the provenance notes
    are counted and the token report is in the list (``done``: the last analyses on screen, ``analysed_at``), with ``Sampler``'s figures until then; the analyses in
    processes (``process``: as shipped; forked before the app starts where the checkout does) or in the app's
    ``thread``."""
    from bench_stepper import LAUNCH, Term, analysed_at

    term = Term([sys.executable, "-c", LAUNCH, mode, str(path)], checkout)
    sampler = Sampler(term.proc.pid)
    try:
        term.until("the caller's message", timeout=600)
        first = time.perf_counter() - term.start
        done = analysed_at(term, timeout=1800)
        return {"first": first, "done": done, **sampler.stop()}
    finally:
        term.close()


def _median(values: list[float]) -> float:
    values = sorted(v for v in values if v == v)
    return values[len(values) // 2] if values else float("nan")


def _medians(tries: list[dict]) -> dict:
    """Each figure the median of the tries (a dict of figures: each key's median; else the last try's)."""
    out = {}
    for key, value in tries[-1].items():
        if isinstance(value, bool) or not isinstance(value, (int, float, dict)):
            out[key] = value
        elif isinstance(value, dict):
            out[key] = {k: _median([t.get(key, {}).get(k, float("nan")) for t in tries]) for k in value}
        else:
            out[key] = _median([t.get(key, float("nan")) for t in tries])
    return out


def analysed(path: Path, app: bool, before: Path | None, tries: int = 1) -> dict:
    """The figures of ``path``; the analyses' processes and the app, ``tries`` times each, this checkout and
    ``before`` interleaved (after, before, after, ...), medians kept."""
    mb = path.stat().st_size / 1e6
    h = headless(path)
    out = {"mb": mb, "one": h["tokens"] + h["index"] + h["unsourced"] + h["load"], "load": h["load"], "h": h}
    if before is not None:
        b = headless(path, before)
        out["before"] = b["load"] + b["tokens"] + b["index"] + b["unsourced"]
        out["before_h"] = b
    series: dict[str, list[dict]] = {}
    for _ in range(tries):
        series.setdefault("w", []).append(workers(path, ROOT, "fork"))
        if before is not None:
            series.setdefault("before_w", []).append(workers(path, before, "spawn"))
        series.setdefault("w_spawn", []).append(workers(path, ROOT, "spawn"))
        if app:
            series.setdefault("app_process", []).append(in_app(path, "process"))
            if before is not None:
                series.setdefault("before_app", []).append(in_app(path, "process", before))
    if app:
        series["app_thread"] = [in_app(path, "thread")]
    out.update({key: _medians(values) for key, values in series.items()})
    for key, values in series.items():  # each try's figure too: on this machine one try can be off by a second
        if key.startswith(("app", "before_app")):
            out[key]["each"] = [t["done"] for t in values]
            out[key]["each_first"] = [t["first"] for t in values]
    out["workers"] = out["w"].get("done", float("nan"))
    out["tries"] = tries
    return out


def print_analysed(name: str, r: dict) -> None:
    mb = r["mb"]
    h = r["h"]
    print(f"{name} ({mb:,.0f} MB): load {r['load']:.2f} s, peak {h['hwm_loaded']:.0f} MB ({h['hwm_loaded'] / mb:.1f}x)"
          f"; medians of {r['tries']} tries, interleaved")
    if "before" in r:
        b = r["before_h"]
        print(f"  before (the other checkout): load {b['load']:.2f} s, peak {b['hwm_loaded']:.0f} MB "
              f"({b['hwm_loaded'] / mb:.2f}x)")
        print(f"  headless, before (the other checkout, one process): load + analyses {r['before']:.1f} s (tokens "
              f"{b['tokens']:.1f} s, provenance index {b['index']:.1f} s, every tool turn traced {b['unsourced']:.1f} s; "
              f"peak {b['hwm_done']:.0f} MB, {b['hwm_done'] / mb:.1f}x)")
        print_cpu(b)
    print(f"  headless, one process, one job after another: load + analyses {r['one']:.1f} s (tokens "
          f"{h['tokens']:.1f} s, provenance index {h['index']:.1f} s, every tool turn traced {h['unsourced']:.1f} s; "
          f"peak {h['hwm_done']:.0f} MB, {h['hwm_done'] / mb:.1f}x)")
    print_cpu(h)
    print("  headless, the analyses' processes, from their start (the run loaded) until every result is read:")
    if "before_w" in r:
        print_workers("before (the other checkout)", r["before_w"], mb)
    print_workers("this checkout, as the app starts on a file", r["w"], mb)
    print_workers("this checkout, spawned (a run opened later)", r["w_spawn"], mb)
    for key, label in (("before_app", "before (the other checkout)"), ("app_process", "this checkout"),
                       ("app_thread", "this checkout, analyses in the app's thread")):
        if key in r:
            a = r[key]
            each = ""
            if len(a.get("each", ())) > 1:
                each = (f" (tries: first screen {', '.join(f'{x:.2f}' for x in a['each_first'])}; analysed "
                        f"{', '.join(f'{x:.2f}' for x in a['each'])} s)")
            print(f"  app, {label}: first screen {a['first']:.2f} s, fully analysed {a['done']:.2f} s after spawn{each}; "
                  f"CPU until then: app {a['app_cpu']:.1f} s, its {a['kids']:.0f} child processes {a['kids_cpu']:.1f} s "
                  f"(the analyses', and spawn's resource tracker); "
                  f"peak app RSS {a['app_hwm']:.0f} MB ({a['app_hwm'] / mb:.1f}x) USS {a['app_uss']:.0f} MB, largest "
                  f"analyses' process RSS {a['kid_hwm']:.0f} MB ({a['kid_hwm'] / mb:.1f}x) USS {a['kid_uss']:.0f} MB "
                  f"({a['kid_uss'] / mb:.1f}x); all processes' PSS summed {a['pss']:.0f} MB ({a['pss'] / mb:.1f}x)")


def print_cpu(h: dict) -> None:
    """The same steps' CPU seconds (user + system: what a busy machine does not inflate as much as wall)."""
    if "cpu_index" in h:
        print(f"    CPU: load {h['cpu_load']:.1f} s, tokens {h['cpu_tokens']:.1f} s, provenance index "
              f"{h['cpu_index']:.1f} s, every tool turn traced {h['cpu_unsourced']:.1f} s")


def print_workers(label: str, w: dict, mb: float) -> None:
    parts = ", ".join(f"{k} {v:.2f} s" for k, v in w.items() if k in ("findings", "tokens", "traces", "failed"))
    how = ("forked: analyse the run held" if w.get("forked") else
           "spawned: the app sends them the run" if w.get("sent") else "spawned: each loads the file")
    peaks = ", ".join(f"{jobs} {m:.0f}" for jobs, m in w.get("peaks", {}).items())
    uss = ", ".join(f"{jobs} {m:.0f}" for jobs, m in w.get("uss", {}).items())
    cpus = ", ".join(f"{jobs} {c:.2f} s" for jobs, c in w.get("cpus", {}).items())
    total = sum(w.get("cpus", {}).values())
    print(f"    {label} ({how}): all in {w.get('done', float('nan')):.2f} s ({parts}); CPU per process (user + "
          f"system) {cpus or 'not sampled'}, {total:.2f} s in all, reading threads {w.get('reader_cpu', 0):.2f} s; "
          f"peak RSS MB {peaks or 'not sampled'}; peak USS MB {uss or 'not sampled'}; all processes' PSS summed "
          f"{w.get('pss', 0):.0f} MB ({w.get('pss', 0) / mb:.1f}x, the loading process included)")


def transcript_spawned(before: Path | None, tries: int) -> None:
    """The analyses' spawned processes (a run opened from a file's run list: the app has started, so they are
    not forked) on the first run of ``bench_loaders.py``'s 100 MB Claude Code transcript, whose runs are a
    small part of the file; this checkout and ``before`` interleaved, medians of ``tries``."""
    from bench_loaders import OUT, transcript

    path = OUT / "claude-code-100mb.jsonl"  # bench_loaders.py's own file, made once
    if not path.exists():
        transcript(path, 100)
    mb = path.stat().st_size / 1e6
    checkouts = [("this checkout", ROOT)] + ([("before (the other checkout)", before)] if before else [])
    found: dict[str, list[dict]] = {label: [] for label, _ in checkouts}
    for _ in range(tries):
        for label, root in checkouts:
            found[label].append(workers(path, root, "spawn"))
    print(f"Claude Code transcript ({mb:,.1f} MB; its first run: the analyses' processes, spawned), medians of {tries}:")
    for label, _ in reversed(checkouts):
        print_workers(label, _medians(found[label]), mb)


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
    parser.add_argument("--tries", type=int, default=1, help="tries of the processes and the app (medians)")
    parser.add_argument("--marks", action="store_true", help="also a run whose text holds words beyond ASCII")
    parser.add_argument("--transcript", action="store_true",
                        help="also the analyses' spawned processes on the first run of bench_loaders.py's 100 MB "
                             "Claude Code transcript (a run opened from the file's run list)")
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
        a = in_app(path)
        print(f"app: first screen {a['first']:.2f} s, analyses done (provenance notes counted, token report in the list) {a['done']:.1f} s "
              f"after start, peak {a['app_hwm']:.0f} MB ({a['app_hwm'] / mb:.1f}x the file), analyses' process "
              f"{a['kid_hwm']:.0f} MB")
    quarter, whole = long_run(args.messages // 4), long_run(args.messages)
    print(f"token_report of {args.messages // 4:,} short messages {quarter:.2f} s, of {args.messages:,} "
          f"{whole:.2f} s: {whole / quarter:.1f}x for 4x the messages (linear: about 4x)")
    return report_analysed(path, args)


def report_analysed(path: Path, args: argparse.Namespace) -> int:
    print("time to fully analysed (findings, token report, provenance index, unsourced values):")
    small = analysed(path, not args.no_app, args.before, args.tries)
    print_analysed("run", small)
    if args.marks:
        marked = make(path.with_name(path.stem + "-marks.jsonl"), path.stat().st_size, "jsonl", marks=True)
        print_analysed("run with words beyond ASCII", analysed(marked, not args.no_app, args.before, args.tries))
    if args.transcript:
        transcript_spawned(args.before, args.tries)
    if args.big:
        big_path = make(Path("/tmp/turnscope-bench") / f"large-{args.big.lower()}.jsonl", _size(args.big), "jsonl")
        big = analysed(big_path, args.big_app and not args.no_app, None)
        print_analysed("big run", big)
        size = big["mb"] / small["mb"]
        print(f"  ratio for {size:.1f}x the bytes: load {big['load'] / small['load']:.1f}x, analysed in one process "
              f"{big['one'] / small['one']:.1f}x, by the analyses' processes {big['workers'] / small['workers']:.1f}x"
              + (f", in the app {big['app_process']['done'] / small['app_process']['done']:.1f}x" if "app_process" in big else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
