"""The sections of the request pane above the messages: params, System, Tools; and the output marker.

Built from the request body of index N (``request_at``), so an exact source shows what was
POSTed (its own system, tools and params) and a reconstructed one says what it lacks.
System and Tools fold to one line each; each tool's schema folds on its own.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tui.app.render import styles as palette
from tui.app.render.blocks import INDENT, text_part
from tui.app.render.lines import Part, Rows
from tui.core import jsonio
from tui.core.grammar import Finding
from tui.core.prefix import RequestAt
from tui.core.producers import Producer
from tui.core.safe import one_line

PARAMS = ("model", "max_tokens", "temperature", "tool_choice", "thinking")


def _json(value: Any, indent: bool = False) -> str:
    return jsonio.dumps(value, indent=indent).decode("utf-8", "replace")


def fold_mark(open_: bool) -> str:
    return palette.OPEN if open_ else palette.FOLDED


def params_part(req: RequestAt) -> Part:
    body = req.body
    text = Text("params  ", palette.HEADING)
    for key in PARAMS:
        value = one_line(_json(body[key])) if key in body else "–"
        text.append_text(Text.assemble((key, palette.DIM), " ", value, "  "))
        if key == "model" and req.model_from_call:
            text.append("(from the call record)  ", palette.DIM)
    for key, value in body.items():
        if key not in PARAMS and key not in ("system", "tools", "messages"):
            text.append_text(Text.assemble((one_line(key), palette.DIM), " ", one_line(_json(value))[:200], "  "))
    text.rstrip()
    return Rows([text])


def system_text(system: Any) -> str:
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n\n".join(b["text"] if isinstance(b, dict) and isinstance(b.get("text"), str) else _json(b)
                           for b in system)
    return _json(system)


def system_parts(req: RequestAt, open_: bool) -> list[Part]:
    target = ("system",)
    if "system" not in req.body:
        note = ("this request sent none" if req.exact
                else "not recorded by this source (if the request had one, it is not shown)")
        return [Rows([Text.assemble(("  System", palette.HEADING), "  ", (note, palette.NOTE))], target)]
    text = system_text(req.body["system"])
    first = one_line(" ".join(text[:200].split()))
    lines = text.count("\n") + 1
    size = f"  {len(text):,} characters" + (f", {lines:,} lines" if lines > 1 else "")
    head = Text.assemble(fold_mark(open_), (" System", palette.HEADING), (size, palette.DIM))
    if not open_:
        head.append("  " + first, palette.DIM)
        return [Rows([head], target, wrap=False)]
    return [Rows([head], target), text_part(text, Text(" " * INDENT), target, True, 0)]


def tools_parts(req: RequestAt, open_: bool, schemas: set[int]) -> list[Part]:
    target = ("tools",)
    if "tools" not in req.body:
        note = ("this request sent none" if req.exact
                else "not recorded by this source (if the model had tools, they are not shown)")
        return [Rows([Text.assemble(("  Tools", palette.HEADING), "  ", (note, palette.NOTE))], target)]
    tools = req.body["tools"] if isinstance(req.body["tools"], list) else []
    names = [one_line(str(t.get("name"))) if isinstance(t, dict) else "?" for t in tools]
    head = Text.assemble(fold_mark(open_), (f" Tools ({len(tools)})", palette.HEADING))
    if not open_:
        head.append("  " + ", ".join(names)[:300], palette.DIM)
        return [Rows([head], target, wrap=False)]
    parts: list[Part] = [Rows([head], target)]
    for t, tool in enumerate(tools):
        schema_target = ("schema", t)
        if not isinstance(tool, dict):
            parts.append(Rows([Text("    " + one_line(_json(tool)))], schema_target))
            continue
        row = Text.assemble("  ", fold_mark(t in schemas), " ", (names[t], "bold"), "  ",
                            (one_line(str(tool.get("description") or "")), palette.DIM))
        if tool.get("type") not in (None, "custom"):
            row.append(f"  type {one_line(str(tool.get('type')))}", palette.DIM)
        parts.append(Rows([row], schema_target, wrap=False))
        if t in schemas:  # the description whole (its own line breaks), then the schema
            description = tool.get("description")
            if isinstance(description, str) and description:
                parts.append(text_part(description, Text(" " * INDENT), schema_target, True, 0))
            schema = {k: v for k, v in tool.items() if k not in ("name", "description")}
            parts.append(text_part(_json(schema, indent=True), Text(" " * INDENT), schema_target, True, 0,
                                   palette.CODE))
    return parts


def message_head(i: int, role: str, producer: Producer, stop: str | None, open_: bool,
                 mark: tuple[str, str] | None) -> Text:
    text = Text.assemble(fold_mark(open_), " ", (f"[{i}]", "bold"), " ", (role, palette.ROLE.get(role, "")),
                         " · ", (producer.label, palette.PRODUCER.get(producer.kind, palette.DIM)))
    if stop:
        text.append(f" · stop_reason {stop}", palette.DIM)
    if mark:
        text.append("  " + mark[0], mark[1])
    return text


def output_head(n: int, total: int, role: str, producer: Producer | None, stop: str | None) -> Text:
    """The marker on message N: whose output it is (the model's, or the loop's/caller's)."""
    if producer is None:
        return Text.assemble((f" next request · the run has no message {n}: nothing answered this request ",
                              palette.OUTPUT))
    whose = {"model": "the model's output", "loop": "the loop's output (tool results)",
             "caller": "the caller's message", "prefill": "a prefill the caller sent"}.get(producer.kind,
                                                                                       "produced by no recorded call")
    stop_text = f" · stop_reason {stop}" if stop else ""
    return Text(f" message {n} · {role} · {producer.label} · {whose}{stop_text} ", palette.OUTPUT)


def finding_rows(findings: list[Finding]) -> list[Text]:
    rows = []
    for f in findings:
        mark, style = palette.MARK.get(f.severity, ("•", ""))
        rows.append(Text.assemble("  ", (mark, style), " ", (f"{f.severity} {one_line(f.rule)}", style), " ",
                                  one_line(f.message)))
        if f.cause:
            rows.append(Text.assemble("    ", ("likely cause: ", palette.DIM), one_line(f.cause)))
    return rows
