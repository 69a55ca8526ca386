"""``turnscope diff A B [--json]``: where two runs diverge, then what changed block by block.

Prints the first message index at which the runs differ, then each change as
``[INDEX.BLOCK] KIND PATH: before -> after`` (system prompt, tool schema and param changes
have no index: they ride in every request). Exit 0 when the runs are the same, 1 when they
differ, 2 when a file cannot be read. ``--json``: ``{"first_divergence": index or null,
"changes":[{"index","block","kind","before","after"}]}`` (plus ``"path"`` where a change
is one value inside a tool input or a JSON result).
"""

from __future__ import annotations

import argparse
from typing import Any

from tui.commands.common import out, write_bytes
from tui.core import jsonio
from tui.core.diff import Change, RunDiff, diff_runs
from tui.core.safe import one_line
from tui.core.summary import describe_block, preview
from tui.formats import format_names, open_run


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("diff", help="first divergence and block-level changes between two runs",
                            description=__doc__.split("\n\n", 1)[1],
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", metavar="A", help="a run file")
    parser.add_argument("b", metavar="B", help="another run file (an edited copy, a branch, a rerun)")
    parser.add_argument("--run-a", type=int, metavar="K", help="which run of A, if it holds several")
    parser.add_argument("--run-b", type=int, metavar="K", help="which run of B, if it holds several")
    parser.add_argument("--format", metavar="NAME", choices=format_names(), help="force a format for both")
    parser.add_argument("--json", action="store_true", help="the divergence and changes as JSON")


def run(args: argparse.Namespace) -> int:
    a = open_run(args.a, run=args.run_a, fmt=args.format)
    b = open_run(args.b, run=args.run_b, fmt=args.format)
    result = diff_runs(a, b)
    if args.json:
        write_bytes(jsonio.dumps(result.as_json()))
    else:
        for line in layout(args.a, args.b, result):
            out(line)
    return 0 if result.same else 1


def _show(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, dict) and "type" in value:
        return one_line(describe_block(value, 50))
    if isinstance(value, dict) and "role" in value:
        return f"{value.get('role')} message"
    return one_line(preview(jsonio.dumps(value).decode("utf-8", "replace"), 50))


def _line(c: Change) -> str:
    where = f"[{c.index}{'' if c.block is None else f'.{c.block}'}]" if c.index is not None else "[request]"
    if c.index_b is not None or c.block_b is not None:
        index_b = c.index if c.index_b is None else c.index_b
        block_b = c.block if c.block_b is None else c.block_b
        where += f" (B [{index_b}{'' if block_b is None else f'.{block_b}'}])"
    path = f" {one_line(c.path)}" if c.path else ""
    return f"{where} {c.kind}{path}: {_show(c.before)} -> {_show(c.after)}"


def layout(path_a: str, path_b: str, result: RunDiff) -> list[str]:
    la, lb = result.lengths
    lines = [f"A {path_a} ({la} messages)", f"B {path_b} ({lb} messages)"]
    if result.same:
        return lines + ["the runs are the same: same messages, system prompt, tools and params"]
    first = result.first_divergence
    if first is None:
        lines.append("the message lists are the same; the requests differ in what rides beside them:")
    else:
        agree = f"messages 0-{first - 1} are the same" if first > 1 else (
            "message 0 is the same" if first == 1 else "they differ from message 0")
        lines.append(f"first divergence: message {first} ({agree})")
    lines += [_line(c) for c in result.changes]
    return lines
