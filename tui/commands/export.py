"""``turnscope export FILE [--at N] [--format html|md] [-o OUT] [--redact]``: a run as a document for a review.

One self-contained HTML page (no network, no script needed to read it, one file) or Markdown:
the header (file, format, exact or reconstructed, token figures), each message with its index,
producer and blocks as the stepper shows them, the findings beside their messages, the request
at N with ``--at`` (system prompt and tools included), and for a branch file its lineage and the
side-by-side with its parent. Run text stays inert: escaped, hidden text made visible.
When the run holds secrets, ``--redact`` is required (each becomes ``⟨redacted: KIND⟩``); without
it the export is refused with exit 2 and the list of what was found (kinds and places only).
``-o`` defaults to the run file's name with ``.html`` or ``.md`` in the current directory; the
file is written atomically and never over the input.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tui.commands.common import open_from_args, out
from tui.core.trouble import say
from tui.commands.helptext import HelpFormatter
from tui.core import jsonio
from tui.core.errors import UsageError
from tui.core.export import FORMATS, HTML, SecretsFound, default_output, export_bytes
from tui.core.run import Run
from tui.core.safe import one_line
from tui.formats import format_names
from tui.formats.lineage import parent_of


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("export", help="export a run as one HTML page or Markdown, for a review",
                            description=__doc__.split("\n\n", 1)[1], formatter_class=HelpFormatter)
    # The shared file options, less --format: here it names the document's format (the loader's is --input-format).
    parser.add_argument("file", metavar="FILE", help="a run file")
    parser.add_argument("--run", type=int, metavar="K", help="which run of a file that holds several (0-based)")
    parser.add_argument("--system", metavar="F", help="system prompt file (text, or JSON string/blocks)")
    parser.add_argument("--tools", metavar="F", help="tool schemas file (JSON list, or an object with tools)")
    parser.add_argument("--input-format", dest="format", metavar="NAME", choices=format_names(),
                        help="force the run file's format: " + ", ".join(format_names()))
    parser.add_argument("--at", type=int, default=None, metavar="N", help="include the request that produced message N")
    parser.add_argument("--format", dest="doc_format", choices=FORMATS, default=HTML, metavar="html|md",
                        help="html (default) or md")
    parser.add_argument("-o", "--output", metavar="OUT", help="where to write (default: FILE's name .html/.md here)")
    parser.add_argument("--redact", action="store_true",
                        help="replace each credential found with ⟨redacted: KIND⟩ (required when there are any)")


def run(args: argparse.Namespace) -> int:
    r = open_from_args(args)
    fmt = args.doc_format
    target = args.output or default_output(args.file, fmt)
    if os.path.exists(target) and os.path.samefile(target, args.file):
        raise UsageError(f"{target}: refusing to overwrite the input file")
    try:
        data, places = export_bytes(r, fmt, at=args.at, redact=args.redact, parent=parent_of(r))
    except SecretsFound as exc:
        say(f"{args.file}: {exc}")
        for place in exc.places:
            say(f"  {place}")
        return 2
    try:
        jsonio.atomic_write(target, data)
    except OSError as exc:
        raise UsageError(f"{target}: cannot write: {exc.strerror or exc}") from None
    note = f", {len(places)} secret{'s' if len(places) != 1 else ''} redacted" if places else ""
    out(f"wrote {one_line(target)} ({fmt}, {len(r.messages)} messages{note})")
    return 0
