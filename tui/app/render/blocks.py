"""The rows of one message in the request pane: every block kind, folded or open.

Text, thinking and tool results longer than a few rows are folded with a note of their
size and open with Enter; thinking that the provider did not return is said to be so
(with its signature size), never shown as absent reasoning; images and documents are
placeholders with their media type and size. All run text goes through ``display``.
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from rich.text import Text

from tui.app.render import styles as palette
from tui.app.render.lines import BIG, Part, Rows, Wrapped, display
from tui.core import jsonio
from tui.core.blocks import is_media, is_tool_result, is_tool_use, media_description, size_text
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


def _json(value: Any) -> str:
    return jsonio.dumps(value).decode("utf-8", "replace")


def text_part(text: str, head: Text, target: tuple, open_: bool, rows: int, style: str = "",
              indent: int = INDENT) -> Part:
    """A folded (first ``rows`` rows) or open text under ``head``; escaping waits for big texts."""
    lines = text.count("\n", 0, 1 << 16) + 1 if len(text) <= 1 << 16 else None
    note = f"{len(text):,} characters" + (f", {lines:,} lines" if lines and lines > 1 else "")
    if open_:
        if len(text) > BIG:
            return Wrapped(text, head=head, indent=indent, style=style, target=target, raw=True)
        return Wrapped(display(text), head=head, indent=indent, style=style, target=target)
    cap = rows * 400
    return Wrapped(display(text[:cap]), head=head, indent=indent, style=style, limit=rows,
                   cut=len(text) > cap, note=note, target=target)


def placeholder(block: dict) -> str:
    """An image or a document as one safe line (``tui.core.blocks.media_description``)."""
    return one_line(media_description(block))


#: A JSON value bigger than this is shown as its text (wrapped lazily), not as a tree of fields.
TREE_LIMIT = 200_000
#: Keys whose string values are opaque payloads: folded to one line with their size.
PAYLOAD_KEYS = frozenset(("encrypted_content", "signature", "data", "encrypted_index", "redacted_thinking"))
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{200,}={0,2}")


def payload(key: str | None, value: Any) -> bool:
    """An opaque string (base64, an encrypted blob, a signature): shown as one line with its size."""
    if not isinstance(value, str) or len(value) < 64:
        return False
    return key in PAYLOAD_KEYS or (len(value) >= 200 and _BASE64.fullmatch(value) is not None)


def fold_mark(open_: bool) -> str:
    return palette.OPEN if open_ else palette.FOLDED


def _flip(opened: set, i: int, b: int, path: str) -> bool:
    """True when the user flipped the field at ``path`` (a folded payload opened, an open object folded)."""
    return ("fold", i, b, path) in opened


def _scalar(value: Any) -> str:
    return _json(value) if not isinstance(value, str) else value


def _count(value: Any) -> str:
    n = len(value)
    return (f"{{{n} field{'s' * (n != 1)}}}" if isinstance(value, dict) else f"[{n} item{'s' * (n != 1)}]")


def field_parts(value: Any, *, i: int, b: int, opened: set, rows: int, target: tuple, depth: int = 0,
                path: str = "") -> list[Part]:
    """``value`` (a tool input, a JSON result) field by field, as a person reads it: ``key:`` then the value;
    a multi-line string as its own lines (``\r\n`` a line end, other controls escapes); numbers and ids
    plain; nested objects indented, Enter folds them; payloads one line with their size, Enter opens."""
    pad = INDENT + 2 * depth
    items: list[tuple[str, str, Any]]
    if isinstance(value, dict):
        items = [(one_line(str(k)), f"{path}.{k}", v) for k, v in value.items()]
    elif isinstance(value, list):
        items = [(f"[{k}]", f"{path}[{k}]", v) for k, v in enumerate(value)]
    else:
        return [text_part(_scalar(value), Text(" " * pad), target, True, 0)]
    if not items:
        return [Rows([Text(" " * pad + ("{}" if isinstance(value, dict) else "[]"), palette.DIM)], target)]
    out: list[Part] = []
    for label, where, item in items:
        key = Text.assemble(" " * pad, (label, palette.LABEL), ":")
        if isinstance(item, (dict, list)) and item and not (isinstance(item, list) and _inline(item)):
            fold = ("field", i, b, where)
            folded = _flip(opened, i, b, where)
            out.append(Rows([Text.assemble(" " * max(pad - 2, 0), (fold_mark(not folded), palette.DIM), " ",
                                           (label, palette.LABEL), ":", (f" {_count(item)}", palette.DIM))], fold))
            if not folded:
                out += field_parts(item, i=i, b=b, opened=opened, rows=rows, target=target, depth=depth + 1,
                                   path=where)
        elif payload(label, item):
            fold = ("field", i, b, where)
            note = f" ‹{size_text(len(item))}{' base64' if _BASE64.fullmatch(item) else ''} · enter: "
            if _flip(opened, i, b, where):
                out.append(Rows([key + Text(note + "fold›", palette.DIM)], fold))
                out.append(Wrapped(display(item), head=Text(" " * (pad + 2)), indent=pad + 2, style=palette.DIM,
                                   target=fold))
            else:
                out.append(Rows([key + Text(note + "expand›", palette.DIM)], fold))
        elif isinstance(item, str) and ("\n" in item or "\r" in item):
            lines = item.count("\n") + 1
            out.append(Rows([key + Text(f" {lines:,} lines", palette.DIM)], target))
            open_ = (i, b) in opened or rows == 0
            out.append(text_part(item, Text(" " * (pad + 2)), target, open_, rows, indent=pad + 2))
        else:
            shown = _json(item) if isinstance(item, list) else _scalar(item)
            head = key + Text(" ")
            out.append(text_part(shown, head, target, True, 0, indent=min(head.cell_len, pad + 16)))
    return out


def _inline(items: list) -> bool:
    """A short list of plain values reads best on one line: ``["a", "b"]``."""
    return all(not isinstance(v, (dict, list)) for v in items) and len(_json(items)) <= 80


def json_tree(text: str) -> Any:
    """The JSON object or array ``text`` holds (a tool result that is JSON), or None."""
    head = text[:1] if text[:1] in "{[" else text.lstrip()[:1]
    if head not in ("{", "[") or len(text) > TREE_LIMIT:
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:  # not JSON: shown as text
        return None
    return value if isinstance(value, (dict, list)) and value else None


def _tree_or_text(text: str, head: Text, target: tuple, open_: bool, i: int, b: int, opened: set, rows: int,
                  style: str = "") -> list[Part]:
    tree = json_tree(text)
    if tree is None:
        return [text_part(text, head, target, open_, rows, style)]
    return _capped(field_parts(tree, i=i, b=b, opened=opened, rows=rows, target=target), open_, rows, target)


def _capped(parts: list[Part], open_: bool, rows: int, target: tuple) -> list[Part]:
    """A folded block's fields: the first few, then a fold row (Enter opens the block)."""
    keep = max(rows * 2, 4)
    if open_ or len(parts) <= keep + 1:
        return parts
    return [*parts[:keep], Rows([Text.assemble(_pad(), (f"… {len(parts) - keep:,} more fields · enter: expand",
                                                         "dim italic"))], target)]


