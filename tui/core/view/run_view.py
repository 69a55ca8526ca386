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

from tui.core import jsonio
from tui.core.grammar import ERROR, Finding
from tui.core.producers import Producer, producer_at
from tui.core.run import Run, block_type, blocks_of
from tui.core.safe import one_line
from tui.core.blocks import TOOL_USE_TYPES, is_tool_result, is_tool_use
from tui.core.summary import describe_block
from tui.core.view.analyses import RunAnalyses

#: The class of a provenance note: below the grammar's errors and warnings.
NOTE = "note"

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


#: The input field that says most about a tool call, in order (``Bash  git status``, ``Read  src/app.py``).
TELLING = ("command", "cmd", "file_path", "path", "notebook_path", "filename", "pattern", "url", "query",
           "description", "prompt", "subject", "title", "name")
#: Fields that hold prose the model wrote: quoted, so they read as words (``Task  "Create React…"``).
PROSE = frozenset(("description", "prompt", "query", "subject", "title"))


def _first_line(text: str, width: int) -> str:
    head = text[: width * 4].lstrip()
    line = head.split("\n", 1)[0].replace("\r", "")
    more = len(line) < len(head.rstrip()) or len(text) > width * 4
    flat = " ".join(line.split())
    return flat[: width - 1] + "…" if len(flat) > width or (more and len(flat) == width) else flat + ("…" if more else "")


def _argument(key: str | None, value: Any, width: int) -> str:
    if isinstance(value, str):
        text = _first_line(value, width)
        return f'"{text}"' if key in PROSE else text
    return jsonio.dumps(value).decode("utf-8", "replace")[:width]


