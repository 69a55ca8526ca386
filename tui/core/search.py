"""Search every block of a run: text, thinking, tool names and inputs, tool results, the rest as JSON.

``search`` is plain Python run from a worker; it returns the matching (message, block)
pairs in order, and ``Matches`` steps through them from the cursor. Matching is
case-insensitive and literal (no patterns: a user searching for ``a.b`` means a dot).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any, Callable

from tui.core import jsonio
from tui.core.blocks import is_tool_use
from tui.core.run import Run, blocks_of


def block_text(block: Any) -> str:
    """The searchable text of one block."""
    if not isinstance(block, dict):
        return jsonio.dumps(block).decode("utf-8", "replace")
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return block["text"]
    if kind == "thinking" and isinstance(block.get("thinking"), str):
        return block["thinking"]
    if is_tool_use(kind):
        return f"{block.get('name')} {block.get('id')} {jsonio.dumps(block.get('input')).decode('utf-8', 'replace')}"
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, str):
            body = content
        elif isinstance(content, list):
            body = "\n".join(block_text(b) for b in content)
        else:
            body = "" if content is None else jsonio.dumps(content).decode("utf-8", "replace")
        return f"{block.get('tool_use_id')} {body}"
    return jsonio.dumps(block).decode("utf-8", "replace")


def search(run: Run, query: str, cancelled: Callable[[], bool] = lambda: False) -> list[tuple[int, int]]:
    """Every (message index, block index) whose text contains ``query``, ignoring case."""
    needle = query.casefold()
    if not needle:
        return []
    hits = []
    for i, message in enumerate(run.messages):
        if i % 512 == 0 and cancelled():
            break
        for b, block in enumerate(blocks_of(message)):
            if needle in block_text(block).casefold():
                hits.append((i, b))
    return hits


@dataclass
class Matches:
    """The result of one search, and which match the user is on."""

    query: str
    hits: list[tuple[int, int]]
    current: int = -1
    rows: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.rows = sorted({i for i, _ in self.hits})

    def step(self, index: int, direction: int) -> int | None:
        """The next (1) or previous (-1) message with a match, from ``index``; wraps around."""
        if not self.rows:
            return None
        if direction > 0:
            k = bisect_right(self.rows, index)
            k = 0 if k >= len(self.rows) else k
        else:
            k = bisect_left(self.rows, index) - 1
            k = len(self.rows) - 1 if k < 0 else k
        self.current = k
        return self.rows[k]

    def describe(self) -> str:
        if not self.rows:
            return f"no match for {self.query!r}"
        where = f"match {self.current + 1} of {len(self.rows)}" if self.current >= 0 else f"{len(self.rows)} matches"
        return f"{self.query!r}: {where} (messages; {len(self.hits)} blocks in all)"
