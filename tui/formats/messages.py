"""A bare message list: a JSON array of messages, or JSON lines with one message per line.

A JSONL file may start with a header line (no ``role``) holding ``system``, ``tools`` and
``params`` (or params inline: ``model``, ``max_tokens``, ...). A JSON array of message
arrays is several runs. Nothing records the requests, so prefixes are reconstructed.
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
    them as lines arrive), else one per assistant message."""
    params = dict(header.get("params") or {})
    for key, value in header.items():
        if key not in ("system", "tools", "params"):
            params[key] = value
    return Run(messages=messages, system=header.get("system"), tools=header.get("tools"), params=params,
               source=Source(path=path, format=NAME, prefix=RECONSTRUCTED, run_index=index, run_count=count),
               warnings=warnings, calls=calls or [])


def load(doc: Document) -> list[Run]:
    if doc.head.startswith(b"["):
        value = doc.json()
        runs = value if value and all(isinstance(v, list) for v in value) else [value]
        return [run_from(r, doc.path, {}, k, len(runs), []) for k, r in enumerate(runs)]
    lines = list(doc.lines())
    header: dict[str, Any] = {}
    if lines and is_header(lines[0][1]):
        header = lines.pop(0)[1]
        if not isinstance(header.get("params", {}), dict):
            raise LoadError(doc.path, "header 'params' must be an object", 1)
    messages = [value for _, value in lines]
    warnings = list(doc.line_warnings)
    for number, value in lines:
        if not is_message(value):
            warnings.append(LoadWarning("line is not a message (no role); kept as is", line=number))
    return [run_from(messages, doc.path, header, 0, 1, warnings)]
