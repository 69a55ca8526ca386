"""``turnscope trace FILE [--at N] [--json]``: where each value in the tool calls of message N came from.

For every scalar in the inputs of message N's tool_use blocks: the earliest message of the
prefix holding it, with block and jq-style path (looking inside tool results that are JSON
text), else the system prompt or tool schemas; a value found nowhere is flagged
NOT IN THE PREFIX: produced by the model. Booleans, null and values shorter than two
characters are trivial: listed, never traced. Without ``--at``, every turn with tool calls.
``--json``: ``{"at":N,"values":[{"tool_use_id","path","value","source":{"index","block","path"}
or null}]}`` (trivial values under ``"trivial"``), one line per turn without ``--at``.
"""

from __future__ import annotations

import argparse

from tui.commands.common import add_file_options, location, open_from_args, out, write_bytes
from tui.commands.helptext import HelpFormatter
from tui.core import jsonio
from tui.core.errors import UsageError
from tui.core.prefix import check_index
from tui.core.producers import producers
from tui.core.blocks import TOOL_USE_TYPES
from tui.core.provenance import NOT_IN_PREFIX, Provenance, Trace, not_found
from tui.core.run import Run, blocks_of
from tui.core.safe import one_line
from tui.core.summary import json_preview
from tui.core.words import counted

FLAG = "NOT IN THE PREFIX: " + NOT_IN_PREFIX.split(": ", 1)[1]  # "NOT IN THE PREFIX: produced by the model"


def flag(r: Run) -> str:
    """The flag of an unfound value: produced by the model only when the system prompt and tools were recorded."""
    found = not_found(r)
    return FLAG if found == NOT_IN_PREFIX else found.upper()


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("trace", help="where each tool input value of message N came from",
                            description=__doc__.split("\n\n", 1)[1],
                            formatter_class=HelpFormatter)
    add_file_options(parser)
    parser.add_argument("--at", type=int, default=None, metavar="N", help="message index (default: every tool turn)")
    parser.add_argument("--json", action="store_true", help="values and sources as JSON")


def run(args: argparse.Namespace) -> int:
    r = open_from_args(args)
    provenance = Provenance(r)
    if args.at is not None:
        n = check_index(r, args.at)
        if n == len(r.messages):
            raise UsageError(f"message {n} does not exist yet: the run has {counted(n, 'message')} (0..{n - 1})")
        indices = [n]
    else:
        indices = [i for i, m in enumerate(r.messages)
                   if any(isinstance(b, dict) and b.get("type") in TOOL_USE_TYPES for b in blocks_of(m))]
    table = producers(r)
    traces = [provenance.trace(i) for i in indices]
    if args.json:
        for t in traces:
            write_bytes(jsonio.dumps(t.as_json()))
        return 0
    if not traces:
        out(f"{location(r)}: no message has tool_use blocks: nothing to trace")
    for k, t in enumerate(traces):
        if k:
            out()
        for line in layout(r, t, table):
            out(line)
    return 0


def _value(value) -> str:
    return one_line(json_preview(value, 40))


def _where(r: Run, place, table) -> str:
    if place.index == "system":
        head = "the system prompt"
    elif place.index == "tools":
        tool = r.tools[place.block] if isinstance(r.tools, list) and place.block < len(r.tools) else {}
        head = f"tool schema {place.block} ({tool.get('name') if isinstance(tool, dict) else '?'})"
    else:
        head = f"message {place.index} ({table[place.index].label})"
    span = f" [{place.start}:{place.end}]" if place.start is not None else ""
    block = "" if place.index == "tools" else f" block {place.block}"
    return f"{head}{block} {one_line(place.path)}{span}"


def layout(r: Run, t: Trace, table) -> list[str]:
    traced = t.traced
    lines = [f"message {t.at} ({table[t.at].label}): {t.tool_uses} tool_use block{'s' if t.tool_uses != 1 else ''}, "
             f"{len(traced)} value{'s' if len(traced) != 1 else ''} traced"
             + (f", {len(t.unsourced)} not in the prefix" if t.unsourced else "")]
    if not t.tool_uses:
        lines.append("  (no tool_use blocks: nothing to trace)")
    current = None
    for v in t.values:
        if (v.block, v.tool_use_id) != current:
            current = (v.block, v.tool_use_id)
            lines.append(f"  block {v.block}: {one_line(str(v.name))} {one_line(str(v.tool_use_id))}")
        if v.trivial:
            lines.append(f"    {one_line(v.path)} = {_value(v.value)}  (trivial: not traced)")
        elif v.source is None and v.prose:
            lines.append(f"    {one_line(v.path)} = {_value(v.value)}  (words the model wrote: not flagged)")
        elif v.source is None:
            lines.append(f"    {one_line(v.path)} = {_value(v.value)}  {flag(r)}")
        else:
            own = "  (the model's own earlier output)" if v.by_model else ""
            lines.append(f"    {one_line(v.path)} = {_value(v.value)}  <- {_where(r, v.source, table)}{own}")
    return lines
