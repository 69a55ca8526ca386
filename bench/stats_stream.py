"""``stats`` over many files keeps memory flat: peak memory for N files against N/10 files.

Writes FILES copies of the refund run (one run per file, spread over nested folders) to a
temporary directory, runs ``tui.core.stats.collect`` once to warm the process's caches
(orjson's key cache, compiled patterns), then over a tenth of them and over all of them
under tracemalloc, and prints both peaks against the bytes of run files read (holding the
runs would take several times those bytes; streaming keeps the peak at a few MB whatever the
count: what is kept per run is 16 bytes, its token totals) and the time per file, measured
in this one run. Not a test.
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
from tui.formats import load_runs  # noqa: E402

SAMPLE = Path(__file__).resolve().parent.parent / "sample_runs" / "refund" / "run.jsonl"


def measure(root: Path) -> tuple[int, float, int]:
    tracemalloc.start()
    start = time.perf_counter()
    stats = collect([str(root)], load=load_runs)
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
        collect([str(root / "part0" / "sub0")], load=load_runs)  # warm-up, not measured
        small_peak, small_time, small_runs = measure(root / "part0")
        peak, elapsed, runs = measure(root)
    for count, top, seconds in ((small_runs, small_peak, small_time), (runs, peak, elapsed)):
        read = count * len(data)
        print(f"{count:>6} files ({read / 1e6:6.1f} MB of runs): peak {top / 1e6:.2f} MB "
              f"({top / read:.1%} of the bytes read), {seconds / count * 1e3:.2f} ms per file")
    print(f"peak memory ratio ({runs} files / {small_runs} files): {peak / small_peak:.2f} "
          f"for {runs / small_runs:.0f}x the files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
