"""Rules on single messages and their blocks: roles, content, text, thinking, ids.

Pairing across messages lives in ``pairing``; tools, system and params in ``request``.
This is the one pass over every block, so it also counts the ``cache_control``
breakpoints in messages for ``request`` (``out.cache_controls``).

Only a final assistant message that is *sent* (a prefill) gets the API's final-message
exceptions (it may be empty; whitespace is judged by the trailing-whitespace rule). The
final response of a run was never sent: it is checked as the history turn it becomes on
the next request, and ``Findings`` reports its errors as warnings.
"""

from __future__ import annotations

import re
from typing import Any

from tui.core.blocks import THINKING_TYPES, TOOL_USE_TYPES, thinking_enabled
from tui.core.grammar.findings import Findings

ROLES = ("user", "assistant")
ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
SERVER_RESULTS = {
    "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
    "bash_code_execution_tool_result", "text_editor_code_execution_tool_result",
    "tool_search_tool_result", "advisor_tool_result",
}
#: Models known to reject an assistant prefill (reference: prefill_unsupported).
NO_PREFILL = ("claude-opus-4-6", "claude-opus-4-7", "claude-sonnet-4-6")


def id_key(value: Any) -> Any:
    """An id as a set member: a malformed id (a list, an object) must be reported, not crash the check."""
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def check(out: Findings, messages: list[Any], params: dict[str, Any], prefill: bool,
          system_messages: bool = False) -> None:
    """``system_messages``: the request carries the mid-conversation-system beta, so a ``role: "system"``
    message is valid (``tui.core.request_headers``); without it such a message is ``invalid_role``."""
    out.cache_controls = 0
    if not messages:
        out.add("messages_empty", None, None)
        return
    last = len(messages) - 1
    seen_ids: set[str] = set()
    previous_role = None
    merged_server_ids: set[Any] = set()  # server_tool_use ids of earlier messages in the same (merged) turn
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            out.add("invalid_message", i, None, detail=f"found {type(message).__name__}")
            previous_role = None
            continue
        role = message.get("role")
        if role == "system" and system_messages:
            continue  # the client's context: text only, and it does not take a turn of the alternation
        if role not in ROLES:
            out.add("invalid_role", i, None, detail=f"found {role!r}", cause=(
                "a role: system message is valid only with the mid-conversation-system beta (anthropic-beta "
                "header); without it the system prompt goes in the top-level system field") if role == "system"
                else None)
        elif i == 0 and role == "assistant":
            out.add("first_message_not_user", 0, None)
        elif role == previous_role == "assistant":
            out.add("consecutive_assistant", i, None, detail=f"messages {i - 1} and {i}")
        elif role == previous_role == "user":
            out.add("consecutive_user", i, None, detail=f"messages {i - 1} and {i}")
        if role != previous_role and merged_server_ids:
            merged_server_ids = set()
        previous_role = role
        sent_final = prefill and i == last and role == "assistant"
        kinds = _content(out, i, message, role, sent_final, params, seen_ids, merged_server_ids)
        if role == "assistant" and kinds and "server_tool_use" in kinds:
            merged_server_ids |= {id_key(b.get("id")) for b in message["content"]
                                  if isinstance(b, dict) and b.get("type") == "server_tool_use"}


def _content(out: Findings, i: int, message: dict[str, Any], role: Any, final: bool,
             params: dict[str, Any], seen_ids: set[str], earlier: set[Any]) -> list[str | None] | None:
    """Check one message's content; the types of its blocks (None for string content)."""
    content = message.get("content")
    if isinstance(content, str):
        if content == "":
            if not final:
                out.add("empty_content", i, None)
        elif not final and content.isspace():
            out.add("whitespace_text_block", i, None, detail="string content is whitespace only")
        if final:
            _prefill(out, i, [{"type": "text", "text": content}], ["text"], params, string=True)
        return None
    if not isinstance(content, list):
        out.add("invalid_content", i, None, detail=f"found {type(content).__name__}")
        return None
    if not content:
        if not final:
            out.add("empty_content", i, None)
        return None
    kinds: list[str | None] = []
    for b, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if not isinstance(kind, str):
            out.add("invalid_block", i, b, detail=f"block {b} has no type")
            kinds.append(None)
            continue
        kinds.append(kind)
        if "cache_control" in block and block["cache_control"] is not None:
            out.cache_controls += 1
        if kind == "text":
            text = block.get("text")
            if not isinstance(text, str) or not text or (not final and text.isspace()):
                _text(out, i, b, text, final)  # the common case, a non-blank text, has nothing to report
        elif kind == "tool_result":
            _tool_result(out, i, b, block, final, seen_ids)
            if role == "assistant":
                out.add("tool_result_in_assistant", i, b)
        else:
            _block(out, i, b, kind, block, role, seen_ids, content, earlier)
    if role == "assistant" and ("thinking" in kinds or "redacted_thinking" in kinds):
        _thinking_order(out, i, kinds)
    if final:
        _prefill(out, i, content, kinds, params)
    return kinds


