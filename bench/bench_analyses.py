"""Time and peak memory of the review analyses (token report, provenance) on a 100 MB run, measured, not asserted.

    python bench/bench_analyses.py [--size 100MB] [--no-app] [--messages 200000]

Three measurements, each in a fresh process:
- headless: the run loaded as the stepper loads it, then what the stepper's worker does
  (``RunAnalyses``: the token report, the provenance index, every tool turn traced for
  the Problems view's unsourced values), each step timed, with the process's peak memory
  (VmHWM) after loading and after the analyses, against the file size (the foundation's
  bound is 6x);
- the app: ``python -m tui FILE`` in a pty (as bench_stepper.py), from spawn until the
  status bar counts the provenance warnings (the last analysis is done), left alone, with
  its VmHWM then;
- ``token_report`` on generated runs of N/4 and N short messages (no large texts): if it
  is linear the second takes about 4x the first.
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
out, t = {}, time.perf_counter()
run = open_run(sys.argv[1])
out['load'], out['hwm_loaded'] = time.perf_counter() - t, hwm()
analyses, tick = RunAnalyses(run), (lambda: None)
t = time.perf_counter(); analyses.compute_tokens(tick=tick); out['tokens'] = time.perf_counter() - t
t = time.perf_counter(); analyses.provenance(tick); out['index'] = time.perf_counter() - t
t = time.perf_counter(); out['unsourced_n'] = len(analyses.compute_unsourced(tick))
out['unsourced'] = time.perf_counter() - t
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


def headless(path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(ROOT)], capture_output=True, check=True)
    return orjson.loads(out.stdout)


def in_app(path: Path) -> tuple[float, float, float]:
    """(seconds to the first screen, seconds until the provenance warnings are counted, VmHWM MB then)."""
    from bench_stepper import Term

    term = Term([sys.executable, "-m", "tui", str(path)])
    try:
        term.until("the caller's message")
        first = time.perf_counter() - term.start
        term.until("provenance warning", timeout=600, since_start=True)
        return first, time.perf_counter() - term.start, term.peak_mb()
    finally:
        term.close()


def long_run(n: int) -> float:
    out = subprocess.run([sys.executable, "-c", LONG, str(n), str(ROOT)], capture_output=True, check=True)
    return float(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100MB")
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--no-app", action="store_true", help="skip the measurement in a pty")
    args = parser.parse_args()
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    path = make(out / "large.jsonl", _size(args.size), "jsonl")
    mb = path.stat().st_size / 1e6
    print(f"run: {path.name}, {mb:,.1f} MB")
    h = headless(path)
    total = h["tokens"] + h["index"] + h["unsourced"]
    print(f"headless: load {h['load']:.2f} s, peak {h['hwm_loaded']:.0f} MB ({h['hwm_loaded'] / mb:.1f}x the file)")
    print(f"  token report {h['tokens']:.2f} s, provenance index {h['index']:.2f} s, every tool turn traced "
          f"{h['unsourced']:.2f} s ({h['unsourced_n']} unsourced values): {total:.1f} s")
    print(f"  peak with the analyses done {h['hwm_done']:.0f} MB ({h['hwm_done'] / mb:.1f}x the file; bound 6x)")
    if not args.no_app:
        first, done, peak = in_app(path)
        print(f"app: first screen {first:.2f} s, analyses done (provenance warnings counted) {done:.1f} s "
              f"after start, peak {peak:.0f} MB ({peak / mb:.1f}x the file)")
    quarter, whole = long_run(args.messages // 4), long_run(args.messages)
    print(f"token_report of {args.messages // 4:,} short messages {quarter:.2f} s, of {args.messages:,} "
          f"{whole:.2f} s: {whole / quarter:.1f}x for 4x the messages (linear: about 4x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
