"""``turnscope show FILE --at N [--json]``: the request that produced message N.

``--json`` prints exactly the JSON body that was (or would be) POSTed. Without it, a
readable layout with headed sections: params, system, tools, messages 0..N-1, and message
N marked as the model's (or the loop's) output. The header says whether the prefix is
exact (taken from a recorded request) or reconstructed.
"""

from __future__ import annotations

import argparse
from typing import Any

from tui.commands.common import add_file_options, open_from_args, out, write_bytes
from tui.core import jsonio
from tui.core.prefix import RequestAt, request_at
from tui.core.producers import producers
from tui.core.run import Run, block_type

PARAM_KEYS = ("model", "max_tokens", "temperature", "top_p", "top_k", "tool_choice", "thinking", "stop_sequences")


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("show", help="print the request that produced message N")
    add_file_options(parser)
    parser.add_argument("--at", type=int, default=None, metavar="N",
                        help="message index (default: the last; the message count means the next request)")
    parser.add_argument("--json", action="store_true", help="exactly the JSON body that was (or would be) POSTed")


def run(args: argparse.Namespace) -> int:
    r = open_from_args(args)
    n = args.at if args.at is not None else max(len(r.messages) - 1, 0)
    req = request_at(r, n)
    if args.json:
        write_bytes(jsonio.dumps(req.body))
    else:
        for line in layout(r, req):
            out(line)
    return 0


def _json(value: Any) -> str:
    return jsonio.dumps(value).decode("utf-8", "replace")


def layout(r: Run, req: RequestAt) -> list[str]:
    n, body = req.index, req.body
    total = len(r.messages)
    lines = [f"{r.source.path} · {r.source.format} · "
             f"{'exact prefix (recorded request)' if req.exact else 'reconstructed prefix'}"]
    if req.call is not None:
        lines.append(f"request for message {n} of {total}, sent by model call {req.call + 1} of {len(r.calls)}")
        status = r.calls[req.call].status
        if status not in (None, 200) or n == total:
            answer = f"was answered {status}" if status is not None else "got no recorded answer"
            lines.append(f"model call {req.call + 1} {answer}: it produced no message")
    elif n == total:
        lines.append(f"the next request (after message {total - 1}), {len(r.calls)} model calls so far")
    else:
        lines.append(f"messages 0..{n - 1}: the state the loop held when it appended message {n} of {total}")
    if not req.exact:
        missing = [name for name in ("system", "tools") if name not in body]
        if missing:
            lines.append(f"note: this source recorded no {' or '.join(missing)}; "
                         "the model saw them but they are not shown")
    params = {k: v for k, v in body.items() if k not in ("system", "tools", "messages")}
    lines.append("")
    lines.append("== params ==")
    for key in PARAM_KEYS:
        if key in params:
            note = "  (from the call record)" if key == "model" and req.model_from_call else ""
            lines.append(f"{key}: {_json(params[key])}{note}")
    for key, value in params.items():
        if key not in PARAM_KEYS:
            lines.append(f"{key}: {_json(value)}")
    if "system" in body:
        lines += ["", "== system ==", *_system_lines(body["system"])]
    if "tools" in body:
        tools = body["tools"] if isinstance(body["tools"], list) else []
        lines += ["", f"== tools ({len(tools)}) =="]
        for tool in tools:
            if isinstance(tool, dict):
                lines.append(f"- {tool.get('name')}: {tool.get('description', '')}")
                if "input_schema" in tool:
                    lines.append(f"    input_schema: {_json(tool['input_schema'])}")
                if tool.get("type") not in (None, "custom"):
                    lines.append(f"    type: {tool.get('type')}")
            else:
                lines.append(f"- {_json(tool)}")
    table = producers(r)
    messages = body["messages"]
    lines += ["", f"== messages 0..{len(messages) - 1} ({len(messages)}) ==" if messages else "== messages (none) =="]
    for i, message in enumerate(messages):
        lines += _message_lines(i, message, table[i].label if i < len(table) else "?", r)
    if n < total:
        p = table[n]
        lines += ["", f"== produces message {n}: {p.label}"
                      f"{' (the model' + chr(39) + 's output)' if p.kind == 'model' else ''} =="]
        lines += _message_lines(n, r.messages[n], p.label, r)
    return lines


def _system_lines(system: Any) -> list[str]:
    if isinstance(system, str):
        return system.split("\n")
    if isinstance(system, list):
        out_lines: list[str] = []
        for block in system:
            text = block.get("text") if isinstance(block, dict) else None
            out_lines += text.split("\n") if isinstance(text, str) else [_json(block)]
        return out_lines
    return [_json(system)]


def _message_lines(i: int, message: Any, label: str, r: Run) -> list[str]:
    if not isinstance(message, dict):
        return [f"[{i}] (not a message) {_json(message)}"]
    call = r.call_for(i)
    stop = f" · stop_reason {call.stop_reason}" if call is not None and call.stop_reason else ""
    lines = [f"[{i}] {message.get('role')} ({label}){stop}"]
    content = message.get("content")
    if isinstance(content, str):
        return lines + ["    " + line for line in content.split("\n")]
    if not isinstance(content, list):
        return lines + [f"    content: {_json(content)}"]
    for block in content:
        lines += ["    " + line for line in _block_lines(block)]
    return lines


def _block_lines(block: Any) -> list[str]:
    kind = block_type(block)
    if not isinstance(block, dict):
        return [f"{kind} {_json(block)}"]
    if kind == "text" and isinstance(block.get("text"), str):
        return [f"text: {line}" if k == 0 else f"      {line}" for k, line in enumerate(block["text"].split("\n"))]
    if kind == "tool_use":
        return [f"tool_use {block.get('id')} {block.get('name')} {_json(block.get('input'))}"]
    if kind == "tool_result":
        mark = " is_error" if block.get("is_error") else ""
        content = block.get("content")
        if isinstance(content, str):
            text = content
        elif isinstance(content, list):
            text = "\n".join(b.get("text", _json(b)) if isinstance(b, dict) and b.get("type") == "text"
                             else f"[{block_type(b)} block]" for b in content)
        else:
            text = "" if content is None else _json(content)
        head, *rest = text.split("\n") if text else [""]
        return [f"tool_result {block.get('tool_use_id')}{mark}: {head}", *[f"      {line}" for line in rest]]
    if kind == "thinking":
        thought = block.get("thinking")
        if isinstance(thought, str) and thought.strip():
            return [f"thinking: {line}" if k == 0 else f"      {line}" for k, line in enumerate(thought.split("\n"))]
        return [f"thinking: (not returned by the provider; signature {len(str(block.get('signature') or ''))} chars)"]
    if kind == "redacted_thinking":
        return [f"redacted_thinking: (thinking not returned by the provider; data {len(str(block.get('data') or ''))} chars)"]
    if kind in ("image", "document"):
        source = block.get("source") if isinstance(block.get("source"), dict) else {}
        size = len(str(source.get("data") or source.get("url") or ""))
        return [f"[{kind} {source.get('media_type', source.get('type', ''))}, {size} chars of source]"]
    return [f"{kind}: {_json(block)}"]
