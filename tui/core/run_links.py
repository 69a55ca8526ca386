"""Links between the runs of one file: a subagent (``Task``) call and the run of the subagent it started,
and the parts of a session before and after a compaction.

A Claude Code session file holds the main thread, its subagents (inline sidechains or the files
beside it) and the part before each compaction, each a run of its own. A ``Task`` call's ``prompt``
is the first user text of the subagent's run: that is the link, both ways, whatever file the
subagent came from. The compaction links are recorded by the loader in ``Run.meta``
(``COMPACTED_FROM``: the run index of the part before this run's compaction; ``COMPACTED_INTO``:
the part after this one's). Pure: runs in, indices out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.run import Run, blocks_of

#: Run meta keys written by a loader (run indices in the same file).
COMPACTED_FROM, COMPACTED_INTO = "compacted_from", "compacted_into"
#: The tool names of a subagent call (Claude Code named it ``Task``, later ``Agent``).
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})


@dataclass(frozen=True)
class Link:
    """A way from one place to another run: ``run`` (an index in the file's runs) at message ``at``."""

    run: int
    at: int
    what: str  # "the subagent's", "before the compaction", ...


def _prompt(block: Any) -> str | None:
    if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") in SUBAGENT_TOOLS:
        inputs = block.get("input")
        prompt = inputs.get("prompt") if isinstance(inputs, dict) else None
        if isinstance(prompt, str) and prompt.strip():
            return prompt.strip()
    return None


def _first_texts(run: Run) -> set[str]:
    """The text blocks of the run's first user message (a client's reminder may come before the prompt)."""
    first = next((m for m in run.messages if isinstance(m, dict) and m.get("role") == "user"), None)
    return {b["text"].strip() for b in blocks_of(first)
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)}


class RunLinks:
    """The links of every run of one file, computed once (on first use of each run)."""

    def __init__(self, runs: list[Run]):
        self.runs = runs
        self._by_prompt: dict[str, int] | None = None

    def _prompts(self) -> dict[str, int]:
        if self._by_prompt is None:
            by: dict[str, int] = {}
            for k, run in enumerate(self.runs):
                for text in _first_texts(run):
                    by.setdefault(text, k)
            self._by_prompt = by
        return self._by_prompt

    def at(self, run: int, index: int) -> Link | None:
        """Where message ``index`` of run ``run`` leads: a subagent call's run (at its first message), or,
        at the first message of a part after a compaction, the part before (at its last message); at the
        last message of a part before a compaction, the part after."""
        here = self.runs[run]
        if 0 <= index < len(here.messages):
            for block in blocks_of(here.messages[index]):
                prompt = _prompt(block)
                target = self._prompts().get(prompt) if prompt else None
                if target is not None and target != run:
                    return Link(target, 0, "the subagent's")
        meta = here.meta if isinstance(here.meta, dict) else {}
        before, after = meta.get(COMPACTED_FROM), meta.get(COMPACTED_INTO)
        if index == 0 and self._valid(before):
            return Link(before, max(len(self.runs[before].messages) - 1, 0), "before the compaction")
        if index == len(here.messages) - 1 and self._valid(after):
            return Link(after, 0, "after the compaction")
        return None

    def started_by(self, run: int) -> tuple[int, int] | None:
        """The (run, message) of the subagent call that started run ``run``, or None."""
        texts = _first_texts(self.runs[run])
        if not texts:
            return None
        for k, other in enumerate(self.runs):
            if k == run:
                continue
            for i, message in enumerate(other.messages):
                if isinstance(message, dict) and message.get("role") == "assistant":
                    if any(_prompt(b) in texts for b in blocks_of(message)):
                        return k, i
        return None

    def _valid(self, k: Any) -> bool:
        return isinstance(k, int) and not isinstance(k, bool) and 0 <= k < len(self.runs)
