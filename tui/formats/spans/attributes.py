"""What a span's attributes say about a model call: the OTel GenAI conventions and OpenInference.

Attributes arrive flat (``{"llm.input_messages.0.message.role": "user", ...}``). Read here:
the kind of span (a model call, a tool, or neither), the input and output messages (GenAI
``gen_ai.input.messages`` / ``gen_ai.output.messages`` in parts or chat form, the older indexed
``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*``, any-agent's ``gen_ai.output``, OpenInference's
flattened ``llm.input_messages.N.message.*`` in both of its content layouts), the system
instructions, tool definitions, params, model and usage. Messages come out as OpenAI chat
messages (``tui.formats.spans.shapes``).
"""

from __future__ import annotations

import re
from typing import Any

from tui.formats.spans.shapes import Memo, _tool_call, chat_messages, chat_output, decoded, text_of

LLM_OPERATIONS = ("chat", "text_completion", "generate_content", "call_llm", "completion")
_INDEXED = re.compile(r"^(\d+)\.(.*)$")


def kind(attrs: dict[str, Any]) -> str | None:
    """``"llm"``, ``"tool"`` or None."""
    oi = attrs.get("openinference.span.kind")
    if isinstance(oi, str):
        return {"LLM": "llm", "TOOL": "tool"}.get(oi.upper())
    operation = attrs.get("gen_ai.operation.name")
    if operation in LLM_OPERATIONS:
        return "llm"
    if operation == "execute_tool":
        return "tool"
    if any(k.startswith(("gen_ai.prompt.", "gen_ai.completion.")) for k in attrs):
        return "llm"
    return None


def _indexed(attrs: dict[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    """``prefix.N.rest`` attributes grouped by N (``{N: {rest: value}}``)."""
    out: dict[int, dict[str, Any]] = {}
    size = len(prefix)
    for key, value in attrs.items():
        if key.startswith(prefix):
            match = _INDEXED.match(key[size:])
            if match:
                out.setdefault(int(match.group(1)), {})[match.group(2)] = value
    return out


def _openinference(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]] | None:
    groups = _indexed(attrs, prefix)
    if not groups:
        return None
    out = []
    for _, fields in sorted(groups.items()):
        role = fields.get("message.role")
        message: dict[str, Any] = {"role": role if isinstance(role, str) else "user"}
        content = fields.get("message.content")
        parts = _indexed({k: v for k, v in fields.items()}, "message.contents.")
        if content is None and parts:
            texts = [p.get("message_content.text") for _, p in sorted(parts.items())
                     if isinstance(p.get("message_content.text"), str)]
            content = "\n".join(texts)
        message["content"] = content
        calls = _indexed(fields, "message.tool_calls.")
        if calls:
            message["tool_calls"] = [_tool_call(c.get("tool_call.id"), c.get("tool_call.function.name"),
                                                c.get("tool_call.function.arguments")) for _, c in sorted(calls.items())]
        if "message.tool_call_id" in fields:
            message["tool_call_id"] = fields["message.tool_call_id"]
        if "message.name" in fields and message["role"] == "tool":
            message["name"] = fields["message.name"]
        out.append(message)
    return chat_messages(out)


def _traceloop(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]] | None:
    groups = _indexed(attrs, prefix)
    if not groups:
        return None
    out = []
    for _, fields in sorted(groups.items()):
        message: dict[str, Any] = {"role": fields.get("role") or "user", "content": fields.get("content")}
        calls = _indexed(fields, "tool_calls.")
        if calls:
            message["tool_calls"] = [_tool_call(c.get("id"), c.get("name"), c.get("arguments"))
                                     for _, c in sorted(calls.items())]
        if "tool_call_id" in fields:
            message["tool_call_id"] = fields["tool_call_id"]
        out.append(message)
    return chat_messages(out)


def input_messages(attrs: dict[str, Any], memo: Memo | None = None) -> list[dict[str, Any]] | None:
    """The messages the call was sent (system messages included), or None when not recorded."""
    if "gen_ai.input.messages" in attrs:
        messages = chat_messages(attrs["gen_ai.input.messages"], memo)
        if messages is not None:
            return messages
    return _openinference(attrs, "llm.input_messages.") or _traceloop(attrs, "gen_ai.prompt.")