def block_parts(i: int, b: int, block: Any, opened: set, rows: int) -> list[Part]:
    """The parts of block ``b`` of message ``i``; ``opened`` holds the (i, b) the user expanded."""
    kind = block_type(block)
    target = ("block", i, b)
    open_ = (i, b) in opened
    if not isinstance(block, dict):
        return [text_part(_json(block), _head(one_line(kind)), target, open_, rows)]
    if kind == "text" and isinstance(block.get("text"), str):
        return [text_part(block["text"], _head("text"), target, open_, rows)]
    if is_tool_use(kind):
        head = Text.assemble(_head(kind), (one_line(str(block.get("name"))), "bold"), "  ",
                             (one_line(str(block.get("id"))), palette.DIM))
        tool_input = block.get("input")
        if isinstance(tool_input, dict) and tool_input and len(_json(tool_input)) <= TREE_LIMIT:
            fields = field_parts(tool_input, i=i, b=b, opened=opened, rows=rows, target=target)
            return [Rows([head], target), *_capped(fields, open_, rows, target)]
        return [Rows([head], target), text_part(_json(tool_input), _pad(), target, open_, rows, palette.CODE)]
    if is_tool_result(kind):
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
    if is_media(kind):
        return [Rows([Text.assemble(_head(kind), (placeholder(block), palette.DIM))], target)]
    return [text_part(_json(block), _head(one_line(kind)), target, open_, rows, palette.CODE)]


def _result_parts(kind: str, block: dict, target: tuple, open_: bool, opened: set, i: int, b: int,
                  rows: int) -> list[Part]:
    error = Text(" ERROR", palette.ERROR) if block.get("is_error") else Text("")
    head = Text.assemble(_head(kind), (one_line(str(block.get("tool_use_id"))), palette.DIM), error)
    parts: list[Part] = [Rows([head], target)]
    content = block.get("content")
    if isinstance(content, str):
        parts += _tree_or_text(content, _pad(), target, open_, i, b, opened, rows)
    elif isinstance(content, list):
        for sub in content:
            sub_kind = block_type(sub)
            if isinstance(sub, dict) and sub_kind == "text" and isinstance(sub.get("text"), str):
                parts += _tree_or_text(sub["text"], _pad(), target, open_, i, b, opened, rows)
            elif isinstance(sub, dict) and is_media(sub_kind):
                parts.append(Rows([_pad() + Text(placeholder(sub), palette.DIM)], target))
            else:
                parts.append(text_part(_json(sub), _pad(), target, open_, rows, palette.CODE))
    elif isinstance(content, dict) and content and len(_json(content)) <= TREE_LIMIT:
        parts += _capped(field_parts(content, i=i, b=b, opened=opened, rows=rows, target=target), open_, rows, target)
    elif content is not None:
        parts.append(text_part(_json(content), _pad(), target, open_, rows, palette.CODE))
    else:
        parts.append(Rows([_pad() + Text("(no content)", palette.DIM)], target))
    return parts


def added_row(mark: str, target: tuple | None = None) -> Rows:
    """The mark on a block (or message) a client added to the user's words: "added by Claude Code"."""
    return Rows([_pad() + Text("+ " + one_line(mark), palette.NOTE)], target)


def message_parts(i: int, message: Any, opened: set, rows: int = FOLD_ROWS,
                  marks: dict[int | None, str] | None = None) -> list[Part]:
    """Every block of message ``i`` (a string content is one text block); ``marks`` (block index, None
    for the whole message -> mark) flags what a client added (``tui.core.client_added``)."""
    if not isinstance(message, dict):
        return [text_part(_json(message), _head("(not a message)"), ("block", i, 0), (i, 0) in opened, rows)]
    blocks = blocks_of(message)
    if not blocks:
        return [Rows([_head("content") + Text(one_line(_json(message.get("content"))), palette.DIM)])]
    out: list[Part] = [added_row(marks[None], ("block", i, 0))] if marks and None in marks else []
    for b, block in enumerate(blocks):
        if marks and b in marks:
            out.append(added_row(marks[b], ("block", i, b)))
        out += block_parts(i, b, block, opened, rows)
    return out
