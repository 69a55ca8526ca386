"""A block as plain text lines, as ``turnscope show`` prints it and ``turnscope branch`` echoes a turn.

The first line names the block (``tool_use ID NAME INPUT``, ``tool_result ID: ...``, ``text: ...``),
continuation lines are indented under it; an image or a document is its one description
(``tui.core.blocks.media_description``), never its bytes. The text comes from the run: callers
print it through ``out``/``out_lines``, which make it safe.
"""

from __future__ import annotations

from typing import Any

from tui.core import jsonio
from tui.core.blocks import is_media, is_tool_result, is_tool_use, media_description, result_text
from tui.core.run import block_type

CONTINUE = "      "  # continuation lines of a block, under its first line


def _json(value: Any) -> str:
    return jsonio.dumps(value).decode("utf-8", "replace")


def block_lines(block: Any) -> list[str]:
    """One block as lines: the first names the block, the rest are indented under it."""
    return block_text(block, "\n" + CONTINUE).split("\n")


def indented(text: str, cont: str) -> str:
    return text.replace("\n", cont) if "\n" in text else text


def result_part(block: Any) -> str:
    """One block inside a tool_result: its text, a placeholder for media, else its type and raw JSON."""
    kind = block_type(block)
    if kind == "text" and isinstance(block.get("text"), str):
        return block["text"]
    if is_media(kind):
        return media_description(block)
    return f"{kind}: {_json(block)}"


def block_text(block: Any, cont: str) -> str:
    """One block as text; ``cont`` is a newline plus the indentation of continuation lines."""
    kind = block_type(block)
    if not isinstance(block, dict):
        return f"{kind} {_json(block)}"
    if kind == "text" and isinstance(block.get("text"), str):
        return "text: " + indented(block["text"], cont)
    if is_tool_use(kind):
        return f"{kind} {block.get('id')} {block.get('name')} {_json(block.get('input'))}"
    if is_tool_result(kind):
        mark = " is_error" if block.get("is_error") else ""
        text = result_text(block.get("content"), result_part)
        return f"{kind} {block.get('tool_use_id')}{mark}: " + indented(text, cont)
    if kind == "thinking":
        thought = block.get("thinking")
        if isinstance(thought, str) and thought.strip():
            return "thinking: " + indented(thought, cont)
        return f"thinking: (not returned by the provider; signature {len(str(block.get('signature') or ''))} chars)"
    if kind == "redacted_thinking":
        return (f"redacted_thinking: (thinking not returned by the provider; "
                f"data {len(str(block.get('data') or ''))} chars)")
    if is_media(kind):
        return media_description(block)
    return f"{kind}: {_json(block)}"
