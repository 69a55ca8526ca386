"""``stats`` over many files keeps memory flat: peak memory for N files against N/10 files.

Writes FILES copies of the refund run (one run per file, spread over nested folders) to a
temporary directory, runs ``tui.core.stats.collect`` over a tenth of them and over all of
them under tracemalloc, and prints both peaks, their ratio (about 1 when nothing grows with
the number of files) and the time per file, measured in this one run. Not a test.
``python bench/stats_stream.py [FILES]`` (default 10000).
"""

from __future__ import annotations

import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tui.core.stats import collect  # noqa: E402

SAMPLE = Path(__file__).resolve().parent.parent / "sample_runs" / "refund" / "run.jsonl"


def measure(root: Path) -> tuple[int, float, int]:
    tracemalloc.start()
    start = time.perf_counter()
    stats = collect([str(root)])
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, elapsed, stats.runs


def main(argv: list[str]) -> int:
    files = int(argv[0]) if argv else 10000
    data = SAMPLE.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for k in range(files):
            folder = root / f"part{k % 10}" / f"sub{k % 7}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"run{k}.jsonl").write_bytes(data)
        small_peak, small_time, small_runs = measure(root / "part0")
        peak, elapsed, runs = measure(root)
    print(f"{small_runs} files: peak {small_peak / 1e6:.2f} MB, {small_time / small_runs * 1e3:.2f} ms per file")
    print(f"{runs} files: peak {peak / 1e6:.2f} MB, {elapsed / runs * 1e3:.2f} ms per file")
    print(f"peak memory ratio ({runs} files / {small_runs} files): {peak / small_peak:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
