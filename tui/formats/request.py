"""An Anthropic Messages API request body: ``messages`` plus ``system``, ``tools`` and params.

The file is the request itself, so its prefixes are exact; a final assistant message in
it is a prefill. A JSON array of such bodies is several runs.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from tui.core.errors import LoadError
from tui.core.run import EXACT, Run, Source
from tui.formats.document import Document

NAME = "request"
DESCRIPTION = "Anthropic Messages API request body (messages, system, tools, params)"

#: Message shapes that belong to OpenAI-style runs, which their own loader takes.
_OPENAI_ROLES = ("system", "tool", "developer", "function")


def looks_openai(messages: Any) -> bool:
    if not isinstance(messages, list):
        return False
    try:  # every message a dict with a hashable role: two passes in C (sniffing a 100 MB body asks twice)
        return not set(map(dict.get, messages, repeat("role"))).isdisjoint(_OPENAI_ROLES) or \
            any(map(dict.__contains__, messages, repeat("tool_calls")))
    except TypeError:  # an item that is not a dict, or an unhashable role
        return any(isinstance(m, dict) and (m.get("role") in _OPENAI_ROLES or "tool_calls" in m) for m in messages)


#: Fields only an Anthropic Messages body has at its top level (an OpenAI chat body has none of them).
_ANTHROPIC_FIELDS = ("system", "anthropic_version", "anthropic_beta", "thinking", "stop_sequences",
                     "context_management", "mcp_servers", "container")
_ANTHROPIC_BLOCKS = frozenset(("tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use",
                               "document", "search_result", "web_search_tool_result", "mcp_tool_use"))
_OPENAI_ONLY_ROLES = ("tool", "developer", "function")


def anthropic_body(body: Any) -> bool:
    """An Anthropic Messages body even though it holds a ``role: "system"`` message (the
    mid-conversation-system beta): it has an Anthropic-only top-level field, tool schemas with
    ``input_schema``, or Anthropic content blocks, and no OpenAI-only role or ``tool_calls``."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return False
    messages = body["messages"]
    if any(isinstance(m, dict) and (m.get("role") in _OPENAI_ONLY_ROLES or "tool_calls" in m) for m in messages):
        return False
    if any(k in body for k in _ANTHROPIC_FIELDS):
        return True
    tools = body.get("tools")
    if isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools):
        return True
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and (b.get("type") in _ANTHROPIC_BLOCKS
                                                                      or "cache_control" in b) for b in content):
            return True
    return False


def _is_body(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("messages"), list) and "turnscope" not in value


def sniff(doc: Document) -> int:
    if not doc.looks_json:
        return 0
    value = doc.json_or_none()
    bodies = value if isinstance(value, list) and value and all(_is_body(v) for v in value) else [value]
    if not all(_is_body(b) for b in bodies):
        return 0
    return 20 if any(looks_openai(b["messages"]) and not anthropic_body(b) for b in bodies) else 50


def run_from_body(body: dict[str, Any], path: str, index: int = 0, count: int = 1) -> Run:
    messages = body["messages"]
    params = {k: v for k, v in body.items() if k not in ("messages", "system", "tools")}
    last = messages[-1] if messages else None
    prefill = isinstance(last, dict) and last.get("role") == "assistant"
    return Run(messages=messages, system=body.get("system"), tools=body.get("tools"), params=params,
               source=Source(path=path, format=NAME, prefix=EXACT, run_index=index, run_count=count),
               prefill=prefill, order=list(body.keys()))


def load(doc: Document) -> list[Run]:
    value = doc.json()
    bodies = value if isinstance(value, list) else [value]
    for k, body in enumerate(bodies):
        if not _is_body(body):
            where = f"item {k}: " if isinstance(value, list) else ""
            raise LoadError(doc.path, f"{where}not a request body: needs a 'messages' list", 1, 1)
    return [run_from_body(b, doc.path, k, len(bodies)) for k, b in enumerate(bodies)]
