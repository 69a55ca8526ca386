"""Langfuse trace exports: a ``trace`` with its ``observations`` (the UI's and the API's JSON).

Each GENERATION observation is a model call. Its input and output are read from the OTel
attributes Langfuse kept in ``metadata.attributes`` (GenAI or OpenInference, as for the
``otel`` loader) where they hold messages, else from ``input``/``output`` in whichever shape
the producing SDK wrote (OpenAI chat, GenAI parts, LangChain messages, OpenAI Responses
items, Gemini contents, Vercel AI SDK prompts; JSON strings parsed once or twice). The top
level ``observations`` are preferred to ``trace.observations`` (which may lack input/output).
TOOL (and tool-like SPAN) observations supply tool results. A generation wrapping another
(an SDK's outer span around the provider call) counts once. A file may hold one export, a
list of them, or JSON Lines of them: one run per trace (per conversation in it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tui.core.errors import LoadError
from tui.core.run import Run
from tui.formats.document import Document
from tui.formats.spans import attributes as attr
from tui.formats.spans import is_json_lines
from tui.formats.spans.assemble import LLMCall, ToolRun, build_runs, fill_from_outer
from tui.formats.spans.shapes import Memo, chat_messages, chat_output, decoded, tool_definitions_in, transcript_messages

NAME = "langfuse"
DESCRIPTION = "Langfuse trace export (trace + observations, as the UI or the API writes it)"

NOTE = ("Langfuse trace: messages converted from the observations (their recorded input/output or OTel attributes) "
        "to the Messages API; no request bytes were recorded")


def _is_export(value: Any) -> bool:
    trace = value.get("trace") if isinstance(value, dict) else None
    return isinstance(trace, dict) and "projectId" in trace and (
        isinstance(value.get("observations"), list) or isinstance(trace.get("observations"), list))


def sniff(doc: Document) -> int:
    head = doc.head
    if head[:1] not in (b"{", b"[") or b'"projectId"' not in head or b'"trace"' not in head:
        return 0
    if is_json_lines(doc):
        return 95 if _is_export(doc.first_line()) else 0
    value = doc.json_or_none()
    if isinstance(value, list):
        return 95 if value and all(_is_export(v) for v in value) else 0
    return 95 if _is_export(value) else 0


def near_miss(doc: Document) -> str | None:
    """What a file that looks like a Langfuse export lacks."""
    if not doc.head.startswith(b"{") or (b'"observations"' not in doc.head and b'"trace"' not in doc.head):
        return None
    value = doc.json_or_none()
    if not isinstance(value, dict):
        return None
    trace = value.get("trace")
    if isinstance(trace, dict) and "projectId" not in trace:
        return "its 'trace' has no 'projectId' (a Langfuse trace export has trace.projectId and observations)"
    if isinstance(trace, dict):
        return "its 'trace' has no 'observations' list, and neither has the file"
    if isinstance(value.get("observations"), list):
        return "it has 'observations' but no 'trace' object (a Langfuse trace export has both)"
    return None


def load(doc: Document) -> list[Run]:
    if is_json_lines(doc):
        exports = [v for _, v in doc.lines()]
    else:
        value = doc.json()
        exports = value if isinstance(value, list) else [value]
    if not exports or not all(_is_export(e) for e in exports):
        raise LoadError(doc.path, "not a Langfuse trace export: needs a 'trace' object with 'projectId' and "
                                  "an 'observations' list", 1, 1)
    runs: list[Run] = []
    empty = []
    for export in exports:
        found = _runs(doc.path, export)
        if not found:
            empty.append(export["trace"])
        runs += found
    if not runs:
        kinds = {}
        for trace in empty:
            for o in _observations({"trace": trace}) or []:
                kinds[o.get("type")] = kinds.get(o.get("type"), 0) + 1
        raise LoadError(doc.path, "no GENERATION observation in this Langfuse export: it holds "
                                  + (", ".join(f"{n} {k}" for k, n in kinds.items()) or "no observations"), 1, 1)
    for k, run in enumerate(runs):
        run.source.run_index, run.source.run_count = k, len(runs)
    runs[0].warnings += doc.line_warnings
    return runs


def _observations(export: dict[str, Any]) -> list[dict[str, Any]]:
    top = export.get("observations")
    if isinstance(top, list) and top:
        return [o for o in top if isinstance(o, dict)]
    nested = export["trace"].get("observations")
    return [o for o in nested if isinstance(o, dict)] if isinstance(nested, list) else []


def _time(value: Any) -> float:
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return 0.0
    return 0.0


def _runs(path: str, export: dict[str, Any]) -> list[Run]:
    trace = export["trace"]
    observations = _observations(export)
    generations = [o for o in observations if o.get("type") == "GENERATION"]
    tools = [_tool(o) for o in observations if o.get("type") == "TOOL" or (o.get("type") == "SPAN" and _tool_like(o))]
    calls = _calls(generations)
    title = trace.get("name") if isinstance(trace.get("name"), str) else None
    runs = build_runs(calls, tools, path, NAME, NOTE)
    for run in runs:
        run.meta["trace_id"] = trace.get("id")
        if isinstance(trace.get("sessionId"), str):
            run.meta["session_id"] = trace["sessionId"]
        if title:
            run.source.title = f"{title} · {run.title()}"
    return runs


def _calls(generations: list[dict[str, Any]]) -> list[LLMCall]:
    """One call per model call: a generation with another generation below it (by parent, or
    enclosing it in time) is the same call recorded twice (an SDK's span around the provider's);
    the inner one is kept, and what it lacks is taken from the one around it."""
    ids = {o.get("id"): o for o in generations}
    times = {o.get("id"): (_time(o.get("startTime")), _time(o.get("endTime")) or _time(o.get("startTime")))
             for o in generations}
    around: dict[Any, Any] = {}
    for o in generations:
        key = o.get("id")
        start, end = times[key]
        best = o.get("parentObservationId") if o.get("parentObservationId") in ids else None
        for other in generations:
            okey = other.get("id")
            s2, e2 = times[okey]
            if other is not o and s2 <= start and end <= e2 and (s2, e2) != (start, end):
                if best is None or (e2 - s2) < (times[best][1] - times[best][0]):
                    best = okey
        if best is not None:
            around[key] = best
    outer = set(around.values())
    memo = Memo()
    calls = {o.get("id"): _call(o, memo) for o in sorted(generations, key=lambda o: _time(o.get("startTime")))}
    groups: dict[Any, list[LLMCall]] = {}
    for inner, out in around.items():
        if inner not in outer:
            groups.setdefault(out, []).append(calls[inner])
    for out, inner in groups.items():
        fill_from_outer(calls[out], inner)
    kept = [calls[o.get("id")] for o in generations if o.get("id") not in outer]
    for call, o in zip(kept, [o for o in generations if o.get("id") not in outer]):
        if call.input is None:
            flat = transcript_messages(decoded(o.get("input")))
            if flat is not None:
                call.input = flat
                call.notes.append(f"{call.where}: its input is a flat transcript string; split into messages at "
                                  "its 'role:' prefixes")
            elif o.get("input") is not None:
                call.notes.append(f"{call.where}: its recorded input holds no message list (the producing SDK "
                                  "wrote something else); its prefix is rebuilt from the run")
    return kept


def _metadata(o: dict[str, Any]) -> dict[str, Any]:
    meta = decoded(o.get("metadata"))
    attrs = meta.get("attributes") if isinstance(meta, dict) else None
    return attrs if isinstance(attrs, dict) else {}


def _call(o: dict[str, Any], memo: Memo | None = None) -> LLMCall:
    attrs = _metadata(o)
    given = attr.input_messages(attrs, memo) or chat_messages(o.get("input"), memo)
    output = attr.output_message(attrs) or chat_output(o.get("output"))
    meta = decoded(o.get("metadata"))
    tools = _tool_definitions(o) or attr.tools(attrs) or tool_definitions_in(o.get("input")) or (
        meta.get("tools") if isinstance(meta, dict) and isinstance(meta.get("tools"), list) else None)
    params = decoded(o.get("modelParameters"))
    params = {k: decoded(v, 1) for k, v in params.items()} if isinstance(params, dict) else {}
    params.update({k: v for k, v in attr.params(attrs).items() if k not in params})
    if isinstance(o.get("model"), str):
        params.setdefault("model", o["model"])
    usage = _usage(o.get("usageDetails")) or attr.usage(attrs)
    start, end = _time(o.get("startTime")), _time(o.get("endTime"))
    return LLMCall(start=start, end=end or None, where=f"generation {o.get('name')!r} ({o.get('id')})", input=given, output=output,
                   system=attr.system(attrs), tools=tools, params=params, usage=usage,
                   model=o.get("model") if isinstance(o.get("model"), str) else attr.model(attrs),
                   stop_reason=attr.stop_reason(attrs),
                   started=o.get("startTime") if isinstance(o.get("startTime"), str) else None,
                   duration_ms=(end - start) * 1000 if end >= start > 0 else None)


def _tool_definitions(o: dict[str, Any]) -> list[Any] | None:
    raw = decoded(o.get("toolDefinitions"))
    if isinstance(raw, dict) and raw:
        return [{"type": "function", "function": {"name": k, **(v if isinstance(v, dict) else {})}}
                for k, v in raw.items()]
    return raw if isinstance(raw, list) and raw else None


def _usage(details: Any) -> dict[str, Any] | None:
    if not isinstance(details, dict):
        return None
    out = {}
    for name, keys in (("input_tokens", ("input",)), ("output_tokens", ("output",)),
                       ("cache_read_input_tokens", ("cache_read_input_tokens", "input_cache_read",
                                                    "prompt_details.cache_read"))):
        value = next((details[k] for k in keys if isinstance(details.get(k), int)), None)
        if value is not None:
            out[name] = value
    return out or None


def _tool_like(o: dict[str, Any]) -> bool:
    attrs = _metadata(o)
    return attr.kind(attrs) == "tool" or (o.get("input") is not None and o.get("output") is not None
                                          and isinstance(o.get("name"), str) and not o.get("model")
                                          and "messages" not in str(o.get("input"))[:200])


def _tool(o: dict[str, Any]) -> ToolRun | None:
    attrs = _metadata(o)
    call_id, name, args, result = attr.tool_facts(attrs)
    if result is None:
        result = decoded(o.get("output"), 1)
    if args is None:
        args = decoded(o.get("input"), 1)
        if isinstance(args, dict) and set(args) == {"input"}:  # the Claude Agent SDK's wrapper
            args = args["input"]
    name = name or o.get("name")
    if isinstance(name, str) and name.startswith(("running tool: ", "execute_tool ", "tool.")):
        name = name.split(": ", 1)[-1].split(" ", 1)[-1].split(".", 1)[-1]
    return ToolRun(_time(o.get("startTime")), call_id if isinstance(call_id, str) else None, name, result,
                   o.get("level") == "ERROR", args)
