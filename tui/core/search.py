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
from tui.core.blocks import is_tool_use, result_text
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
        return f"{block.get('tool_use_id')} {result_text(block.get('content'), block_text)}"
    return jsonio.dumps(block).decode("utf-8", "replace")


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "" if value is None else jsonio.dumps(value).decode("utf-8", "replace")


def search_beside(run: Run, query: str) -> list[str]:
    """Where ``query`` is in what rides beside the messages in every request: ``system`` (the system
    prompt), then ``tool NAME`` for each tool whose name, description or input schema holds it."""
    needle = query.casefold()
    if not needle:
        return []
    places = ["system"] if run.system is not None and needle in _text(run.system).casefold() else []
    for tool in run.tools or []:
        if needle in _text(tool).casefold():
            name = tool.get("name") if isinstance(tool, dict) else None
            places.append(f"tool {name if isinstance(name, str) else '?'}")
    return places


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
    #: Where else it matched: the system prompt, tools (``search_beside``), shown with every request.
    beside: list[str] = field(default_factory=list)
    #: The last step went past the last match to the first (1), or before the first to the last (-1).
    wrapped: int = 0

    def __post_init__(self) -> None:
        self.rows = sorted({i for i, _ in self.hits})

    def step(self, index: int, direction: int) -> int | None:
        """The next (1) or previous (-1) message with a match, from ``index``; wraps around."""
        if not self.rows:
            return None
        self.wrapped = 0
        if direction > 0:
            k = bisect_right(self.rows, index)
            if k >= len(self.rows):
                k, self.wrapped = 0, 1
        else:
            k = bisect_left(self.rows, index) - 1
            if k < 0:
                k, self.wrapped = len(self.rows) - 1, -1
        self.current = k
        return self.rows[k]

    def describe(self) -> str:
        beside = self._beside()
        if not self.rows:
            return f"{self.query!r}: no message matches{'; in ' + beside if beside else ''}" if beside \
                else f"no match for {self.query!r}"
        where = f"match {self.current + 1} of {len(self.rows)}" if self.current >= 0 else f"{len(self.rows)} matches"
        wrapped = {1: ", wrapped to the top", -1: ", wrapped to the bottom"}.get(self.wrapped, "")
        return (f"{self.query!r}: {where}{wrapped} (messages; {len(self.hits)} blocks in all)"
                + (f"; also in {beside}" if beside else ""))

    def _beside(self) -> str:
        """``the system prompt (s), 2 tools: Bash, Read (t)``."""
        words = []
        if "system" in self.beside:
            words.append("the system prompt (s)")
        tools = [p[5:] for p in self.beside if p.startswith("tool ")]
        if tools:
            shown = ", ".join(tools[:3]) + (f" +{len(tools) - 3}" if len(tools) > 3 else "")
            words.append(f"{len(tools)} tool{'s' * (len(tools) != 1)}: {shown} (t)")
        return ", ".join(words)
