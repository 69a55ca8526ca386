"""A bare message list: a JSON array of messages, or JSON lines with one message per line.

A JSONL file may start with a header line (no ``role``) holding ``system``, ``tools`` and
``params`` (or params inline: ``model``, ``max_tokens``, ...). Only request fields go into
the request: any other header key (``"type": "header"``, a generator's ``metadata`` block
that is not the API's ``metadata.user_id``) is the run's metadata (``run.meta["header"]``),
said in a warning, never sent. A JSON array of message arrays is several runs. Nothing
records the requests, so prefixes are reconstructed.
"""

from __future__ import annotations

from typing import Any

from tui.core.errors import LoadError
from tui.core.run import RECONSTRUCTED, LoadWarning, ModelCall, Run, Source
from tui.formats.document import Document
from tui.formats.request import looks_openai

NAME = "messages"
DESCRIPTION = "bare message list (JSON array, or JSONL with an optional header line)"

_HEADER_KEYS = ("system", "tools", "params", "model", "max_tokens")
#: The Messages API's request fields besides messages, system and tools.
REQUEST_PARAMS = frozenset({
    "model", "max_tokens", "temperature", "top_p", "top_k", "stop_sequences", "stream", "metadata", "tool_choice",
    "thinking", "service_tier", "container", "mcp_servers", "context_management", "output_config", "output_format",
    "inference_geo",
})


def is_request_param(key: str, value: Any) -> bool:
    """A key the API takes in a request body; ``metadata`` only as the API's own (``user_id``)."""
    if key == "metadata":
        return isinstance(value, dict) and set(value) <= {"user_id"}
    return key in REQUEST_PARAMS


def is_message(value: Any) -> bool:
    return isinstance(value, dict) and "role" in value


def is_header(value: Any) -> bool:
    """A first line with system/tools/params and no messages of its own (a request body is not one)."""
    return (isinstance(value, dict) and "role" not in value and "messages" not in value
            and any(k in value for k in _HEADER_KEYS))


def sniff(doc: Document) -> int:
    if doc.head.startswith(b"["):
        value = doc.json_or_none()
        if isinstance(value, list) and value:
            runs = value if all(isinstance(v, list) for v in value) else [value]
            if all(r and is_message(r[0]) for r in runs):
                return 15 if any(looks_openai(r) for r in runs) else 40
        return 0
    if doc.head.startswith(b"{"):
        first = doc.first_line()
        if is_message(first) or is_header(first):
            return 15 if looks_openai([first]) else 40
        if first is None and is_message(doc.second_line()):
            return 30  # JSON lines with a broken first line: load the rest, warn about line 1
    return 0


def run_from(messages: list[Any], path: str, header: dict[str, Any], index: int, count: int,
             warnings: list[LoadWarning], calls: list[ModelCall] | None = None) -> Run:
    """The run of ``messages``; ``calls`` when the caller already knows them (follow mode keeps
    them as lines arrive), else one per assistant message. Only request fields of the header go
    into the request; its other keys are the run's metadata."""
    params: dict[str, Any] = {}
    other: dict[str, Any] = {}
    inline = {k: v for k, v in header.items() if k not in ("system", "tools", "params")}
    for key, value in [*(header.get("params") or {}).items(), *inline.items()]:
        (params if is_request_param(key, value) else other)[key] = value
    meta: dict[str, Any] = {}
    if other:
        meta["header"] = other
        warnings = [LoadWarning(f"header keys kept as the run's metadata, not sent in any request (they are not "
                                f"request fields): {', '.join(other)}", line=1), *warnings]
    return Run(messages=messages, system=header.get("system"), tools=header.get("tools"), params=params,
               source=Source(path=path, format=NAME, prefix=RECONSTRUCTED, run_index=index, run_count=count),
               warnings=warnings, calls=calls or [], meta=meta)


def load(doc: Document) -> list[Run]:
    if doc.head.startswith(b"["):
        value = doc.json()
        runs = value if value and all(isinstance(v, list) for v in value) else [value]
        if not any(is_message(m) for r in runs for m in r):
            item = next(iter(runs[0]), None) if runs and runs[0] else None
            raise doc.not_this_format(NAME, "item 0 has no 'role' key (a message list holds messages)" if item
                                      is not None else "the list is empty")
        return [run_from(r, doc.path, {}, k, len(runs), []) for k, r in enumerate(runs)]
    if not doc.head.startswith(b"{"):
        raise doc.not_this_format(NAME, "neither a JSON array of messages nor JSON lines")
    whole = doc.json_or_none() if doc.several_lines() else None
    if isinstance(whole, dict) and not is_message(whole):
        keys = ", ".join(repr(k) for k in list(whole)[:5])
        raise doc.not_this_format(NAME, f"one JSON object (keys {keys}) with no 'role' key, not one message per line")
    lines = list(doc.lines())
    header: dict[str, Any] = {}
    if lines and is_header(lines[0][1]):
        header = lines.pop(0)[1]
        if not isinstance(header.get("params", {}), dict):
            raise LoadError(doc.path, "header 'params' must be an object", 1)
    messages = [value for _, value in lines]
    if not any(is_message(m) for m in messages) and (messages or not header):  # a header alone is a run of none
        number = lines[0][0] if lines else None
        raise doc.not_this_format(NAME, f"line {number} has no 'role' key (one message per line)" if lines
                                  else "no line is a message", number)
    warnings = list(doc.line_warnings)
    for number, value in lines:
        if not is_message(value):
            warnings.append(LoadWarning("line is not a message (no role); kept as is", line=number))
    return [run_from(messages, doc.path, header, 0, 1, warnings)]