def output_message(attrs: dict[str, Any]) -> dict[str, Any] | None:
    """The assistant message the call returned, or None when not recorded."""
    if "gen_ai.output.messages" in attrs:
        message = chat_output(attrs["gen_ai.output.messages"])
        if message is not None:
            return message
    messages = _openinference(attrs, "llm.output_messages.") or _traceloop(attrs, "gen_ai.completion.")
    if messages:
        return chat_output(messages)
    if "gen_ai.output" in attrs:  # any-agent: text, or JSON with tool calls as [{tool.name, tool.args}]
        raw = attrs["gen_ai.output"]
        value = decoded(raw) if attrs.get("gen_ai.output.type") == "json" else raw
        if isinstance(value, list) and value and all(isinstance(v, dict) and "tool.name" in v for v in value):
            return {"role": "assistant", "content": None,
                    "tool_calls": [_tool_call(v.get("tool.id"), v.get("tool.name"), v.get("tool.args")) for v in value]}
        return {"role": "assistant", "content": raw if isinstance(raw, str) else text_of(raw)}
    return None


def system(attrs: dict[str, Any]) -> str | None:
    value = decoded(attrs.get("gen_ai.system_instructions"))
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(p.get("content") or p.get("text") or "" for p in value if isinstance(p, dict))
    return None


def tools(attrs: dict[str, Any]) -> list[Any] | None:
    value = decoded(attrs.get("gen_ai.tool.definitions"))
    if isinstance(value, list):
        return value
    groups = _indexed(attrs, "llm.tools.")
    if groups:
        return [decoded(g.get("tool.json_schema")) for _, g in sorted(groups.items())]
    return None


def params(attrs: dict[str, Any]) -> dict[str, Any]:
    """The request params, OpenAI-named (``tui.formats.openai`` maps them)."""
    out: dict[str, Any] = {}
    invocation = decoded(attrs.get("llm.invocation_parameters"))
    if isinstance(invocation, dict):
        out.update(invocation)
    for key, value in attrs.items():
        if key.startswith("gen_ai.request.") and key != "gen_ai.request.model":
            name = key[len("gen_ai.request."):]
            out.setdefault({"stop_sequences": "stop"}.get(name, name), value)
    model = attrs.get("gen_ai.request.model") or attrs.get("llm.model_name")
    if isinstance(model, str):
        out.setdefault("model", model)
    return out


def model(attrs: dict[str, Any]) -> str | None:
    for key in ("gen_ai.response.model", "llm.model_name", "gen_ai.request.model"):
        if isinstance(attrs.get(key), str):
            return attrs[key]
    return None


def usage(attrs: dict[str, Any]) -> dict[str, Any] | None:
    """Token counts in the Messages API's names, where the span recorded them."""
    pairs = (("input_tokens", ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt")),
             ("output_tokens", ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
                                "llm.token_count.completion")),
             ("cache_read_input_tokens", ("gen_ai.usage.cache_read.input_tokens",
                                          "llm.token_count.prompt_details.cache_read")),
             ("cache_creation_input_tokens", ("gen_ai.usage.cache_creation.input_tokens",
                                              "llm.token_count.prompt_details.cache_write")))
    out = {}
    for name, keys in pairs:
        for key in keys:
            value = attrs.get(key)
            if isinstance(value, str) and value.isdigit():
                value = int(value)
            if isinstance(value, int) and not isinstance(value, bool):
                out[name] = value
                break
    return out or None


def stop_reason(attrs: dict[str, Any]) -> str | None:
    reasons = decoded(attrs.get("gen_ai.response.finish_reasons"))
    if isinstance(reasons, list) and reasons and isinstance(reasons[0], str):
        return {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}.get(reasons[0], reasons[0])
    return None


def tool_facts(attrs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
    """A tool span's call id, tool name, arguments and result."""
    call_id = attrs.get("gen_ai.tool.call.id") or attrs.get("tool_call.id")
    name = attrs.get("gen_ai.tool.name") or attrs.get("tool.name")
    args = attrs.get("gen_ai.tool.call.arguments", attrs.get("gen_ai.tool.args", attrs.get("input.value")))
    if "gen_ai.tool.call.result" in attrs:
        result = attrs["gen_ai.tool.call.result"]
    elif "gen_ai.output" in attrs:
        result = attrs["gen_ai.output"]
    else:
        result = attrs.get("output.value")
    return call_id, name, args, result
