"""``turnscope stats PATH... [--json]``: step counts across many runs, and an iteration cap derived from them.

Files and folders (recursively; every run of a multi-run file counts) are read one at a
time. Prints the histogram of model calls per run, p50/p90/p99/max (nearest rank), tokens
per run, how runs ended, findings by rule, and a suggested iteration cap with the rule
used. Files under a folder that are not runs are skipped and counted; one that fails to load
(a truncated or malformed run file) is named, its runs missing from the figures; a file named
on the command line that cannot be read is reported and makes the exit code 2. A progress bar goes
to stderr when it is a terminal. ``--json``: ``{"runs","calls":{"p50","p90","p99","max",
"histogram":{calls: count}},"ended":{...},"findings":{...},"suggested_cap", ...}``.
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
import time

from tui.commands.common import out, plural, write_bytes
from tui.commands.helptext import HelpFormatter
from tui.core import jsonio
from tui.core.errors import UsageError
from tui.core.safe import one_line, raw_stream
from tui.core.stats import Stats, collect, count_files
from tui.formats import load_runs

BAR_WIDTH = 30
BROKEN_SHOWN = 5  # files that failed to load, named one per line


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("stats", help="model calls per run across many runs, and a suggested iteration cap",
                            description=__doc__.split("\n\n", 1)[1],
                            formatter_class=HelpFormatter)
    parser.add_argument("paths", nargs="+", metavar="PATH", help="run files and folders")
    parser.add_argument("--json", action="store_true", help="the figures as one JSON object")


class Progress:
    """``[####......] 120/10000 files, 480 runs`` on stderr, redrawn at most ten times a second."""

    def __init__(self, total: int):
        self.total = max(total, 1)
        self.last = 0.0

    def __call__(self, stats: Stats) -> None:
        now = time.monotonic()
        if now - self.last < 0.1 and stats.files < self.total:
            return
        self.last = now
        done = min(stats.files, self.total)
        filled = BAR_WIDTH * done // self.total
        bar = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{self.total} files, {stats.runs} runs"
        raw_stream(sys.stderr).write("\r" + bar)  # the carriage return is the point: not escaped
        sys.stderr.flush()

    @staticmethod
    def clear() -> None:
        raw_stream(sys.stderr).write("\r" + " " * 79 + "\r")
        sys.stderr.flush()


def run(args: argparse.Namespace) -> int:
    progress = Progress(count_files(args.paths)) if sys.stderr.isatty() else None
    try:
        stats = collect(args.paths, progress, load=load_runs)
    finally:
        if progress is not None:
            Progress.clear()
    if stats.runs == 0:
        if stats.files == 1 and stats.named_failures == 1:
            raise UsageError(one_line(stats.skipped[0]))
        first = f" (first: {one_line(stats.skipped[0])})" if stats.skipped else ""
        raise UsageError(f"no runs found in {stats.files} file{'s' if stats.files != 1 else ''} under "
                         f"{' '.join(args.paths)}{first}")
    if stats.named_failures:
        for line in stats.skipped:
            print(f"turnscope: {one_line(line)}", file=sys.stderr)
    if args.json:
        write_bytes(jsonio.dumps(stats.as_json()))
    else:
        for line in layout(stats):
            out(line)
    return 2 if stats.named_failures else 0


def histogram_lines(histogram: dict[int, int], width: int = 40, rows: int = 20) -> list[str]:
    """One row per value (or per bin of values when there are more than ``rows``), bars scaled to ``width``."""
    if not histogram:
        return []
    low, high = min(histogram), max(histogram)
    size = max(1, math.ceil((high - low + 1) / rows))
    bins: dict[int, int] = {}
    for value, count in histogram.items():
        start = low + (value - low) // size * size
        bins[start] = bins.get(start, 0) + count
    peak = max(bins.values())
    lines = []
    for start in range(low, high + 1, size):
        count = bins.get(start, 0)
        label = f"{start}" if size == 1 else f"{start}-{start + size - 1}"
        bar = "#" * (max(1, round(width * count / peak)) if count else 0)
        lines.append(f"  {label:>9} | {bar:<{width}} {count}")
    return lines


def _spread(figures: dict) -> str:
    def n(v):
        return "-" if v is None else f"{v:,}"
    return f"p50 {n(figures['p50'])} · p90 {n(figures['p90'])} · p99 {n(figures['p99'])} · max {n(figures['max'])}"


def layout(stats: Stats) -> list[str]:
    doc = stats.as_json()
    others = stats.skipped_count - stats.broken_count
    lines = [f"{plural(stats.runs, 'run')} in {plural(stats.files - stats.skipped_count, 'file')}"
             + (f" ({plural(others, 'other file')} skipped: not runs)" if others else "")]
    if stats.broken_count:
        lines.append(f"{plural(stats.broken_count, 'file')} could not be loaded (their runs are not counted):")
        lines += [f"  {one_line(line)}" for line in stats.broken[:BROKEN_SHOWN]]
        if stats.broken_count > BROKEN_SHOWN:
            lines.append(f"  ... and {stats.broken_count - BROKEN_SHOWN:,} more")
    lines += ["", f"model calls per run: {_spread(doc['calls'])}", f"  {'calls':>9} | runs"]
    lines += histogram_lines(stats.calls)
    kinds = doc["tokens"]["kinds"]
    mark = "~" if any(k in ("estimated", "mixed") for k in kinds) else ""
    lines += ["", f"tokens per run, input: {mark}{_spread(doc['tokens']['input'])}",
              f"tokens per run, output: {mark}{_spread(doc['tokens']['output'])}",
              "  counts: " + ", ".join(f"{k} {v}" for k, v in kinds.items())
              + ("  (~: includes estimates; see README for their error)" if mark else "")]
    lines += ["", "how runs ended: " + " · ".join(f"{k} {v}" for k, v in doc["ended"].items())]
    lines += ["", "findings by rule:" + ("" if doc["findings"] else " none")]
    lines += [f"  {rule:<32} {count}" for rule, count in doc["findings"].items()]
    lines += ["", f"suggested iteration cap: {doc['suggested_cap']}"]
    lines += textwrap.wrap(f"rule: {doc['cap_rule']}", width=78, initial_indent="  ", subsequent_indent="  ")
    return lines
