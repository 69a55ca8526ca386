"""Measure the offline token estimate against usage the provider recorded in ``../shared/realruns``.

Two measurements, printed as a table (``python scripts/estimate_error.py [REALRUNS]``):

1. **Whole requests** (VCR cassettes): each recorded request body (as the ``vcr`` loader
   rebuilds it) is estimated with ``estimate.request_tokens`` and compared with the
   response's recorded input
   (``input_tokens + cache_read_input_tokens + cache_creation_input_tokens``). Requests that
   use server-side tools or context management are listed but left out of the figures: the
   provider adds content (tool instructions, search results, compaction) the body does not
   show, so no estimate from the body can match.
2. **Growth between consecutive requests** (Claude Code transcripts, which record usage but
   not the system prompt or tools): the recorded input of call k+1 minus that of call k is
   compared with the estimated growth between the two requests (the messages added in
   between), both from ``tui.core.tokens.token_report``, with and without the usage.
   Claude Code injects text the transcript does not keep (reminders, hook output), which shows
   up as large under-estimates; they are kept in the figures, not filtered.

Error is ``estimate / recorded - 1``. ``DOCUMENTED`` holds the bounds quoted in README;
``tests/core/test_tokens.py`` fails if a change to the estimator makes the measured error exceed
them. The files are read by turnscope's own loaders (``tui.formats``: ``vcr`` and
``claude-code``), so what is measured is what ``turnscope tokens`` and the stepper show.
"""

from __future__ import annotations

import glob
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tui.core import estimate  # noqa: E402
from tui.core.errors import LoadError  # noqa: E402
from tui.core.prefix import request_at  # noqa: E402
from tui.core.run import Run  # noqa: E402
from tui.core.tokens import RECORDED, recorded_usage, token_report  # noqa: E402
from tui.formats import load_runs  # noqa: E402

#: Bounds quoted in README ("Tokens"): measured median and 90th percentile of |error|.
DOCUMENTED = {"request_median": 0.20, "request_p90": 0.35, "growth_median": 0.12, "growth_p90": 0.35,
              "output_median": 0.20, "output_p90": 0.30}


@dataclass
class Sample:
    source: str
    recorded: int
    estimated: int
    excluded: str | None = None  # why it is not in the figures

    @property
    def error(self) -> float:
        return self.estimated / self.recorded - 1 if self.recorded else 0.0


def _runs(root: Path, pattern: str) -> list[tuple[str, Run]]:
    """Every run of every file matching ``pattern``, loaded by turnscope's own loaders."""
    out = []
    for path in sorted(glob.glob(str(root / pattern))):
        try:
            runs = load_runs(path)
        except LoadError as exc:  # not a run file (or a loader refused it): say so, measure the rest
            print(f"  skipped: {exc.line_text()}", file=sys.stderr)
            continue
        name = Path(path).name
        out += [(name if len(runs) == 1 else f"{name}@{k}", run) for k, run in enumerate(runs)]
    return out


def _excluded(body: dict) -> str | None:
    tools = body.get("tools") or []
    if any(isinstance(t, dict) and t.get("type") not in (None, "custom") for t in tools) or body.get("mcp_servers"):
        return "server-side tools"
    if body.get("context_management"):
        return "context management"
    return None


def cassette_samples(root: Path) -> tuple[list[Sample], list[Sample]]:
    """(whole-request input samples, output samples): every model call of every cassette whose usage was
    recorded, its exact request body as the ``vcr`` loader rebuilds it (``request_at``)."""
    out, outputs = [], []
    k = 0
    for name, run in _runs(root, "*.yaml"):
        for call in run.calls:
            usage = recorded_usage(call.usage)
            if usage is None or (isinstance(call.status, int) and call.status >= 400):
                continue
            body = request_at(run, call.message).body
            excluded = _excluded(body)
            source = f"{name}#{k}"
            k += 1
            out.append(Sample(source, usage[0] + usage[2] + usage[3], estimate.request_tokens(body), excluded))
            content = call.response if call.response is not None else (
                run.messages[call.message].get("content") if call.message < len(run.messages)
                and isinstance(run.messages[call.message], dict) else None)
            blocks = content if isinstance(content, list) else []
            kinds = {b.get("type") for b in blocks if isinstance(b, dict)}
            hidden = ("thinking or redacted thinking (billed in full, returned summarised or not at all)"
                      if kinds & {"thinking", "redacted_thinking"} else excluded)
            outputs.append(Sample(source, usage[1], estimate.output_tokens({"role": "assistant", "content": blocks}),
                                  hidden))
        k = 0
    return out, outputs


def growth_samples(root: Path) -> list[Sample]:
    """Recorded growth between consecutive model calls of every Claude Code run (main threads, the part
    before a compaction, subagents) against the estimated growth ``token_report`` attributes to the
    messages each call added."""
    out = []
    for name, run in _runs(root, "*.jsonl"):
        recorded = token_report(run)
        if sum(c.kind == RECORDED for c in recorded.calls) < 2:
            continue
        for call in run.calls:
            call.usage = None
        estimated = token_report(run)
        for rec, est, prev in zip(recorded.calls[1:], estimated.calls[1:], recorded.calls):
            if rec.kind == RECORDED and prev.kind == RECORDED and rec.new > 0 and rec.added:
                out.append(Sample(f"{name}#{rec.call}", rec.new, est.new))
    return out


def summary(samples: list[Sample]) -> dict[str, float]:
    kept = [s for s in samples if s.excluded is None]
    errors = sorted(abs(s.error) for s in kept)
    if not errors:
        return {"n": 0, "median": 0.0, "p90": 0.0, "bias": 0.0, "within_25": 0.0}
    p90 = errors[min(len(errors) - 1, int(round(0.9 * (len(errors) - 1))))]
    return {"n": len(errors), "median": statistics.median(errors), "p90": p90,
            "bias": statistics.median(s.error for s in kept),
            "within_25": sum(1 for e in errors if e <= 0.25) / len(errors)}


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else ROOT.parent / "shared" / "realruns"
    if not (root / "SOURCES.md").exists():
        root = Path("/work/shared/realruns")
    (requests, outputs), growth = cassette_samples(root), growth_samples(root)
    print("whole requests (cassettes): recorded vs estimated input")
    for s in requests:
        note = f"  (excluded: {s.excluded})" if s.excluded else ""
        print(f"  {s.source:<80} {s.recorded:>8} {s.estimated:>8} {s.error:+7.1%}{note}")
    by_file: dict[str, list[Sample]] = {}
    for s in growth:
        by_file.setdefault(s.source.split("#")[0], []).append(s)
    print("growth between requests (Claude Code), by transcript:")
    for name, samples in by_file.items():
        m = summary(samples)
        print(f"  {name:<80} n={m['n']:<4} median |error| {m['median']:6.1%}  median signed {m['bias']:+6.1%}")
    for title, samples in (("whole requests", requests), ("growth between requests (Claude Code)", growth),
                           ("output tokens (cassettes, no thinking)", outputs)):
        m = summary(samples)
        print(f"{title}: n={m['n']}  median |error| {m['median']:.1%}  p90 |error| {m['p90']:.1%}  "
              f"median signed {m['bias']:+.1%}  within 25%: {m['within_25']:.0%}")
    print("documented bounds:", ", ".join(f"{k} {v:.0%}" for k, v in DOCUMENTED.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
