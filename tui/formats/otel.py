"""OpenTelemetry span files: OTLP/JSON and the OTel Python SDK's span dumps.

Shapes read: an OTLP ``TracesData`` / ``ExportTraceServiceRequest`` object (``resourceSpans``),
a JSON array of them (one per exporter flush) or JSON Lines of them (the collector's file
exporter); a span dump in the SDK's own JSON (``{"spans": [...]}``, e.g. any-agent's
AgentTrace, whose 128-bit integer trace ids are read exactly), or JSON Lines of such spans
(``ConsoleSpanExporter``). Ids may be hex or base64; ``kind`` a number or an enum name.

One trace is one run (``tui.formats.spans.assemble``): its model-call spans (GenAI
``gen_ai.operation.name`` chat/text_completion/generate_content, OpenInference ``LLM``) in
start-time order are the calls; the same call recorded twice (a framework's span around the
provider's, or overlapping it in time) counts once, the innermost; tool spans give the
results where no later call recorded its input. A file of spans without a model call says
what it holds and is refused.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime, timezone
from typing import Any

from tui.core import jsonio
from tui.core.errors import LoadError
from tui.core.run import Run
from tui.formats.document import Document
from tui.formats.spans import attributes as attr
from tui.formats.spans import is_json_lines
from tui.formats.spans.assemble import LLMCall, ToolRun, build_runs, fill_from_outer
from tui.formats.spans.shapes import Memo

NAME = "otel"
DESCRIPTION = "OpenTelemetry spans (OTLP/JSON, its JSON Lines, or the OTel SDK's span dumps) with GenAI or OpenInference attributes"

NOTE = ("OpenTelemetry spans: messages converted from the spans' GenAI / OpenInference attributes to the Messages "
        "API; no request bytes were recorded")
_BIG_ID = re.compile(rb'("trace_id"\s*:\s*)(\d{16,})')


def _is_batch(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("resourceSpans"), list)


def _is_sdk_span(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("context"), dict) and "name" in value


def _shape(doc: Document) -> str | None:
    """The shape, from the keys at the top of the document (a word in a transcript's text is not one)."""
    head = doc.head
    if head[:1] not in (b"{", b"[") or not (b'"resourceSpans"' in head or b'"context"' in head):
        return None
    if is_json_lines(doc):
        first = doc.first_line()
        return "otlp-lines" if _is_batch(first) else "sdk-lines" if _is_sdk_span(first) else None
    value = doc.json_or_none()
    if _is_batch(value) or isinstance(value, list) and value and all(_is_batch(v) for v in value):
        return "otlp"
    spans = value.get("spans") if isinstance(value, dict) else None
    if isinstance(spans, list) and spans and _is_sdk_span(spans[0]):
        return "sdk"
    return None


def sniff(doc: Document) -> int:
    return 95 if _shape(doc) else 0


def near_miss(doc: Document) -> str | None:
    """What a file that looks like spans lacks."""
    head = doc.head[:4096]
    if head[:1] not in (b"{", b"[") or not any(k in head for k in (b'"scopeSpans"', b'"spans"', b'"spanId"')):
        return None
    value = doc.json_or_none()
    if isinstance(value, dict) and "scopeSpans" in value:
        return "it holds 'scopeSpans' but no 'resourceSpans' list around them (OTLP/JSON is {\"resourceSpans\": [...]})"
    if isinstance(value, dict) and isinstance(value.get("spans"), list):
        return ("its 'spans' are not OpenTelemetry SDK span dumps (each needs 'name', 'context' with "
                "'trace_id'/'span_id', and 'attributes')")
    return None


def load(doc: Document) -> list[Run]:
    shape = _shape(doc)
    if shape is None:
        raise LoadError(doc.path, "not an OpenTelemetry spans file: no 'resourceSpans' (OTLP/JSON) and no "
                                  "'spans' list of SDK span dumps", 1, 1)
    if shape == "otlp":
        value = doc.json()
        batches = value if isinstance(value, list) else [value]
        spans = [s for b in batches for s in _otlp_spans(b)]
    elif shape == "otlp-lines":
        spans = [s for _, b in doc.lines() for s in _otlp_spans(b)]
    elif shape == "sdk":
        data = _BIG_ID.sub(rb'\1"\2"', doc.data)  # 128-bit ids: parsed as numbers they would be rounded
        value = jsonio.loads(data, doc.path)
        items = value.get("spans") if isinstance(value, dict) else None
        if not isinstance(items, list):
            raise LoadError(doc.path, "the 'spans' of this span dump is not a list", 1, 1)
        spans = [s for s in (_sdk_span(i) for i in items) if s is not None]
    else:
        spans = [s for s in (_sdk_span(v) for _, v in doc.lines()) if s is not None]
    runs = _runs(doc.path, spans)
    if runs:
        runs[0].warnings += doc.line_warnings
    return runs


class Span:
    """One OpenTelemetry span as read from the file: ids, name, times, attributes and whether it failed."""

    __slots__ = ("trace", "id", "parent", "name", "start", "end", "attrs", "error")

    def __init__(self, trace: str, span_id: str, parent: str | None, name: str, start: int, end: int,
                 attrs: dict[str, Any], error: bool):
        self.trace, self.id, self.parent, self.name = trace, span_id, parent, name
        self.start, self.end, self.attrs, self.error = start, end, attrs, error


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if isinstance(value, str):
        try:
            return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1e9)
        except ValueError:
            return 0
    return 0


