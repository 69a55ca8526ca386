"""Where a run's text lives, for the analyses that read all of it (hidden text, secrets).

``text_places`` yields every string a model read or wrote, with where it is: the system prompt,
the tools' names and descriptions, and in each message each block's text, thinking, tool input
(field by field) and tool result. The opaque values a replay needs byte-exact (a thinking block's
``signature``, ``redacted_thinking`` data, encrypted content, ids, media data) are not text and are
never yielded, so nothing mistakes them for a secret or rewrites them. ``tui.core.content_check.content_findings`` is the
content check the Problems view and ``check`` show beside the grammar's findings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from tui.core import blocks
from tui.core.run import Run, block_type, blocks_of

#: Keys whose values are opaque to a reader and must survive byte-exact (never scanned, never redacted),
#: in blocks and what rides beside them; not inside a tool's input, which the model wrote (any key there
#: is text: ``{"data": "..."}`` may hold a token).
OPAQUE_KEYS = frozenset({"signature", "data", "encrypted_content", "encrypted_index", "id", "tool_use_id",
                         "type", "media_type", "cache_control", "request_id", "parent_hash", "hash"})
NOTHING = frozenset()
#: Blocks whose ``input`` is the model's text, key for key (every tool call, ``tui.core.blocks``).
TOOL_USE_TYPES = frozenset(blocks.TOOL_USE_TYPES)


@dataclass(frozen=True)
class Place:
    """One string of the run: message ``index`` (None: the system prompt or tools), ``block``, what it is."""

    index: int | None
    block: int | None
    what: str  # "text", "thinking", "tool input q", "tool result", "system prompt", "tool get's description"
    text: str
    kind: str  # the block's type ("system", "tools" outside messages)


def strings(value: Any, path: str = "", skip: frozenset = OPAQUE_KEYS) -> Iterator[tuple[str, str]]:
    """Every string in a JSON value with its path (``a.b[0]``), the values of the keys in ``skip`` left
    out (a tool_use's input inside is walked whole)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        kind = value.get("type")
        whole = isinstance(kind, str) and kind in TOOL_USE_TYPES  # a hostile file's "type" may be a list
        for key, item in value.items():
            if key not in skip:
                inner = NOTHING if whole and key == "input" else skip
                yield from strings(item, f"{path}.{key}" if path else str(key), inner)
    elif isinstance(value, list):
        for k, item in enumerate(value):
            yield from strings(item, f"{path}[{k}]", skip)


def _block_places(i: int, j: int, block: Any) -> Iterator[Place]:
    kind = block_type(block)
    if not isinstance(block, dict):
        return
    if kind == "text":
        if isinstance(block.get("text"), str):
            yield Place(i, j, "text", block["text"], kind)
        return
    if kind == "thinking":
        if isinstance(block.get("thinking"), str):
            yield Place(i, j, "thinking", block["thinking"], kind)
        return
    if kind == "redacted_thinking":
        return
    if blocks.is_tool_use(kind):
        for path, text in strings(block.get("input"), "", NOTHING):
            yield Place(i, j, f"tool input {path}" if path else "tool input", text, kind)
        return
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, str):
            yield Place(i, j, "tool result", content, kind)
        else:
            for _, text in strings(content):
                yield Place(i, j, "tool result", text, kind)
        return
    if blocks.is_media(kind):
        return
    for path, text in strings(block):
        yield Place(i, j, f"{kind} {path}", text, kind)


def text_places(run: Run, indices: Iterable[int] | None = None, outside: bool = True) -> Iterator[Place]:
    """Every string of the run that a model read or wrote, system prompt and tools first (``outside``); with
    ``indices`` (ascending), only those messages' (a part of the run: ``tui.core.content_check``)."""
    if outside:
        yield from _outside_places(run)
    messages = run.messages
    for i in range(len(messages)) if indices is None else indices:
        for j, block in enumerate(blocks_of(messages[i])):
            yield from _block_places(i, j, block)


def _outside_places(run: Run) -> Iterator[Place]:
    """The strings riding beside the messages: the system prompt, the tools' names and descriptions."""
    system = run.system
    if isinstance(system, str):
        yield Place(None, None, "system prompt", system, "system")
    elif system is not None:
        for _, text in strings(system):
            yield Place(None, None, "system prompt", text, "system")
    for tool in run.tools if isinstance(run.tools, list) else []:  # a hostile file's tools may be anything
        name = tool.get("name") if isinstance(tool, dict) else None
        for path, text in strings(tool):
            yield Place(None, None, f"tool {name}'s {path}" if name is not None else f"tools {path}", text, "tools")
