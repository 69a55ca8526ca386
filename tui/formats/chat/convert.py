"""OpenAI Chat Completions messages converted to Anthropic Messages API messages.

- leading ``system`` / ``developer`` messages become the system prompt (a later one becomes a
  user turn, with a warning);
- an assistant message's ``content`` (a string, parts, or null) becomes a text block, and each
  of its ``tool_calls`` a ``tool_use`` block whose ``input`` is the parsed ``arguments`` string
  (arguments that are not a JSON object are kept, raw, inside an object, with a warning);
- consecutive ``tool`` (or legacy ``function``) messages become one user turn of
  ``tool_result`` blocks, and a user message right after them joins that turn, after them;
  SWE-agent's ``tool_call_ids`` list gives one result per id;
- tool-call ids are kept, except where Anthropic's rules need another: an id used again in a
  later turn (OpenAI scopes ids to one turn; Anthropic wants them unique) or holding
  characters outside ``[a-zA-Z0-9_-]`` gets a new one, in its results too, with a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tui.core import jsonio
from tui.core.words import counted

_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_SYSTEM_ROLES = ("system", "developer")
_RESULT_ROLES = ("tool", "function")


@dataclass
class Converted:
    """An OpenAI-style chat converted to Messages API turns, with notes on what the conversion changed."""

    messages: list[Any] = field(default_factory=list)
    system: Any = None
    notes: list[str] = field(default_factory=list)
    renamed: int = 0
    bad_arguments: int = 0
    repeated_results: int = 0


def convert(source: list[Any]) -> Converted:
    out = Converted()
    ids = CallIds()
    systems: list[Any] = []
    current: dict[str, str] = {}  # original id -> id used, for the latest assistant turn
    for i, message in enumerate(source):
        role = message.get("role") if isinstance(message, dict) else None
        if role in _SYSTEM_ROLES:
            if not out.messages:
                systems.append(_text_of(message.get("content")))
                continue
            out.notes.append(f"message {i}: a {role} message after the conversation began became a user turn")
            _append(out, "user", _user_content(message.get("content"), out, i))
        elif role == "assistant":
            current = {}
            _append(out, "assistant", _assistant(message, i, out, ids, current))
        elif role in _RESULT_ROLES:
            _results(out, message, i, current)
        elif role == "user":
            content = _user_content(message.get("content"), out, i)
            previous = out.messages[-1] if out.messages else None
            if isinstance(previous, dict) and previous.get("role") == "user" and _has_results(previous):
                previous["content"] = previous["content"] + _as_blocks(content)
            else:
                _append(out, "user", content)
        else:
            out.notes.append(f"message {i}: role {role!r} is not a chat role; kept as is")
            out.messages.append(message)
    if len(systems) == 1:
        out.system = systems[0]
    elif systems:
        strings = all(isinstance(s, str) for s in systems)
        out.system = "\n\n".join(systems) if strings else [b for s in systems for b in _as_blocks(s)]
        out.notes.append(f"{len(systems)} system messages joined into one system prompt")
    out.notes.extend(call_notes(out))
    if out.repeated_results:
        out.notes.append(f"{counted(out.repeated_results, 'tool message')} answered several tool_call_ids: the same content "
                         "is the result of each")
    return out


def call_notes(out: Converted) -> list[str]:
    """The notes on the tool calls a conversion had to change: ids renamed, arguments that were not an object
    (shared by every converter that hands its calls to ``CallIds`` and ``arguments_input``)."""
    notes = []
    if out.renamed:
        notes.append(f"{counted(out.renamed, 'tool-call id')} renamed (used again in a later turn, or holding characters "
                     "Anthropic ids cannot): Anthropic wants every tool_use id unique")
    if out.bad_arguments:
        notes.append(f"{counted(out.bad_arguments, 'tool call')} whose arguments are not a JSON object: the raw text is "
                     "kept as input._raw_arguments")
    return notes


class CallIds:
    """The tool-call ids a conversion has handed out: each call gets its own id, made valid and unique."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, original: Any, turn: int, k: int) -> str:
        base = original if isinstance(original, str) and original else f"call_{turn}_{k}"
        base = base if _ID.match(base) else re.sub(r"[^a-zA-Z0-9_-]", "_", base)
        candidate, n = base, 1
        while candidate in self.used:
            n += 1
            candidate = f"{base}_{n}"
        self.used.add(candidate)
        return candidate


