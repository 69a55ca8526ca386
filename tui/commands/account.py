"""``turnscope account FILE [--at N] [--json]``: the four sentences for each message (or message N).

What it is, who produced it, what was visible when it was produced or acted on (and, for a
model turn with tool calls, where the values it sent came from), and why control moved —
every claim tied to an index. The same text the stepper's Account view shows.
"""

from __future__ import annotations

import argparse

from tui.commands.common import add_file_options, open_from_args, out, write_bytes
from tui.commands.helptext import HelpFormatter
from tui.core import jsonio
from tui.core.account import account
from tui.core.errors import UsageError
from tui.core.prefix import check_index
from tui.core.producers import producers
from tui.core.provenance import Provenance
from tui.core.safe import one_line
from tui.core.words import counted


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("account", help="the four-sentence account of each message",
                            description=__doc__.split("\n\n", 1)[1], formatter_class=HelpFormatter)
    add_file_options(parser)
    parser.add_argument("--at", type=int, default=None, metavar="N", help="only message N")
    parser.add_argument("--json", action="store_true", help='one {"index", "sentences"} object per line')


def run(args: argparse.Namespace) -> int:
    r = open_from_args(args)
    if args.at is not None:
        n = check_index(r, args.at)
        if n == len(r.messages):
            raise UsageError(f"message {n} does not exist yet: the run has {counted(n, 'message')} (0..{n - 1})")
        indices = [n]
    else:
        indices = list(range(len(r.messages)))
    table, provenance = producers(r), Provenance(r)
    for k, i in enumerate(indices):
        sentences = account(r, i, table, provenance)
        if args.json:
            write_bytes(jsonio.dumps({"index": i, "sentences": sentences}))
            continue
        if k:
            out()
        out(f"[{i}] {one_line(sentences[0])}")
        for sentence in sentences[1:]:
            out(f"    {one_line(sentence)}")
    return 0
