"""Step counts across many runs: a distribution, not an anecdote.

``collect(paths)`` walks files and folders (recursively, hidden entries skipped), loads one
file at a time and counts every run in it, keeping only counters: a histogram of model calls
per run, one integer per run for its tokens, how each run ended, and findings by rule.
Ten thousand files never sit in memory together.

Percentiles are nearest-rank (the smallest value at or below which at least p% of runs
fall), so they can be checked by hand from the histogram. How a run ended:
``end_turn``, ``max_tokens``, ``stop_sequence``, ``refusal``, ``pause_turn`` (the last
turn's stop reason, recorded or inferred), ``tool_use_unanswered`` (it ends on tool calls
no result answers), ``user_turn_unanswered`` (it ends on a user turn no model call
answered: the loop stopped, or the caller had the last word), ``error`` (the last model
call recorded an error status) and ``empty``.

The suggested iteration cap is derived from the runs that finished (``end_turn``): the 99th
percentile of their model calls plus a quarter for headroom, rounded up (``CAP_RULE``).
Runs piling up at exactly the maximum (more there than one call below) are the mark of a
cap already in force, and the rule says so: how long those runs needed is not in the data.
"""

from __future__ import annotations

import math
import os
from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from tui.core.errors import LoadError, UsageError
from tui.core.grammar import check_run
from tui.core.producers import producers
from tui.core.run import Run
from tui.core.tokens import token_report

CAP_HEADROOM = 1.25
CAP_RULE = "p99 of model calls over the runs that ended with end_turn, x1.25 headroom, rounded up"


