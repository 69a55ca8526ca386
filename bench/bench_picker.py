"""What the picker's first screen costs with exact message counts, as figures measured in this one run.

    python bench/bench_picker.py [--sessions 60] [--repeat 5]

Lays out (in bench/out/picker/, not committed) ``--sessions`` Claude Code sessions, the real
ones of ../shared/realruns taken in turn (the compacted 2.7 MB one among them), as Claude
Code keeps them. Then, ``--repeat`` interleaved tries of each, in this process:

- head: what the first screen waits for, the head of every file read for an estimated count
  (``claude_entries``);
- exact: what the background process does, every file loaded by the loader the stepper opens
  it with (``session_counts.count_file``);
- cached: the first screen on the next look: the cache read (``CountCache``) and each unchanged
  file's row made from it (its head not read), which leaves nothing to count.

It prints the median of each and the ratios exact/head and cached/head. The exact counts are
off the UI's interpreter (a process of their own): the first screen pays head (or cached).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out" / "picker"
sys.path.insert(0, str(REPO))

from tui.app.session_counts import CountCache, count_file  # noqa: E402
from tui.app.sources import claude_entries  # noqa: E402


def realruns() -> Path | None:
    for candidate in (os.environ.get("TURNSCOPE_REALRUNS"), REPO.parent / "shared" / "realruns"):
        if candidate and Path(candidate, "SOURCES.md").exists():
            return Path(candidate)
    return None


def lay_out(source: Path, sessions: int) -> Path:
    home = OUT / "claude"
    shutil.rmtree(OUT, ignore_errors=True)
    project = home / "projects" / "-home-me-proj"
    project.mkdir(parents=True)
    files = sorted(p for p in source.glob("*.jsonl") if "__subagents__" not in p.name)
    for k in range(sessions):
        shutil.copy(files[k % len(files)], project / f"{k:08d}-0000-4000-8000-000000000000.jsonl")
    return home


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    source = realruns()
    if source is None:
        print("../shared/realruns is not next to this checkout (set TURNSCOPE_REALRUNS)")
        return 2
    home = lay_out(source, args.sessions)
    size = sum(p.stat().st_size for p in home.rglob("*.jsonl"))
    cache_dir = OUT / "cache"
    head, exact, cached = [], [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        entries = claude_entries(home)
        head.append(time.perf_counter() - t)
        t = time.perf_counter()
        results = [count_file(e.path) for e in entries]
        exact.append(time.perf_counter() - t)
        cache = CountCache(cache_dir)
        for result in results:
            cache.put(result)
        cache.save()
        t = time.perf_counter()
        cache = CountCache(cache_dir)
        entries = claude_entries(home, known=cache.get)
        cached.append(time.perf_counter() - t)
        assert not any(e.estimated for e in entries)
    print(f"{args.sessions} sessions, {size / 1e6:.1f} MB, {args.repeat} tries, median of each:")
    print(f"  head (first screen, estimated):   {median_ms(head):8.1f} ms")
    base = median_ms(head)
    print(f"  exact (background process):       {median_ms(exact):8.1f} ms   {median_ms(exact) / base:5.1f}x head")
    print(f"  cached (first screen, next look): {median_ms(cached):8.1f} ms   {median_ms(cached) / base:5.2f}x head")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