def telling_argument(value: Any, width: int = SUMMARY_WIDTH) -> str:
    """The input a person looks for in a tool call: its command, path or pattern; else its plain values
    (``4471 8900``); ``""`` when it has none."""
    if not isinstance(value, dict):
        return "" if value is None else _argument(None, value, width)
    for key in TELLING:
        found = value.get(key)
        if isinstance(found, str) and found.strip():
            return _argument(key, found, width)
    plain = [(k, v) for k, v in value.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)
             and (not isinstance(v, str) or v.strip())]
    return " ".join(_argument(k, v, max(width // max(len(plain), 1), 8)) for k, v in plain[:4])


def result_output(block: dict, width: int) -> str:
    """The first line of a tool result's output (its first text, when the content is blocks)."""
    content = block.get("content")
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        content = texts[0] if texts else (f"({len(content)} blocks)" if content else "")
    if not isinstance(content, str):
        return "" if content is None else jsonio.dumps(content).decode("utf-8", "replace")[:width]
    return _first_line(content, width)


def block_phrase(block: Any, width: int, names: dict[str, str] | None = None) -> str:
    """A block as a person scans for it: ``Bash  git status``; ``↳ Bash ✗ ERROR  exit 1``; a text quoted."""
    kind = block_type(block)
    if isinstance(block, dict) and kind == "text" and isinstance(block.get("text"), str):
        return _quote(block["text"], width)
    if isinstance(block, dict) and is_tool_use(kind):
        argument = telling_argument(block.get("input"), width)
        return f"{block.get('name')}  {argument}" if argument else str(block.get("name"))
    if isinstance(block, dict) and is_tool_result(kind):
        tool = (names or {}).get(str(block.get("tool_use_id"))) or f"result {block.get('tool_use_id')}"
        error = " ✗ ERROR" if block.get("is_error") else ""
        output = result_output(block, width)
        return f"↳ {tool}{error}" + (f"  {output}" if output else "")
    return describe_block(block, width)


def summary_of(message: Any, width: int = SUMMARY_WIDTH, names: dict[str, str] | None = None) -> str:
    """One safe line for a message: its blocks as people scan for them (the tool and its telling argument,
    a result's tool and first line), text cut before it is flattened (texts can be MBs). ``names`` maps
    tool_use ids to tool names, so a result says which tool it answers."""
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
    share = width if len(content) == 1 else width // 2
    shown = content[:12]
    calls = [b for b in shown if isinstance(b, dict) and b.get("type") in TOOL_USE_TYPES]
    if calls:  # the calls are what a person scans for: first, the words around them after
        shown = calls + [b for b in shown if not (isinstance(b, dict) and b.get("type") in TOOL_USE_TYPES)]
    for block in shown:
        parts.append(block_phrase(block, share, names))
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
        self._note_rows: list[int] = []
        self._unsourced_rows: set[int] = set()
        self._summaries: dict[int, str] = {}
        self._call_rows = [call.message for call in run.calls]
        self._tools: list[tuple[int, str, str]] | None = None
        self.analyses = RunAnalyses(run)  # token report and provenance, filled by workers

    def grow(self, run: Run) -> None:
        """Follow mode read more of the file: ``run`` is the run now. Per-row caches start again
        (they are per row shown, so cheap); the findings and provenance warnings of the run before
        stand, their indices unchanged, until a worker checks the run again; the token report
        is computed again for the new run."""
        self.run = run
        self.total = len(run.messages)
        self.producers = Producers(run)
        self._summaries = {}
        self._call_rows = [call.message for call in run.calls]
        self._tools = None
        unsourced = self.analyses.unsourced
        self.analyses = RunAnalyses(run)
        self.analyses.unsourced = unsourced

    # -- rows ----------------------------------------------------------------------------

    @property
    def rows(self) -> int:
        """Messages plus the next request (the state the loop holds after the last message)."""
        return self.total + 1

    def summary(self, i: int) -> str:
        found = self._summaries.get(i)
        if found is None:
            found = self._summaries[i] = summary_of(self.run.messages[i], names=self.answered_names(i))
        return found

    def answered_names(self, i: int, back: int = 4) -> dict[str, str]:
        """tool_use id -> tool name for the calls of the few messages before ``i`` (the calls its results answer)."""
        names: dict[str, str] = {}
        for k in range(max(i - back, 0), i):
            for block in blocks_of(self.run.messages[k]):
                if isinstance(block, dict) and block.get("type") in TOOL_USE_TYPES:
                    names[str(block.get("id"))] = str(block.get("name"))
        return names

    @property
    def branch_at(self) -> int | None:
        """The branch index of a branch file (its lineage's ``at``): the rows after it are new; None for a run."""
        at = (self.run.lineage or {}).get("at") if isinstance(self.run.lineage, dict) else None
        return at if isinstance(at, int) and not isinstance(at, bool) else None

    def branch_mark(self, i: int) -> str:
        """``+`` on a message the branch added (after its index), ``*`` on the edited message N, else a space."""
        at = self.branch_at
        if at is None or i < at:
            return " "
        return "*" if i == at else "+"

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
        self._finding_rows = sorted(self._severity)
        self._note_rows = sorted(self._unsourced_rows - set(self._severity))

    def severity(self, i: int) -> str | None:
        """The worst finding at ``i``: error, warning, or (a class below them) a provenance ``note``."""
        found = self._severity.get(i)
        if found is None and i in self._unsourced_rows:
            return NOTE
        return found

    def counts(self) -> tuple[int, int, int]:
        """Errors, warnings and provenance notes of the run (as far as computed)."""
        errors = sum(1 for f in self.findings or [] if f.severity == ERROR)
        return errors, len(self.findings or []) - errors, len(self.analyses.unsourced or [])

    def findings_at(self, i: int) -> list[Finding]:
        return [f for f in self.findings or [] if f.index == i]

    # -- navigation ----------------------------------------------------------------------

    def next_call(self, i: int, step: int) -> int | None:
        """The message produced by the next (``step`` 1) or previous (-1) model call from row ``i``."""
        return _neighbour(self._call_rows, i, step)

    def next_finding(self, i: int, step: int) -> int | None:
        """The next (previous) error or warning; only past the last of those, the next provenance note."""
        found = _neighbour(self._finding_rows, i, step)
        return found if found is not None else _neighbour(self._note_rows, i, step)

    def tool_calls(self) -> list[tuple[int, str, str]]:
        """``(index, name, id)`` of every tool_use block, built on first use (the command palette)."""
        if self._tools is None:
            found = []
            for i, message in enumerate(self.run.messages):
                if not isinstance(message, dict) or message.get("role") != "assistant":
                    continue
                for block in blocks_of(message):
                    if isinstance(block, dict) and block.get("type") in TOOL_USE_TYPES:
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
