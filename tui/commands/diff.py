"""``turnscope diff A B [--json] [--tui]``: where two runs diverge, then what changed block by block.

Prints the first message index at which the runs differ, then each change as
``[INDEX.BLOCK] KIND PATH: before -> after`` (system prompt, tool schema and param changes
have no index: they ride in every request). Exit 0 when the runs are the same, 1 when they
differ, 2 when a file cannot be read. ``--json``: ``{"first_divergence": index or null,
"changes":[{"index","block","kind","before","after"}]}`` (plus ``"path"`` where a change
is one value inside a tool input or a JSON result).
"""

from __future__ import annotations

import argparse
from tui.commands.common import location, out, write_bytes
from tui.commands.helptext import HelpFormatter
from tui.core import collector
from tui.core import jsonio
from tui.core.diff import RunDiff, diff_runs
from tui.core.words import counted
from tui.formats import format_names, open_run


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("diff", help="first divergence and block-level changes between two runs",
                            description=__doc__.split("\n\n", 1)[1],
                            formatter_class=HelpFormatter)
    parser.add_argument("a", metavar="A", help="a run file")
    parser.add_argument("b", metavar="B", help="another run file (an edited copy, a branch, a rerun)")
    parser.add_argument("--run-a", type=int, metavar="K", help="which run of A, if it holds several")
    parser.add_argument("--run-b", type=int, metavar="K", help="which run of B, if it holds several")
    parser.add_argument("--format", metavar="NAME", choices=format_names(), help="force a format for both")
    parser.add_argument("--json", action="store_true", help="the divergence and changes as JSON")
    parser.add_argument("--tui", action="store_true", help="open the side-by-side diff screen instead (Escape: "
                                                           "the stepper on A)")


def run(args: argparse.Namespace) -> int:
    if args.tui:
        return _tui(args)
    a = open_run(args.a, run=args.run_a, fmt=args.format)
    b = open_run(args.b, run=args.run_b, fmt=args.format)
    result = diff_runs(a, b)
    if args.json:
        write_bytes(jsonio.dumps(result.as_json()))
    else:
        for line in layout(location(a), location(b), result):
            out(line)
    return 0 if result.same else 1


def _tui(args: argparse.Namespace) -> int:
    from tui.app.factory import make_app  # Textual only when the screen is asked for

    app = make_app(args.a, run=args.run_a, fmt=args.format, diff=args.b, diff_run=args.run_b)
    collector.for_the_app()  # the runs kept out of the collector's walks; the app's own cycles collected
    app.run()
    return app.return_code or 0


def layout(path_a: str, path_b: str, result: RunDiff) -> list[str]:
    la, lb = result.lengths
    lines = [f"A {path_a} ({counted(la, 'message')})", f"B {path_b} ({counted(lb, 'message')})"]
    if result.same:
        return lines + ["the runs are the same: same messages, system prompt, tools and params"]
    first = result.first_divergence
    if first is None:
        lines.append("the message lists are the same; the requests differ in what rides beside them:")
    else:
        agree = f"messages 0-{first - 1} are the same" if first > 1 else (
            "message 0 is the same" if first == 1 else "they differ from message 0")
        lines.append(f"first divergence: message {first} ({agree})")
    lines += [c.describe() for c in result.changes]
    return lines
