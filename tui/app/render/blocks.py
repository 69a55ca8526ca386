"""The rows of one message in the request pane: every block kind, folded or open.

Text, thinking and tool results longer than a few rows are folded with a note of their
size and open with Enter; thinking that the provider did not return is said to be so
(with its signature size), never shown as absent reasoning; images and documents are
placeholders with their media type and size. All run text goes through ``display``.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tui.app.render import styles as palette
from tui.app.render.lines import BIG, Part, Rows, Wrapped, display
from tui.core import jsonio
from tui.core.run import block_type, blocks_of
from tui.core.safe import one_line

LABEL_WIDTH = 13
INDENT = 2 + LABEL_WIDTH
#: Rows a block shows before it folds: in the prefix, and in the output message N.
FOLD_ROWS, OUTPUT_ROWS = 4, 30


def _head(label: str, style: str = palette.LABEL) -> Text:
    return Text.assemble("  ", (label.ljust(LABEL_WIDTH - 1), style), " ")


def _pad() -> Text:
    return Text(" " * INDENT)


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    return ""


def _json(value: Any) -> str:
    return jsonio.dumps(value).decode("utf-8", "replace")


def text_part(text: str, head: Text, target: tuple, open_: bool, rows: int, style: str = "") -> Part:
    """A folded (first ``rows`` rows) or open text under ``head``; escaping waits for big texts."""
    lines = text.count("\n", 0, 1 << 16) + 1 if len(text) <= 1 << 16 else None
    note = f"{len(text):,} characters" + (f", {lines:,} lines" if lines and lines > 1 else "")
    if open_:
        if len(text) > BIG:
            return Wrapped(text, head=head, indent=INDENT, style=style, target=target, raw=True)
        return Wrapped(display(text), head=head, indent=INDENT, style=style, target=target)
    cap = rows * 400
    return Wrapped(display(text[:cap]), head=head, indent=INDENT, style=style, limit=rows,
                   cut=len(text) > cap, note=note, target=target)


def placeholder(kind: str, block: dict) -> str:
    source = block.get("source") if isinstance(block.get("source"), dict) else {}
    media = source.get("media_type") or source.get("type") or "unknown type"
    if isinstance(source.get("data"), str):
        size = f"{_size(len(source['data']) * 3 // 4)} (base64)" if source.get("type") == "base64" \
            else f"{len(source['data']):,} characters"
    elif source.get("url"):
        size = "url " + str(source["url"])[:120]
    elif source.get("file_id"):
        size = "file " + str(source["file_id"])
    else:
        size = "no data"
    title = f" · {block['title']}" if isinstance(block.get("title"), str) else ""
    return one_line(f"[{kind} · {media} · {size}{title}]")


def block_parts(i: int, b: int, block: Any, opened: set, rows: int) -> list[Part]:
    """The parts of block ``b`` of message ``i``; ``opened`` holds the (i, b) the user expanded."""
    kind = block_type(block)
    target = ("block", i, b)
    open_ = (i, b) in opened
    if not isinstance(block, dict):
        return [text_part(_json(block), _head(one_line(kind)), target, open_, rows)]
    if kind == "text" and isinstance(block.get("text"), str):
        return [text_part(block["text"], _head("text"), target, open_, rows)]
    if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        head = Text.assemble(_head(kind), (one_line(str(block.get("name"))), "bold"), "  ",
                             (one_line(str(block.get("id"))), palette.DIM))
        return [Rows([head], target), text_part(_json(block.get("input")), _pad(), target, open_, rows, palette.CODE)]
    if kind == "tool_result" or kind.endswith("_tool_result"):
        return _result_parts(kind, block, target, open_, opened, i, b, rows)
    if kind == "thinking":
        thought = block.get("thinking")
        if isinstance(thought, str) and thought.strip():
            return [text_part(thought, _head("thinking"), target, open_, rows, palette.NOTE)]
        signature = len(str(block.get("signature") or ""))
        return [Rows([Text.assemble(_head("thinking"), ("thinking not returned by the provider", palette.NOTE),
                                    f" (signature {signature:,} characters)")], target)]
    if kind == "redacted_thinking":
        data = len(str(block.get("data") or ""))
        return [Rows([Text.assemble(_head("thinking"), ("thinking not returned by the provider", palette.NOTE),
                                    f" (redacted_thinking, data {data:,} characters)")], target)]
    if kind in ("image", "document"):
        return [Rows([Text.assemble(_head(kind), (placeholder(kind, block), palette.DIM))], target)]
    return [text_part(_json(block), _head(one_line(kind)), target, open_, rows, palette.CODE)]


def _result_parts(kind: str, block: dict, target: tuple, open_: bool, opened: set, i: int, b: int,
                  rows: int) -> list[Part]:
    error = Text(" ERROR", palette.ERROR) if block.get("is_error") else Text("")
    head = Text.assemble(_head(kind), (one_line(str(block.get("tool_use_id"))), palette.DIM), error)
    parts: list[Part] = [Rows([head], target)]
    content = block.get("content")
    if isinstance(content, str):
        parts.append(text_part(content, _pad(), target, open_, rows))
    elif isinstance(content, list):
        for sub in content:
            sub_kind = block_type(sub)
            if isinstance(sub, dict) and sub_kind == "text" and isinstance(sub.get("text"), str):
                parts.append(text_part(sub["text"], _pad(), target, open_, rows))
            elif isinstance(sub, dict) and sub_kind in ("image", "document"):
                parts.append(Rows([_pad() + Text(placeholder(sub_kind, sub), palette.DIM)], target))
            else:
                parts.append(text_part(_json(sub), _pad(), target, open_, rows, palette.CODE))
    elif content is not None:
        parts.append(text_part(_json(content), _pad(), target, open_, rows, palette.CODE))
    else:
        parts.append(Rows([_pad() + Text("(no content)", palette.DIM)], target))
    return parts


def message_parts(i: int, message: Any, opened: set, rows: int = FOLD_ROWS) -> list[Part]:
    """Every block of message ``i`` (a string content is one text block)."""
    if not isinstance(message, dict):
        return [text_part(_json(message), _head("(not a message)"), ("block", i, 0), (i, 0) in opened, rows)]
    blocks = blocks_of(message)
    if not blocks:
        return [Rows([_head("content") + Text(one_line(_json(message.get("content"))), palette.DIM)])]
    out: list[Part] = []
    for b, block in enumerate(blocks):
        out += block_parts(i, b, block, opened, rows)
    return out
