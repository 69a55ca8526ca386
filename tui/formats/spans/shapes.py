"""Message lists in the shapes tracing tools record them, read into OpenAI chat messages.

Spans and trace exports keep a model call's input and output in whatever shape the
instrumented SDK had in hand: OpenAI chat messages, OTel GenAI ``parts``, LangChain message
dicts (plain or ``lc`` constructors), OpenAI Responses items, Gemini ``contents``, Vercel AI
SDK prompts, Anthropic blocks, often as a JSON string (sometimes encoded twice). Each is read
here into OpenAI chat messages (``role``, ``content``, ``tool_calls``, ``tool_call_id``), the
one shape ``tui.formats.chat.convert`` turns into Anthropic blocks. What is not a message
list gives None: the caller says the input was not readable, never guesses.
"""

from __future__ import annotations

import re
from typing import Any

from tui.core import jsonio

_ROLES = {"human": "user", "ai": "assistant", "model": "assistant", "system": "system", "user": "user",
          "assistant": "assistant", "tool": "tool", "developer": "developer", "function": "tool",
          "HumanMessage": "user", "AIMessage": "assistant", "SystemMessage": "system", "ToolMessage": "tool",
          "AIMessageChunk": "assistant", "FunctionMessage": "tool", "ChatMessage": "user"}


def decoded(value: Any, depth: int = 2) -> Any:
    """A JSON string parsed (up to twice, for double-encoded values); anything else as is."""
    for _ in range(depth):
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text or text[0] not in "[{\"":
            return value
        try:
            value = jsonio.fast_loads(text)
        except jsonio.FastDecodeError:
            return value
    return value


