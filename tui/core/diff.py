"""The difference between two runs: where they diverge, then what changed, block by block.

``first_divergence`` is the first message index at which the two message lists differ
(a message changed, or one run has a message the other lacks); None when the lists are
equal. From there on, messages (and, inside a changed message, blocks) are aligned as
sequences (difflib), so an inserted or dropped message or block shows as one addition or
removal rather than shifting everything after it; ``index`` and ``block`` are positions in
A (in B for additions), and ``index_b``/``block_b`` give B's position where it differs.
The kinds:

- ``message_added`` / ``message_removed`` (B has a message A lacks, or the reverse),
  ``role_changed``;
- ``block_added`` / ``block_removed``, ``block_type_changed``;
- ``text_changed``, ``thinking_changed``, ``tool_name_changed``, ``tool_id_changed``,
  ``tool_input_changed`` (one per changed value, with its jq-style path),
  ``tool_result_changed`` (one per changed value when both contents are JSON text, else
  the whole content), ``tool_result_error_changed``, ``block_changed`` (anything else);
- ``system_changed``, ``tools_changed`` (one per tool added, removed or changed, matched by
  name; the path is its position in B, or in A when B lacks it),
  ``params_changed``: these ride in every request, so they carry ``index`` None.

Messages are compared as parsed JSON, so key order and whitespace do not count. The
result is plain data for the ``diff`` verb and the stepper's side-by-side screen
(``aligned`` pairs every message from the divergence on, the equal ones too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import difflib
from typing import Iterator

import orjson

from tui.core.blocks import is_tool_use
from tui.core.run import Run, block_type, blocks_of
from tui.core.safe import one_line
from tui.core.summary import describe_block, json_preview
from tui.core.valueindex import walk

MISSING = object()


@dataclass
class Change:
    """One difference between two runs: where (index, block, path; B's own index where it differs) and what."""

    index: int | None
    block: int | None
    kind: str
    before: Any
    after: Any
    path: str | None = None
    index_b: int | None = None  # B's position, where it differs from ``index``
    block_b: int | None = None

    def where(self) -> str:
        """``[5.0]``, ``[2] (B [3])``, ``[request]`` for what rides beside the messages."""
        if self.index is None:
            return "[request]"
        where = f"[{self.index}{'' if self.block is None else f'.{self.block}'}]"
        if self.index_b is not None or self.block_b is not None:
            index_b = self.index if self.index_b is None else self.index_b
            block_b = self.block if self.block_b is None else self.block_b
            where += f" (B [{index_b}{'' if block_b is None else f'.{block_b}'}])"
        return where

    def describe(self, width: int = 50) -> str:
        """One safe line: ``[5.0] tool_input_changed .input.order_id: "4471" -> "4417"``."""
        path = f" {one_line(self.path)}" if self.path else ""
        return f"{self.where()} {self.kind}{path}: {show_value(self.before, width)} -> {show_value(self.after, width)}"

    def as_json(self) -> dict[str, Any]:
        doc = {"index": self.index, "block": self.block, "kind": self.kind, "before": self.before, "after": self.after}
        if self.path is not None:
            doc["path"] = self.path
        if self.index_b is not None:
            doc["index_b"] = self.index_b
        if self.block_b is not None:
            doc["block_b"] = self.block_b
        return doc


@dataclass
class RunDiff:
    """Two runs compared: the first index where the messages diverge, every change, and each run's length."""

    first_divergence: int | None
    changes: list[Change]
    lengths: tuple[int, int]

    @property
    def same(self) -> bool:
        return not self.changes

    def as_json(self) -> dict[str, Any]:
        return {"first_divergence": self.first_divergence, "changes": [c.as_json() for c in self.changes]}


def show_value(value: Any, width: int = 50) -> str:
    """A before or after value in one safe line: a block described, a message by role, else its JSON."""
    if value is None:
        return "(none)"
    if isinstance(value, dict) and "type" in value:
        return one_line(describe_block(value, width))
    if isinstance(value, dict) and "role" in value:
        return f"{one_line(str(value.get('role')))} message"
    return one_line(json_preview(value, width))


def first_divergence(a: list[Any], b: list[Any]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def diff_runs(a: Run, b: Run) -> RunDiff:
    changes = _fixed_changes(a, b)
    start = first_divergence(a.messages, b.messages)
    if start is not None:
        for i, k in _align(a.messages, b.messages, start):
            if k is None:
                changes.append(Change(i, None, "message_removed", a.messages[i], None))
            elif i is None:
                changes.append(Change(k, None, "message_added", None, b.messages[k]))
            else:
                for change in _message_changes(i, a.messages[i], b.messages[k]):
                    change.index_b = k if k != i else None
                    changes.append(change)
    return RunDiff(start, changes, (len(a.messages), len(b.messages)))


def aligned(a: list[Any], b: list[Any], start: int | None) -> Iterator[tuple[int | None, int | None, bool]]:
    """Every position from ``start`` on, both lists side by side: ``(i, k, same)``; ``i`` None where B
    has a message A lacks, ``k`` None for the reverse. For a side-by-side view of two runs."""
    if start is None:
        return
    matcher = difflib.SequenceMatcher(None, [_key(x) for x in a[start:]], [_key(y) for y in b[start:]],
                                      autojunk=False)
    for op, i1, i2, k1, k2 in matcher.get_opcodes():
        if op == "equal":
            for d in range(i2 - i1):
                yield start + i1 + d, start + k1 + d, True
            continue
        pairs = min(i2 - i1, k2 - k1)
        for d in range(pairs):
            yield start + i1 + d, start + k1 + d, False
        for i in range(i1 + pairs, i2):
            yield start + i, None, False
        for k in range(k1 + pairs, k2):
            yield None, start + k, False


def _key(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return repr(value).encode()


def _align(xs: list[Any], ys: list[Any], start: int = 0) -> Iterator[tuple[int | None, int | None]]:
    """Pairs ``(i, k)`` of differing items: matched for a change, ``(i, None)`` removed, ``(None, k)`` added."""
    for i, k, same in aligned(xs, ys, start):
        if not same:
            yield i, k


def _fixed_changes(a: Run, b: Run) -> list[Change]:
    out = []
    if a.system != b.system:
        out.append(Change(None, None, "system_changed", a.system, b.system))
    tools_a, tools_b = _by_name(a.tools), _by_name(b.tools)
    for name in list(tools_a) + [n for n in tools_b if n not in tools_a]:
        (k_a, before), (k_b, after) = tools_a.get(name, (None, None)), tools_b.get(name, (None, None))
        if before != after:
            out.append(Change(None, None, "tools_changed", before, after, path=f".tools[{k_b if k_b is not None else k_a}]"))
    for key in list(a.params) + [k for k in b.params if k not in a.params]:
        if a.params.get(key, MISSING) != b.params.get(key, MISSING):
            out.append(Change(None, None, "params_changed", a.params.get(key), b.params.get(key), path=f".{key}"))
    return out


def _by_name(tools: Any) -> dict[str, tuple[int, Any]]:
    """Tool name -> (position, schema); tools are matched by name, so reordering is not a change."""
    if not isinstance(tools, list):
        return {}
    return {str(t.get("name")) if isinstance(t, dict) else f"#{k}": (k, t) for k, t in enumerate(tools)}


def _message_changes(i: int, x: Any, y: Any) -> list[Change]:
    role_x = x.get("role") if isinstance(x, dict) else None
    role_y = y.get("role") if isinstance(y, dict) else None
    out = []
    if role_x != role_y:
        out.append(Change(i, None, "role_changed", role_x, role_y))
    bx, by = blocks_of(x), blocks_of(y)
    for j, m in _align(bx, by):
        if m is None:
            out.append(Change(i, j, "block_removed", bx[j], None))
        elif j is None:
            out.append(Change(i, m, "block_added", None, by[m]))
        else:
            for change in _block_changes(i, j, bx[j], by[m]):
                change.block_b = m if m != j else None
                out.append(change)
    if not out:  # same blocks, other differences (string vs list content, extra keys)
        out.append(Change(i, None, "message_changed", x, y))
    return out


def _block_changes(i: int, j: int, x: Any, y: Any) -> list[Change]:
    kind_x, kind_y = block_type(x), block_type(y)
    if kind_x != kind_y or not isinstance(x, dict) or not isinstance(y, dict):
        return [Change(i, j, "block_type_changed", x, y)]
    out: list[Change] = []
    if kind_x == "text":
        out.append(Change(i, j, "text_changed", x.get("text"), y.get("text"), ".text"))
    elif kind_x == "thinking":
        out.append(Change(i, j, "thinking_changed", x.get("thinking"), y.get("thinking"), ".thinking"))
    elif is_tool_use(kind_x):
        if x.get("name") != y.get("name"):
            out.append(Change(i, j, "tool_name_changed", x.get("name"), y.get("name"), ".name"))
        if x.get("id") != y.get("id"):
            out.append(Change(i, j, "tool_id_changed", x.get("id"), y.get("id"), ".id"))
        out += _value_changes(i, j, "tool_input_changed", x.get("input"), y.get("input"), ".input")
    elif kind_x == "tool_result":
        if bool(x.get("is_error")) != bool(y.get("is_error")):
            out.append(Change(i, j, "tool_result_error_changed", x.get("is_error"), y.get("is_error"), ".is_error"))
        if x.get("tool_use_id") != y.get("tool_use_id"):
            out.append(Change(i, j, "tool_id_changed", x.get("tool_use_id"), y.get("tool_use_id"), ".tool_use_id"))
        if x.get("content") != y.get("content"):
            out += _result_changes(i, j, x.get("content"), y.get("content"))
    if not out:
        out.append(Change(i, j, "block_changed", x, y))
    return out


def _result_changes(i: int, j: int, x: Any, y: Any) -> list[Change]:
    px, py = _json_text(x), _json_text(y)
    if px is not MISSING and py is not MISSING:
        return _value_changes(i, j, "tool_result_changed", px, py, ".content | fromjson | ")
    return [Change(i, j, "tool_result_changed", x, y, ".content")]


def _json_text(value: Any) -> Any:
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return MISSING
    return MISSING


def _value_changes(i: int, j: int, kind: str, x: Any, y: Any, prefix: str) -> list[Change]:
    """One change per scalar path whose value differs (added and removed paths included)."""
    flat_x = {p: v for p, v, key in walk(x, "") if not key}
    flat_y = {p: v for p, v, key in walk(y, "") if not key}
    out = []
    for path in list(flat_x) + [p for p in flat_y if p not in flat_x]:
        before, after = flat_x.get(path, MISSING), flat_y.get(path, MISSING)
        if before != after or type(before) is not type(after):
            out.append(Change(i, j, kind, None if before is MISSING else before,
                              None if after is MISSING else after, _join(prefix, path)))
    if not out and x != y:  # containers differ without a scalar differing (an empty object added)
        out.append(Change(i, j, kind, x, y, prefix.rstrip(" |") or "."))
    return out


def _join(prefix: str, path: str) -> str:
    if prefix.endswith("| "):
        return prefix + path
    return prefix + (path if path != "." else "")
