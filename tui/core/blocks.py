"""The block vocabulary: the kinds of content block a message holds, and what every view says of one.

Every dispatch on a block's ``type`` (the request pane, ``show``, search, the diff, the token
estimate, the export, provenance, the content check, the branch editor, the grammar) asks here,
so a kind the API adds is named once and the views cannot drift apart:

- ``TOOL_USE_TYPES``: the blocks that call a tool (``tool_use``, and the server-run
  ``server_tool_use`` and ``mcp_tool_use``); ``CLIENT_TOOL_USE`` is the one the caller answers
  with a ``tool_result`` (the server-run ones come back in the same turn as a ``*_tool_result``).
- ``is_tool_result``: ``tool_result`` and the server tools' results (``web_search_tool_result``,
  ``mcp_tool_result``, ...).
- ``MEDIA_TYPES`` and ``media_description``: an image or a document as one placeholder, its type
  and size (the bytes are never shown).
- ``block_summary``: a block in one short phrase (``tool_use get_order``).
- ``thinking_enabled``: whether a request's ``thinking`` parameter turns thinking on.

No Textual here; the text returned comes from the run and is untrusted (callers make it safe).
"""

from __future__ import annotations

from typing import Any, Callable

from tui.core import jsonio
from tui.core.run import block_type

TEXT, THINKING, REDACTED_THINKING = "text", "thinking", "redacted_thinking"
#: The blocks of the model's reasoning (a turn's thinking, and thinking the provider returned encrypted).
THINKING_TYPES = (THINKING, REDACTED_THINKING)
CLIENT_TOOL_USE = "tool_use"
#: The blocks that call a tool: the caller's, and the ones the server (or an MCP server) runs.
TOOL_USE_TYPES = (CLIENT_TOOL_USE, "server_tool_use", "mcp_tool_use")
TOOL_RESULT = "tool_result"
MEDIA_TYPES = ("image", "document")
#: The values of ``thinking.type`` that turn thinking on.
THINKING_ON = ("enabled", "adaptive")


def is_tool_use(kind: Any) -> bool:
    return isinstance(kind, str) and kind in TOOL_USE_TYPES


def is_tool_result(kind: Any) -> bool:
    """``tool_result``, or a server tool's result (``web_search_tool_result``, ``mcp_tool_result``)."""
    return isinstance(kind, str) and (kind == TOOL_RESULT or kind.endswith("_tool_result"))


def result_text(content: Any, part: Callable[[Any], str]) -> str:
    """A tool result's ``content`` as text: a string as it is, a list of blocks each through ``part``, one per
    line, nothing for None, anything else as JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part(b) for b in content)
    return "" if content is None else jsonio.dumps(content).decode("utf-8", "replace")


def is_media(kind: Any) -> bool:
    return isinstance(kind, str) and kind in MEDIA_TYPES


def thinking_enabled(params: dict[str, Any]) -> bool:
    """The request's ``thinking`` parameter turns thinking on (``enabled`` or ``adaptive``)."""
    thinking = params.get("thinking") if isinstance(params, dict) else None
    return isinstance(thinking, dict) and thinking.get("type") in THINKING_ON


def size_text(n: int) -> str:
    """``812 bytes``, ``1.2 KB``, ``3.4 MB``: a size in decimal units."""
    size: float = n
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{size:,.1f} {unit}"
        size /= 1000
    return ""  # pragma: no cover - the loop always returns


def media_description(block: dict) -> str:
    """An image or a document as one placeholder: ``[image · image/png · 1.2 KB (base64)]``, ``[document ·
    url https://…]``; its bytes are never shown. The one description ``show``, the request pane and the
    export give."""
    kind = block_type(block)
    source = block.get("source") if isinstance(block.get("source"), dict) else {}
    media = source.get("media_type") or source.get("type") or "unknown type"
    if isinstance(source.get("data"), str):
        size = f"{size_text(len(source['data']) * 3 // 4)} (base64)" if source.get("type") == "base64" \
            else f"{len(source['data']):,} characters"
    elif source.get("url"):
        size = "url " + str(source["url"])[:120]
    elif source.get("file_id"):
        size = "file " + str(source["file_id"])
    else:
        size = "no data"
    title = f" · {block['title']}" if isinstance(block.get("title"), str) else ""
    return f"[{kind} · {media} · {size}{title}]"


def preview(text: str, width: int = 60) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def block_summary(block: Any, width: int = 40) -> str:
    """One phrase for a block: ``text "…"``, ``tool_use get_order``, ``result toolu_1 ERROR``,
    ``image image/png``."""
    kind = block_type(block)
    if not isinstance(block, dict):
        return kind
    if kind == TEXT:
        text = block.get("text")
        return f'"{preview(text, width)}"' if isinstance(text, str) else "text"
    if is_tool_use(kind):
        return f"{kind} {block.get('name')}"
    if kind == TOOL_RESULT:
        mark = " ERROR" if block.get("is_error") else ""
        return f"result {block.get('tool_use_id')}{mark}"
    if kind == THINKING:
        thought = block.get("thinking")
        if isinstance(thought, str) and thought.strip():
            return f"thinking ({len(thought)} chars)"
        return "thinking (not returned)"
    if kind == REDACTED_THINKING:
        return "redacted thinking"
    if is_media(kind):
        source = block.get("source") if isinstance(block.get("source"), dict) else {}
        return f"{kind} {source.get('media_type', '')}".rstrip()
    return kind
