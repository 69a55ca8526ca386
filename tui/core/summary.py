"""Short, plain descriptions of messages and blocks, shared by the CLI, the account and the app.

The text returned here comes from the run and is untrusted: callers that put it on a
terminal pass it through ``tui.core.safe`` (the app renders it as plain ``Text``).
"""

from __future__ import annotations

from typing import Any

from tui.core import jsonio
from tui.core.run import block_type, blocks_of


def preview(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def json_preview(value: Any, width: int = 40) -> str:
    """``value`` as JSON in at most ``width`` characters; a string cut short keeps its closing quote, so
    a list of values still shows where each one ends."""
    text = jsonio.dumps(value).decode("utf-8", "replace")
    if len(text) > width and text.startswith('"'):
        return preview(text, width - 1) + '"'
    return preview(text, width)


def tool_uses(message: Any) -> list[dict[str, Any]]:
    return [b for b in blocks_of(message) if isinstance(b, dict) and b.get("type") == "tool_use"]


def tool_results(message: Any) -> list[dict[str, Any]]:
    return [b for b in blocks_of(message) if isinstance(b, dict) and b.get("type") == "tool_result"]


def describe_block(block: Any, width: int = 40) -> str:
    """One phrase for a block: ``text "…"``, ``tool_use get_order``, ``result toolu_1 ERROR``."""
    kind = block_type(block)
    if not isinstance(block, dict):
        return kind
    if kind == "text":
        text = block.get("text")
        return f'"{preview(text, width)}"' if isinstance(text, str) else "text"
    if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        return f"{kind} {block.get('name')}"
    if kind == "tool_result":
        mark = " ERROR" if block.get("is_error") else ""
        return f"result {block.get('tool_use_id')}{mark}"
    if kind == "thinking":
        thought = block.get("thinking")
        if isinstance(thought, str) and thought.strip():
            return f"thinking ({len(thought)} chars)"
        return "thinking (not returned)"
    if kind == "redacted_thinking":
        return "redacted thinking"
    if kind in ("image", "document"):
        source = block.get("source") if isinstance(block.get("source"), dict) else {}
        return f"{kind} {source.get('media_type', '')}".rstrip()
    return kind


def describe_message(message: Any, width: int = 40) -> str:
    """All blocks of a message, comma-separated (a string content is its text)."""
    if not isinstance(message, dict):
        return f"({type(message).__name__})"
    content = message.get("content")
    if isinstance(content, str):
        return f'"{preview(content, width)}"'
    if not isinstance(content, list):
        return f"({type(content).__name__} content)"
    if not content:
        return "(empty)"
    return ", ".join(describe_block(b, width) for b in content)