def _assistant(message: dict[str, Any], i: int, out: Converted, ids: CallIds, current: dict[str, str]) -> Any:
    content = message.get("content")
    if content is None and isinstance(message.get("refusal"), str):
        content = message["refusal"]
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        out.notes.append(f"message {i}: tool_calls is not a list; left out")
    calls = calls if isinstance(calls, list) else []
    if not calls and isinstance(message.get("function_call"), dict):
        calls = [{"id": None, "function": message["function_call"]}]
    if not calls:
        return content if isinstance(content, str) else _as_blocks(_user_content(content, out, i))
    blocks = [b for b in _as_blocks(_user_content(content, out, i)) if not _empty_text(b)]
    for k, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        function = function if isinstance(function, dict) else {}
        original = call.get("id") if isinstance(call, dict) else None
        new = ids.take(original, i, k)
        if new != original:
            out.renamed += 1 if original else 0
        current[original if isinstance(original, str) else f"#{k}"] = new
        blocks.append({"type": "tool_use", "id": new, "name": function.get("name"),
                       "input": arguments_input(function.get("arguments"), out)})
    return blocks


def arguments_input(raw: Any, out: Converted) -> dict[str, Any]:
    """A tool call's arguments (a JSON object, or its text) as a tool_use input; anything else is
    kept as ``input._raw_arguments`` and counted in ``out.bad_arguments``."""
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    try:
        value = jsonio.fast_loads(raw) if isinstance(raw, (str, bytes)) else raw
    except jsonio.FastDecodeError:
        value = None
    if isinstance(value, dict):
        return value
    out.bad_arguments += 1
    return {"_raw_arguments": raw if isinstance(raw, str) else jsonio.dumps(raw).decode()}


def _results(out: Converted, message: dict[str, Any], i: int, current: dict[str, str]) -> None:
    targets = message.get("tool_call_ids")
    if not isinstance(targets, list) or not targets:
        targets = [message.get("tool_call_id") or ("#0" if message.get("role") == "function" else None)]
    elif len(targets) > 1:
        out.repeated_results += 1
    content = message.get("content")
    blocks = []
    for target in targets:
        used = current.get(target, target) if isinstance(target, str) else target
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": used}
        if content is not None:
            block["content"] = content if isinstance(content, str) else _as_blocks(_user_content(content, out, i))
        blocks.append(block)
    previous = out.messages[-1] if out.messages else None
    if isinstance(previous, dict) and previous.get("role") == "user" and _has_results(previous):
        previous["content"] = previous["content"] + blocks
    else:
        out.messages.append({"role": "user", "content": blocks})


def _user_content(content: Any, out: Converted, i: int) -> Any:
    if content is None or isinstance(content, str):
        return "" if content is None else content
    if not isinstance(content, list):
        return str(content)
    blocks = []
    for part in content:
        if isinstance(part, str):
            blocks.append({"type": "text", "text": part})
        elif isinstance(part, dict) and part.get("type") == "text":
            blocks.append({"type": "text", "text": part.get("text", "")})
        elif isinstance(part, dict) and part.get("type") == "image_url":
            blocks.append(image_block(part.get("image_url")))
        else:
            out.notes.append(f"message {i}: a {part.get('type') if isinstance(part, dict) else part!r} part kept as is")
            blocks.append(part)
    return blocks


def image_block(spec: Any) -> dict[str, Any]:
    """An ``image_url`` (a data: URL or a link) as an Anthropic image block."""
    url = spec.get("url") if isinstance(spec, dict) else spec
    match = re.match(r"data:([^;,]+);base64,(.*)", url or "", re.DOTALL) if isinstance(url, str) else None
    if match:
        return {"type": "image", "source": {"type": "base64", "media_type": match.group(1), "data": match.group(2)}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _append(out: Converted, role: str, content: Any) -> None:
    out.messages.append({"role": role, "content": content})


def _as_blocks(content: Any) -> list[Any]:
    if isinstance(content, list):
        return content
    return [{"type": "text", "text": content}] if content else []


def _empty_text(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and not str(block.get("text") or "").strip()


def _has_results(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _text_of(content: Any) -> Any:
    if isinstance(content, list):
        return [{"type": "text", "text": p.get("text", "")} if isinstance(p, dict) else {"type": "text", "text": str(p)}
                for p in content]
    return content if isinstance(content, str) else ("" if content is None else str(content))
