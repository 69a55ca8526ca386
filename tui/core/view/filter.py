"""The message list's filter: which messages a user wants to see while stepping (Textual-free).

Typed as words (``&`` in the stepper): ``role:user`` (or ``assistant``; ``role:user,assistant``),
``tool:NAME`` (a tool call of that name, or a result answering one), ``finding`` (an error, a
warning or a provenance note), and any other words, which a block's text must hold (ignoring
case, as search does). Every term must hold. The next-request row is always shown. ``rows`` gives
the message indices shown, in order.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.core.run import blocks_of
from tui.core.search import block_text
from tui.core.view.run_view import RunView

TOOL_USES = ("tool_use", "server_tool_use", "mcp_tool_use")


@dataclass(frozen=True)
class MessageFilter:
    """The terms of one filter; an empty filter shows everything."""

    roles: frozenset[str] = frozenset()
    tools: frozenset[str] = frozenset()
    finding: bool = False
    words: str = ""

    @classmethod
    def parse(cls, typed: str) -> MessageFilter:
        roles: set[str] = set()
        tools: set[str] = set()
        finding = False
        words = []
        for term in typed.split():
            low = term.casefold()
            if low.startswith("role:"):
                roles.update(r for r in low[5:].split(",") if r)
            elif low.startswith("tool:"):
                tools.update(t for t in term[5:].split(",") if t)
            elif low in ("finding", "findings"):
                finding = True
            else:
                words.append(term)
        return cls(frozenset(roles), frozenset(tools), finding, " ".join(words))

    def __bool__(self) -> bool:
        return bool(self.roles or self.tools or self.finding or self.words)

    def describe(self) -> str:
        terms = [f"role:{','.join(sorted(self.roles))}"] if self.roles else []
        terms += [f"tool:{','.join(sorted(self.tools))}"] if self.tools else []
        terms += ["finding"] if self.finding else []
        terms += [repr(self.words)] if self.words else []
        return " ".join(terms)

    def rows(self, view: RunView) -> list[int]:
        """The message indices this filter shows (and the next-request row, always)."""
        run = view.run
        names: dict[str, str] = {}
        needle = self.words.casefold()
        shown = []
        for i, message in enumerate(run.messages):
            blocks = blocks_of(message)
            for block in blocks:
                if isinstance(block, dict) and block.get("type") in TOOL_USES:
                    names[str(block.get("id"))] = str(block.get("name"))
            if self.roles and view.role(i).casefold() not in self.roles:
                continue
            if self.tools and not any(self._tool_of(b, names) in self.tools for b in blocks):
                continue
            if self.finding and view.severity(i) is None:
                continue
            if needle and not any(needle in block_text(b).casefold() for b in blocks):
                continue
            shown.append(i)
        shown.append(view.total)  # the next request
        return shown

    @staticmethod
    def _tool_of(block: object, names: dict[str, str]) -> str | None:
        if not isinstance(block, dict):
            return None
        if block.get("type") in TOOL_USES:
            return str(block.get("name"))
        if block.get("type") == "tool_result":
            return names.get(str(block.get("tool_use_id")))
        return None
