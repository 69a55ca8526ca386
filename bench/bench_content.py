"""The content check (hidden text, secrets) beside the grammar check, on one large run, measured, not asserted.

    python bench/bench_content.py [--size 20MB]

Prints, in one run on this machine: the grammar check's time, the hidden-text scan's and the secret
scan's (each walking the run) and the content check's as ``check`` runs it (its fast path on the run's
JSON first) on the same loaded run (ratios to the grammar check), and ``turnscope check`` on a small run in a
fresh process with the content check's imports (detect-secrets' plugins) against a bare interpreter
importing the grammar check alone.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.make_large_run import build, parse_size  # noqa: E402
from tui.core.content import content_findings  # noqa: E402
from tui.core.grammar import check_run  # noqa: E402
from tui.core.hidden import hidden_findings  # noqa: E402
from tui.core.secrets import detectors, secret_findings  # noqa: E402
from tui.formats import open_run  # noqa: E402


def _timed(fn, *args) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - start, value


def _process(code: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="20MB")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        path.write_bytes(build(parse_size(args.size)))
        run = open_run(str(path))
        detectors()  # imported once, apart from the scan
        grammar, _ = _timed(check_run, run)
        hidden, found_hidden = _timed(hidden_findings, run)
        secrets, found_secrets = _timed(secret_findings, run)
        print(f"run: {path.stat().st_size / 1e6:.1f} MB, {len(run.messages):,} messages")
        print(f"grammar check   {grammar:7.2f} s  1.00x")
        print(f"hidden text     {hidden:7.2f} s  {hidden / grammar:5.2f}x  ({len(found_hidden)} findings)")
        print(f"secrets         {secrets:7.2f} s  {secrets / grammar:5.2f}x  ({len(found_secrets)} findings)")
        both, found = _timed(content_findings, run)
        print(f"content check   {both:7.2f} s  {both / grammar:5.2f}x  ({len(found)} findings; what check runs: "
              "settled on the run's JSON when it holds neither)")
    small = ROOT / "sample_runs" / "refund" / "run.jsonl"
    bare = _process("import tui.core.grammar")
    full = _process(f"from tui.cli import main; main(['check', {str(small)!r}])")
    importing = _process("from tui.core.secrets import detectors; detectors()")
    print(f"start-up: import the grammar check {bare:.2f} s; `check` on the refund run {full:.2f} s; "
          f"detect-secrets' plugins alone {importing:.2f} s (best of 3)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
