"""``turnscope show FILE --at N [--json | --curl]``: the request that produced message N.

``--json`` prints exactly the JSON body that was (or would be) POSTed; ``--curl`` prints it as a
``curl`` command that reads the key from ``$ANTHROPIC_API_KEY`` when it runs (never the key). Without them, a
readable layout with headed sections: params, system, tools, messages 0..N-1, and message
N (the model's response to this request, or what the loop appended). The header says
whether the prefix is exact (taken from a recorded request) or reconstructed (rebuilt
from the run's messages). Without ``--at``: the last request the run sent, or the request
the file itself holds (a request body, a run waiting on the model).
"""

from __future__ import annotations

import argparse
from typing import Any

from tui.commands.block_text import CONTINUE, block_text
from tui.commands.common import add_file_options, open_from_args, out_lines, write_bytes
from tui.commands.helptext import HelpFormatter
from tui.core import jsonio
from tui.core.client_added import added_blocks
from tui.core.grammar.recorded import returned_differs
from tui.core.prefix import RequestAt, request_at
from tui.core.producers import MODEL, producers
from tui.core.request_headers import header_lines
from tui.core.run import Run
from tui.formats.sidecar import CONTEXT_KEY
from tui.core.words import counted

PARAM_KEYS = ("model", "max_tokens", "temperature", "top_p", "top_k", "tool_choice", "thinking", "stop_sequences")


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("show", help="print the request that produced message N",
                            description=__doc__.split("\n\n", 1)[1],
                            formatter_class=HelpFormatter)
    add_file_options(parser)
    parser.add_argument("--at", type=int, default=None, metavar="N",
                        help="message index (default: the last request sent; the message count means the next "
                             "request); negative counts back from the end")
    parser.add_argument("--json", action="store_true", help="exactly the JSON body that was (or would be) POSTed")
    parser.add_argument("--headers", action="store_true",
                        help="the request headers that shape it (anthropic-version, anthropic-beta) and the URL's "
                             "query, as recorded (never a credential); one 'name: value' a line")
    parser.add_argument("--curl", action="store_true",
                        help="the request as a curl command; it reads the key from $ANTHROPIC_API_KEY when run")


def default_index(r: Run) -> int:
    """The last request the run sent: the one behind its final response, or (when the run
    ends on a user message or a prefill) the request that the messages themselves make up."""
    if not r.messages:
        return 0
    last = r.messages[-1]
    if r.prefill or not (isinstance(last, dict) and last.get("role") == "assistant"):
        return len(r.messages)
    return len(r.messages) - 1


def run(args: argparse.Namespace) -> int:
    r = open_from_args(args)
    n = args.at if args.at is not None else default_index(r)
    if args.curl:
        from tui.core.curl import curl_command

        out_lines([curl_command(r, n)])
        return 0
    req = request_at(r, n)
    if args.headers:
        out_lines(header_lines(r) or ["(no request headers recorded in this source)"])
    elif args.json:
        write_bytes(req.bytes())
    else:
        out_lines(layout(r, req))
    return 0


def _json(value: Any) -> str:
    return jsonio.dumps(value).decode("utf-8", "replace")


def header(r: Run, req: RequestAt) -> list[str]:
    n, total = req.index, len(r.messages)
    source = r.source.path + (f"#{r.source.run_index}" if r.source.run_count > 1 else "")
    lines = [f"{source} · {r.source.format} format"]
    if req.raw is not None:
        lines.append("prefix: exact (the request as it was recorded; --json prints its bytes as POSTed)")
    elif req.exact:
        lines.append("prefix: exact (the request as it was recorded; --json prints it re-serialised)")
    elif isinstance(r.meta.get(CONTEXT_KEY), str):
        lines.append(f"prefix: reconstructed, context from {r.meta[CONTEXT_KEY]} (its system prompt, tools, params "
                     "and headers; the messages rebuilt from this run)")
    elif req.converted:
        lines.append("prefix: converted (the request as the source recorded it, in another API's shape, "
                     "converted to the Messages API)")
    else:
        lines.append("prefix: reconstructed (rebuilt from the run's messages; no request was recorded)")
    if req.call is not None:
        lines.append(f"the request for message {n} of {total}, sent by model call {req.call + 1} of {len(r.calls)}")
        status = r.calls[req.call].status
        if status not in (None, 200) or n == total:
            answer = f"was answered {status}" if status is not None else "got no recorded answer"
            lines.append(f"model call {req.call + 1} {answer}: it produced no message")
    elif total == 0:
        lines.append("the run holds no messages")
    elif n == 0:
        lines.append(f"nothing came before message 0 of {total}: the run starts with it")
    elif n == total:
        lines.append(f"the request after message {total - 1}: messages 0..{total - 1}"
                     + (", ending on a prefill" if r.prefill else "") + f" ({counted(len(r.calls), 'model call')} before it)")
    else:
        lines.append(f"messages 0..{n - 1}: what the loop held when it appended message {n} of {total} "
                     "(no model call produced it)")
    shaping = header_lines(r)
    if shaping:
        lines.append("headers: " + " · ".join(shaping))
    if isinstance(r.meta.get("header"), dict):
        lines.append(f"run metadata (the header line's other keys; never sent): {_json(r.meta['header'])}")
    body = req.body
    missing = [name for name, what in (("system", "system prompt"), ("tools", "tool schemas")) if name not in body]
    if missing and not req.exact:
        names = " and no ".join("system prompt" if m == "system" else "tool schemas" for m in missing)
        flags = " / ".join(f"--{m}" for m in missing)
        lines.append(f"note: this source holds no {names}; the real request may have carried "
                     f"{'them' if len(missing) > 1 or missing == ['tools'] else 'one'} (attach with {flags} FILE)")
    return lines


