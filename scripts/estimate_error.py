"""Measure the offline token estimate against usage the provider recorded in ``../shared/realruns``.

Two measurements, printed as a table (``python scripts/estimate_error.py [REALRUNS]``):

1. **Whole requests** (VCR cassettes): each recorded request body is estimated with
   ``estimate.request_tokens`` and compared with the response's recorded input
   (``input_tokens + cache_read_input_tokens + cache_creation_input_tokens``). Requests that
   use server-side tools or context management are listed but left out of the figures: the
   provider adds content (tool instructions, search results, compaction) the body does not
   show, so no estimate from the body can match.
2. **Growth between consecutive requests** (Claude Code transcripts, which record usage but
   not the system prompt or tools): the recorded input of call k+1 minus that of call k is
   compared with the estimated size of the messages added in between (the assistant turn of
   call k and the user records after it), exactly as ``tui.core.tokens`` attributes growth.
   Claude Code injects text the transcript does not keep (reminders, hook output), which shows
   up as large under-estimates; they are kept in the figures, not filtered.

Error is ``estimate / recorded - 1``. ``DOCUMENTED`` holds the bounds quoted in README;
``tests/test_tokens.py`` fails if a change to the estimator makes the measured error exceed
them. The parsers here are deliberately small and independent of ``tui.formats``.
"""

from __future__ import annotations

import glob
import gzip
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tui.core import estimate  # noqa: E402

#: Bounds quoted in README ("Tokens"): measured median and 90th percentile of |error|.
DOCUMENTED = {"request_median": 0.20, "request_p90": 0.35, "growth_median": 0.15, "growth_p90": 0.60,
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


def _total_input(usage: dict) -> int:
    return sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_read_input_tokens",
                                                   "cache_creation_input_tokens"))


def _sse(text: str) -> tuple[dict, list]:
    """Usage and content blocks of a streamed (SSE) response."""
    usage: dict = {}
    blocks: dict[int, dict] = {}
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        try:
            event = json.loads(line[5:])
        except ValueError:
            continue
        kind = event.get("type")
        if kind == "message_start":
            usage.update(event.get("message", {}).get("usage") or {})
        elif kind == "message_delta":
            usage.update(event.get("usage") or {})
        elif kind == "content_block_start":
            blocks[event["index"]] = {**event["content_block"], "_json": ""}
        elif kind == "content_block_delta" and event.get("index") in blocks:
            block, delta = blocks[event["index"]], event.get("delta") or {}
            for key, field in (("text_delta", "text"), ("thinking_delta", "thinking")):
                if delta.get("type") == key:
                    block[field] = block.get(field, "") + delta.get(field, "")
            if delta.get("type") == "input_json_delta":
                block["_json"] += delta.get("partial_json", "")
    content = []
    for index in sorted(blocks):
        block = blocks[index]
        partial = block.pop("_json")
        if partial:
            block["input"] = json.loads(partial)
        content.append(block)
    return usage, content


def cassette_samples(root: Path) -> tuple[list[Sample], list[Sample]]:
    """(whole-request input samples, output samples) from every cassette."""
    import yaml

    out, outputs = [], []
    for path in sorted(glob.glob(str(root / "*.yaml"))):
        name = Path(path).name
        with open(path, encoding="utf-8") as handle:
            doc = yaml.safe_load(handle)
        for k, interaction in enumerate(doc.get("interactions") or []):
            request, response = interaction["request"], interaction["response"]
            body = request.get("parsed_body")
            if body is None:
                raw = request.get("body")
                body = json.loads(raw.get("string") if isinstance(raw, dict) else raw)
            parsed = response.get("parsed_body")
            if isinstance(parsed, dict):
                usage, content = parsed.get("usage") or {}, parsed.get("content") or []
            else:
                raw = response.get("body", {})
                text = raw.get("string") if isinstance(raw, dict) else raw
                if isinstance(text, bytes):
                    text = gzip.decompress(text).decode() if text[:2] == b"\x1f\x8b" else text.decode()
                usage, content = _sse(text or "")
            if not usage:
                continue
            tools = body.get("tools") or []
            excluded = None
            if any(isinstance(t, dict) and t.get("type") not in (None, "custom") for t in tools) or body.get("mcp_servers"):
                excluded = "server-side tools"
            elif body.get("context_management"):
                excluded = "context management"
            out.append(Sample(f"{name}#{k}", _total_input(usage), estimate.request_tokens(body), excluded))
            kinds = {b.get("type") for b in content if isinstance(b, dict)}
            hidden = ("thinking or redacted thinking (billed in full, returned summarised or not at all)"
                      if kinds & {"thinking", "redacted_thinking"} else excluded)
            outputs.append(Sample(f"{name}#{k}", int(usage.get("output_tokens") or 0),
                                  estimate.output_tokens({"role": "assistant", "content": content}), hidden))
    return out, outputs


def _claude_code_calls(path: str) -> list[dict]:
    records = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    by_uuid = {r["uuid"]: r for r in records if r.get("uuid")}
    convo = [r for r in records if r.get("type") in ("user", "assistant") and isinstance(r.get("message"), dict)]
    if not convo:
        return []
    pool = [r for r in convo if not r.get("isSidechain")] or convo
    chain, current, seen = [], pool[-1], set()
    while current is not None and current["uuid"] not in seen:  # the thread that ends at the last record
        seen.add(current["uuid"])
        chain.append(current)
        current = by_uuid.get(current.get("parentUuid"))
    calls: list[dict] = []
    for record in reversed(chain):
        message = record.get("message")
        if record.get("type") == "assistant" and isinstance(message, dict):
            if calls and calls[-1]["id"] == message.get("id") and not calls[-1]["after"]:
                calls[-1]["blocks"] += message.get("content") or []
                calls[-1]["usage"] = message.get("usage") or calls[-1]["usage"]
            else:
                calls.append({"id": message.get("id"), "usage": message.get("usage") or {}, "model": message.get("model"),
                              "blocks": list(message.get("content") or []), "after": []})
        elif record.get("type") == "user" and isinstance(message, dict) and calls:
            calls[-1]["after"].append(message)
    return [c for c in calls if c["model"] != "<synthetic>"]


def growth_samples(root: Path) -> list[Sample]:
    out = []
    for path in sorted(glob.glob(str(root / "*.jsonl"))):
        calls = _claude_code_calls(path)
        for k, (a, b) in enumerate(zip(calls, calls[1:])):
            growth = _total_input(b["usage"]) - _total_input(a["usage"])
            added = estimate.message_tokens({"role": "assistant", "content": a["blocks"]}, carry_thinking=False)
            added += sum(estimate.message_tokens(m) for m in a["after"])
            if growth > 0:
                out.append(Sample(f"{Path(path).name}#{k + 1}", growth, round(added)))
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
