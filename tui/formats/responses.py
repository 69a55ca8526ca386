"""OpenAI Responses API items (``input`` lists, Codex rollouts' ``response_item``s) as Anthropic messages.

``Builder`` takes the items in order, as inputs (what the loop sent) or outputs (what one model
call produced), and builds the message list the run holds:

- ``message`` items: user text (``input_text``, ``input_image``) joins the user turn being built;
  assistant ``output_text`` (and ``refusal``) becomes text blocks of the model call's turn; a
  ``developer`` message has no Anthropic role, so it is kept, word for word, as a text block of the
  user turn and named in a note (never folded into the system prompt); a ``system`` message before
  the conversation starts joins the system prompt, said so;
- ``function_call`` -> ``tool_use`` (``arguments``, a JSON string, parsed as the chat converter does);
  ``custom_tool_call`` (free-form ``input``, e.g. an apply_patch body) -> ``tool_use`` whose input is
  ``{"input": TEXT}``; ``local_shell_call`` -> ``tool_use`` of ``local_shell`` with its ``action``;
- ``function_call_output`` / ``custom_tool_call_output`` -> ``tool_result`` answering the call with
  the same ``call_id`` (a string, a list of content items, or the old ``{content, success}``);
- ``reasoning`` -> ``thinking`` with the summary (or reasoning text) when the provider returned one,
  its ``encrypted_content`` as the signature; encrypted content only -> ``redacted_thinking``
  (shown as "not returned by the provider", with its size);
- ``web_search_call`` -> a ``server_tool_use`` block named ``web_search`` (the search ran on the
  provider's side: no result item is recorded);
- anything else (``ghost_snapshot``, harness items, unknown types) is counted in a note and left out.

Tool results come first in their user turn, as the Messages API wants. Ids are kept unless
Anthropic's rules need another (``tui.formats.chat.convert``'s renaming). Everything here is
converted: a run built this way has reconstructed prefixes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tui.core.run import ModelCall
from tui.formats.chat.convert import CallIds, Converted, arguments_input, call_notes, image_block

#: Item types that a model call outputs.
OUTPUT_TYPES = frozenset({"reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call",
                          "image_generation_call", "code_interpreter_call", "file_search_call", "mcp_call"})
#: Item types the loop sends back (tool outputs).
RESULT_TYPES = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output",
                          "mcp_call_output"})
#: Every item type this module knows (used to recognise a Responses input list).
KNOWN_TYPES = OUTPUT_TYPES | RESULT_TYPES | {"message", "item_reference", "compaction", "ghost_snapshot"}
_TOOL_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_SERVER_TOOLS = {"web_search_call": "web_search", "image_generation_call": "image_generation",
                 "code_interpreter_call": "code_interpreter", "file_search_call": "file_search", "mcp_call": "mcp"}


def kind_of(item: dict) -> str | None:
    """An item's ``type``: a string, None when absent, and a name no type has when it is something else
    (a hostile file's list or number, which would not even hash)."""
    kind = item.get("type")
    return kind if kind is None or isinstance(kind, str) else "(not a string)"


def is_output(item: Any) -> bool:
    """True for an item a model call produced (an assistant message counts)."""
    if not isinstance(item, dict):
        return False
    kind = kind_of(item)
    if kind in OUTPUT_TYPES:
        return True
    return (kind == "message" or kind is None) and item.get("role") == "assistant"


@dataclass
class Builder:
    """Messages and model calls built from Responses items, one item at a time."""

    messages: list[Any] = field(default_factory=list)
    calls: list[ModelCall] = field(default_factory=list)
    system: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    developer: list[str] = field(default_factory=list)  # "message M block B" of every developer message
    skipped: dict[str, int] = field(default_factory=dict)
    empty: int = 0
    reordered: int = 0
    encrypted: int = 0
    freeform: int = 0
    #: Facts every model call gets unless given (the model in use, when the call began).
    call_facts: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._ids = CallIds()
        self._renamed: dict[str, str] = {}
        self._conv = Converted()
        self._results: list[Any] | None = None  # the user turn being built: results, then text
        self._texts: list[Any] = []
        self._assistant: list[Any] | None = None  # the model call's turn being built
        self._developer_at: list[int] = []
        self._call_serial = 0
        self._server_serial = 0
        self._texts_before_results = False

    # -- items ---------------------------------------------------------------------------

    def add(self, item: Any) -> None:
        """One item, input or output, by its type."""
        if is_output(item):
            self.output(item)
        else:
            self.input(item)

    def input(self, item: Any) -> None:
        if not isinstance(item, dict):
            self._skip(f"{type(item).__name__} item")
            return
        kind = kind_of(item)
        if kind in RESULT_TYPES:
            self._open_user()
            self._results.append(self._result(item))
        elif kind == "message" or (kind is None and "role" in item):
            role = item.get("role")
            content = item.get("content")
            if role == "system" and not self.messages and self._results is None:
                self.system.append(_plain_text(content))
                return
            blocks = self._user_blocks(content)
            if not blocks:
                self.empty += 1
                return
            self._open_user()
            if role in ("developer", "system"):
                self._developer_at.extend(range(len(self._texts), len(self._texts) + len(blocks)))
                if role == "system":
                    self.notes.append("a system message after the conversation began is kept as text of a user turn")
            elif role not in ("user", None):
                self.notes.append(f"a message with role {role!r} is kept as text of a user turn")
            self._texts.extend(blocks)
        elif kind == "item_reference":
            self._skip("item_reference (an item stored on OpenAI's server, not in this file)")
        else:
            self._skip(str(kind))

    def output(self, item: dict[str, Any]) -> None:
        if self._results is not None:
            self._close_user()
        blocks = self._assistant
        if blocks is None:
            blocks = self._assistant = []
        kind = kind_of(item)
        if kind == "reasoning":
            block = self._reasoning(item)
            if block is not None:
                blocks.append(block)
        elif kind in _TOOL_CALLS:
            blocks.append(self._tool_use(item, kind))
        elif kind in _SERVER_TOOLS:
            self._server_serial += 1
            ident = item.get("id") if isinstance(item.get("id"), str) else f"srvtoolu_{self._server_serial}"
            use_id = self._ids.take(ident, len(self.messages), self._server_serial)
            tool_input = {k: v for k, v in item.items() if k not in ("type", "id", "status")}
            blocks.append({"type": "server_tool_use", "id": use_id, "name": _SERVER_TOOLS[kind], "input": tool_input})
        else:  # an assistant message
            for part in _parts(item.get("content")):
                text = part.get("text") if part.get("type") in ("output_text", "text", "input_text") else \
                    part.get("refusal") if part.get("type") == "refusal" else None
                if isinstance(text, str):
                    if text:
                        blocks.append({"type": "text", "text": text})
                    else:
                        self.empty += 1
                else:
                    self.notes.append(f"an assistant {part.get('type')!r} part is kept as is")
                    blocks.append(part)

    def end_call(self, **facts: Any) -> ModelCall | None:
        """Close the model call whose outputs were given since the last one; None if there were none."""
        if self._assistant is None:
            return None
        blocks, self._assistant = self._assistant, None
        if not blocks:
            self.notes.append("a model call whose output items hold nothing to show is left out")
            return None
        self.messages.append({"role": "assistant", "content": blocks})
        call = ModelCall(message=len(self.messages) - 1, **(self.call_facts | facts if facts else self.call_facts))
        self.calls.append(call)
        return call

    @property
    def in_call(self) -> bool:
        return self._assistant is not None

    def finish(self) -> None:
        """Close whatever turn is open and write the notes."""
        self.end_call()
        self._close_user()
        if self.developer:
            self.notes.append("developer messages (role 'developer': the harness's instructions; the Messages API "
                              "has no such role) are kept word for word as text blocks of user turns, at "
                              + ", ".join(self.developer))
        if self.encrypted:
            self.notes.append(f"{self.encrypted} reasoning item(s) hold only encrypted content: reasoning not "
                              "returned by the provider (shown as redacted_thinking, with its size)")
        if self.freeform:
            self.notes.append(f"{self.freeform} custom tool call(s) with free-form input (not JSON): the text is "
                              "kept as input.input")
        if self.reordered:
            self.notes.append(f"{self.reordered} user turn(s): tool results put before the text sent with them, "
                              "as the Messages API requires")
        if self.empty:
            self.notes.append(f"{self.empty} empty text part(s) left out (the Messages API rejects empty text)")
        self.notes.extend(call_notes(self._conv))
        if self.skipped:
            kinds = ", ".join(f"{n} {kind}" for kind, n in self.skipped.items())
            self.notes.append(f"items that are not messages or tool calls, left out: {kinds}")

    # -- pieces --------------------------------------------------------------------------

    def _skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1

    def _open_user(self) -> None:
        if self._assistant is not None:
            self.end_call()
        if self._results is None:
            self._results, self._texts, self._developer_at = [], [], []

    def _close_user(self) -> None:
        if self._results is None:
            return
        results, texts = self._results, self._texts
        self._results = None
        if not results and not texts:
            return
        if results and texts and self._texts_before_results:
            self.reordered += 1
        index = len(self.messages)
        offset = len(results)
        self.developer += [f"message {index} block {offset + k}" for k in self._developer_at]
        content: Any = results + texts
        self.messages.append({"role": "user", "content": content})
        self._texts_before_results = False

    def _user_blocks(self, content: Any) -> list[Any]:
        if isinstance(content, str):
            return [{"type": "text", "text": content}] if content else []
        blocks = []
        for part in _parts(content):
            kind = part.get("type")
            if kind in ("input_text", "output_text", "text"):
                text = part.get("text")
                if isinstance(text, str) and text:
                    blocks.append({"type": "text", "text": text})
                else:
                    self.empty += 1
            elif kind == "input_image":
                blocks.append(image_block(part.get("image_url") or part.get("file_id")))
            else:
                self.notes.append(f"a {kind!r} content part is kept as is")
                blocks.append(part)
        return blocks

    def _tool_use(self, item: dict[str, Any], kind: str) -> dict[str, Any]:
        original = item.get("call_id") if isinstance(item.get("call_id"), str) else item.get("id")
        self._call_serial += 1
        new = self._ids.take(original, len(self.messages), self._call_serial)
        if isinstance(original, str):
            if new != original:
                self._conv.renamed += 1
            self._renamed[original] = new
        if kind == "custom_tool_call":
            self.freeform += 1
            tool_input: Any = {"input": item.get("input") if isinstance(item.get("input"), str) else ""}
            name = item.get("name")
        elif kind == "local_shell_call":
            tool_input, name = {"action": item.get("action")}, "local_shell"
        else:
            tool_input, name = arguments_input(item.get("arguments"), self._conv), item.get("name")
        return {"type": "tool_use", "id": new, "name": name, "input": tool_input}

    def _result(self, item: dict[str, Any]) -> dict[str, Any]:
        if self._texts:
            self._texts_before_results = True
        target = item.get("call_id")
        used = self._renamed.get(target, target) if isinstance(target, str) else target
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": used}
        output = item.get("output")
        if isinstance(output, dict) and ("content" in output or "success" in output):  # the old payload
            if output.get("success") is False:
                block["is_error"] = True
            output = output.get("content")
        if isinstance(output, str):
            block["content"] = output
        elif isinstance(output, list):
            block["content"] = self._user_blocks(output)
        elif output is not None:
            block["content"] = str(output)
        return block

    def _reasoning(self, item: dict[str, Any]) -> dict[str, Any] | None:
        texts = _texts(item.get("summary"))
        if not texts:
            texts = _texts(item.get("content"))
        encrypted = item.get("encrypted_content") if isinstance(item.get("encrypted_content"), str) else ""
        if any(texts):
            return {"type": "thinking", "thinking": "\n\n".join(texts), "signature": encrypted}
        if encrypted:
            self.encrypted += 1
            return {"type": "redacted_thinking", "data": encrypted}
        self.notes.append("a reasoning item with neither summary nor content is left out")
        return None


def _texts(parts: Any) -> list[str]:
    """The ``text`` strings of a list of parts (a reasoning item's summary or content), in order."""
    if not parts or not isinstance(parts, list):
        return []
    return [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, list):
        return [p for p in content if isinstance(p, dict)]
    return []


def _plain_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n\n".join(p.get("text") for p in _parts(content) if isinstance(p.get("text"), str))


def usage_of(last: Any) -> dict[str, Any] | None:
    """OpenAI usage (input counts the cached part) under the Anthropic names turnscope reads."""
    if not isinstance(last, dict) or not isinstance(last.get("input_tokens"), int):
        return None
    cached = last.get("cached_input_tokens")
    if not isinstance(cached, int):
        details = last.get("input_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else 0
        cached = cached if isinstance(cached, int) else 0
    usage: dict[str, Any] = {"input_tokens": last["input_tokens"] - cached, "cache_read_input_tokens": cached}
    if isinstance(last.get("output_tokens"), int):
        usage["output_tokens"] = last["output_tokens"]
    reasoning = last.get("reasoning_output_tokens")
    if not isinstance(reasoning, int) and isinstance(last.get("output_tokens_details"), dict):
        reasoning = last["output_tokens_details"].get("reasoning_tokens")
    if isinstance(reasoning, int):
        usage["reasoning_output_tokens"] = reasoning
    return usage


def tools_of(tools: Any) -> tuple[list[Any] | None, list[str]]:
    """Responses tool definitions as Anthropic tool schemas, and notes on what had no equivalent."""
    if not isinstance(tools, list):
        return None, []
    out, notes = [], []
    for tool in tools:
        if not isinstance(tool, dict):
            out.append(tool)
            continue
        kind = tool.get("type")
        if kind == "function" and isinstance(tool.get("function"), dict):  # the chat form, given here too
            tool = tool["function"]
        if kind in ("function", None):
            schema = {"name": tool.get("name")}
            if tool.get("description"):
                schema["description"] = tool["description"]
            schema["input_schema"] = tool.get("parameters") or {"type": "object", "properties": {}}
            if tool.get("strict") is True:
                schema["strict"] = True
            out.append(schema)
        elif kind == "custom":
            schema = {"name": tool.get("name"), "input_schema": {"type": "object", "properties": {
                "input": {"type": "string"}}, "required": ["input"]}}
            if tool.get("description"):
                schema["description"] = tool["description"]
            out.append(schema)
            notes.append(f"custom tool {tool.get('name')!r} (free-form input) given the schema {{input: string}}")
        else:
            notes.append(f"a {kind!r} tool (OpenAI's built-in) has no Anthropic schema; left out of the tools")
    return out, notes