def iter_files(paths: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """``(path, named)`` for every file: named on the command line, or found under a named folder."""
    for path in paths:
        if not os.path.isdir(path):
            yield path, True
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if not name.startswith("."):
                    yield os.path.join(root, name), False


def count_files(paths: Iterable[str]) -> int:
    return sum(1 for _ in iter_files(paths))


def ended(run: Run) -> str:
    """How the run ended (see the module docstring)."""
    if not run.messages:
        return "empty"
    if run.calls and isinstance(run.calls[-1].status, int) and run.calls[-1].status >= 400:
        return "error"
    last = run.messages[-1]
    role = last.get("role") if isinstance(last, dict) else None
    if role != "assistant":
        return "user_turn_unanswered"
    table = producers(run)
    stop = table[-1].stop_reason or "end_turn"
    return "tool_use_unanswered" if stop == "tool_use" else stop


def percentile(histogram: dict[int, int], p: float) -> int | None:
    """Nearest-rank percentile of a ``value -> count`` histogram."""
    total = sum(histogram.values())
    if total == 0:
        return None
    rank = max(1, math.ceil(p / 100 * total))
    seen = 0
    for value in sorted(histogram):
        seen += histogram[value]
        if seen >= rank:
            return value
    return max(histogram)  # pragma: no cover - unreachable


def _spread(values: array) -> dict[str, int | None]:
    histogram = Counter(values)
    return {"p50": percentile(histogram, 50), "p90": percentile(histogram, 90), "p99": percentile(histogram, 99),
            "max": max(values) if values else None, "total": sum(values)}


@dataclass
class Stats:
    files: int = 0
    runs: int = 0
    calls: Counter = field(default_factory=Counter)  # model calls per run -> runs
    finished_calls: Counter = field(default_factory=Counter)  # the same, for runs that ended with end_turn
    ended: Counter = field(default_factory=Counter)
    findings: Counter = field(default_factory=Counter)  # rule -> findings
    token_kinds: Counter = field(default_factory=Counter)  # recorded|estimated|exact|mixed|no calls -> runs
    input_tokens: array = field(default_factory=lambda: array("q"))
    output_tokens: array = field(default_factory=lambda: array("q"))
    skipped: list[str] = field(default_factory=list)  # one line per file that is not a run (first 20 kept)
    skipped_count: int = 0
    named_failures: int = 0  # files named on the command line that could not be read
    broken: list[str] = field(default_factory=list)  # files under a folder that look like runs but failed to load
    broken_count: int = 0

    def add(self, run: Run) -> None:
        self.runs += 1
        n = len(run.calls)
        self.calls[n] += 1
        how = ended(run)
        self.ended[how] += 1
        if how == "end_turn":
            self.finished_calls[n] += 1
        for finding in check_run(run):
            self.findings[finding.rule] += 1
        report = token_report(run)
        kinds = report.kinds
        self.token_kinds[next(iter(kinds)) if len(kinds) == 1 else ("mixed" if kinds else "no calls")] += 1
        self.input_tokens.append(report.total_input)
        self.output_tokens.append(report.total_output)

    def skip(self, line: str, named: bool, broken: bool = False) -> None:
        """A file that gave no run: ``broken`` when it was not merely some other kind of file (a
        truncated or malformed run file: its runs are missing from the figures, which the user must
        hear about even inside a folder)."""
        self.skipped_count += 1
        self.named_failures += named
        if len(self.skipped) < 20:
            self.skipped.append(line)
        if broken and not named:
            self.broken_count += 1
            if len(self.broken) < 20:
                self.broken.append(line)

    def suggested_cap(self) -> tuple[int | None, str]:
        base, source = self.finished_calls, "{runs} that ended with end_turn"
        if not base:
            base, source = self.calls, "{runs} (none ended with end_turn, so all runs are used)"
        used = sum(base.values())
        source = source.format(runs="run" if used == 1 else "runs")
        p99 = percentile(base, 99)
        if p99 is None:
            return None, "no runs"
        cap = max(1, math.ceil(p99 * CAP_HEADROOM))
        cut = sum(count for calls, count in self.calls.items() if calls > cap)
        rule = (f"p99 of model calls over the {used} {source} is {p99}; x{CAP_HEADROOM} headroom, "
                f"rounded up: {cap}. It would have stopped {cut} of the {self.runs} run{'s' if self.runs != 1 else ''}.")
        pile = self.pile_up()
        if pile is not None:
            rule += (f" {pile[1]} runs stopped at exactly {pile[0]} calls, more than at {pile[0] - 1}: an existing "
                     f"cap looks to have cut them off, so how long they needed is not in this data.")
        return cap, rule

    def pile_up(self) -> tuple[int, int] | None:
        """``(max calls, runs)`` when runs pile up at the maximum, the mark of a cap already in force:
        at least two runs and 2% of all sit at the max, more than one below it."""
        if not self.calls:
            return None
        top = max(self.calls)
        count = self.calls[top]
        if count >= 2 and count >= 0.02 * self.runs and count > self.calls.get(top - 1, 0):
            return top, count
        return None

    def as_json(self) -> dict[str, Any]:
        cap, rule = self.suggested_cap()
        return {
            "runs": self.runs,
            "calls": {"p50": percentile(self.calls, 50), "p90": percentile(self.calls, 90),
                      "p99": percentile(self.calls, 99), "max": max(self.calls) if self.calls else None,
                      "histogram": {str(k): self.calls[k] for k in sorted(self.calls)}},
            "ended": dict(sorted(self.ended.items())),
            "findings": dict(sorted(self.findings.items())),
            "suggested_cap": cap,
            "cap_rule": rule,
            "tokens": {"input": _spread(self.input_tokens), "output": _spread(self.output_tokens),
                       "kinds": dict(sorted(self.token_kinds.items()))},
            "files": self.files,
            "skipped": self.skipped_count,
            "broken": self.broken_count,
        }


#: How a loader refuses a file that is no run at all (a README, a licence, an empty file), as
#: opposed to a run file it could not read.
NOT_A_RUN = ("unknown format", "empty file")


def collect(paths: Iterable[str], progress: Callable[[Stats], None] | None = None, *,
            load: Callable[[str], list[Run]]) -> Stats:
    """Stream every run under ``paths`` into one ``Stats``; ``progress`` is called after each file.

    ``load`` reads one file into its runs (``tui.formats.load_runs``: the core reaches no loader)."""
    loader = load
    stats = Stats()
    for path, named in iter_files(paths):
        stats.files += 1
        try:
            _add_file(stats, loader, path)  # nothing of the file outlives this call
        except (LoadError, UsageError) as exc:
            broken = isinstance(exc, LoadError) and not exc.what.startswith(NOT_A_RUN)
            stats.skip(exc.line_text() if isinstance(exc, LoadError) else f"{path}: {exc}", named, broken)
        if progress is not None:
            progress(stats)
    return stats


def _add_file(stats: Stats, loader: Callable[[str], list[Run]], path: str) -> None:
    for run in loader(path):
        stats.add(run)
