"""Short, plain descriptions of messages and blocks, shared by the CLI, the account and the app.

The text returned here comes from the run and is untrusted: callers that put it on a
terminal pass it through ``tui.core.safe`` (the app renders it as plain ``Text``).
"""

from __future__ import annotations

from typing import Any

from tui.core import jsonio
from tui.core.blocks import CLIENT_TOOL_USE, TOOL_RESULT, preview
from tui.core.blocks import block_summary as describe_block
from tui.core.run import blocks_of

__all__ = ["describe_block", "describe_message", "json_preview", "preview", "tool_results", "tool_uses"]


def json_preview(value: Any, width: int = 40) -> str:
    """``value`` as JSON in at most ``width`` characters; a string cut short keeps its closing quote, so
    a list of values still shows where each one ends."""
    text = jsonio.dumps(value).decode("utf-8", "replace")
    if len(text) > width and text.startswith('"'):
        return preview(text, width - 1) + '"'
    return preview(text, width)


def tool_uses(message: Any) -> list[dict[str, Any]]:
    """The message's calls the caller answers (``tool_use``; the server-run ones answer themselves)."""
    return [b for b in blocks_of(message) if isinstance(b, dict) and b.get("type") == CLIENT_TOOL_USE]


def tool_results(message: Any) -> list[dict[str, Any]]:
    """The message's answers to the caller's calls (``tool_result``)."""
    return [b for b in blocks_of(message) if isinstance(b, dict) and b.get("type") == TOOL_RESULT]


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
