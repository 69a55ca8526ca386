"""What the stepper knows about one run, computed once or per index on demand.

A ``RunView`` wraps a ``Run`` with the lookups the screens ask for on every step — the
producer of an index, its one-line summary, the next model call or finding, the tool
calls by name and id — cached so that a step costs the same at index 20,000 as at index
0. Nothing here walks the whole run on the way to the first screen: producers and
summaries are computed per row shown, findings arrive from a worker (``set_findings``).
No Textual here; the widgets only read.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

from tui.core.view.analyses import RunAnalyses
from tui.core.grammar import ERROR, WARNING, Finding
from tui.core.producers import Producer, producer_at
from tui.core.run import Run, block_type, blocks_of
from tui.core.safe import one_line
from tui.core.summary import describe_block

SUMMARY_WIDTH = 72


class Producers(Sequence):
    """``producers(run)`` as a lazy sequence: each index is computed when first asked for."""

    def __init__(self, run: Run):
        self.run = run
        self._cache: dict[int, Producer] = {}

    def __len__(self) -> int:
        return len(self.run.messages)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        found = self._cache.get(i)
        if found is None:
            found = self._cache[i] = producer_at(self.run, i)
        return found


def summary_of(message: Any, width: int = SUMMARY_WIDTH) -> str:
    """One safe line for a message: its blocks, text cut before it is flattened (texts can be MBs)."""
    if not isinstance(message, dict):
        return one_line(f"({type(message).__name__})")
    content = message.get("content")
    if isinstance(content, str):
        return one_line(_quote(content, width))
    if not isinstance(content, list):
        return one_line(f"({type(content).__name__} content)")
    if not content:
        return "(empty)"
    parts = []
    for block in content[:12]:
        if isinstance(block, dict) and block_type(block) == "text" and isinstance(block.get("text"), str):
            parts.append(_quote(block["text"], width // 2))
        else:
            parts.append(describe_block(block, width // 2))
    if len(content) > 12:
        parts.append(f"+{len(content) - 12} blocks")
    return one_line(", ".join(parts))


def _quote(text: str, width: int) -> str:
    flat = " ".join(text[: width * 4].split())
    cut = len(flat) > width or len(text) > width * 4
    return '"' + (flat[: width - 1] + "…" if cut else flat) + '"'


class RunView:
    """A run plus per-index caches; ``total`` rows are messages, row ``total`` is the next request."""

    def __init__(self, run: Run):
        self.run = run
        self.total = len(run.messages)
        self.producers = Producers(run)
        self.findings: list[Finding] | None = None
        self._severity: dict[int, str] = {}
        self._finding_rows: list[int] = []
        self._unsourced_rows: set[int] = set()
        self._summaries: dict[int, str] = {}
        self._call_rows = [call.message for call in run.calls]
        self._tools: list[tuple[int, str, str]] | None = None
        self.analyses = RunAnalyses(run)  # token report and provenance, filled by workers

    # -- rows ----------------------------------------------------------------------------

    @property
    def rows(self) -> int:
        """Messages plus the next request (the state the loop holds after the last message)."""
        return self.total + 1

    def summary(self, i: int) -> str:
        found = self._summaries.get(i)
        if found is None:
            found = self._summaries[i] = summary_of(self.run.messages[i])
        return found

    def role(self, i: int) -> str:
        message = self.run.messages[i]
        role = message.get("role") if isinstance(message, dict) else None
        return one_line(str(role)) if role is not None else "?"

    def stop_reason(self, i: int) -> str | None:
        """The recorded stop_reason, or the one the blocks imply in parentheses (nothing recorded it)."""
        producer = self.producers[i]
        if producer.stop_reason is None:
            return None
        stop = one_line(str(producer.stop_reason))
        return f"({stop})" if producer.stop_inferred else stop

    # -- findings ------------------------------------------------------------------------

    def set_findings(self, findings: list[Finding]) -> None:
        self.findings = findings
        severity: dict[int, str] = {}
        for finding in findings:
            if finding.index is not None and severity.get(finding.index) != ERROR:
                severity[finding.index] = finding.severity
        self._severity = severity
        self._marks_changed()

    def set_unsourced(self, unsourced: list) -> None:
        """Provenance warnings arrived: tool inputs no earlier message holds (``RunAnalyses.unsourced``)."""
        self.analyses.unsourced = unsourced
        self._marks_changed()

    def _marks_changed(self) -> None:
        self._unsourced_rows = {i for i, _ in self.analyses.unsourced or []}
        self._finding_rows = sorted(set(self._severity) | self._unsourced_rows)

    def severity(self, i: int) -> str | None:
        """The worst finding at ``i``; a provenance warning counts as a warning."""
        found = self._severity.get(i)
        if found is None and i in self._unsourced_rows:
            return WARNING
        return found

    def findings_at(self, i: int) -> list[Finding]:
        return [f for f in self.findings or [] if f.index == i]

    # -- navigation ----------------------------------------------------------------------

    def next_call(self, i: int, step: int) -> int | None:
        """The message produced by the next (``step`` 1) or previous (-1) model call from row ``i``."""
        return _neighbour(self._call_rows, i, step)

    def next_finding(self, i: int, step: int) -> int | None:
        return _neighbour(self._finding_rows, i, step)

    def tool_calls(self) -> list[tuple[int, str, str]]:
        """``(index, name, id)`` of every tool_use block, built on first use (the command palette)."""
        if self._tools is None:
            found = []
            for i, message in enumerate(self.run.messages):
                if not isinstance(message, dict) or message.get("role") != "assistant":
                    continue
                for block in blocks_of(message):
                    if isinstance(block, dict) and block.get("type") in ("tool_use", "server_tool_use", "mcp_tool_use"):
                        found.append((i, one_line(str(block.get("name"))), one_line(str(block.get("id")))))
            self._tools = found
        return self._tools

    def tool_names(self) -> dict[str, list[int]]:
        names: dict[str, list[int]] = {}
        for i, name, _ in self.tool_calls():
            rows = names.setdefault(name, [])
            if not rows or rows[-1] != i:
                rows.append(i)
        return names


def _neighbour(rows: list[int], i: int, step: int) -> int | None:
    if step > 0:
        k = bisect_right(rows, i)
        return rows[k] if k < len(rows) else None
    k = bisect_left(rows, i) - 1
    return rows[k] if k >= 0 else None
