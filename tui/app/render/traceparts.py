"""Rows of the request pane that say where the values in message N's tool calls came from.

Under an assistant turn with ``tool_use`` blocks: for each block, each input value with its
source (message index and producer, block, jq-style path) — or, as a provenance note, **not in
the prefix: produced by the model** (or "not found in the messages" when the source did not record
the system prompt and tools). Words the model writes (descriptions, commands) are not flagged. A sourced row's target is ``("source", N, k)``: Enter on it goes to
the source message with the value marked (``tui.core.provenance.source_text``). Built from a
``Trace`` computed in a worker; until it arrives one row says so.
"""

from __future__ import annotations

from rich.text import Text

from tui.app.render import styles as palette
from tui.app.render.lines import Part, Rows
from tui.core import jsonio
from tui.core.blocks import TOOL_USE_TYPES
from tui.core.provenance import Trace, not_found
from tui.core.run import blocks_of
from tui.core.safe import one_line
from tui.core.summary import preview
from tui.core.valueindex import Place
from tui.core.view.run_view import RunView

HEADING = "Where the tool inputs came from"


def value_text(value) -> str:
    return one_line(preview(jsonio.dumps(value).decode("utf-8", "replace"), 40))


def where(view: RunView, place: Place) -> str:
    """``message 2 (loop) · block 0 · .content | fromjson | .[0].total_cents``."""
    run = view.run
    if place.index == "system":
        head = "the system prompt"
    elif place.index == "tools":
        tools = run.tools if isinstance(run.tools, list) else []
        tool = tools[place.block] if 0 <= place.block < len(tools) else {}
        head = f"tool schema {place.block} ({one_line(str(tool.get('name') if isinstance(tool, dict) else '?'))})"
    else:
        head = f"message {place.index} ({view.producers[place.index].label})"
    span = f" [{place.start}:{place.end}]" if place.start is not None else ""
    block = "" if place.index in ("tools", "system") else f" · block {place.block}"
    return f"{head}{block} · {one_line(place.path)}{span}"


def trace_parts(view: RunView, n: int, trace: Trace | None) -> list[Part]:
    """The provenance rows for message ``n`` (an assistant turn with tool calls)."""
    head = Text.assemble((f" {HEADING} ", palette.HEADING), ("  enter on a value: go to its source", palette.DIM))
    if trace is None:
        return [Rows([head, Text("  tracing every input value through the prefix …", palette.NOTE)])]
    rows: list[Text] = [head]
    targets: list = [None]
    breaks: list[tuple[int, int] | None] = [None]
    values = list(enumerate(trace.values))
    for b, block in enumerate(blocks_of(view.run.messages[n])):
        if not isinstance(block, dict) or block.get("type") not in TOOL_USE_TYPES:
            continue
        rows.append(Text.assemble("  ", (one_line(str(block.get("name"))), "bold"), "  ",
                                  (one_line(str(block.get("id"))), palette.DIM)))
        targets.append(None)
        breaks.append(None)
        mine = [(k, v) for k, v in values if v.block == b]
        if not mine:
            rows.append(Text("    (no input values)", palette.DIM))
            targets.append(None)
            breaks.append(None)
        for k, v in mine:
            row = Text.assemble("    ", (one_line(v.path), palette.LABEL), " = ", value_text(v.value), "  ")
            # Too wide for the pane: the source goes on rows of its own under the path, never wrapped to the margin.
            breaks.append((len(row), 6))
            target = None
            if v.trivial:
                row.append("(trivial: not traced)", palette.DIM)
            elif v.source is None and v.prose:
                row.append("(words the model wrote: not flagged)", palette.DIM)
            elif v.source is None:
                mark, style = palette.MARK["note"]
                row.append(f"{mark} note: {not_found(view.run)}", style)
            else:
                row.append("← " + where(view, v.source))
                if v.by_model:
                    row.append("  (the model's own earlier output)", palette.DIM)
                target = ("source", n, k)
            rows.append(row)
            targets.append(target)
    return [Rows(rows, targets=targets, breaks=breaks)]