def _value(v: Any) -> Any:
    """An OTLP ``AnyValue`` as a plain value."""
    if not isinstance(v, dict):
        return v
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        raw = v["intValue"]
        return int(raw) if isinstance(raw, str) and raw.lstrip("-").isdigit() else raw
    if "doubleValue" in v:
        return v["doubleValue"]
    if "boolValue" in v:
        return v["boolValue"]
    if "arrayValue" in v:
        values = v["arrayValue"].get("values") if isinstance(v["arrayValue"], dict) else None
        return [_value(x) for x in values or []]
    if "kvlistValue" in v:
        values = v["kvlistValue"].get("values") if isinstance(v["kvlistValue"], dict) else None
        return _attrs(values)
    if "bytesValue" in v:
        return v["bytesValue"]
    return None


def _attrs(kvs: Any) -> dict[str, Any]:
    out = {}
    for kv in kvs if isinstance(kvs, list) else []:
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            out[kv["key"]] = _value(kv.get("value"))
    return out


def _events(span: dict[str, Any], attrs: dict[str, Any], read: Any) -> None:
    """GenAI content recorded on the ``gen_ai.client.inference.operation.details`` event."""
    for event in span.get("events") or []:
        if isinstance(event, dict) and event.get("name") == "gen_ai.client.inference.operation.details":
            for key, value in read(event.get("attributes")).items():
                attrs.setdefault(key, value)


def _otlp_spans(batch: Any) -> list[Span]:
    out = []
    for rs in batch.get("resourceSpans") or [] if isinstance(batch, dict) else []:
        for ss in rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or [] if isinstance(rs, dict) else []:
            for s in ss.get("spans") or [] if isinstance(ss, dict) else []:
                if not isinstance(s, dict):
                    continue
                attrs = _attrs(s.get("attributes"))
                _events(s, attrs, _attrs)
                status = s.get("status") if isinstance(s.get("status"), dict) else {}
                out.append(Span(str(s.get("traceId")), str(s.get("spanId")), s.get("parentSpanId") or None,
                                str(s.get("name")), _int(s.get("startTimeUnixNano")), _int(s.get("endTimeUnixNano")),
                                attrs, status.get("code") in (2, "STATUS_CODE_ERROR")))
    return out


def _sdk_span(item: Any) -> Span | None:
    if not isinstance(item, dict) or not isinstance(item.get("context"), dict):
        return None
    context, parent = item["context"], item.get("parent") if isinstance(item.get("parent"), dict) else {}
    attrs = dict(item["attributes"]) if isinstance(item.get("attributes"), dict) else {}
    _events(item, attrs, lambda a: a if isinstance(a, dict) else {})
    status = item.get("status") if isinstance(item.get("status"), dict) else {}
    parent_id = parent.get("span_id") if parent else item.get("parent_id")
    return Span(str(context.get("trace_id")), str(context.get("span_id")),
                None if parent_id is None else str(parent_id), str(item.get("name")),
                _int(item.get("start_time")), _int(item.get("end_time")), attrs,
                str(status.get("status_code")).lower() == "error")