def text_of(value: Any) -> str:
    """A result or content value as text (JSON for structures)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return jsonio.dumps(value).decode("utf-8", "replace")


# -- input ---------------------------------------------------------------------------------

class Memo:
    """The last message list read, and what each of its items became: a loop resends its whole
    history with every call, so the next call's list mostly starts with it and only its new items
    are read (comparing the start is done in C; reading an item is not). One per file loaded."""

    __slots__ = ("items", "ends", "out", "raw")

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.ends: list[int] = []  # len(out) after each item
        self.out: list[dict[str, Any]] = []
        self.raw = ""  # the JSON text ``items`` was parsed from, when it was one

    def parsed(self, text: str) -> Any:
        """``text`` parsed; when it is the previous list's text with items added (``[a,b]`` then
        ``[a,b,c]``), only the added items are parsed, and the list starts with the previous items."""
        raw = self.raw
        if raw.endswith("]") and len(raw) > 2 and text.startswith(raw[:-1]):
            rest = text[len(raw) - 1:].lstrip()
            if rest.startswith(","):
                try:
                    tail = jsonio.fast_loads("[" + rest[1:])
                except jsonio.FastDecodeError:
                    tail = None
                if isinstance(tail, list):
                    return self.items + tail
        return decoded(text)


def chat_messages(value: Any, memo: Memo | None = None) -> list[dict[str, Any]] | None:
    """The message list ``value`` holds, as OpenAI chat messages, or None when it holds none."""
    raw = value if memo is not None and isinstance(value, str) and value[:1] == "[" else ""
    value = memo.parsed(raw) if raw else decoded(value)
    if isinstance(value, dict):
        for key in ("messages", "contents", "input", "prompt"):
            if key in value:
                inner = decoded(value[key])
                if key == "prompt" and isinstance(inner, str):
                    out = [{"role": "user", "content": inner}]
                else:
                    out = chat_messages(inner)
                if out is not None:
                    system = value.get("system") or _gemini_system(value)
                    if isinstance(system, str) and system and not any(m["role"] == "system" for m in out):
                        out.insert(0, {"role": "system", "content": system})
                    return out
        message = _message(value)
        return None if message is None else message
    if isinstance(value, list):
        if value and all(isinstance(v, list) for v in value):  # LangChain's batch of one
            value = value[-1]
        out: list[dict[str, Any]] = []
        ends: list[int] = []
        start = 0
        if memo is not None and memo.items and len(value) >= len(memo.items) and \
                value[:len(memo.items)] == memo.items:
            start = len(memo.items)
            out, ends = memo.out[:], memo.ends[:]
        for item in value[start:]:
            item = decoded(item, 1)
            messages = _message(item)
            if messages is None:
                return None
            out += messages
            ends.append(len(out))
        if memo is not None:
            memo.items, memo.ends, memo.out, memo.raw = value, ends, out, raw
        return out if out else None
    return None


def _gemini_system(value: dict[str, Any]) -> Any:
    config = value.get("config")
    system = config.get("system_instruction") if isinstance(config, dict) else None
    if isinstance(system, dict):
        return "\n".join(p.get("text", "") for p in system.get("parts") or [] if isinstance(p, dict))
    return system


def _message(item: Any) -> list[dict[str, Any]] | None:
    """One recorded message (or Responses item) as one or more chat messages, or None."""
    if not isinstance(item, dict):
        return None
    if item.get("lc") == 1 and isinstance(item.get("kwargs"), dict):  # LangChain constructor
        ids = item.get("id") if isinstance(item.get("id"), list) else []
        kind = ids[-1] if ids else "HumanMessage"
        item = {**item["kwargs"], "role": _ROLES.get(kind, "user")}
    kind = item.get("type")
    if kind == "function_call" and "call_id" in item:  # OpenAI Responses items
        return [{"role": "assistant", "content": None, "tool_calls": [_tool_call(
            item.get("call_id"), item.get("name"), item.get("arguments"))]}]
    if kind == "function_call_output":
        return [{"role": "tool", "tool_call_id": item.get("call_id"), "content": text_of(item.get("output"))}]
    if kind == "reasoning" and "role" not in item:
        return []
    role = item.get("role") or item.get("type")
    role = _ROLES.get(role) if isinstance(role, str) else None
    if role is None:
        return None
    if "parts" in item and "content" not in item:
        return _from_parts(role, item["parts"])
    content = item.get("content")
    calls = _tool_calls(item)
    if role == "tool":
        call_id = item.get("tool_call_id") or item.get("toolCallId")
        if _is_definition(content):  # Langfuse's LangChain handler lists the tools as "tool" messages
            return []
        as_calls = decoded(content) if call_id is None else None
        if isinstance(as_calls, list) and as_calls and all(
                isinstance(c, dict) and isinstance(c.get("function"), dict) and "id" in c for c in as_calls):
            return [{"role": "assistant", "content": None, "tool_calls": _tool_calls({"tool_calls": as_calls})}]
        if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") == "tool-result" for p in content):
            return [{"role": "tool", "tool_call_id": p.get("toolCallId"), "content": _vercel_output(p.get("output"))}
                    for p in content if isinstance(p, dict)]
        return [{"role": "tool", "tool_call_id": call_id, "content": _content(content)}]
    if isinstance(content, list):
        results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        if results and role == "user":  # Anthropic tool results
            out = [{"role": "tool", "tool_call_id": b.get("tool_use_id"), "content": _content(b.get("content"))}
                   for b in results]
            rest = [b for b in content if b not in results]
            return out + ([{"role": "user", "content": _content(rest)}] if rest else [])
        calls += [_tool_call(b.get("id"), b.get("name"), b.get("input")) for b in content
                  if isinstance(b, dict) and b.get("type") == "tool_use"]
        calls += [_tool_call(b.get("toolCallId"), b.get("toolName"), b.get("input") if "input" in b else b.get("args"))
                  for b in content if isinstance(b, dict) and b.get("type") == "tool-call"]
    message: dict[str, Any] = {"role": role, "content": _content(content)}
    if calls:
        message["tool_calls"] = calls
    return [message]


def _is_definition(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "function" and isinstance(value.get("function"), dict) \
        and "parameters" in value["function"]


def tool_definitions_in(value: Any) -> list[Any] | None:
    """Tool definitions written into a message list as "tool" messages (Langfuse's LangChain handler)."""
    if isinstance(value, str) and '"parameters"' not in value:  # the common case, found without a parse
        return None
    value = decoded(value)
    if isinstance(value, dict):
        value = decoded(value.get("messages"))
    if not isinstance(value, list):
        return None
    found = [m["content"] for m in value if isinstance(m, dict) and m.get("role") == "tool"
             and _is_definition(m.get("content"))]
    return found or None


_FLAT = re.compile(r"^(system|developer|user|assistant|human|ai): ", re.MULTILINE)


def transcript_messages(value: Any) -> list[dict[str, Any]] | None:
    """A flat ``"system: ...\nuser: ..."`` transcript string split at its role prefixes (or None)."""
    if not isinstance(value, str) or not _FLAT.match(value):
        return None
    marks = list(_FLAT.finditer(value))
    out = []
    for k, mark in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(value)
        out.append({"role": _ROLES[mark.group(1)], "content": value[mark.end():end].rstrip("\n")})
    return out


def _tool_calls(item: dict[str, Any]) -> list[dict[str, Any]]:
    raw = item.get("tool_calls")
    if not raw and isinstance(item.get("additional_kwargs"), dict):
        raw = item["additional_kwargs"].get("tool_calls")
    out = []
    for call in raw if isinstance(raw, list) else []:
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        if isinstance(function, dict):
            out.append(_tool_call(call.get("id"), function.get("name"), function.get("arguments")))
        else:  # LangChain's own form
            out.append(_tool_call(call.get("id"), call.get("name"), call.get("args")))
    return out


def _tool_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    if not isinstance(arguments, (str, type(None))):
        arguments = text_of(arguments)
    return {"id": call_id if isinstance(call_id, str) and call_id else None, "type": "function",
            "function": {"name": name if isinstance(name, str) else text_of(name), "arguments": arguments or "{}"}}


def _content(content: Any) -> Any:
    """Text or chat parts: text parts kept, images as image_url, other blocks named in text."""
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        return text_of(content)
    parts = []
    for part in content:
        if isinstance(part, str):
            parts.append({"type": "text", "text": part})
        elif isinstance(part, dict):
            kind = part.get("type")
            if kind in ("text", "input_text", "output_text") or (kind is None and isinstance(part.get("text"), str)):
                parts.append({"type": "text", "text": part.get("text") or ""})
            elif kind in ("tool_use", "tool-call", "tool_result", "thinking", "redacted_thinking", "reasoning"):
                continue
            elif kind == "image_url" or isinstance(kind, str):
                parts.append(part)  # a part of a type not known here is data: kept whole, under its type
            else:
                parts.append({"type": "text", "text": text_of(part)})
    if all(p.get("type") == "text" for p in parts):
        return "".join(p["text"] for p in parts) if len(parts) <= 1 else parts
    return parts


def _from_parts(role: str, parts: Any) -> list[dict[str, Any]]:
    """OTel GenAI ``parts`` (and Gemini parts): text, tool_call, tool_call_response, function_call..."""
    texts: list[str] = []
    kept: list[tuple[int, dict[str, Any]]] = []  # parts of a type not known here, after that many texts
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text" or (kind is None and isinstance(part.get("text"), str)):
            text = part.get("content", part.get("text"))
            texts.append(text if isinstance(text, str) else text_of(text))
        elif kind == "tool_call":
            calls.append(_tool_call(part.get("id"), part.get("name"), part.get("arguments")))
        elif kind == "tool_call_response":
            results.append({"role": "tool", "tool_call_id": part.get("id"), "content": text_of(part.get("response"))})
        elif isinstance(part.get("function_call") or part.get("functionCall"), dict):
            call = part.get("function_call") or part.get("functionCall")
            calls.append(_tool_call(call.get("id"), call.get("name"), call.get("args")))
        elif isinstance(part.get("function_response") or part.get("functionResponse"), dict):
            response = part.get("function_response") or part.get("functionResponse")
            results.append({"role": "tool", "tool_call_id": response.get("id"), "name": response.get("name"),
                            "content": text_of(response.get("response"))})
        elif kind == "reasoning" or part.get("thought") is True or "Reasoning" in str(kind):
            continue
        elif isinstance(kind, str):
            kept.append((len(texts), part))  # data, not text: kept whole, under its type
        elif kind is not None:
            texts.append(text_of(part))
    content = _with_kept(texts, kept)
    if results:
        return results + ([{"role": "user", "content": content}] if content else [])
    message: dict[str, Any] = {"role": role, "content": content}
    if calls:
        message["tool_calls"] = calls
    return [message]


def _with_kept(texts: list[str], kept: list[tuple[int, dict[str, Any]]]) -> Any:
    """The texts joined by newlines, as before; with parts of unknown types, a list of chat parts in
    their order (texts between them joined the same way)."""
    if not kept:
        return "\n".join(texts) if texts else None
    out: list[dict[str, Any]] = []
    start = 0
    for at, part in kept:
        if at > start:
            out.append({"type": "text", "text": "\n".join(texts[start:at])})
        out.append(part)
        start = at
    if start < len(texts):
        out.append({"type": "text", "text": "\n".join(texts[start:])})
    return out


def _vercel_output(output: Any) -> str:
    if isinstance(output, dict) and "value" in output:
        return text_of(output["value"])
    return text_of(output)


# -- output --------------------------------------------------------------------------------

def chat_output(value: Any) -> dict[str, Any] | None:
    """The assistant message a recorded output holds, as one OpenAI chat message, or None."""
    value = decoded(value)
    if value in ("None", "null", ""):  # a missing output written as text by the SDK
        return None
    if isinstance(value, str):
        return {"role": "assistant", "content": value}
    if isinstance(value, dict):
        if isinstance(value.get("choices"), list) and value["choices"]:  # chat completion
            choice = value["choices"][0]
            return chat_output(choice.get("message") if isinstance(choice, dict) else None)
        if isinstance(value.get("output"), list):  # OpenAI Responses
            return _joined(chat_messages([i for i in value["output"] if isinstance(i, dict)
                                          and i.get("type") != "reasoning"]) or [])
        if isinstance(value.get("generations"), list):  # LangChain LLMResult
            flat = [g for batch in value["generations"] for g in (batch if isinstance(batch, list) else [batch])]
            if flat and isinstance(flat[-1], dict):
                return chat_output(flat[-1].get("message") or flat[-1].get("text"))
        if isinstance(value.get("content"), dict) and "parts" in value["content"]:  # Gemini response
            return _joined(_from_parts("assistant", value["content"]["parts"]))
        if "role" in value or "content" in value or value.get("lc") == 1:
            messages = _message({"role": "assistant", **value} if "role" not in value and "lc" not in value else value)
            return _joined(messages or [])
        return None
    if isinstance(value, list):
        if value and all(isinstance(v, dict) and ("toolCallId" in v or "toolName" in v) for v in value):  # Vercel
            return {"role": "assistant", "content": None, "tool_calls": [
                _tool_call(v.get("toolCallId"), v.get("toolName"), v.get("input") if "input" in v else v.get("args"))
                for v in value]}
        messages = chat_messages(value)
        if messages:
            return _joined([m for m in messages if m.get("role") == "assistant"])
    return None


def _joined(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Several assistant messages of one output as one: texts joined, tool calls after them."""
    messages = [m for m in messages if m.get("role") == "assistant"]
    if not messages:
        return None
    if len(messages) == 1:
        return messages[0]
    texts = [m["content"] for m in messages if isinstance(m.get("content"), str) and m["content"]]
    calls = [c for m in messages for c in m.get("tool_calls") or []]
    out: dict[str, Any] = {"role": "assistant", "content": "\n\n".join(texts) if texts else None}
    if calls:
        out["tool_calls"] = calls
    return out
