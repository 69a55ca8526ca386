"""``turnscope convert FILE [-o OUT] [--redact]``: write runs in the native format (stdout without ``-o``).

The native file loads back into the same run without loss. ``-o`` writes atomically and
refuses to overwrite the input file. ``--redact`` replaces each credential found in the run's
text (see ``turnscope check``) with ``⟨redacted: KIND⟩``; signatures, redacted thinking and
ids are kept byte-exact.
"""

from __future__ import annotations

import argparse
import os

from tui.commands.common import add_file_options, out, runs_from_args, write_bytes
from tui.core import jsonio, native
from tui.core.errors import UsageError
from tui.core.safe import one_line


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("convert", help="convert a run file to the native turnscope format")
    add_file_options(parser)
    parser.add_argument("-o", "--output", metavar="OUT", help="write here (atomically) instead of stdout")
    parser.add_argument("--redact", action="store_true",
                        help="replace each credential found in the run's text with ⟨redacted: KIND⟩")


def run(args: argparse.Namespace) -> int:
    runs = runs_from_args(args, args.file)
    redacted = 0
    if args.redact:
        from tui.core.secrets import redact_run

        done = [redact_run(r) for r in runs]
        runs, redacted = [r for r, _ in done], sum(n for _, n in done)
    data = native.dumps(runs)
    if args.output is None:
        write_bytes(data)
        return 0
    if os.path.exists(args.output) and os.path.samefile(args.output, args.file):
        raise UsageError(f"{args.output}: refusing to overwrite the input file")
    try:
        jsonio.atomic_write(args.output, data + b"\n")
    except OSError as exc:
        raise UsageError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    note = f", {redacted} secret{'s' if redacted != 1 else ''} redacted" if args.redact else ""
    out(f"wrote {one_line(args.output)} ({len(runs)} run{'s' if len(runs) != 1 else ''}{note})")
    return 0