def _runs(path: str, spans: list[Span]) -> list[Run]:
    if not spans:
        raise LoadError(path, "this spans file holds no spans", 1, 1)
    traces: dict[str, list[Span]] = {}
    for span in spans:
        traces.setdefault(span.trace, []).append(span)
    runs: list[Run] = []
    for trace_id, group in traces.items():
        llm = [s for s in group if attr.kind(s.attrs) == "llm"]
        if not llm:
            continue
        tools = [ToolRun(s.start, *_tool(s)) for s in group if attr.kind(s.attrs) == "tool"]
        calls = _calls(llm)
        root = min(group, key=lambda s: (s.parent is not None, s.start))
        for run in build_runs(calls, tools, path, NAME, NOTE):
            run.meta["trace_id"] = trace_id
            if len(traces) > 1:
                run.source.title = f"trace {trace_id[:16]}: {root.name} · {run.title()}"
            runs.append(run)
    if not runs:
        raise LoadError(path, f"no model-call span in this spans file: it holds {_holds(spans, traces)}", 1, 1)
    for k, run in enumerate(runs):
        run.source.run_index, run.source.run_count = k, len(runs)
    return runs


def _holds(spans: list[Span], traces: dict[str, list[Span]]) -> str:
    kinds = Counter(s.attrs.get("openinference.span.kind") or s.attrs.get("gen_ai.operation.name") or s.name
                    for s in spans)
    top = ", ".join(f"{n} {k}" for k, n in kinds.most_common(5)) + (", ..." if len(kinds) > 5 else "")
    return f"{len(spans)} span(s) in {len(traces)} trace(s) ({top}), none a GenAI or OpenInference LLM span"


def _calls(llm: list[Span]) -> list[LLMCall]:
    """One call per model call: a span that has another model-call span below it (by parent, or
    enclosing it in time: another instrumentation's span for the same call) is the same call
    recorded twice; the innermost is kept, and what it lacks is taken from the one around it."""
    ids = {s.id: s for s in llm}
    around: dict[str, str] = {}  # inner span id -> the nearest span around it
    for s in llm:
        best = ids.get(s.parent) if s.parent in ids else None
        for other in llm:
            if other is not s and other.start <= s.start and s.end <= other.end and (
                    other.start, other.end) != (s.start, s.end):
                if best is None or (other.end - other.start) < (best.end - best.start):
                    best = other
        if best is not None:
            around[s.id] = best.id
    outer = set(around.values())
    memo = Memo()
    calls = {s.id: _call(s, memo) for s in sorted(llm, key=lambda s: s.start)}
    groups: dict[str, list[LLMCall]] = {}
    for inner, out in around.items():
        if inner not in outer:
            groups.setdefault(out, []).append(calls[inner])
    for out, inner in groups.items():
        fill_from_outer(calls[out], inner)
    return [calls[s.id] for s in llm if s.id not in outer]


def _iso(ns: int) -> str | None:
    if not ns:
        return None
    return datetime.fromtimestamp(ns / 1e9, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def _call(span: Span, memo: Memo | None = None) -> LLMCall:
    a = span.attrs
    return LLMCall(start=span.start, end=span.end, where=f"span {span.name!r} ({span.id})",
                   input=attr.input_messages(a, memo),
                   output=attr.output_message(a), system=attr.system(a), tools=attr.tools(a), params=attr.params(a),
                   usage=attr.usage(a), model=attr.model(a), stop_reason=attr.stop_reason(a), started=_iso(span.start),
                   duration_ms=(span.end - span.start) / 1e6 if span.end >= span.start > 0 else None,
                   request_id=a.get("gen_ai.response.id") if isinstance(a.get("gen_ai.response.id"), str) else None)


def _tool(span: Span) -> tuple[Any, Any, Any, bool, Any]:
    call_id, name, args, result = attr.tool_facts(span.attrs)
    return (call_id if isinstance(call_id, str) else None, name, result, span.error, args)
