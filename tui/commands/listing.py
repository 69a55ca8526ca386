"""``turnscope list FILE``: the runs a file holds (index, title, messages, model calls); ``--run K``
lists run K alone (and says so when the file has no run K)."""

from __future__ import annotations

import argparse

from tui.commands.common import WIDTH, add_file_options, fit, options, out
from tui.core.safe import one_line
from tui.formats import load_runs, pick_run


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("list", help="list the runs in a file")
    add_file_options(parser)


def run(args: argparse.Namespace) -> int:
    runs = load_runs(args.file, lazy=True, **options(args))  # listed, not built (an .eval's samples)
    rows = list(enumerate(runs))
    if args.run is not None:
        rows = [(args.run, pick_run(args.file, runs, args.run))]
    out(f"{args.file}: {len(runs)} run{'s' if len(runs) != 1 else ''} ({runs[0].source.format}, "
        f"{runs[0].source.prefix} prefixes)")
    out(f"{'run':>4}  {'messages':>8}  {'calls':>5}  title")
    for k, r in rows:
        messages, calls = r.sizes()  # a run built on demand (an .eval sample) is not built to be listed
        row = f"{k:>4}  {messages:>8}  {calls:>5}  "
        out(row + fit(one_line(r.title()), WIDTH - len(row)))
    return 0