def _block(out: Findings, i: int, b: int, kind: str, block: dict[str, Any], role: Any,
           seen_ids: set[str], content: list[Any], earlier: set[Any]) -> None:
    if kind in TOOL_USE_TYPES:
        block_id = block.get("id")
        if not isinstance(block_id, str) or not ID_PATTERN.match(block_id):
            out.add("tool_use_id_pattern", i, b, kind=f"{kind}.id", detail=f"id {block_id!r}")
        elif block_id in seen_ids:
            out.add("duplicate_tool_use_id", i, b, detail=f"id {block_id}",
                    cause="an assistant turn appended twice (a retry that re-added the turn)")
        else:
            seen_ids.add(block_id)
        if not isinstance(block.get("input"), dict):
            out.add("tool_use_input_type", i, b, detail=f"found {type(block.get('input')).__name__}")
        if kind == "tool_use" and role == "user":
            out.add("tool_use_in_user", i, b)
    elif kind in SERVER_RESULTS:
        target = block.get("tool_use_id")
        before = {id_key(x.get("id")) for x in content[:b] if isinstance(x, dict) and x.get("type") == "server_tool_use"}
        if id_key(target) not in before and id_key(target) not in earlier:  # the API merges consecutive assistant messages
            out.add("server_tool_result_unmatched", i, b, kind=kind, ids=target)
    elif kind == "thinking":
        signature = block.get("signature")
        if not isinstance(block.get("thinking"), str) or not isinstance(signature, str) or not signature:
            out.add("thinking_signature_missing", i, b, detail="thinking block has no signature")
    elif kind == "redacted_thinking":
        if not isinstance(block.get("data"), str) or not block.get("data"):
            out.add("thinking_signature_missing", i, b, detail="redacted_thinking block has no data")


def _text(out: Findings, i: int, b: int | None, text: Any, final: bool) -> None:
    if not isinstance(text, str):
        out.add("invalid_block", i, b, detail=f"text is {type(text).__name__}, not a string")
    elif text == "":
        out.add("empty_text_block", i, b)
    elif not final and text.isspace():
        out.add("whitespace_text_block", i, b)


def _tool_result(out: Findings, i: int, b: int, block: dict[str, Any], final: bool, seen_ids: set[str]) -> None:
    target = block.get("tool_use_id")
    if not isinstance(target, str):
        out.add("tool_result_fields", i, b, detail="tool_use_id is missing")
    elif target not in seen_ids and not ID_PATTERN.match(target):  # seen_ids hold ids that matched already
        out.add("tool_use_id_pattern", i, b, kind="tool_result.tool_use_id", detail=f"id {target!r}")
    if "is_error" in block and not isinstance(block["is_error"], bool):
        out.add("tool_result_fields", i, b, detail="is_error is not a boolean")
    content = block.get("content")
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        out.add("tool_result_fields", i, b, detail=f"content is {type(content).__name__}")
        return
    for inner in content:
        if not isinstance(inner, dict) or not isinstance(inner.get("type"), str):
            out.add("tool_result_fields", i, b, detail="a content block has no type")
            continue
        if "cache_control" in inner and inner["cache_control"] is not None:
            out.cache_controls += 1
        if inner["type"] == "text":
            _text(out, i, b, inner.get("text"), final)


def _thinking_order(out: Findings, i: int, kinds: list[str | None]) -> None:
    if kinds[0] not in THINKING_TYPES:
        out.add("thinking_not_first", i, 0, kind=kinds[0])
    if kinds[-1] == "thinking":
        out.add("thinking_last_block", i, len(kinds) - 1)


def _prefill(out: Findings, i: int, content: list[Any], kinds: list[str | None],
             params: dict[str, Any], string: bool = False) -> None:
    last = content[-1]
    if kinds[-1] == "text" and isinstance(last.get("text"), str) and last["text"] != last["text"].rstrip():
        out.add("final_assistant_trailing_whitespace", i, None if string else len(content) - 1)
    if not thinking_enabled(params):
        for b, kind in enumerate(kinds):
            if kind in THINKING_TYPES:
                out.add("thinking_disabled_final_assistant", i, b)
    model = params.get("model")
    if isinstance(model, str) and model.startswith(NO_PREFILL):
        out.add("prefill_unsupported", i, None, detail=f"model {model}")
    output_config = params.get("output_config")
    if isinstance(output_config, dict) and output_config.get("format") is not None:
        out.add("prefill_with_output_format", i, None)
