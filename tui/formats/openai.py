"""OpenAI Chat Completions runs, converted to the Anthropic format (``tui.formats.chat.convert``).

Shapes read: a chat request body (``messages`` with ``tool_calls`` / ``role: "tool"``, and
``tools``); a bare message list (JSON array, array of arrays, or JSON lines); tau-bench's
list of trajectories (``[{task_id, reward, traj, trial, info}]``, one run each); and a
SWE-agent ``.traj`` file (its ``history``, with ``tool_call_ids`` lists). Tools given in the
OpenAI form become Anthropic tool schemas and params their Anthropic names. Every run says
it was converted: its prefixes are reconstructed, never what an Anthropic model was sent.
"""

from __future__ import annotations

from typing import Any

from tui.core.errors import LoadError
from tui.core.run import RECONSTRUCTED, LoadWarning, Run, Source
from tui.formats.chat.convert import convert
from tui.formats.document import Document
from tui.formats.request import anthropic_body, looks_openai

NAME = "openai"
DESCRIPTION = "OpenAI chat messages with tool_calls (a request body, a message list, tau-bench, SWE-agent .traj)"

CONVERTED = ("converted from the OpenAI chat format: tool_calls became tool_use blocks, tool messages "
             "tool_result blocks, the system message the system prompt; prefixes are reconstructed")
_KEPT = ("model", "max_tokens", "temperature", "top_p", "metadata")


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("role"), str)


def _shape(doc: Document) -> str | None:
    head = doc.head
    if head.startswith(b"["):
        value = doc.json_or_none()
        if isinstance(value, list) and value and isinstance(value[0], dict) and isinstance(value[0].get("traj"), list):
            return "tau-bench"
        if isinstance(value, list) and value:
            runs = value if all(isinstance(v, list) for v in value) else [value]
            if all(r and all(_is_message(m) for m in r) for r in runs) and any(looks_openai(r) for r in runs):
                return "list"
        return None
    if head.startswith(b"{"):
        if b'"history"' in head or b'"messages"' in head:
            value = doc.json_or_none()
            history = value.get("history") if isinstance(value, dict) else None
            if isinstance(history, list) and (any(k in value for k in ("trajectory", "info", "replay_config",
                                                                          "environment"))
                                              or (history and all(_is_message(m) for m in history))):
                return "swe-agent"  # a demonstration .traj holds only its history
            if isinstance(value, dict) and isinstance(value.get("messages"), list) and looks_openai(value["messages"]) \
                    and not anthropic_body(value):
                return "body"
        lines = doc.first_lines(20)
        if lines and all(_is_message(v) for v in lines) and looks_openai(lines):
            return "jsonl"
    return None


def sniff(doc: Document) -> int:
    shape = _shape(doc)
    return 90 if shape in ("tau-bench", "swe-agent") else 60 if shape else 0


def _forced_shape(doc: Document) -> str:
    """The shape of a file forced to this format that does not look like it, or one clear line of why not."""
    if doc.head.startswith(b"["):
        value = doc.json()
        lists = value if value and all(isinstance(v, list) for v in value) else [value]
        for r in lists:
            for k, m in enumerate(r):
                if not _is_message(m):
                    raise doc.not_this_format(NAME, f"item {k} has no 'role' key (a chat message list holds messages)")
        return "list"
    value = doc.json_or_none() if doc.head.startswith(b"{") else None
    if isinstance(value, dict) and not _is_message(value):
        if isinstance(value.get("messages"), list):
            return "body"
        raise doc.not_this_format(NAME, "the object has no 'messages' list (a chat request body) and no 'history' "
                                        "list (a SWE-agent .traj)")
    if not doc.head.startswith(b"{"):
        raise doc.not_this_format(NAME, "neither a JSON document nor JSON lines")
    for number, line in doc.lines():
        if not _is_message(line):
            raise doc.not_this_format(NAME, f"line {number} has no 'role' key (one chat message per line)", number)
    return "jsonl"


