"""``turnscope list FILE``: the runs a file holds (index, title, messages, model calls)."""

from __future__ import annotations

import argparse

from tui.commands.common import add_file_options, options, out
from tui.core.safe import one_line
from tui.formats import load_runs


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("list", help="list the runs in a file")
    add_file_options(parser)


def run(args: argparse.Namespace) -> int:
    runs = load_runs(args.file, **options(args))
    out(f"{args.file}: {len(runs)} run{'s' if len(runs) != 1 else ''} ({runs[0].source.format}, "
        f"{runs[0].source.prefix} prefixes)")
    out(f"{'run':>4}  {'messages':>8}  {'calls':>5}  title")
    for k, r in enumerate(runs):
        out(f"{k:>4}  {len(r.messages):>8}  {len(r.calls):>5}  {one_line(r.title())[:80]}")
    return 0