def layout(r: Run, req: RequestAt) -> list[str]:
    """The readable layout; an item may hold several lines (a long tool result stays one item)."""
    n, body = req.index, req.body
    total = len(r.messages)
    lines = header(r, req)
    params = {k: v for k, v in body.items() if k not in ("system", "tools", "messages")}
    lines += ["", "== params =="]
    if not params:
        lines.append("(none recorded)")
    for key in PARAM_KEYS:
        if key in params:
            note = "  (from the call record)" if key == "model" and req.model_from_call else ""
            lines.append(f"{key}: {_json(params[key])}{note}")
    for key, value in params.items():
        if key not in PARAM_KEYS:
            lines.append(f"{key}: {_json(value)}")
    if "system" in body:
        lines += ["", "== system ==", _system_text(body["system"])]
    if "tools" in body:
        tools = body["tools"] if isinstance(body["tools"], list) else []
        lines += ["", f"== tools ({len(tools)}) =="]
        for tool in tools:
            if isinstance(tool, dict):
                description = tool.get("description")  # server tools have none: no dangling colon
                lines.append(f"- {tool.get('name')}" + (f": {description}" if description not in (None, "") else ""))
                if "input_schema" in tool:
                    lines.append(f"    input_schema: {_json(tool['input_schema'])}")
                if tool.get("type") not in (None, "custom"):
                    lines.append(f"    type: {tool.get('type')}")
            else:
                lines.append(f"- {_json(tool)}")
    table = producers(r, upto=n + 1)
    messages = body["messages"]
    replaced = _replaced(r, req)
    lines += ["", f"== messages 0..{len(messages) - 1} ({len(messages)}) ==" if messages else "== messages (none) =="]
    for i, message in enumerate(messages):
        note = " · as this request carried it (the run stores a different turn)" if i in replaced else ""
        lines += _message_lines(i, message, table[i].label if i < len(table) else "?", r, note)
    if n < total:
        p = table[n]
        if p.kind == MODEL:
            lines += ["", f"== message {n}: the response to this request ({p.label}) =="]
        else:
            by = "written by the caller" if p.kind == "caller" else f"appended by the {p.label}"
            lines += ["", f"== message {n}: {by}, not a model response =="]
        lines += _message_lines(n, r.messages[n], p.label, r)
    return lines


def _replaced(r: Run, req: RequestAt) -> set[int]:
    call = r.calls[req.call] if req.call is not None else None
    return set(call.request.replaced) if call is not None and call.request is not None else set()


def _system_text(system: Any) -> str:
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(block["text"] if isinstance(block, dict) and isinstance(block.get("text"), str)
                         else _json(block) for block in system)
    return _json(system)


def _message_lines(i: int, message: Any, label: str, r: Run, note: str = "") -> list[str]:
    if not isinstance(message, dict):
        return [f"[{i}] (not a message) {_json(message)}"]
    call = r.call_for(i)
    stop = f" · stop_reason {call.stop_reason}" if call is not None and call.stop_reason else ""
    if call is not None and returned_differs(call, message):
        note += " · stored turn differs from what the provider returned (see `turnscope check`)"
    marks = added_blocks(r, i)
    if None in marks:
        note += f" · {marks[None]}"
    lines = [f"[{i}] {message.get('role')} ({label}){stop}{note}"]
    content = message.get("content")
    if isinstance(content, str):
        lines.append("    " + content.replace("\n", "\n    "))
    elif not isinstance(content, list):
        lines.append(f"    content: {_json(content)}")
    else:
        for b, block in enumerate(content):
            if b in marks:
                lines.append(f"    + {marks[b]}:")
            lines.append("    " + block_text(block, "\n    " + CONTINUE))
    return lines