def load(doc: Document) -> list[Run]:
    shape = _shape(doc) or _forced_shape(doc)
    if shape == "tau-bench":
        items = doc.json()
        runs = [_run(doc.path, t.get("traj") or [], {}, _tau_title(t), _tau_meta(t)) for t in items
                if isinstance(t, dict)]
    elif shape == "swe-agent":
        value = doc.json()
        info = value.get("info") if isinstance(value.get("info"), dict) else {}
        meta = {k: info[k] for k in ("exit_status",) if k in info}
        runs = [_run(doc.path, value["history"], {}, None, meta)]
    elif shape == "body":
        value = doc.json()
        runs = [_run(doc.path, value["messages"], value, None, {})]
    elif shape == "list":
        value = doc.json()
        lists = value if value and all(isinstance(v, list) for v in value) else [value]
        runs = [_run(doc.path, m, {}, None, {}) for m in lists]
    else:
        runs = [_run(doc.path, [v for _, v in doc.lines()], {}, None, {})]
        runs[0].warnings[:0] = doc.line_warnings
    if not runs:
        raise LoadError(doc.path, "no trajectory found")
    for k, run in enumerate(runs):
        run.source.run_index, run.source.run_count = k, len(runs)
    return runs


def _run(path: str, messages: Any, body: dict[str, Any], title: str | None, meta: dict[str, Any]) -> Run:
    if not isinstance(messages, list):
        raise LoadError(path, f"'messages' is {type(messages).__name__}, not a list of messages", 1, 1)
    converted = convert(messages)
    params, dropped = _params(body)
    warnings = [LoadWarning(CONVERTED)] + [LoadWarning(note) for note in converted.notes]
    if dropped:
        warnings.append(LoadWarning("OpenAI params with no Anthropic equivalent left out: " + ", ".join(dropped)))
    return Run(messages=converted.messages, system=converted.system, tools=_tools(body.get("tools")),
               params=params, warnings=warnings, meta=meta,
               source=Source(path=path, format=NAME, prefix=RECONSTRUCTED, title=title))


def _params(body: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    params: dict[str, Any] = {k: body[k] for k in _KEPT if k in body}
    dropped = []
    for key, value in body.items():
        if key in _KEPT or key in ("messages", "tools", "functions"):
            continue
        if key == "max_completion_tokens":
            params["max_tokens"] = value
        elif key == "stop":
            params["stop_sequences"] = [value] if isinstance(value, str) else value
        elif key == "tool_choice":
            choice = _tool_choice(value, body.get("parallel_tool_calls"))
            if choice is not None:
                params["tool_choice"] = choice
        elif key != "parallel_tool_calls":
            dropped.append(key)
    return params, dropped


def _tool_choice(value: Any, parallel: Any) -> dict[str, Any] | None:
    if isinstance(value, str):
        choice = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}.get(value)
    elif isinstance(value, dict) and isinstance(value.get("function"), dict):
        choice = {"type": "tool", "name": value["function"].get("name")}
    else:
        choice = None
    if choice is not None and parallel is False and choice["type"] != "none":
        choice["disable_parallel_tool_use"] = True
    return choice


def _tools(tools: Any) -> list[Any] | None:
    if not isinstance(tools, list):
        return None
    out = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) and tool.get("type") == "function" else None
        if not isinstance(function, dict):
            out.append(tool)
            continue
        schema = {"name": function.get("name")}
        if function.get("description"):
            schema["description"] = function["description"]
        schema["input_schema"] = function.get("parameters") or {"type": "object", "properties": {}}
        if function.get("strict") is True:
            schema["strict"] = True
        out.append(schema)
    return out


def _tau_title(item: dict[str, Any]) -> str:
    return f"task {item.get('task_id')} · trial {item.get('trial')} · reward {item.get('reward')}"


def _tau_meta(item: dict[str, Any]) -> dict[str, Any]:
    return {k: item[k] for k in ("task_id", "trial", "reward") if k in item}
